#include "client/job_text.h"

#include <gtest/gtest.h>

#include <csignal>

namespace skiff::client {
namespace {

TEST(JobStates, NamesAndCodesFollowSlurm) {
  EXPECT_EQ(JobStateName(v1::PENDING), "PENDING");
  EXPECT_EQ(JobStateCode(v1::PENDING), "PD");
  EXPECT_EQ(JobStateCode(v1::RUNNING), "R");
  EXPECT_EQ(JobStateCode(v1::COMPLETING), "CG");
  EXPECT_EQ(JobStateCode(v1::COMPLETED), "CD");
  EXPECT_EQ(JobStateCode(v1::FAILED), "F");
  EXPECT_EQ(JobStateCode(v1::CANCELLED), "CA");
  EXPECT_EQ(JobStateCode(v1::TIMEOUT), "TO");
  EXPECT_EQ(JobStateCode(v1::NODE_FAIL), "NF");
  EXPECT_EQ(JobStateCode(v1::OUT_OF_MEMORY), "OOM");
  EXPECT_EQ(JobStateCode(v1::PREEMPTED), "PR");
  EXPECT_EQ(JobStateCode(v1::CONFIGURING), "CF");
  EXPECT_EQ(JobStateName(v1::OUT_OF_MEMORY), "OUT_OF_MEMORY");
  EXPECT_EQ(JobStateName(v1::JOB_STATE_UNSPECIFIED), "UNKNOWN");
}

TEST(JobStates, EveryStateRoundTripsThroughNameAndCode) {
  for (v1::JobState state : AllJobStates()) {
    EXPECT_EQ(*ParseJobState(JobStateName(state)), state) << JobStateName(state);
    EXPECT_EQ(*ParseJobState(JobStateCode(state)), state) << JobStateCode(state);
  }
}

TEST(JobStates, ParseAcceptsAnyCaseAndSlurmAliases) {
  EXPECT_EQ(*ParseJobState("pd"), v1::PENDING);
  EXPECT_EQ(*ParseJobState("Running"), v1::RUNNING);
  EXPECT_EQ(*ParseJobState("complete"), v1::COMPLETED);
  EXPECT_EQ(*ParseJobState("canceled"), v1::CANCELLED);
}

TEST(JobStates, ParseRejectsUnknownNames) {
  absl::StatusOr<v1::JobState> state = ParseJobState("sleeping");
  ASSERT_FALSE(state.ok());
  EXPECT_EQ(state.status().message(), "Invalid job state specified: sleeping");
}

TEST(JobStates, ListParsesCodesAndAll) {
  EXPECT_EQ(*ParseJobStateList("PD,r,PD"), (std::vector<v1::JobState>{v1::PENDING, v1::RUNNING}));
  EXPECT_EQ(ParseJobStateList("all")->size(), AllJobStates().size());
  EXPECT_FALSE(ParseJobStateList("PD,bogus").ok());
  EXPECT_FALSE(ParseJobStateList(",").ok());
}

TEST(JobStates, ActiveStatesAreWhatSqueueShowsByDefault) {
  EXPECT_TRUE(IsActiveJobState(v1::PENDING));
  EXPECT_TRUE(IsActiveJobState(v1::RUNNING));
  EXPECT_TRUE(IsActiveJobState(v1::COMPLETING));
  EXPECT_TRUE(IsActiveJobState(v1::CONFIGURING));
  EXPECT_FALSE(IsActiveJobState(v1::COMPLETED));
  EXPECT_FALSE(IsActiveJobState(v1::CANCELLED));
}

TEST(Signals, NamesWithOrWithoutSigPrefixAndNumbers) {
  EXPECT_EQ(*ParseSignal("USR1"), SIGUSR1);
  EXPECT_EQ(*ParseSignal("SIGUSR1"), SIGUSR1);
  EXPECT_EQ(*ParseSignal("sigusr2"), SIGUSR2);
  EXPECT_EQ(*ParseSignal("term"), SIGTERM);
  EXPECT_EQ(*ParseSignal("KILL"), SIGKILL);
  EXPECT_EQ(*ParseSignal("10"), 10);
  EXPECT_EQ(*ParseSignal("64"), 64);
}

TEST(Signals, RejectsUnknownNamesAndOutOfRangeNumbers) {
  for (const char* bad : {"", "SIG", "FOO", "SIGFOO", "0", "65", "-1", "9x"}) {
    absl::StatusOr<int> sig = ParseSignal(bad);
    ASSERT_FALSE(sig.ok()) << bad;
    EXPECT_EQ(sig.status().message(), std::string("Unknown job signal: ") + bad);
  }
}

TEST(Signals, NamesAsSlurmPrintsThem) {
  EXPECT_EQ(SignalName(SIGUSR1), "USR1");
  EXPECT_EQ(SignalName(SIGTERM), "TERM");
  EXPECT_EQ(SignalName(40), "40");
  EXPECT_EQ(*ParseSignal(SignalName(SIGWINCH)), SIGWINCH);
}

TEST(JobIds, PlainIdsAndListsParse) {
  EXPECT_EQ(*ParseJobId("42"), 42u);
  EXPECT_EQ(*ParseJobIdList("1,2,,3"), (std::vector<uint64_t>{1, 2, 3}));
}

TEST(JobIds, PlainIdParserRejectsArraysAndStepsClearly) {
  absl::StatusOr<uint64_t> array = ParseJobId("123_7");
  ASSERT_FALSE(array.ok());
  EXPECT_EQ(array.status().message(),
            "Invalid job id 123_7: this command takes no array task; give the plain job id");
  absl::StatusOr<uint64_t> step = ParseJobId("123.0");
  ASSERT_FALSE(step.ok());
  EXPECT_EQ(step.status().message(),
            "Invalid job id 123.0: this command acts on jobs, not steps; give the job id");
  EXPECT_EQ(ParseJobId("abc").status().message(), "Invalid job id: abc");
  EXPECT_FALSE(ParseJobId("0").ok());
  EXPECT_FALSE(ParseJobIdList("").ok());
}

std::vector<std::string> RefTexts(const std::vector<v1::JobRef>& refs) {
  std::vector<std::string> out;
  for (const v1::JobRef& ref : refs) out.push_back(JobRefText(ref));
  return out;
}

TEST(JobRefs, PlainIdNamesTheJobWithoutATask) {
  std::vector<v1::JobRef> refs = *ParseJobRef("42");
  ASSERT_EQ(refs.size(), 1u);
  EXPECT_EQ(refs[0].job_id(), 42u);
  EXPECT_FALSE(refs[0].has_array_task_id());
}

TEST(JobRefs, ArrayTaskForms) {
  std::vector<v1::JobRef> refs = *ParseJobRef("42_7");
  ASSERT_EQ(refs.size(), 1u);
  EXPECT_EQ(refs[0].job_id(), 42u);
  ASSERT_TRUE(refs[0].has_array_task_id());
  EXPECT_EQ(refs[0].array_task_id(), 7);
  EXPECT_EQ(RefTexts(*ParseJobRef("42_0")), (std::vector<std::string>{"42_0"}));
  EXPECT_EQ(RefTexts(*ParseJobRef("42_[1-3]")), (std::vector<std::string>{"42_1", "42_2", "42_3"}));
  EXPECT_EQ(RefTexts(*ParseJobRef("42_[1-2,7]")),
            (std::vector<std::string>{"42_1", "42_2", "42_7"}));
  EXPECT_EQ(RefTexts(*ParseJobRef("42_[0-12:4]")),
            (std::vector<std::string>{"42_0", "42_4", "42_8", "42_12"}));
}

TEST(JobRefs, ListsKeepCommasInsideBrackets) {
  EXPECT_EQ(RefTexts(*ParseJobRefList("1,42_[1,3],,7_2")),
            (std::vector<std::string>{"1", "42_1", "42_3", "7_2"}));
  EXPECT_FALSE(ParseJobRefList("").ok());
  EXPECT_FALSE(ParseJobRefList(",").ok());
}

TEST(JobRefs, StepsAndMalformedIdsAreRejected) {
  EXPECT_EQ(ParseJobRef("42.0").status().message(),
            "Invalid job id 42.0: this command acts on jobs, not steps; give the job id");
  EXPECT_EQ(ParseJobRef("42_7.1").status().message(),
            "Invalid job id 42_7.1: this command acts on jobs, not steps; give the job id");
  for (const char* bad : {"", "0", "abc", "42_", "42_x", "42_[]", "42_[3-1]", "42_[1-3", "42_1-3",
                          "_7", "42_[1-4:0]", "42_[a]", "42_99999999999"}) {
    absl::StatusOr<std::vector<v1::JobRef>> refs = ParseJobRef(bad);
    ASSERT_FALSE(refs.ok()) << bad;
    EXPECT_EQ(refs.status().message(), std::string("Invalid job id: ") + bad);
  }
  EXPECT_FALSE(ParseJobRef("42_[0-99999999]").ok());  // too many tasks
}

TEST(JobRefs, JobIdTextShowsArrayTasks) {
  v1::JobInfo job;
  job.set_job_id(15403);
  job.set_array_task_id(-1);
  EXPECT_EQ(JobIdText(job), "15403");
  EXPECT_FALSE(IsArrayTask(job));
  job.set_array_job_id(15400);
  job.set_array_task_id(3);
  EXPECT_EQ(JobIdText(job), "15400_3");
  EXPECT_TRUE(IsArrayTask(job));
}

TEST(JobRefs, TaskRangesFoldLikeSlurm) {
  EXPECT_EQ(FormatTaskRanges({5, 1, 2, 3, 9, 2}), "1-3,5,9");
  EXPECT_EQ(FormatTaskRanges({7}), "7");
  EXPECT_EQ(FormatTaskRanges({0, 4, 8}), "0,4,8");
  EXPECT_EQ(FormatTaskRanges({}), "");
}

TEST(Users, RootResolvesByNameAndUid) {
  EXPECT_EQ(*ResolveUserName("root"), "root");
  EXPECT_EQ(*ResolveUserName("0"), "root");
  EXPECT_EQ(UserNameOf(0), "root");
  EXPECT_EQ(GroupNameOf(0), "root");
  EXPECT_EQ(ResolveUserName("no-such-user-xyz").status().message(),
            "Invalid user: no-such-user-xyz");
  EXPECT_EQ(UserNameOf(4000000000u), "4000000000");
}

TEST(Memory, FormatsLikeSlurm) {
  EXPECT_EQ(FormatMemoryMb(100), "100M");
  EXPECT_EQ(FormatMemoryMb(4096), "4G");
  EXPECT_EQ(FormatMemoryMb(4821), "4821M");
  EXPECT_EQ(FormatMemoryMb(19284), "19284M");
}

TEST(Errors, SlurmTextsForJobRpcCodes) {
  EXPECT_EQ(SlurmJobErrorText(absl::NotFoundError("no job 9"), JobRpc::kCancel),
            "Invalid job id specified");
  EXPECT_EQ(SlurmJobErrorText(absl::PermissionDeniedError("x"), JobRpc::kCancel),
            "Access/permission denied");
  EXPECT_EQ(SlurmJobErrorText(absl::PermissionDeniedError("Invalid user id"), JobRpc::kUpdate),
            "Invalid user id");
  EXPECT_EQ(SlurmJobErrorText(absl::PermissionDeniedError(""), JobRpc::kUpdate), "Invalid user id");
  EXPECT_EQ(SlurmJobErrorText(absl::PermissionDeniedError("Access/permission denied (why)"),
                              JobRpc::kUpdate),
            "Access/permission denied (why)");
  EXPECT_EQ(SlurmJobErrorText(absl::FailedPreconditionError("done"), JobRpc::kCancel),
            "Job/step already completing or completed");
  EXPECT_EQ(SlurmJobErrorText(absl::FailedPreconditionError("Job is no longer pending execution"),
                              JobRpc::kUpdate),
            "Job is no longer pending execution");
  EXPECT_EQ(SlurmJobErrorText(absl::InvalidArgumentError("Invalid partition name specified"),
                              JobRpc::kUpdate),
            "Invalid partition name specified");
}

}  // namespace
}  // namespace skiff::client
