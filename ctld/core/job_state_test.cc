#include "ctld/core/job_state.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace skiff::ctld {
namespace {

// Every value of each enum, from 0 up to the first that has no name: the name
// functions switch without a default (-Wswitch), so a new state or event is
// named, and so tested here, or the build warns.
std::vector<JobState> AllStates() {
  std::vector<JobState> all;
  for (int v = 0; std::string(JobStateName(static_cast<JobState>(v))) != "UNKNOWN"; ++v) {
    all.push_back(static_cast<JobState>(v));
  }
  return all;
}
std::vector<JobEvent> AllEvents() {
  std::vector<JobEvent> all;
  for (int v = 0; std::string(JobEventName(static_cast<JobEvent>(v))) != "?"; ++v) {
    all.push_back(static_cast<JobEvent>(v));
  }
  return all;
}

// The whole legal table; every other (state, event) pair must be refused.
const std::map<std::pair<JobState, JobEvent>, JobState>& LegalTable() {
  static const auto* table = new std::map<std::pair<JobState, JobEvent>, JobState>{
      {{JobState::kPending, JobEvent::kAllocate}, JobState::kConfiguring},
      {{JobState::kPending, JobEvent::kCancelPending}, JobState::kCancelled},
      {{JobState::kConfiguring, JobEvent::kLaunched}, JobState::kRunning},
      {{JobState::kConfiguring, JobEvent::kPrologFailed}, JobState::kPending},
      {{JobState::kConfiguring, JobEvent::kAbort}, JobState::kCompleting},
      {{JobState::kConfiguring, JobEvent::kRequeue}, JobState::kPending},
      {{JobState::kRunning, JobEvent::kExited}, JobState::kCompleting},
      {{JobState::kRunning, JobEvent::kRequeue}, JobState::kPending},
      {{JobState::kCompleting, JobEvent::kFinish}, JobState::kTimeout},  // final_state below
      {{JobState::kCompleting, JobEvent::kRequeue}, JobState::kPending},
      {{JobState::kRunning, JobEvent::kSuspend}, JobState::kSuspended},
      {{JobState::kSuspended, JobEvent::kResume}, JobState::kRunning},
      {{JobState::kSuspended, JobEvent::kExited}, JobState::kCompleting},
      {{JobState::kSuspended, JobEvent::kRequeue}, JobState::kPending},
      // scontrol requeue of a finished job.
      {{JobState::kCompleted, JobEvent::kRequeue}, JobState::kPending},
      {{JobState::kFailed, JobEvent::kRequeue}, JobState::kPending},
      {{JobState::kCancelled, JobEvent::kRequeue}, JobState::kPending},
      {{JobState::kTimeout, JobEvent::kRequeue}, JobState::kPending},
      {{JobState::kNodeFail, JobEvent::kRequeue}, JobState::kPending},
      {{JobState::kOutOfMemory, JobEvent::kRequeue}, JobState::kPending},
      {{JobState::kPreempted, JobEvent::kRequeue}, JobState::kPending},
      {{JobState::kDeadline, JobEvent::kRequeue}, JobState::kPending},
      // --deadline that can no longer be met.
      {{JobState::kPending, JobEvent::kMissDeadline}, JobState::kDeadline},
  };
  return *table;
}

TEST(NextState, ExhaustiveTableMatches) {
  EXPECT_EQ(AllStates().size(), 13u);  // as many as job.h declares
  EXPECT_EQ(AllEvents().size(), 11u);  // as many as job_state.h declares
  for (JobState from : AllStates()) {
    for (JobEvent event : AllEvents()) {
      absl::StatusOr<JobState> next = NextState(from, event, JobState::kTimeout);
      auto it = LegalTable().find({from, event});
      if (it == LegalTable().end()) {
        EXPECT_EQ(next.status().code(), absl::StatusCode::kFailedPrecondition)
            << JobStateName(from) << " on " << JobEventName(event);
      } else {
        ASSERT_TRUE(next.ok()) << JobStateName(from) << " on " << JobEventName(event);
        EXPECT_EQ(*next, it->second) << JobStateName(from) << " on " << JobEventName(event);
      }
    }
  }
}

TEST(NextState, FinishRequiresAFinalTarget) {
  EXPECT_FALSE(NextState(JobState::kCompleting, JobEvent::kFinish, JobState::kRunning).ok());
  EXPECT_EQ(*NextState(JobState::kCompleting, JobEvent::kFinish, JobState::kCancelled),
            JobState::kCancelled);
}

TEST(Transition, AppliesAndDescribesLeavingTheVersionToTheLifecycle) {
  Job job;
  job.id = 42;
  job.state = JobState::kRunning;
  absl::StatusOr<std::string> line = Transition(job, JobEvent::kExited);
  ASSERT_TRUE(line.ok());
  EXPECT_EQ(*line, "JobId=42 RUNNING -> COMPLETING (Exited)");
  EXPECT_EQ(job.state, JobState::kCompleting);
  EXPECT_EQ(job.version, 0u);
}

TEST(Transition, IllegalPairChangesNothing) {
  Job job;
  job.id = 7;
  job.state = JobState::kCompleted;
  job.version = 5;
  absl::StatusOr<std::string> line = Transition(job, JobEvent::kAllocate);
  ASSERT_FALSE(line.ok());
  EXPECT_NE(line.status().message().find("JobId=7"), absl::string_view::npos);
  EXPECT_EQ(job.state, JobState::kCompleted);
  EXPECT_EQ(job.version, 5u);
}

TEST(JobState, NamesFollowSlurm) {
  EXPECT_STREQ(JobStateName(JobState::kNodeFail), "NODE_FAIL");
  EXPECT_TRUE(IsFinal(JobState::kTimeout));
  EXPECT_FALSE(IsFinal(JobState::kCompleting));
}

TEST(JobRequest, CpusAndMemoryPerNode) {
  JobRequest request;
  request.num_nodes = 2;
  request.ntasks = 3;
  request.cpus_per_task = 2;
  request.mem_per_cpu_mb = 100;
  EXPECT_EQ(request.CpusPerNode(), 3);
  EXPECT_EQ(request.MemPerNodeMb(), 300u);
  request.mem_per_node_mb = 50;
  EXPECT_EQ(request.MemPerNodeMb(), 50u);
}

}  // namespace
}  // namespace skiff::ctld
