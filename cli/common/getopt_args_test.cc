#include "cli/common/getopt_args.h"

#include <gtest/gtest.h>

#include <CLI/CLI.hpp>

namespace skiff::cli {
namespace {

// An option table shaped like sinfo's: flags, options with values, two names
// sharing a prefix.
struct SinfoLike {
  SinfoLike() {
    app.set_help_flag("--help");
    app.add_flag("-l,--long", long_format);
    app.add_flag("-N,--Node", node);
    app.add_flag("-h,--noheader", no_header);
    app.add_option("-o,--format", format);
    app.add_option("-p,--partition", partition);
    app.add_flag("--noconvert", no_convert);
    app.add_option("--json", json)->expected(0, 1);
  }
  absl::StatusOr<std::vector<std::string>> Normalize(std::vector<std::string> args,
                                                     GetoptOrder order = GetoptOrder::kPermute) {
    return NormalizeGetoptArgs(args, app, order);
  }
  CLI::App app;
  bool long_format = false, node = false, no_header = false, no_convert = false;
  std::string format, partition, json;
};

TEST(GetoptArgs, ShortFlagsGroupAndAValueAttachesOrFollows) {
  SinfoLike t;
  EXPECT_EQ(*t.Normalize({"-lN", "-o%N %t", "-p", "gpu"}),
            (std::vector<std::string>{"--long", "--Node", "--format=%N %t", "--partition=gpu"}));
  EXPECT_EQ(*t.Normalize({"-lo", "%N"}), (std::vector<std::string>{"--long", "--format=%N"}));
}

TEST(GetoptArgs, AValueMayStartWithADashAndMayBeEmpty) {
  SinfoLike t;
  EXPECT_EQ(*t.Normalize({"-o", "-x", "--partition="}),
            (std::vector<std::string>{"--format=-x", "--partition", ""}));
}

TEST(GetoptArgs, LongOptionsAbbreviateToAUniquePrefix) {
  SinfoLike t;
  EXPECT_EQ(*t.Normalize({"--part=gpu", "--lo"}),
            (std::vector<std::string>{"--partition=gpu", "--long"}));
}

// glibc lists the candidates in its option table's order (here the order of
// declaration), and quotes the argument as typed, "=value" included.
TEST(GetoptArgs, AmbiguousPrefixesListCandidatesInTableOrder) {
  SinfoLike t;
  absl::StatusOr<std::vector<std::string>> ambiguous = t.Normalize({"--no"});
  ASSERT_FALSE(ambiguous.ok());
  EXPECT_EQ(ambiguous.status().message(),
            "option '--no' is ambiguous; possibilities: '--noheader' '--noconvert'");
  EXPECT_EQ(t.Normalize({"--no=1"}).status().message(),
            "option '--no=1' is ambiguous; possibilities: '--noheader' '--noconvert'");
}

// A command whose declarations follow another order than its Slurm table's
// gives that order, and the candidates follow it.
TEST(GetoptArgs, ATableOrderOverridesTheDeclarationOrder) {
  CLI::App app;
  std::string nodes;
  app.add_option("--nodes", nodes);
  app.add_flag("--no-requeue");
  app.add_flag("--no-kill");
  EXPECT_EQ(NormalizeGetoptArgs({"--no"}, app, GetoptOrder::kPermute,
                                {"no-kill", "no-requeue", "nodefile", "nodes"})
                .status()
                .message(),
            "option '--no' is ambiguous; possibilities: '--no-kill' '--no-requeue' '--nodes'");
}

// As glibc: a later name is a candidate only when it is another option than
// the first one matched, so two names of one option are not ambiguous, and the
// listing leaves out the first option's other names.
TEST(GetoptArgs, NamesOfOneOptionAreNotAmbiguous) {
  CLI::App app;
  std::string nodes;
  app.add_option("--nodes", nodes);
  app.add_flag("--noheader,--no-header");
  app.add_flag("--node");
  EXPECT_EQ(*NormalizeGetoptArgs({"--noh"}, app, GetoptOrder::kPermute),
            std::vector<std::string>{"--noheader"});
  EXPECT_EQ(*NormalizeGetoptArgs({"--no-"}, app, GetoptOrder::kPermute),
            std::vector<std::string>{"--noheader"});
  EXPECT_EQ(NormalizeGetoptArgs({"--nod"}, app, GetoptOrder::kPermute).status().message(),
            "option '--nod' is ambiguous; possibilities: '--nodes' '--node'");
  CLI::App header_first;
  header_first.add_flag("--noheader,--no-header");
  header_first.add_option("--nodes", nodes);
  EXPECT_EQ(NormalizeGetoptArgs({"--no"}, header_first, GetoptOrder::kPermute).status().message(),
            "option '--no' is ambiguous; possibilities: '--noheader' '--nodes'");
}

TEST(GetoptArgs, RefusesInGlibcsWords) {
  SinfoLike t;
  EXPECT_EQ(t.Normalize({"--foo"}).status().message(), "unrecognized option '--foo'");
  // glibc quotes an unknown long option whole, its value included.
  EXPECT_EQ(t.Normalize({"--foo=1"}).status().message(), "unrecognized option '--foo=1'");
  EXPECT_EQ(t.Normalize({"--nodez=n1"}).status().message(), "unrecognized option '--nodez=n1'");
  EXPECT_EQ(t.Normalize({"-lz"}).status().message(), "invalid option -- 'z'");
  EXPECT_EQ(t.Normalize({"-o"}).status().message(), "option requires an argument -- 'o'");
  EXPECT_EQ(t.Normalize({"--format"}).status().message(), "option '--format' requires an argument");
  EXPECT_EQ(t.Normalize({"--long=yes"}).status().message(),
            "option '--long' doesn't allow an argument");
}

// glibc names the option as the matched entry of its table spells it.
TEST(GetoptArgs, MessagesNameTheOptionAsItsMatchedNameSpellsIt) {
  CLI::App app;
  std::string cluster;
  app.add_option("-M,--clusters,--cluster", cluster);
  app.add_flag("--noheader,--no-header");
  EXPECT_EQ(NormalizeGetoptArgs({"--cluster"}, app, GetoptOrder::kPermute).status().message(),
            "option '--cluster' requires an argument");
  EXPECT_EQ(NormalizeGetoptArgs({"--clu"}, app, GetoptOrder::kPermute).status().message(),
            "option '--clusters' requires an argument");
  EXPECT_EQ(NormalizeGetoptArgs({"--no-h=1"}, app, GetoptOrder::kPermute).status().message(),
            "option '--no-header' doesn't allow an argument");
}

TEST(GetoptArgs, OptionalValuesOnlyWithEqualsOrAttached) {
  SinfoLike t;
  EXPECT_EQ(*t.Normalize({"--json", "x"}), (std::vector<std::string>{"--json", "--", "x"}));
  EXPECT_EQ(*t.Normalize({"--json=v0.0.38"}), (std::vector<std::string>{"--json=v0.0.38"}));
}

TEST(GetoptArgs, OperandsMoveBehindTheOptionsUnlessOrderStopsThere) {
  SinfoLike t;
  EXPECT_EQ(*t.Normalize({"show", "-l", "job", "--", "-N"}),
            (std::vector<std::string>{"--long", "--", "show", "job", "-N"}));
  EXPECT_EQ(*t.Normalize({"-l", "script.sh", "-N"}, GetoptOrder::kStopAtOperand),
            (std::vector<std::string>{"--long", "--", "script.sh", "-N"}));
}

TEST(GetoptArgs, ParseTakesTheLastOfARepeatedOptionAndKeepsOperands) {
  SinfoLike t;
  const char* argv[] = {"sinfo", "-p", "a", "x", "-p", "b", "-l"};
  std::vector<std::string> operands;
  EXPECT_EQ(ParseGetoptCommandLine(t.app, "sinfo", 7, argv, &operands), -1);
  EXPECT_EQ(t.partition, "b");
  EXPECT_TRUE(t.long_format);
  EXPECT_EQ(operands, std::vector<std::string>{"x"});
}

// A CLI11 flag with a default value is getopt's optional_argument: its value
// comes only with "=" (or attached to a short name).
TEST(GetoptArgs, FlagsWithADefaultValueTakeOneOnlyWithEquals) {
  CLI::App app;
  std::string exclusive;
  app.add_flag("--exclusive{exclusive}", exclusive);
  app.add_flag("-H,--hold");
  EXPECT_EQ(*NormalizeGetoptArgs({"--excl=user", "--exclusive", "x"}, app, GetoptOrder::kPermute),
            (std::vector<std::string>{"--exclusive=user", "--exclusive", "--", "x"}));
  EXPECT_EQ(*NormalizeGetoptArgs({"--exclusive="}, app, GetoptOrder::kPermute),
            std::vector<std::string>{"--exclusive="});
  const char* argv[] = {"x", "--exclusive=mcs"};
  ASSERT_EQ(ParseGetoptCommandLine(app, "x", 2, argv), -1);
  EXPECT_EQ(exclusive, "mcs");
}

// TakeLast is for options with a value; a counting flag keeps its own policy,
// so "-vv", "-v -v" and "--verbose -v" count every occurrence.
TEST(GetoptArgs, RepeatedCountingFlagsCountEveryOccurrence) {
  for (std::vector<const char*> argv : std::vector<std::vector<const char*>>{
           {"x", "-vv"}, {"x", "-v", "-v"}, {"x", "--verbose", "-v"}, {"x", "-v", "--verb"}}) {
    CLI::App app;
    int verbose = 0;
    std::string format;
    app.add_flag("-v,--verbose", verbose);
    app.add_option("-o,--format", format);
    ASSERT_EQ(ParseGetoptCommandLine(app, "x", static_cast<int>(argv.size()), argv.data()), -1);
    EXPECT_EQ(verbose, 2) << argv[1];
  }
  CLI::App app;
  app.add_flag("-d,--details");
  const char* argv[] = {"x", "-dd", "-d"};
  ASSERT_EQ(ParseGetoptCommandLine(app, "x", 3, argv), -1);
  EXPECT_EQ(app.count("--details"), 3u);
  EXPECT_EQ(app.parse_order().size(), 3u);
}

TEST(GetoptArgs, ParseFailsWithSlurmsTwoLinesAndExitOne) {
  SinfoLike t;
  const char* argv[] = {"sinfo", "--foo"};
  testing::internal::CaptureStderr();
  EXPECT_EQ(ParseGetoptCommandLine(t.app, "sinfo", 2, argv), 1);
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "sinfo: unrecognized option '--foo'\nTry \"sinfo --help\" for more information\n");
}

}  // namespace
}  // namespace skiff::cli
