// The example configuration files in etc/, and the cgroup.conf the Debian
// package installs, parse cleanly, without warnings.
#include <gtest/gtest.h>

#include <string>

#include "common/config/config_loader.h"

namespace skiff {
namespace {

std::string SourcePath(const std::string& rel) {
  return std::string(getenv("TEST_SRCDIR")) + "/" + getenv("TEST_WORKSPACE") + "/" + rel;
}

std::string EtcPath(const std::string& name) { return SourcePath("etc/" + name); }

TEST(Examples, SkiffConfParsesWithoutWarnings) {
  absl::StatusOr<LoadedConfig> loaded = LoadConfig(EtcPath("skiff.conf"));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE(loaded->skiff.warnings.empty()) << loaded->skiff.warnings.front();
  EXPECT_EQ(loaded->skiff.nodes.size(), 6u);
  ASSERT_NE(loaded->skiff.DefaultPartition(), nullptr);
  EXPECT_EQ(loaded->skiff.DefaultPartition()->name, "cpu");
  EXPECT_EQ(loaded->gres.ForNode("gpu03").size(), 1u);
  EXPECT_EQ(loaded->gres.ForNode("gpu03")[0].files.size(), 4u);
  ASSERT_TRUE(loaded->burst_buffer.has_value());
  EXPECT_TRUE(loaded->burst_buffer->HasFlag("TeardownFailure"));
}

TEST(Examples, PackagedCgroupConfParsesWithoutWarnings) {
  const std::string path = SourcePath("packaging/debian/etc/cgroup.conf");
  absl::StatusOr<std::string> text = ReadFileToString(path);
  ASSERT_TRUE(text.ok()) << text.status();
  absl::StatusOr<CgroupConfig> cgroup =
      ParseCgroupConfig(*text, path, [](const std::string& include) {
        return absl::StatusOr<std::string>(absl::NotFoundError(include));
      });
  ASSERT_TRUE(cgroup.ok()) << cgroup.status();
  EXPECT_TRUE(cgroup->warnings.empty()) << cgroup->warnings.front();
  EXPECT_EQ(cgroup->plugin, "autodetect");
  EXPECT_TRUE(cgroup->constrain_cores);
  EXPECT_TRUE(cgroup->constrain_ram_space);
  EXPECT_TRUE(cgroup->constrain_devices);
}

}  // namespace
}  // namespace skiff
