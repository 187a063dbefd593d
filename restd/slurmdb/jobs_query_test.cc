// /slurmdb/{version}/jobs' query and job/{job_id} as sacct's request.
#include "restd/slurmdb/jobs_query.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"

namespace skiff::restd {
namespace {

constexpr int64_t kNow = 1760000000;
constexpr int64_t kMidnight = 1759968000;

JobsQueryContext Context() {
  JobsQueryContext context;
  context.now = kNow;
  context.midnight = kMidnight;
  context.uid_of = [](const std::string& name) -> std::optional<uid_t> {
    if (name == "alice") return 1001;
    if (name == "bob") return 1002;
    if (name == "7") return 7;
    return std::nullopt;
  };
  context.gid_of = [](const std::string& name) -> std::optional<gid_t> {
    if (name == "lab") return 500;
    return std::nullopt;
  };
  return context;
}

TEST(JobsQueryTest, NoQueryAsksForEveryJobWithItsSteps) {
  absl::StatusOr<v1::GetAccountingRequest> request = JobsRequestOf({}, Context());
  ASSERT_TRUE(request.ok()) << request.status();
  EXPECT_EQ(request->window_start(), 0);
  EXPECT_EQ(request->window_end(), 0);
  EXPECT_TRUE(request->steps());
  EXPECT_TRUE(request->uids().empty());
  EXPECT_TRUE(request->jobs().empty());
}

TEST(JobsQueryTest, EachHonouredParameterBecomesItsFilter) {
  absl::StatusOr<v1::GetAccountingRequest> request = JobsRequestOf({{"users", "alice, bob,7"},
                                                                    {"account", "Physics,chem"},
                                                                    {"partition", "gpu"},
                                                                    {"qos", "High"},
                                                                    {"job_name", "train,eval"},
                                                                    {"groups", "lab"},
                                                                    {"node", "n[1-2]"},
                                                                    {"state", "CD,running,oom"},
                                                                    {"start_time", "1759000000"},
                                                                    {"end_time", "1759500000"},
                                                                    {"skip_steps", ""},
                                                                    {"wckey", "ignored"}},
                                                                   Context());
  ASSERT_TRUE(request.ok()) << request.status();
  EXPECT_EQ(std::vector<uint32_t>(request->uids().begin(), request->uids().end()),
            (std::vector<uint32_t>{1001, 1002, 7}));
  EXPECT_EQ(std::vector<std::string>(request->accounts().begin(), request->accounts().end()),
            (std::vector<std::string>{"physics", "chem"}));
  EXPECT_EQ(request->partitions(0), "gpu");
  EXPECT_EQ(request->qos(0), "high");
  EXPECT_EQ(request->names_size(), 2);
  EXPECT_EQ(request->names(1), "eval");
  EXPECT_EQ(request->gids(0), 500u);
  EXPECT_EQ(request->nodes(0), "n[1-2]");
  EXPECT_EQ(std::vector<std::string>(request->states().begin(), request->states().end()),
            (std::vector<std::string>{"COMPLETED", "RUNNING", "OUT_OF_MEMORY"}));
  EXPECT_EQ(request->window_start(), 1759000000);
  EXPECT_EQ(request->window_end(), 1759500000);
  EXPECT_FALSE(request->steps());
}

TEST(JobsQueryTest, AQueryGetsSacctsDefaultWindow) {
  // Since midnight without states; at the start (now) with them; from the
  // epoch when steps are named.
  absl::StatusOr<v1::GetAccountingRequest> plain = JobsRequestOf({{"users", "alice"}}, Context());
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->window_start(), kMidnight);
  EXPECT_EQ(plain->window_end(), 0);
  absl::StatusOr<v1::GetAccountingRequest> states = JobsRequestOf({{"state", "R"}}, Context());
  ASSERT_TRUE(states.ok());
  EXPECT_EQ(states->window_start(), kNow);
  EXPECT_EQ(states->window_end(), kNow);
  absl::StatusOr<v1::GetAccountingRequest> steps =
      JobsRequestOf({{"step", "42.batch,43_2"}}, Context());
  ASSERT_TRUE(steps.ok());
  EXPECT_EQ(steps->window_start(), 0);
  ASSERT_EQ(steps->jobs_size(), 2);
  EXPECT_EQ(steps->jobs(0).job_id(), 42u);
  EXPECT_EQ(steps->jobs(0).step(), "batch");
  EXPECT_EQ(steps->jobs(1).array_task_id(), 2);
  absl::StatusOr<v1::GetAccountingRequest> relative =
      JobsRequestOf({{"start_time", "now-1hour"}}, Context());
  ASSERT_TRUE(relative.ok()) << relative.status();
  EXPECT_EQ(relative->window_start(), kNow - 3600);
}

TEST(JobsQueryTest, MalformedValuesAreRefusedNamingTheParameter) {
  const std::pair<std::map<std::string, std::string>, std::string> cases[] = {
      {{{"start_time", "yesterdayish"}}, "start_time"},
      {{{"end_time", "-5"}}, "end_time"},
      {{{"users", "alice,nobody_here"}}, "users: Invalid user id: nobody_here"},
      {{{"groups", "nogroup"}}, "groups"},
      {{{"state", "FINISHED"}}, "state: unrecognized job state value 'FINISHED'"},
      {{{"step", "4x"}}, "step"},
      {{{"start_time", "200"}, {"end_time", "100"}}, "start_time"},
  };
  for (const auto& [query, expected] : cases) {
    absl::StatusOr<v1::GetAccountingRequest> request = JobsRequestOf(query, Context());
    ASSERT_FALSE(request.ok()) << expected;
    EXPECT_EQ(request.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(absl::StartsWith(request.status().message(), expected)) << request.status();
  }
}

TEST(JobsQueryTest, AJobIdNamesAJobAnArrayTaskOrAStep) {
  absl::StatusOr<v1::GetAccountingRequest> job = JobRequestOf("42");
  ASSERT_TRUE(job.ok());
  ASSERT_EQ(job->jobs_size(), 1);
  EXPECT_EQ(job->jobs(0).job_id(), 42u);
  EXPECT_EQ(job->jobs(0).array_task_id(), -1);
  EXPECT_EQ(job->jobs(0).step(), "");
  EXPECT_TRUE(job->steps());
  EXPECT_EQ(job->window_start(), 0);
  absl::StatusOr<v1::AcctJobSelector> task = JobSelectorOf("42_7.0");
  ASSERT_TRUE(task.ok());
  EXPECT_EQ(task->array_task_id(), 7);
  EXPECT_EQ(task->step(), "0");
  for (const char* bad : {"", "x", "0", "42.", "42_x", "-3"}) {
    absl::StatusOr<v1::GetAccountingRequest> refused = JobRequestOf(bad);
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_EQ(refused.status().message(), std::string("Invalid job id: ") + bad);
  }
}

}  // namespace
}  // namespace skiff::restd
