#include "cli/sinfo/sinfo_options.h"

#include <gtest/gtest.h>

namespace skiff::cli {
namespace {

SinfoCommand Resolve(const std::vector<SinfoArg>& args,
                     const std::map<std::string, std::string>& env = {}) {
  return ResolveSinfoCommand(args, env);
}

TEST(ResolveSinfoCommand, BadIterateValueIsRefusedWithSlurmsWords) {
  SinfoCommand cmd = Resolve({{"iterate", "abc"}});
  EXPECT_EQ(cmd.exit_code, 1);
  EXPECT_EQ(cmd.err, "sinfo: error: Error: invalid entry for --iterate=abc\n");
}

TEST(ResolveSinfoCommand, BadStateNamesTheStateThenListsValidOnes) {
  SinfoCommand cmd = Resolve({{"states", "idle,bogus"}});
  EXPECT_EQ(cmd.exit_code, 1);
  EXPECT_EQ(cmd.err.substr(0, cmd.err.find('\n')), "sinfo: error: Bad state string: \"bogus\"");
  EXPECT_NE(cmd.err.find("sinfo: error: valid states: unknown,down,idle,"), std::string::npos);
}

TEST(ResolveSinfoCommand, LongWithFormatIsFatal) {
  SinfoCommand cmd = Resolve({{"long", ""}, {"format", "%N"}});
  EXPECT_EQ(cmd.exit_code, 1);
  EXPECT_EQ(cmd.err,
            "sinfo: fatal: Options -o(--format) and -l(--long) are mutually exclusive. Please "
            "remove one and retry.\n");
}

TEST(ResolveSinfoCommand, AllWithPartitionConflicts) {
  EXPECT_EQ(Resolve({{"all", ""}, {"partition", "debug"}}).exit_code, 1);
}

TEST(ResolveSinfoCommand, OptionsApplyInOrderSoHelpBeforeABadValueWins) {
  SinfoCommand cmd = Resolve({{"help", ""}, {"iterate", "0"}});
  EXPECT_EQ(cmd.exit_code, 0);
  EXPECT_EQ(cmd.out, SinfoHelpText());
}

TEST(ResolveSinfoCommand, UnknownFormatLetterWarnsAndGoesOn) {
  SinfoCommand cmd = Resolve({{"format", "%N %q"}});
  EXPECT_EQ(cmd.exit_code, -1);
  EXPECT_EQ(cmd.err, "Invalid node format specification: q\n");
}

TEST(ResolveSinfoCommand, UnknownLongFieldWarnsWithSlurmsJobWording) {
  SinfoCommand cmd = Resolve({{"Format", "NodeList,Bogus"}});
  EXPECT_EQ(cmd.exit_code, -1);
  EXPECT_EQ(cmd.err, "sinfo: error: Invalid job format specification: Bogus\n");
}

TEST(ResolveSinfoCommand, ListReasonsDefaultsToDownFailDrain) {
  SinfoCommand cmd = Resolve({{"list-reasons", ""}});
  ASSERT_TRUE(cmd.view.states.has_value());
  EXPECT_EQ(cmd.view.states->states.size(), 3u);
  EXPECT_TRUE(cmd.view.list_reasons);
}

TEST(ResolveSinfoCommand, LongPrintsTheDateLineUnlessNoHeader) {
  EXPECT_TRUE(Resolve({{"long", ""}}).print_date);
  EXPECT_FALSE(Resolve({{"long", ""}, {"noheader", ""}}).print_date);
  EXPECT_TRUE(Resolve({{"iterate", "2"}}).print_date);
}

TEST(ResolveSinfoCommand, OneNodeNameLoadsThatNodeAlone) {
  EXPECT_EQ(Resolve({{"nodes", "n[2]"}}).single_node, "n2");
  EXPECT_FALSE(Resolve({{"nodes", "n[1-2]"}}).single_node.has_value());
  EXPECT_EQ(Resolve({{"nodes", "n[1-"}}).err, "sinfo: error: 'n[1-' invalid entry for --nodes\n");
}

TEST(ResolveSinfoCommand, EnvironmentPartitionAndAllConflict) {
  EXPECT_EQ(Resolve({}, {{"SINFO_ALL", "1"}, {"SINFO_PARTITION", "gpu"}}).exit_code, 1);
  EXPECT_EQ(Resolve({}, {{"SINFO_PARTITION", "gpu"}}).view.partitions,
            std::vector<std::string>{"gpu"});
}

TEST(ResolveSinfoCommand, ClustersCannotBeReachedWithoutADatabase) {
  SinfoCommand cmd = Resolve({{"cluster", "other"}});
  EXPECT_EQ(cmd.exit_code, 1);
  EXPECT_EQ(cmd.err,
            "sinfo: error: 'other' can't be reached now, or it is an invalid entry for "
            "--cluster.  Use 'sacctmgr list clusters' to see available clusters.\n");
}

}  // namespace
}  // namespace skiff::cli
