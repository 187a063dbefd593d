#include "noded/container/image_bundle.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "nlohmann/json.hpp"

namespace skiff::noded {
namespace {

using Json = nlohmann::json;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kImageConfig[] = R"({
  "architecture": "amd64", "os": "linux",
  "config": {"Env": ["PATH=/opt/conda/bin:/usr/bin:/bin", "CUDA_VERSION=12.2", "LANG=C.UTF-8"],
             "WorkingDir": "/workspace"},
  "rootfs": {"type": "layers", "diff_ids": []}
})";

ImageBundleOptions Options() {
  ImageBundleOptions options;
  options.uid = 1001;
  options.gid = 1002;
  options.hostname = "gpu3";
  options.rootfs = "/var/spool/skiff/d/containers/job7/batch/rootfs";
  options.cwd = "/home/alice/run";
  options.user_helper = "/usr/libexec/skiff/skiff-container-user";
  return options;
}

const Json* MountAt(const Json& config, const std::string& destination) {
  for (const Json& mount : config["mounts"]) {
    if (mount["destination"] == destination) return &mount;
  }
  return nullptr;
}

TEST(ParseContainerMountTest, PyxisSyntax) {
  absl::StatusOr<ContainerMount> both = ParseContainerMount("/data:/mnt/data:ro+nosuid", "/w");
  ASSERT_TRUE(both.ok()) << both.status();
  EXPECT_EQ(both->source, "/data");
  EXPECT_EQ(both->target, "/mnt/data");
  EXPECT_THAT(both->options, ElementsAre("ro", "nosuid"));

  absl::StatusOr<ContainerMount> same = ParseContainerMount("/scratch", "/w");
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->target, "/scratch");

  absl::StatusOr<ContainerMount> relative = ParseContainerMount("./in:/in", "/home/a/run");
  ASSERT_TRUE(relative.ok());
  EXPECT_EQ(relative->source, "/home/a/run/in");

  // enroot's own flags mean nothing to the runtime.
  absl::StatusOr<ContainerMount> enroot = ParseContainerMount("/d:/d:x-create=dir+rw", "/w");
  ASSERT_TRUE(enroot.ok());
  EXPECT_THAT(enroot->options, ElementsAre("rw"));

  absl::StatusOr<ContainerMount> tmpfs = ParseContainerMount("tmpfs:/scratch", "/w");
  ASSERT_TRUE(tmpfs.ok());
  EXPECT_TRUE(tmpfs->tmpfs());

  absl::StatusOr<ContainerMount> bad = ParseContainerMount("data:/d", "/w");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("--container-mounts"));
}

TEST(ImageBundleConfigTest, RootlessUserNamespaceWithTheImagesEnvironment) {
  absl::StatusOr<std::string> text = ImageBundleConfig(kImageConfig, Options());
  ASSERT_TRUE(text.ok()) << text.status();
  const Json config = Json::parse(*text);
  EXPECT_EQ(config["root"]["path"], "/var/spool/skiff/d/containers/job7/batch/rootfs");
  EXPECT_EQ(config["root"]["readonly"], false);
  EXPECT_EQ(config["hostname"], "gpu3");
  EXPECT_EQ(config["process"]["cwd"], "/home/alice/run");
  EXPECT_EQ(config["process"]["noNewPrivileges"], true);
  EXPECT_EQ(config["process"]["user"]["uid"], 0);
  // The user, and only the user, is root inside.
  EXPECT_EQ(config["linux"]["uidMappings"],
            Json::parse(R"([{"containerID":0,"hostID":1001,"size":1}])"));
  EXPECT_EQ(config["linux"]["gidMappings"],
            Json::parse(R"([{"containerID":0,"hostID":1002,"size":1}])"));
  std::vector<std::string> namespaces;
  for (const Json& ns : config["linux"]["namespaces"]) namespaces.push_back(ns["type"]);
  EXPECT_THAT(namespaces, Contains("user"));
  EXPECT_THAT(namespaces, Not(Contains("network")));  // the host's, for MPI and NCCL
  EXPECT_THAT(config["process"]["env"], ElementsAre("PATH=/opt/conda/bin:/usr/bin:/bin",
                                                    "CUDA_VERSION=12.2", "LANG=C.UTF-8"));
  const Json* helper = MountAt(config, kContainerUserHelper);
  ASSERT_NE(helper, nullptr);
  EXPECT_EQ((*helper)["source"], "/usr/libexec/skiff/skiff-container-user");
  EXPECT_THAT((*helper)["options"], Contains("ro"));
  const Json* shm = MountAt(config, "/dev/shm");
  ASSERT_NE(shm, nullptr);
  EXPECT_THAT((*shm)["options"], Contains("size=67108864"));
}

TEST(ImageBundleConfigTest, HostEnvironmentNamesAndMounts) {
  ImageBundleOptions options = Options();
  options.host_env_names = {"PATH", "LANG"};
  options.shm_bytes = uint64_t{8} << 30;
  options.mounts = {{"/home/alice", "/home/alice", {}},
                    {"/datasets", "/data", {"ro"}},
                    {"tmpfs", "/scratch", {}}};
  const Json config = Json::parse(*ImageBundleConfig(kImageConfig, options));
  // PATH and LANG are left to the task's environment (the host's values).
  EXPECT_THAT(config["process"]["env"], ElementsAre("CUDA_VERSION=12.2"));
  const Json* data = MountAt(config, "/data");
  ASSERT_NE(data, nullptr);
  EXPECT_EQ((*data)["source"], "/datasets");
  EXPECT_THAT((*data)["options"], Contains("ro"));
  EXPECT_THAT((*data)["options"], Contains("nosuid"));
  const Json* scratch = MountAt(config, "/scratch");
  ASSERT_NE(scratch, nullptr);
  EXPECT_EQ((*scratch)["type"], "tmpfs");
  ASSERT_NE(MountAt(config, "/home/alice"), nullptr);
  EXPECT_THAT((*MountAt(config, "/dev/shm"))["options"], Contains("size=8589934592"));
}

TEST(ImageBundleConfigTest, TheHostsNvidiaDriverWhereCudaImagesLook) {
  ImageBundleOptions options = Options();
  options.driver_files = {"/usr/lib/x86_64-linux-gnu/libcuda.so.535.104.05",
                          "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1", "/usr/bin/nvidia-smi"};
  const Json config = Json::parse(*ImageBundleConfig(R"({"config": {}})", options));
  const Json* cuda = MountAt(config, "/usr/local/nvidia/lib64/libcuda.so.535.104.05");
  ASSERT_NE(cuda, nullptr);
  EXPECT_THAT((*cuda)["options"], Contains("ro"));
  ASSERT_NE(MountAt(config, "/usr/local/nvidia/lib64/libnvidia-ml.so.1"), nullptr);
  ASSERT_NE(MountAt(config, "/usr/local/nvidia/bin/nvidia-smi"), nullptr);
  EXPECT_THAT(config["process"]["env"], Contains("LD_LIBRARY_PATH=/usr/local/nvidia/lib64"));
  // An image's own LD_LIBRARY_PATH (NVIDIA's name /usr/local/nvidia/lib64) stays.
  const Json cuda_image = Json::parse(*ImageBundleConfig(
      R"({"config": {"Env": ["LD_LIBRARY_PATH=/usr/local/nvidia/lib:/usr/local/nvidia/lib64"]}})",
      options));
  EXPECT_THAT(cuda_image["process"]["env"],
              Contains("LD_LIBRARY_PATH=/usr/local/nvidia/lib:/usr/local/nvidia/lib64"));
  EXPECT_THAT(cuda_image["process"]["env"],
              Not(Contains("LD_LIBRARY_PATH=/usr/local/nvidia/lib64")));
}

TEST(ImageBundleConfigTest, ImageWithoutPathGetsADefaultOne) {
  const Json config = Json::parse(*ImageBundleConfig(R"({"config": {"Env": ["A=1"]}})", Options()));
  EXPECT_THAT(
      config["process"]["env"],
      ElementsAre("A=1", "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"));
  EXPECT_FALSE(ImageBundleConfig("[1,2]", Options()).ok());
  EXPECT_FALSE(ImageBundleConfig("not json", Options()).ok());
}

TEST(ImageBundleConfigTest, WorkingDirAndEntry) {
  EXPECT_EQ(ImageWorkingDir(kImageConfig), "/workspace");
  EXPECT_EQ(ImageWorkingDir("{}"), "");
  ImageBundleOptions options = Options();
  EXPECT_THAT(ContainerEntry(options), ElementsAre(kContainerUserHelper, "1001", "1002", "--"));
  options.remap_root = true;
  EXPECT_TRUE(ContainerEntry(options).empty());
}

}  // namespace
}  // namespace skiff::noded
