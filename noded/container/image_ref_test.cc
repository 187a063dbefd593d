#include "noded/container/image_ref.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"

namespace skiff::noded {
namespace {

TEST(ParseImageRef, PathsAreTheNodesFiles) {
  for (const char* path : {"/srv/images/alpine", "./alpine.tar", "../oci/alpine"}) {
    absl::StatusOr<ImageRef> ref = ParseImageRef(path);
    ASSERT_TRUE(ref.ok()) << path;
    EXPECT_TRUE(ref->is_path);
    EXPECT_EQ(ref->path, path);
  }
}

TEST(ParseImageRef, RegistryReferencesAsPyxisWritesThem) {
  absl::StatusOr<ImageRef> ref = ParseImageRef("ubuntu");
  ASSERT_TRUE(ref.ok());
  EXPECT_FALSE(ref->is_path);
  EXPECT_EQ(ref->registry, "");
  EXPECT_EQ(ref->repository, "library/ubuntu");
  EXPECT_EQ(ref->tag, "latest");

  ref = ParseImageRef("nvcr.io#nvidia/pytorch:23.10-py3");
  ASSERT_TRUE(ref.ok());
  EXPECT_EQ(ref->registry, "nvcr.io");
  EXPECT_EQ(ref->repository, "nvidia/pytorch");
  EXPECT_EQ(ref->tag, "23.10-py3");

  ref = ParseImageRef("alice@registry.lab:5000#team/train:v2");
  ASSERT_TRUE(ref.ok());
  EXPECT_EQ(ref->user, "alice");
  EXPECT_EQ(ref->registry, "registry.lab:5000");
  EXPECT_EQ(ref->repository, "team/train");

  const std::string digest = "sha256:" + std::string(64, 'a');
  ref = ParseImageRef("alpine@" + digest);
  ASSERT_TRUE(ref.ok()) << ref.status();
  EXPECT_EQ(ref->digest, digest);
  EXPECT_EQ(ref->tag, "");
}

TEST(ParseImageRef, BadReferencesSayWhatIsWrong) {
  EXPECT_TRUE(absl::StrContains(ParseImageRef("").status().message(), "empty image"));
  EXPECT_TRUE(
      absl::StrContains(ParseImageRef("Ubuntu").status().message(), "invalid image name: Ubuntu"));
  EXPECT_TRUE(absl::StrContains(ParseImageRef("#ubuntu").status().message(), "empty registry"));
  EXPECT_TRUE(absl::StrContains(ParseImageRef("ubuntu:b@d").status().message(), "digest"));
  EXPECT_TRUE(absl::StrContains(ParseImageRef("ubuntu:-x").status().message(), "invalid tag"));
}

TEST(SkopeoSource, GoesThroughTheMirrorWhenTheNodeHasOne) {
  const ImageRef ref = *ParseImageRef("nvcr.io#nvidia/pytorch:23.10-py3");
  EXPECT_EQ(SkopeoSource(ref, ""), "docker://nvcr.io/nvidia/pytorch:23.10-py3");
  EXPECT_EQ(SkopeoSource(ref, "mirror.lab:5000"),
            "docker://mirror.lab:5000/nvidia/pytorch:23.10-py3");
  EXPECT_EQ(SkopeoSource(*ParseImageRef("ubuntu"), ""), "docker://docker.io/library/ubuntu:latest");
}

TEST(PlanEviction, LeastRecentlyUsedFirstNeverWhatIsInUse) {
  const std::vector<CachedImage> cache = {
      {"a", 40, 300, false}, {"b", 30, 100, true}, {"c", 20, 200, false}, {"d", 10, 400, false}};
  EvictionPlan plan = PlanEviction(cache, 0, 100);
  EXPECT_TRUE(plan.evict.empty());
  EXPECT_TRUE(plan.fits);
  plan = PlanEviction(cache, 15, 100);  // 115: c (oldest not in use) goes
  EXPECT_EQ(plan.evict, (std::vector<std::string>{"c"}));
  EXPECT_TRUE(plan.fits);
  plan = PlanEviction(cache, 50, 100);  // 150: c, then a
  EXPECT_EQ(plan.evict, (std::vector<std::string>{"c", "a"}));
  EXPECT_TRUE(plan.fits);
  plan = PlanEviction(cache, 80, 100);  // b is in use: even c, a, d are not enough
  EXPECT_EQ(plan.evict, (std::vector<std::string>{"c", "a", "d"}));
  EXPECT_FALSE(plan.fits);
}

}  // namespace
}  // namespace skiff::noded
