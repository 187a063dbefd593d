#include "cli/sattach/sattach_options.h"

#include <gtest/gtest.h>

namespace skiff::cli {
namespace {

SattachParse Parse(std::vector<std::string> args) {
  args.insert(args.begin(), "sattach");
  return ParseSattachArgs(args);
}

TEST(ParseSattachArgs, TakesTheStepAndTheOptions) {
  SattachParse p = Parse({"-l", "--output-filter=2", "--input-filter", "1", "12.3"});
  ASSERT_TRUE(p.args) << (p.errors.empty() ? "" : p.errors[0]);
  EXPECT_EQ(p.args->job_id, 12u);
  EXPECT_EQ(p.args->step_id, 3u);
  EXPECT_TRUE(p.args->label);
  EXPECT_EQ(p.args->output_filter, 2);
  EXPECT_EQ(p.args->error_filter, 2);  // follows the output filter, as in Slurm
  EXPECT_EQ(p.args->input_filter, 1);
}

TEST(ParseSattachArgs, AnErrorFilterOfItsOwnAndADashForEveryTask) {
  SattachParse p = Parse({"--output-filter=0", "--error-filter=1", "--input-filter=-", "5.0"});
  ASSERT_TRUE(p.args);
  EXPECT_EQ(p.args->output_filter, 0);
  EXPECT_EQ(p.args->error_filter, 1);
  EXPECT_FALSE(p.args->input_filter);
  EXPECT_TRUE(p.args->input_filter_set);
}

TEST(ParseSattachArgs, RefusesWithSlurmsWords) {
  EXPECT_EQ(
      Parse({"12"}).errors,
      std::vector<std::string>{"sattach: error: Failed to parse stepid from command line options"});
  EXPECT_TRUE(Parse({"12"}).print_usage);
  EXPECT_EQ(Parse({}).errors, std::vector<std::string>{"sattach: error: too many parameters"});
  EXPECT_EQ(Parse({"1.0", "2.0"}).errors,
            std::vector<std::string>{"sattach: error: too many parameters"});
  EXPECT_EQ(
      Parse({"--output-filter=x", "1.0"}).errors,
      std::vector<std::string>{"sattach: error: Invalid numeric value \"x\" for output-filter."});
  EXPECT_EQ(Parse({"-v", "-Q", "1.0"}).errors,
            std::vector<std::string>{
                "sattach: error: don't specify both --verbose (-v) and --quiet (-Q)"});
  EXPECT_EQ(Parse({"--pty", "--input-filter=0", "1.0"}).errors,
            std::vector<std::string>{"sattach: error: don't specify both --pty and I/O filtering"});
  EXPECT_EQ(Parse({"--bogus", "1.0"}).errors,
            (std::vector<std::string>{"sattach: unrecognized option '--bogus'",
                                      "Try \"sattach --help\" for more information"}));
  EXPECT_EQ(Parse({"-x", "1.0"}).errors,
            (std::vector<std::string>{"sattach: invalid option -- 'x'",
                                      "Try \"sattach --help\" for more information"}));
  EXPECT_EQ(Parse({"1.0", "--input-filter"}).errors.size(), 1u);  // '+': options stop at the step
}

TEST(ParseSattachArgs, HelpUsageAndVersionEndParsing) {
  EXPECT_TRUE(Parse({"--help", "junk"}).args->help);
  EXPECT_TRUE(Parse({"-u"}).args->usage);
  EXPECT_TRUE(Parse({"-V"}).args->version);
}

TEST(SattachLayout, PrintsSlurmsLayout) {
  v1::StepOutput layout;
  auto* a = layout.add_placement();
  a->set_node("n1");
  a->add_task_ids(0);
  a->add_task_ids(1);
  auto* b = layout.add_placement();
  b->set_node("n2");
  b->add_task_ids(2);
  EXPECT_EQ(StepTaskCount(layout), 3);
  EXPECT_EQ(SattachLayout(layout),
            "Job step layout:\n"
            "\t3 tasks, 2 nodes (n[1-2])\n\n"
            "\tNode 0 (n1), 2 task(s): 0 1 \n"
            "\tNode 1 (n2), 1 task(s): 2 \n");
}

TEST(SattachErrorExit, SlurmExitErrorOrOne) {
  std::string warning;
  EXPECT_EQ(SattachErrorExit(nullptr, &warning), 1);
  EXPECT_EQ(SattachErrorExit("7", &warning), 7);
  EXPECT_TRUE(warning.empty());
  EXPECT_EQ(SattachErrorExit("0", &warning), 1);
  EXPECT_EQ(warning, "sattach: error: SLURM_EXIT_ERROR has zero value");
}

}  // namespace
}  // namespace skiff::cli
