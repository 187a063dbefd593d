#include "cli/scancel/scancel_request.h"

#include <gtest/gtest.h>

#include <csignal>
#include <map>

namespace skiff::cli {
namespace {

// grpc::StatusCode values, as CancelJobResult.code carries them.
constexpr int kOk = 0;
constexpr int kNotFound = 5;
constexpr int kPermissionDenied = 7;
constexpr int kFailedPrecondition = 9;
constexpr int kUnavailable = 14;
constexpr int kInternal = 13;

v1::CancelJobsReply Results(std::vector<std::pair<uint64_t, int>> results) {
  v1::CancelJobsReply reply;
  for (const auto& [id, code] : results) {
    v1::CancelJobResult* r = reply.add_results();
    r->set_job_id(id);
    r->set_code(code);
  }
  return reply;
}

ScancelCommand Command(std::vector<std::string> ids, int verbose = 0) {
  ScancelArgs args;
  args.job_ids = std::move(ids);
  args.verbose = verbose;
  return *BuildScancelCommand(args);
}

TEST(DescribeCancelResults, AnotherUsersJobMatchesSlurm) {
  // shared/reference/scancel_other_users_job.txt
  ScancelOutcome out =
      DescribeCancelResults(Results({{15391, kPermissionDenied}}), Command({"15391"}));
  EXPECT_EQ(out.stderr_text,
            "scancel: error: Kill job error on job id 15391: Access/permission denied\n");
  EXPECT_EQ(out.exit_code, 210);
}

TEST(DescribeCancelResults, VerboseAnotherUsersJobMatchesSlurm) {
  // shared/reference/scancel_other_users_job_verbose.txt
  ScancelOutcome out =
      DescribeCancelResults(Results({{15391, kPermissionDenied}}), Command({"15391"}, 1));
  EXPECT_EQ(out.stderr_text,
            "scancel: Terminating job 15391\n"
            "scancel: error: Kill job error on job id 15391: Access/permission denied\n");
  EXPECT_EQ(out.exit_code, 210);
}

TEST(DescribeCancelResults, UnknownAndOwnJobsAreSilentLikeSlurm) {
  // shared/reference/scancel_nonexistent.txt and scancel_own_job.txt
  ScancelOutcome unknown =
      DescribeCancelResults(Results({{999999, kNotFound}}), Command({"999999"}));
  EXPECT_EQ(unknown.stderr_text, "");
  EXPECT_EQ(unknown.exit_code, 0);
  ScancelOutcome own = DescribeCancelResults(Results({{15396, kOk}}), Command({"15396"}));
  EXPECT_EQ(own.stderr_text, "");
  EXPECT_EQ(own.exit_code, 0);
}

TEST(DescribeCancelResults, VerboseExplainsQuietFailuresButStillSucceeds) {
  ScancelOutcome out = DescribeCancelResults(
      Results({{999999, kNotFound}, {15380, kFailedPrecondition}}), Command({"999999,15380"}, 1));
  EXPECT_EQ(out.stderr_text,
            "scancel: Terminating job 999999\n"
            "scancel: error: Kill job error on job id 999999: Invalid job id specified\n"
            "scancel: Terminating job 15380\n"
            "scancel: error: Kill job error on job id 15380: Job/step already completing or "
            "completed\n");
  EXPECT_EQ(out.exit_code, 0);
}

TEST(DescribeCancelResults, OtherFailuresKeepCtldsMessageAndExitOne) {
  v1::CancelJobsReply reply = Results({{5, kInternal}});
  reply.mutable_results(0)->set_message("noded on n1 did not answer");
  ScancelOutcome out = DescribeCancelResults(reply, Command({"5"}));
  EXPECT_EQ(out.stderr_text,
            "scancel: error: Kill job error on job id 5: noded on n1 did not answer\n");
  EXPECT_EQ(out.exit_code, 1);
}

TEST(DescribeCancelResults, VerboseSignalLine) {
  ScancelArgs args;
  args.job_ids = {"7"};
  args.signal = "USR1";
  args.verbose = 1;
  ScancelOutcome out = DescribeCancelResults(Results({{7, kOk}}), *BuildScancelCommand(args));
  EXPECT_EQ(out.stderr_text, "scancel: Signal 10 to job 7\n");
}

ScancelCommand Signal(std::vector<std::string> ids, int verbose = 0) {
  ScancelArgs args;
  args.job_ids = std::move(ids);
  args.signal = "USR1";
  args.verbose = verbose;
  return *BuildScancelCommand(args);
}

// What Slurm 22.05's scancel printed for `scancel -v --signal=USR1 JOB` right
// after sbatch (../shared/slurm-anchor): the job was pending, scancel tried
// again, and the signal went on once it ran.
TEST(DescribeCancelResults, ASignalTriedAgainUntilTheJobRuns) {
  ScancelOutcome out =
      DescribeCancelResults(Results({{261, kOk}}), Signal({"261"}, 1), {}, {{261, 1}});
  EXPECT_EQ(out.stderr_text,
            "scancel: Signal 10 to job 261\n"
            "scancel: Job is in transitional state, retrying\n");
  EXPECT_EQ(out.exit_code, 0);
}

// After every try: ESLURM_TRANSITION_STATE_NO_UPDATE's text, printed even
// without -v, and its number as the exit status.
TEST(DescribeCancelResults, AJobThatNeverRanIsAnErrorAfterTheTries) {
  v1::CancelJobsReply reply = Results({{5, kUnavailable}});
  reply.mutable_results(0)->set_message("Job can not be altered now, try again later");
  ScancelOutcome out = DescribeCancelResults(reply, Signal({"5"}), {}, {{5, 10}});
  EXPECT_EQ(out.stderr_text,
            "scancel: error: Kill job error on job id 5: Job can not be altered now, try again "
            "later\n");
  EXPECT_EQ(out.exit_code, 228);
}

// Slurm keeps ESLURM_ALREADY_DONE for a signal (it forgives it for a kill).
TEST(DescribeCancelResults, ASignalToAFinishedJobExitsWithSlurmsNumber) {
  ScancelOutcome out = DescribeCancelResults(Results({{6, kFailedPrecondition}}), Signal({"6"}));
  EXPECT_EQ(out.stderr_text, "");
  EXPECT_EQ(out.exit_code, 229);
  out = DescribeCancelResults(Results({{6, kFailedPrecondition}, {7, kPermissionDenied}}),
                              Signal({"6,7"}));
  EXPECT_EQ(out.exit_code, 229) << "the largest of Slurm's numbers";
  EXPECT_EQ(DescribeCancelResults(Results({{6, kFailedPrecondition}}), Command({"6"})).exit_code,
            0);
}

TEST(Retries, OnlyTheJobsNotYetRunningAreAskedAgain) {
  ScancelCommand command = Signal({"5,6,7"});
  v1::CancelJobsReply reply = Results({{5, kUnavailable}, {6, kOk}, {7, kUnavailable}});
  const std::vector<uint64_t> waiting = StillTransitional(reply);
  EXPECT_EQ(waiting, (std::vector<uint64_t>{5, 7}));
  const v1::CancelJobsRequest again = RetryRequest(command.request, waiting);
  EXPECT_EQ(std::vector<uint64_t>(again.job_ids().begin(), again.job_ids().end()), waiting);
  EXPECT_EQ(again.signal(), command.request.signal());
  TakeRetried(Results({{5, kOk}, {7, kUnavailable}}), &reply);
  EXPECT_EQ(StillTransitional(reply), (std::vector<uint64_t>{7}));
  EXPECT_EQ(reply.results(0).code(), kOk);
  EXPECT_EQ(TransitionalDelaySeconds(0), 5);
  EXPECT_EQ(TransitionalDelaySeconds(kTransitionalTries - 1), 14);
}

TEST(BuildScancelCommand, NeedsAJobOrAFilter) {
  absl::StatusOr<ScancelCommand> none = BuildScancelCommand(ScancelArgs());
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(), "No job identification provided");
  ScancelArgs by_user;
  by_user.user = "root";
  absl::StatusOr<ScancelCommand> command = BuildScancelCommand(by_user);
  ASSERT_TRUE(command.ok());
  EXPECT_EQ(command->request.user(), "root");
  EXPECT_EQ(command->request.job_ids_size(), 0);
}

TEST(BuildScancelCommand, FillsTheRequest) {
  ScancelArgs args;
  args.job_ids = {"1,2", "3"};
  args.name = "train";
  args.states = "pd,R";
  args.partitions = "debug,gpu";
  args.signal = "SIGTERM";
  args.batch = true;
  args.hurry = true;
  absl::StatusOr<ScancelCommand> command = BuildScancelCommand(args);
  ASSERT_TRUE(command.ok()) << command.status();
  const v1::CancelJobsRequest& r = command->request;
  EXPECT_EQ(std::vector<uint64_t>(r.job_ids().begin(), r.job_ids().end()),
            (std::vector<uint64_t>{1, 2, 3}));
  EXPECT_EQ(r.name(), "train");
  ASSERT_EQ(r.states_size(), 2);
  EXPECT_EQ(r.states(0), v1::PENDING);
  EXPECT_EQ(r.states(1), v1::RUNNING);
  ASSERT_EQ(r.partitions_size(), 2);
  EXPECT_EQ(r.signal(), SIGTERM);
  EXPECT_TRUE(r.batch_only());
  EXPECT_TRUE(r.hurry());
}

TEST(BuildScancelCommand, FullAsksForTheBatchShellAndTheSteps) {
  ScancelArgs args;
  args.job_ids = {"7"};
  args.signal = "USR1";
  args.full = true;
  absl::StatusOr<ScancelCommand> command = BuildScancelCommand(args);
  ASSERT_TRUE(command.ok()) << command.status();
  EXPECT_TRUE(command->request.full());
  EXPECT_FALSE(command->request.batch_only());
  EXPECT_EQ(command->request.signal(), SIGUSR1);
}

TEST(ApplyScancelEnvironment, ReadsSlurmsInputVariables) {
  std::map<std::string, std::string> env = {
      {"SCANCEL_BATCH", "T"},       {"SCANCEL_FULL", "true"},  {"SCANCEL_HURRY", ""},
      {"SCANCEL_NAME", "train"},    {"SCANCEL_STATE", "PD"},   {"SCANCEL_USER", "ada"},
      {"SCANCEL_PARTITION", "gpu"}, {"SCANCEL_VERBOSE", "yes"}};
  ScancelArgs args;
  std::vector<std::string> errors;
  ApplyScancelEnvironment(
      [&](const char* name) {
        auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
      },
      &args, &errors);
  EXPECT_TRUE(args.batch);
  EXPECT_TRUE(args.full);
  EXPECT_TRUE(args.hurry);
  EXPECT_EQ(args.name, "train");
  EXPECT_EQ(args.states, "PD");
  EXPECT_EQ(args.user, "ada");
  EXPECT_EQ(args.partitions, "gpu");
  EXPECT_EQ(args.verbose, 0);
  EXPECT_EQ(errors, std::vector<std::string>{"Unrecognized SCANCEL_VERBOSE value: yes"});
}

TEST(BuildScancelCommand, KillCancelsAsInSlurm) {
  ScancelArgs args;
  args.job_ids = {"4"};
  args.signal = "9";
  absl::StatusOr<ScancelCommand> command = BuildScancelCommand(args);
  ASSERT_TRUE(command.ok());
  EXPECT_EQ(command->request.signal(), 0);
  EXPECT_EQ(command->signal, SIGKILL);
}

TEST(BuildScancelCommand, ArrayTasksGoToRefsAndPlainIdsToJobIds) {
  ScancelArgs args;
  args.job_ids = {"123_7,9", "15400_[1-2]"};
  absl::StatusOr<ScancelCommand> command = BuildScancelCommand(args);
  ASSERT_TRUE(command.ok()) << command.status();
  const v1::CancelJobsRequest& r = command->request;
  EXPECT_EQ(std::vector<uint64_t>(r.job_ids().begin(), r.job_ids().end()),
            (std::vector<uint64_t>{9}));
  ASSERT_EQ(r.refs_size(), 3);
  EXPECT_EQ(r.refs(0).job_id(), 123u);
  EXPECT_EQ(r.refs(0).array_task_id(), 7);
  EXPECT_EQ(r.refs(1).job_id(), 15400u);
  EXPECT_EQ(r.refs(1).array_task_id(), 1);
  EXPECT_EQ(r.refs(2).array_task_id(), 2);
}

TEST(DescribeCancelResults, ArrayTasksArePrintedByTheirTaskIds) {
  // An array task is its own job record: job 15401 is task 15400_2 here.
  JobNames names = {{15401, "15400_2"}};
  ScancelOutcome out =
      DescribeCancelResults(Results({{15401, kPermissionDenied}}), Command({"15400_2"}, 1), names);
  EXPECT_EQ(out.stderr_text,
            "scancel: Terminating job 15400_2\n"
            "scancel: error: Kill job error on job id 15400_2: Access/permission denied\n");
  EXPECT_EQ(out.exit_code, 210);
}

TEST(JobsToName, OnlyJobsThatGetALineAndExist) {
  v1::CancelJobsReply reply =
      Results({{1, kOk}, {2, kNotFound}, {3, kPermissionDenied}, {4, kFailedPrecondition}});
  EXPECT_EQ(JobsToName(reply, Command({"1"})), (std::vector<uint64_t>{3}));
  EXPECT_EQ(JobsToName(reply, Command({"1"}, 1)), (std::vector<uint64_t>{1, 3, 4}));
}

TEST(NamesOf, ArrayTasksAndPlainJobs) {
  v1::GetJobsReply jobs;
  v1::JobInfo* plain = jobs.add_jobs();
  plain->set_job_id(7);
  plain->set_array_task_id(-1);
  v1::JobInfo* task = jobs.add_jobs();
  task->set_job_id(15401);
  task->set_array_job_id(15400);
  task->set_array_task_id(2);
  EXPECT_EQ(NamesOf(jobs), (JobNames{{7, "7"}, {15401, "15400_2"}}));
}

TEST(BuildScancelCommand, RejectsBadValues) {
  ScancelArgs args;
  args.job_ids = {"123.batch"};
  EXPECT_EQ(BuildScancelCommand(args).status().message(), "Invalid job id 123.batch");
  args.job_ids = {"4"};
  args.signal = "FOO";
  EXPECT_EQ(BuildScancelCommand(args).status().message(), "Unknown job signal: FOO");
  args.signal = "";
  args.states = "CD";
  EXPECT_EQ(BuildScancelCommand(args).status().message(),
            "Invalid job state specified: CD\nValid job states are PENDING and RUNNING");
  args.states = "";
  args.user = "no-such-user-xyz";
  // Slurm's scancel words these two its own way.
  EXPECT_EQ(BuildScancelCommand(args).status().message(), "Invalid user name: no-such-user-xyz");
  args.user = "";
  args.job_ids = {"abc"};
  EXPECT_EQ(BuildScancelCommand(args).status().message(), "Invalid job id abc");
}

TEST(BuildScancelCommand, StepsGoToStepsAndCancelNoJob) {
  ScancelArgs args;
  args.job_ids = {"42.3,43.0"};
  absl::StatusOr<ScancelCommand> command = BuildScancelCommand(args);
  ASSERT_TRUE(command.ok()) << command.status();
  ASSERT_EQ(command->request.steps_size(), 2);
  EXPECT_EQ(command->request.steps(0).job_id(), 42u);
  EXPECT_EQ(command->request.steps(0).step_id(), 3u);
  EXPECT_EQ(command->request.steps(1).job_id(), 43u);
  EXPECT_EQ(command->request.job_ids_size(), 0);
  args.job_ids = {"42.x"};
  EXPECT_EQ(BuildScancelCommand(args).status().message(), "Invalid job id 42.x");
}

TEST(DescribeCancelResults, StepResultsAsSlurmPrintsThem) {
  ScancelCommand command;
  v1::CancelJobsReply reply;
  v1::CancelJobResult* gone = reply.add_results();
  gone->set_job_id(42);
  gone->set_is_step(true);
  gone->set_step_id(1);
  gone->set_code(static_cast<int>(absl::StatusCode::kNotFound));
  gone->set_message("Job/step already completing or completed");
  ScancelOutcome outcome = DescribeCancelResults(reply, command, {});
  EXPECT_EQ(outcome.stderr_text, "");
  EXPECT_EQ(outcome.exit_code, 0);

  v1::CancelJobResult* denied = reply.add_results();
  denied->set_job_id(43);
  denied->set_is_step(true);
  denied->set_code(static_cast<int>(absl::StatusCode::kPermissionDenied));
  denied->set_message("Access/permission denied");
  outcome = DescribeCancelResults(reply, command, {});
  EXPECT_EQ(outcome.stderr_text,
            "scancel: error: Kill job error on job step id 43: Access/permission denied\n");
  EXPECT_EQ(outcome.exit_code, 210);

  command.verbose = 1;
  outcome = DescribeCancelResults(reply, command, {});
  EXPECT_EQ(outcome.stderr_text,
            "scancel: Terminating step 42.1\n"
            "scancel: error: Kill job error on job step id 42: Job/step already completing or "
            "completed\n"
            "scancel: Terminating step 43.0\n"
            "scancel: error: Kill job error on job step id 43: Access/permission denied\n");
}

}  // namespace
}  // namespace skiff::cli
