// The example configuration files in etc/ parse cleanly, without warnings.
#include <gtest/gtest.h>

#include <string>

#include "common/config/config_loader.h"

namespace skiff {
namespace {

std::string EtcPath(const std::string& name) {
  return std::string(getenv("TEST_SRCDIR")) + "/" + getenv("TEST_WORKSPACE") + "/etc/" + name;
}

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

}  // namespace
}  // namespace skiff
