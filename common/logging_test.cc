#include "common/logging.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace skiff {
namespace {

TEST(ParseLogLevel, AcceptsSlurmLevelNames) {
  EXPECT_EQ(*ParseLogLevel("info"), spdlog::level::info);
  EXPECT_EQ(*ParseLogLevel("DEBUG"), spdlog::level::debug);
  EXPECT_EQ(*ParseLogLevel("debug3"), spdlog::level::trace);
  EXPECT_EQ(*ParseLogLevel("quiet"), spdlog::level::off);
  EXPECT_EQ(*ParseLogLevel("error"), spdlog::level::err);
}

TEST(ParseLogLevel, RejectsUnknownNameQuotingIt) {
  absl::StatusOr<spdlog::level::level_enum> level = ParseLogLevel("loud");
  ASSERT_FALSE(level.ok());
  EXPECT_NE(level.status().message().find("'loud'"), std::string_view::npos);
}

TEST(SetupLogging, WritesToFileAtOrAboveLevel) {
  const std::string path = std::string(getenv("TEST_TMPDIR")) + "/ctld.log";
  auto logger = SetupLogging("ctld", spdlog::level::info, path);
  ASSERT_TRUE(logger.ok()) << logger.status();
  (*logger)->debug("hidden JobId=1");
  (*logger)->info("shown JobId=2");
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str().find("hidden"), std::string::npos);
  EXPECT_NE(text.str().find("[ctld] [info]"), std::string::npos);
  EXPECT_NE(text.str().find("shown JobId=2"), std::string::npos);
}

TEST(SetupLogging, FailsClearlyForUnwritableFile) {
  // A regular file where a directory should be: no one can create the log there.
  const std::string blocker = std::string(getenv("TEST_TMPDIR")) + "/not_a_dir";
  std::ofstream(blocker) << "x";
  const std::string path = blocker + "/ctld.log";
  auto logger = SetupLogging("ctld", spdlog::level::info, path);
  ASSERT_FALSE(logger.ok());
  EXPECT_NE(logger.status().message().find(path), std::string_view::npos);
}

}  // namespace
}  // namespace skiff
