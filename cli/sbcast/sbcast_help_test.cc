#include "cli/sbcast/sbcast_help.h"

#include "gtest/gtest.h"

namespace skiff::cli {
namespace {

TEST(SbcastHelpTest, IsSlurmsTextWithTheIgnoredFanoutMarked) {
  const std::string help = SbcastHelp();
  EXPECT_EQ(help.rfind("Usage: sbcast [OPTIONS] SOURCE DEST\n", 0), 0u);
  EXPECT_NE(help.find("\n* -F, --fanout=num      specify message fanout\n"), std::string::npos);
  EXPECT_NE(help.find("\n  -f, --force           replace destination file as required\n"),
            std::string::npos);
  EXPECT_NE(help.find("Entries marked * are not supported by Skiff"), std::string::npos);
}

TEST(SbcastHelpTest, UsageIsSlurms) {
  EXPECT_EQ(SbcastUsage(), "Usage: sbcast [--exclude] [-CfFjpvV] [--send-libs] SOURCE DEST\n");
}

}  // namespace
}  // namespace skiff::cli
