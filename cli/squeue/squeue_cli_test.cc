#include "cli/squeue/squeue_cli.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace skiff::cli {
namespace {

TEST(ParseSqueueStates, AcceptsEverySlurmStateAndKeepsSkiffsOwn) {
  absl::StatusOr<SqueueStates> states = ParseSqueueStates("pd,R,suspended,CG");
  ASSERT_TRUE(states.ok());
  EXPECT_FALSE(states->all);
  EXPECT_EQ(states->states,
            (std::vector<v1::JobState>{v1::PENDING, v1::RUNNING, v1::SUSPENDED, v1::COMPLETING}));
  EXPECT_TRUE(ParseSqueueStates("ALL")->all);
  // "all" names finished states too: squeue -t all lists what ctld still holds.
  const std::vector<v1::JobState> all = ParseSqueueStates("all")->states;
  for (v1::JobState s : {v1::PENDING, v1::RUNNING, v1::COMPLETED, v1::FAILED, v1::CANCELLED,
                         v1::TIMEOUT, v1::OUT_OF_MEMORY, v1::DEADLINE, v1::STAGE_OUT}) {
    EXPECT_NE(std::find(all.begin(), all.end(), s), all.end()) << s;
  }
  EXPECT_EQ(std::find(all.begin(), all.end(), v1::JOB_STATE_UNSPECIFIED), all.end());
  EXPECT_TRUE(ParseSqueueStates("BF,BOOT_FAIL")->states.empty());  // valid, never in Skiff
  EXPECT_EQ(ParseSqueueStates("DL")->states, std::vector<v1::JobState>{v1::DEADLINE});
  EXPECT_EQ(ParseSqueueStates("SO")->states, std::vector<v1::JobState>{v1::STAGE_OUT});
}

TEST(ParseSqueueStates, RefusesAnUnknownStateWithSlurmsTwoLines) {
  EXPECT_EQ(ParseSqueueStates("PD,bogus").status().message(),
            "Invalid job state specified: bogus\n"
            "Valid job states include: PENDING,RUNNING,SUSPENDED,COMPLETED,CANCELLED,FAILED,"
            "TIMEOUT,NODE_FAIL,PREEMPTED,BOOT_FAIL,DEADLINE,OUT_OF_MEMORY,COMPLETING,CONFIGURING,"
            "RESIZING,RESV_DEL_HOLD,REQUEUED,REQUEUE_FED,REQUEUE_HOLD,REVOKED,SIGNALING,"
            "SPECIAL_EXIT,STAGE_OUT,STOPPED\n");
}

TEST(ParseSqueueIterate, ReadsLikeAtoiAndRefusesNonPositive) {
  EXPECT_EQ(*ParseSqueueIterate("5"), 5);
  EXPECT_EQ(*ParseSqueueIterate("7s"), 7);
  EXPECT_EQ(ParseSqueueIterate("abc").status().message(), "--iterate=abc\n");
  EXPECT_FALSE(ParseSqueueIterate("0").ok());
  EXPECT_FALSE(ParseSqueueIterate("-3").ok());
}

TEST(ParseSqueueJobs, ReadsIdsAndTasksLikeStrtol) {
  absl::StatusOr<std::vector<v1::JobRef>> refs = ParseSqueueJobs("12,15400_3,9x");
  ASSERT_TRUE(refs.ok());
  ASSERT_EQ(refs->size(), 3u);
  EXPECT_EQ((*refs)[1].job_id(), 15400u);
  EXPECT_EQ((*refs)[1].array_task_id(), 3);
  EXPECT_EQ((*refs)[2].job_id(), 9u);
  EXPECT_EQ(ParseSqueueJobs("abc").status().message(), "Invalid job id: abc");
}

TEST(CheckSqueueSteps, WantsAStepAfterTheJob) {
  EXPECT_TRUE(CheckSqueueSteps("12.0,13_2.1").ok());
  EXPECT_EQ(CheckSqueueSteps("12").message(), "Invalid job_step id: 12.??");
  EXPECT_EQ(CheckSqueueSteps("x.1").message(), "Invalid job_step id: x.1");
}

TEST(SqueueTexts, HelpAndUsageAreSlurms) {
  EXPECT_EQ(SqueueUsageText().substr(0, 40), "Usage: squeue [-A account] [--clusters n");
  EXPECT_NE(SqueueHelpText().find("  -S, --sort=fields               comma separated list of "
                                  "fields to sort on\n"),
            std::string::npos);
  EXPECT_NE(SqueueHelpText().find("\nHelp options:\n  --help "), std::string::npos);
}

TEST(SqueueVerboseText, ListsOptionsAsSlurmsPrintOptions) {
  SqueueVerboseOptions options;
  options.sort = "-p";
  options.sort_set = true;
  options.verbose = 1;
  std::string text = SqueueVerboseText(options);
  EXPECT_EQ(text.substr(0, 30), "-----------------------------\n");
  EXPECT_NE(text.find("\nsort        = -p\n"), std::string::npos);
  EXPECT_NE(text.find("\nusers       = (null)\n"), std::string::npos);
  EXPECT_EQ(text.substr(text.size() - 32), "-----------------------------\n\n\n");
}

}  // namespace
}  // namespace skiff::cli
