#include "ctld/core/dependency.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace skiff::ctld {
namespace {

using R = DependencyResult;
using T = DependencyType;

class FakeLookup : public DependencyLookup {
 public:
  DependencyTarget Find(uint64_t job_id) const override {
    ++finds;
    auto it = jobs.find(job_id);
    return it == jobs.end() ? DependencyTarget{} : it->second;
  }
  bool SingletonBlocked(uid_t uid, const std::string& name, uint64_t self_id) const override {
    last_singleton = {uid, name, self_id};
    return singleton_blocked;
  }

  void Set(uint64_t id, JobState state, int64_t start = 0, int64_t end = 0) {
    DependencyTarget target;
    target.exists = true;
    target.job.state = state;
    target.job.start_time = start;
    target.job.end_time = end;
    target.job.stage_out_done = true;
    jobs[id] = target;
  }
  void SetArray(uint64_t id, std::vector<std::pair<uint32_t, JobState>> tasks) {
    DependencyTarget target;
    target.exists = true;
    for (const auto& [task, state] : tasks) {
      DependencyArrayTask t;
      t.task_id = task;
      t.status.state = state;
      t.status.start_time = state == JobState::kPending ? 0 : 100;
      t.status.stage_out_done = true;
      target.tasks.push_back(t);
    }
    jobs[id] = target;
  }

  struct SingletonQuery {
    uid_t uid = 0;
    std::string name;
    uint64_t self_id = 0;
  };
  std::map<uint64_t, DependencyTarget> jobs;
  bool singleton_blocked = false;
  mutable SingletonQuery last_singleton;
  mutable int finds = 0;
};

Dependency MustParse(const std::string& text) {
  absl::StatusOr<Dependency> dep = ParseDependency(text);
  EXPECT_TRUE(dep.ok()) << text << ": " << dep.status();
  return dep.ok() ? *dep : Dependency{};
}

std::string ErrorOf(const std::string& text) {
  absl::StatusOr<Dependency> dep = ParseDependency(text);
  if (dep.ok()) return "ok";
  EXPECT_EQ(dep.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(dep.status().message());
}

DependentJob Self(uint64_t id = 500) {
  DependentJob self;
  self.id = id;
  self.uid = 1000;
  self.name = "train";
  return self;
}

R Overall(const std::string& text, const FakeLookup& lookup, int64_t now = 10000,
          const DependentJob& self = Self()) {
  return EvaluateDependency(MustParse(text), self, lookup, now).overall;
}

// --- Parsing ---------------------------------------------------------------

TEST(ParseDependency, EveryTypeWithOneOrMoreJobs) {
  Dependency dep = MustParse("afterok:15391");
  ASSERT_EQ(dep.terms.size(), 1u);
  EXPECT_EQ(dep.terms[0].type, T::kAfterOk);
  EXPECT_EQ(dep.terms[0].job_id, 15391u);
  EXPECT_EQ(dep.terms[0].task_id, kNoTask);
  EXPECT_FALSE(dep.any);

  dep = MustParse("afterany:1:2:3");
  ASSERT_EQ(dep.terms.size(), 3u);
  EXPECT_EQ(dep.terms[2].job_id, 3u);
  EXPECT_EQ(dep.terms[2].type, T::kAfterAny);

  for (const auto& [text, type] : std::vector<std::pair<std::string, T>>{
           {"after:7", T::kAfter},
           {"afterany:7", T::kAfterAny},
           {"afterok:7", T::kAfterOk},
           {"afternotok:7", T::kAfterNotOk},
           {"aftercorr:7", T::kAfterCorr},
           {"afterburstbuffer:7", T::kAfterBurstBuffer},
           {"singleton", T::kSingleton},
       }) {
    dep = MustParse(text);
    ASSERT_EQ(dep.terms.size(), 1u) << text;
    EXPECT_EQ(dep.terms[0].type, type) << text;
    EXPECT_EQ(dep.terms[0].job_id, type == T::kSingleton ? 0u : 7u) << text;
    EXPECT_EQ(FormatDependency(dep), text);
  }
}

TEST(ParseDependency, TypeNamesAreCaseInsensitive) {
  EXPECT_EQ(MustParse("AfterOK:5").terms[0].type, T::kAfterOk);
  EXPECT_EQ(MustParse("SINGLETON").terms[0].type, T::kSingleton);
}

TEST(ParseDependency, ArrayTaskForms) {
  Dependency dep = MustParse("afterok:123_7:123_*:124_[1-3,9]");
  ASSERT_EQ(dep.terms.size(), 6u);
  EXPECT_EQ(dep.terms[0].task_id, 7u);
  EXPECT_EQ(dep.terms[1].task_id, kAllTasks);
  EXPECT_EQ(dep.terms[2].job_id, 124u);
  EXPECT_EQ(dep.terms[2].task_id, 1u);
  EXPECT_EQ(dep.terms[5].task_id, 9u);
  EXPECT_EQ(FormatDependency(dep),
            "afterok:123_7,afterok:123_*,afterok:124_1,afterok:124_2,afterok:124_3,afterok:124_9");
  // A bracketed list with ',' and ':' inside does not split the item.
  dep = MustParse("afterany:9_[0-12:4],after:3");
  ASSERT_EQ(dep.terms.size(), 5u);
  EXPECT_EQ(dep.terms[3].task_id, 12u);
  EXPECT_EQ(dep.terms[4].type, T::kAfter);
}

TEST(ParseDependency, AfterTakesMinutes) {
  Dependency dep = MustParse("after:12+5:13");
  ASSERT_EQ(dep.terms.size(), 2u);
  EXPECT_EQ(dep.terms[0].delay, 300);
  EXPECT_EQ(dep.terms[1].delay, 0);
  EXPECT_EQ(FormatDependency(dep), "after:12+5,after:13");
}

TEST(ParseDependency, SeparatorsAllAndAny) {
  Dependency all = MustParse("afterok:20:21,afterany:23");
  EXPECT_FALSE(all.any);
  EXPECT_EQ(all.terms.size(), 3u);
  Dependency any = MustParse("afterok:20:21?afterany:23?singleton");
  EXPECT_TRUE(any.any);
  EXPECT_EQ(any.terms.size(), 4u);
  EXPECT_EQ(FormatDependency(any), "afterok:20?afterok:21?afterany:23?singleton");
}

TEST(ParseDependency, BareJobIdsAreAfterAny) {
  Dependency dep = MustParse("123,456_2");
  ASSERT_EQ(dep.terms.size(), 2u);
  EXPECT_EQ(dep.terms[0].type, T::kAfterAny);
  EXPECT_EQ(dep.terms[1].task_id, 2u);
}

TEST(ParseDependency, EmptyAndZeroMeanNone) {
  EXPECT_TRUE(MustParse("").terms.empty());
  EXPECT_TRUE(MustParse("0").terms.empty());
}

TEST(ParseDependency, DuplicatesKeptOnce) {
  Dependency dep = MustParse("afterok:5:5,afterok:5,afterany:5");
  ASSERT_EQ(dep.terms.size(), 2u);
  EXPECT_EQ(dep.terms[1].type, T::kAfterAny);
}

TEST(ParseDependency, ScontrolTextParsesBack) {
  Dependency dep =
      MustParse("afterok:15391(unfulfilled),afterany:7(failed),singleton(unfulfilled)");
  ASSERT_EQ(dep.terms.size(), 3u);
  EXPECT_FALSE(dep.terms[0].failed);
  EXPECT_TRUE(dep.terms[1].failed);
  EXPECT_FALSE(dep.terms[2].failed);
  // Like Slurm, "(fulfilled)" is not trusted: it reads as undecided.
  EXPECT_FALSE(MustParse("afterok:1(fulfilled)").terms[0].failed);
  EXPECT_EQ(MustParse("after:3+2(unfulfilled)").terms[0].delay, 120);
}

TEST(ParseDependency, MixingSeparatorsIsAnError) {
  EXPECT_EQ(ErrorOf("afterok:1,afterok:2?afterok:3"),
            "Job dependency problem: use either ',' (all must hold) or '?' (any one), not both");
}

TEST(ParseDependency, BadSpecsGiveSlurmText) {
  for (const std::string bad : {"afterok",
                                "afterok:",
                                "afterok:0",
                                "afterok:abc",
                                "afterok:1,",
                                ",afterok:1",
                                "afterok:1??afterok:2",
                                "afterok::1",
                                "afterok:1:",
                                "before:1",
                                "after:1+0",
                                "after:1+",
                                "after:1+x",
                                "afterok:1+5",
                                "afterok:1_",
                                "afterok:1_x",
                                "afterok:1_[3-1]",
                                "afterok:1_[1-3%2]",
                                "afterok:1_[1-3",
                                "afterok:1_5000",
                                "afterok:1x",
                                "singleton:5",
                                "singletonx",
                                "afterok:1(maybe)",
                                "afterok:1(failed",
                                "afterok: 1",
                                "afterok:-1",
                                "expand:5",
                                "x",
                                "abc123",
                                "afterok:1]",
                                "afterok:99999999999999999999"}) {
    const std::string error = ErrorOf(bad);
    EXPECT_EQ(error.rfind("Job dependency problem: ", 0), 0u) << "'" << bad << "' -> " << error;
  }
}

TEST(ParseDependency, ErrorDetails) {
  EXPECT_EQ(ErrorOf("before:1"),
            "Job dependency problem: 'before:1': unknown type 'before' (after, afterany, afterok, "
            "afternotok, aftercorr, afterburstbuffer, singleton)");
  EXPECT_EQ(ErrorOf("afterok:1+5"),
            "Job dependency problem: 'afterok:1+5': only after takes +minutes");
  EXPECT_EQ(ErrorOf("afterok:0"), "Job dependency problem: 'afterok:0': '0' is not a job id");
  EXPECT_EQ(ErrorOf("expand:5"), "Job dependency problem: expand is not supported");
}

// --- Submit-time checks ----------------------------------------------------

TEST(ValidateDependency, AfterOkAndAfterNotOkNeedAKnownJob) {
  FakeLookup lookup;
  lookup.Set(10, JobState::kRunning);
  EXPECT_TRUE(ValidateDependency(MustParse("afterok:10"), Self(), lookup).ok());
  absl::StatusOr<Dependency> bad = ValidateDependency(MustParse("afterok:11"), Self(), lookup);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "Job dependency problem: afterok:11: no such job");
  EXPECT_FALSE(ValidateDependency(MustParse("afternotok:11"), Self(), lookup).ok());
  // Slurm accepts the other types on unknown (e.g. purged) jobs.
  EXPECT_TRUE(
      ValidateDependency(MustParse("after:11,afterany:11,aftercorr:11"), Self(), lookup).ok());
}

TEST(ValidateDependency, UnknownArrayTaskIsUnknown) {
  FakeLookup lookup;
  lookup.SetArray(20, {{1, JobState::kPending}, {2, JobState::kPending}});
  EXPECT_TRUE(ValidateDependency(MustParse("afterok:20_2"), Self(), lookup).ok());
  EXPECT_FALSE(ValidateDependency(MustParse("afterok:20_3"), Self(), lookup).ok());
  lookup.Set(21, JobState::kRunning);
  EXPECT_FALSE(ValidateDependency(MustParse("afterok:21_0"), Self(), lookup).ok());
}

TEST(ValidateDependency, RejectsSelfDependency) {
  FakeLookup lookup;
  lookup.Set(500, JobState::kPending);
  EXPECT_FALSE(ValidateDependency(MustParse("afterany:500"), Self(500), lookup).ok());
  DependentJob task = Self(503);
  task.array_job_id = 500;
  task.task_id = 3;
  lookup.SetArray(500, {{1, JobState::kPending}, {3, JobState::kPending}});
  EXPECT_FALSE(ValidateDependency(MustParse("afterany:500"), task, lookup).ok());
  EXPECT_FALSE(ValidateDependency(MustParse("afterany:500_*"), task, lookup).ok());
  EXPECT_FALSE(ValidateDependency(MustParse("afterany:500_3"), task, lookup).ok());
  // Another task of its own array is fine.
  EXPECT_TRUE(ValidateDependency(MustParse("afterany:500_1"), task, lookup).ok());
  // At submit (no id yet) nothing can be itself.
  EXPECT_TRUE(ValidateDependency(MustParse("afterany:500"), Self(0), lookup).ok());
}

TEST(ValidateDependency, ArrayBaseIdBecomesWholeArray) {
  FakeLookup lookup;
  lookup.SetArray(30, {{0, JobState::kPending}});
  lookup.Set(31, JobState::kPending);
  absl::StatusOr<Dependency> dep =
      ValidateDependency(MustParse("afterok:30:31,afterok:30_*"), Self(), lookup);
  ASSERT_TRUE(dep.ok()) << dep.status();
  ASSERT_EQ(dep->terms.size(), 2u);  // 30 and 30_* are the same term now
  EXPECT_EQ(dep->terms[0].task_id, kAllTasks);
  EXPECT_EQ(dep->terms[1].task_id, kNoTask);
  EXPECT_EQ(FormatDependency(*dep), "afterok:30_*,afterok:31");
}

// --- Evaluation: each type -------------------------------------------------

TEST(EvaluateDependency, AfterWaitsWhilePendingThenOnStartOrCancel) {
  FakeLookup lookup;
  lookup.Set(1, JobState::kPending);
  EXPECT_EQ(Overall("after:1", lookup), R::kWaiting);
  for (JobState state : {JobState::kConfiguring, JobState::kRunning, JobState::kCompleting,
                         JobState::kCompleted, JobState::kFailed, JobState::kCancelled}) {
    lookup.Set(1, state, 100, 0);
    EXPECT_EQ(Overall("after:1", lookup), R::kSatisfied) << JobStateName(state);
  }
}

TEST(EvaluateDependency, AfterWithMinutesCountsFromStartBoundaryInclusive) {
  FakeLookup lookup;
  lookup.Set(1, JobState::kRunning, /*start=*/1000);
  EXPECT_EQ(Overall("after:1+5", lookup, 1000 + 299), R::kWaiting);
  EXPECT_EQ(Overall("after:1+5", lookup, 1000 + 300), R::kSatisfied);
  // Cancelled before it started: counts from the cancel.
  lookup.Set(2, JobState::kCancelled, 0, /*end=*/2000);
  EXPECT_EQ(Overall("after:2+1", lookup, 2059), R::kWaiting);
  EXPECT_EQ(Overall("after:2+1", lookup, 2060), R::kSatisfied);
  // No time known: keeps waiting rather than guessing.
  lookup.Set(3, JobState::kRunning, 0, 0);
  EXPECT_EQ(Overall("after:3+1", lookup, 99999), R::kWaiting);
}

TEST(EvaluateDependency, AfterAnyOnEveryFinalState) {
  FakeLookup lookup;
  for (JobState state :
       {JobState::kPending, JobState::kConfiguring, JobState::kRunning, JobState::kCompleting}) {
    lookup.Set(1, state);
    EXPECT_EQ(Overall("afterany:1", lookup), R::kWaiting) << JobStateName(state);
  }
  for (JobState state :
       {JobState::kCompleted, JobState::kFailed, JobState::kCancelled, JobState::kTimeout,
        JobState::kNodeFail, JobState::kOutOfMemory, JobState::kPreempted}) {
    lookup.Set(1, state);
    EXPECT_EQ(Overall("afterany:1", lookup), R::kSatisfied) << JobStateName(state);
  }
}

TEST(EvaluateDependency, AfterOkAndAfterNotOkAreMirrors) {
  FakeLookup lookup;
  lookup.Set(1, JobState::kCompleting);
  EXPECT_EQ(Overall("afterok:1", lookup), R::kWaiting);
  EXPECT_EQ(Overall("afternotok:1", lookup), R::kWaiting);
  lookup.Set(1, JobState::kCompleted);
  EXPECT_EQ(Overall("afterok:1", lookup), R::kSatisfied);
  EXPECT_EQ(Overall("afternotok:1", lookup), R::kNeverSatisfied);
  for (JobState state : {JobState::kFailed, JobState::kCancelled, JobState::kTimeout,
                         JobState::kNodeFail, JobState::kOutOfMemory, JobState::kPreempted}) {
    lookup.Set(1, state);
    EXPECT_EQ(Overall("afterok:1", lookup), R::kNeverSatisfied) << JobStateName(state);
    EXPECT_EQ(Overall("afternotok:1", lookup), R::kSatisfied) << JobStateName(state);
  }
}

TEST(EvaluateDependency, AfterOkWaitsForStageOutOnlyWhenBothUseBurstBuffers) {
  FakeLookup lookup;
  lookup.Set(1, JobState::kCompleted);
  lookup.jobs[1].job.burst_buffer = true;
  lookup.jobs[1].job.stage_out_done = false;
  DependentJob plain = Self();
  DependentJob bb = Self();
  bb.burst_buffer = true;
  EXPECT_EQ(Overall("afterok:1", lookup, 0, plain), R::kSatisfied);
  EXPECT_EQ(Overall("afterok:1", lookup, 0, bb), R::kWaiting);
  lookup.jobs[1].job.stage_out_done = true;
  EXPECT_EQ(Overall("afterok:1", lookup, 0, bb), R::kSatisfied);
  // The other without a burst buffer: no wait.
  lookup.Set(2, JobState::kCompleted);
  lookup.jobs[2].job.stage_out_done = false;
  EXPECT_EQ(Overall("afterok:2", lookup, 0, bb), R::kSatisfied);
}

TEST(EvaluateDependency, AfterBurstBufferNeedsEndAndStageOut) {
  FakeLookup lookup;
  lookup.Set(1, JobState::kRunning);
  lookup.jobs[1].job.burst_buffer = true;
  lookup.jobs[1].job.stage_out_done = false;
  EXPECT_EQ(Overall("afterburstbuffer:1", lookup), R::kWaiting);
  lookup.jobs[1].job.state = JobState::kFailed;
  EXPECT_EQ(Overall("afterburstbuffer:1", lookup), R::kWaiting);
  lookup.jobs[1].job.stage_out_done = true;
  EXPECT_EQ(Overall("afterburstbuffer:1", lookup), R::kSatisfied);  // any end state
}

TEST(EvaluateDependency, SingletonAsksTheLookup) {
  FakeLookup lookup;
  lookup.singleton_blocked = true;
  EXPECT_EQ(Overall("singleton", lookup), R::kWaiting);
  EXPECT_EQ(lookup.last_singleton.uid, 1000u);
  EXPECT_EQ(lookup.last_singleton.name, "train");
  EXPECT_EQ(lookup.last_singleton.self_id, 500u);
  lookup.singleton_blocked = false;
  EXPECT_EQ(Overall("singleton", lookup), R::kSatisfied);
}

TEST(EvaluateDependency, UnknownOrPurgedJobIsSatisfied) {
  FakeLookup lookup;
  for (const std::string text : {"after:9", "afterany:9", "afterok:9", "afternotok:9",
                                 "aftercorr:9", "afterburstbuffer:9", "after:9+5"}) {
    EXPECT_EQ(Overall(text, lookup), R::kSatisfied) << text;
  }
}

// --- Evaluation: arrays ----------------------------------------------------

TEST(EvaluateDependency, WholeArrayNeedsEveryTask) {
  FakeLookup lookup;
  lookup.SetArray(40, {{1, JobState::kCompleted}, {2, JobState::kRunning}});
  EXPECT_EQ(Overall("afterok:40", lookup), R::kWaiting);
  EXPECT_EQ(Overall("afterok:40_*", lookup), R::kWaiting);
  EXPECT_EQ(Overall("afterany:40", lookup), R::kWaiting);
  EXPECT_EQ(Overall("after:40", lookup), R::kSatisfied);  // none pending
  lookup.SetArray(40, {{1, JobState::kCompleted}, {2, JobState::kPending}});
  EXPECT_EQ(Overall("after:40", lookup), R::kWaiting);  // one still pending
  lookup.SetArray(40, {{1, JobState::kCompleted}, {2, JobState::kCompleted}});
  EXPECT_EQ(Overall("afterok:40", lookup), R::kSatisfied);
  EXPECT_EQ(Overall("afternotok:40", lookup), R::kNeverSatisfied);
  lookup.SetArray(40, {{1, JobState::kCompleted}, {2, JobState::kFailed}});
  EXPECT_EQ(Overall("afterok:40", lookup), R::kNeverSatisfied);
  EXPECT_EQ(Overall("afternotok:40", lookup), R::kSatisfied);
  EXPECT_EQ(Overall("afterany:40", lookup), R::kSatisfied);
}

TEST(EvaluateDependency, OneArrayTask) {
  FakeLookup lookup;
  lookup.SetArray(40, {{1, JobState::kCompleted}, {2, JobState::kRunning}});
  EXPECT_EQ(Overall("afterok:40_1", lookup), R::kSatisfied);
  EXPECT_EQ(Overall("afterok:40_2", lookup), R::kWaiting);
  EXPECT_EQ(Overall("afterok:40_7", lookup), R::kSatisfied);  // no such task: gone
}

TEST(EvaluateDependency, AfterCorrFollowsTheCorrespondingTask) {
  FakeLookup lookup;
  lookup.SetArray(40, {{1, JobState::kCompleted}, {2, JobState::kFailed}, {3, JobState::kRunning}});
  DependentJob task = Self(601);
  task.array_job_id = 600;
  task.task_id = 1;
  EXPECT_EQ(Overall("aftercorr:40", lookup, 0, task), R::kSatisfied);
  task.task_id = 2;
  EXPECT_EQ(Overall("aftercorr:40", lookup, 0, task), R::kNeverSatisfied);
  task.task_id = 3;
  EXPECT_EQ(Overall("aftercorr:40", lookup, 0, task), R::kWaiting);
  // No corresponding task: the other array as a whole (here one failed).
  task.task_id = 9;
  EXPECT_EQ(Overall("aftercorr:40", lookup, 0, task), R::kWaiting);
  lookup.SetArray(40, {{1, JobState::kCompleted}, {2, JobState::kFailed}});
  EXPECT_EQ(Overall("aftercorr:40", lookup, 0, task), R::kNeverSatisfied);
  lookup.SetArray(40, {{1, JobState::kCompleted}});
  EXPECT_EQ(Overall("aftercorr:40", lookup, 0, task), R::kSatisfied);
  // Not an array task itself: the whole other job.
  lookup.Set(41, JobState::kCompleted);
  EXPECT_EQ(Overall("aftercorr:41", lookup), R::kSatisfied);
}

// --- Evaluation: combining and stickiness ----------------------------------

TEST(EvaluateDependency, AllMustHoldWithComma) {
  FakeLookup lookup;
  lookup.Set(1, JobState::kCompleted);
  lookup.Set(2, JobState::kRunning);
  EXPECT_EQ(Overall("afterok:1,afterok:2", lookup), R::kWaiting);
  lookup.Set(2, JobState::kCompleted);
  EXPECT_EQ(Overall("afterok:1,afterok:2", lookup), R::kSatisfied);
  // One failure decides, even while others still wait.
  lookup.Set(2, JobState::kFailed);
  lookup.Set(3, JobState::kRunning);
  EXPECT_EQ(Overall("afterok:2,afterok:3", lookup), R::kNeverSatisfied);
}

TEST(EvaluateDependency, AnyOneWithQuestionMark) {
  FakeLookup lookup;
  lookup.Set(1, JobState::kFailed);
  lookup.Set(2, JobState::kRunning);
  EXPECT_EQ(Overall("afterok:1?afterok:2", lookup), R::kWaiting);
  lookup.Set(2, JobState::kCompleted);
  EXPECT_EQ(Overall("afterok:1?afterok:2", lookup), R::kSatisfied);
  lookup.Set(2, JobState::kTimeout);
  EXPECT_EQ(Overall("afterok:1?afterok:2", lookup), R::kNeverSatisfied);
}

TEST(EvaluateDependency, NoTermsIsSatisfied) {
  FakeLookup lookup;
  EXPECT_EQ(Overall("", lookup), R::kSatisfied);
}

TEST(EvaluateDependency, ParsedFailedStaysFailed) {
  FakeLookup lookup;
  lookup.Set(1, JobState::kCompleted);
  EXPECT_EQ(Overall("afterok:1(failed)", lookup), R::kNeverSatisfied);
}

TEST(EvaluateDependency, PreviousResultsAreSticky) {
  FakeLookup lookup;
  const Dependency dep = MustParse("afterok:1,afterok:2");
  lookup.Set(1, JobState::kCompleted);
  lookup.Set(2, JobState::kRunning);
  DependencyEvaluation first = EvaluateDependency(dep, Self(), lookup, 0);
  EXPECT_EQ(first.terms, (std::vector<R>{R::kSatisfied, R::kWaiting}));
  // Job 1 is requeued; job 2 ends badly and is requeued too.
  lookup.Set(1, JobState::kPending);
  lookup.Set(2, JobState::kNodeFail);
  DependencyEvaluation second = EvaluateDependency(dep, Self(), lookup, 0, &first.terms);
  EXPECT_EQ(second.terms, (std::vector<R>{R::kSatisfied, R::kNeverSatisfied}));
  lookup.Set(2, JobState::kPending);
  DependencyEvaluation third = EvaluateDependency(dep, Self(), lookup, 0, &second.terms);
  EXPECT_EQ(third.overall, R::kNeverSatisfied);
  const int finds_before = lookup.finds;
  EvaluateDependency(dep, Self(), lookup, 0, &third.terms);
  EXPECT_EQ(lookup.finds, finds_before);  // decided terms are not looked up again
}

// --- scontrol text ---------------------------------------------------------

TEST(FormatRemaining, SlurmDependencyField) {
  FakeLookup lookup;
  lookup.Set(15391, JobState::kRunning);
  const Dependency dep = MustParse("afterok:15391");
  EXPECT_EQ(FormatRemaining(dep, EvaluateDependency(dep, Self(), lookup, 0)),
            "afterok:15391(unfulfilled)");
  lookup.Set(15391, JobState::kFailed);
  EXPECT_EQ(FormatRemaining(dep, EvaluateDependency(dep, Self(), lookup, 0)),
            "afterok:15391(failed)");
  lookup.Set(15391, JobState::kCompleted);
  EXPECT_EQ(FormatRemaining(dep, EvaluateDependency(dep, Self(), lookup, 0)), "");
}

TEST(FormatRemaining, CommaDropsSatisfiedTerms) {
  FakeLookup lookup;
  lookup.Set(1, JobState::kCompleted);
  lookup.Set(2, JobState::kRunning);
  lookup.Set(3, JobState::kPending);
  lookup.singleton_blocked = true;
  const Dependency dep = MustParse("afterok:1,afterany:2,after:3+10,singleton");
  EXPECT_EQ(FormatRemaining(dep, EvaluateDependency(dep, Self(), lookup, 0)),
            "afterany:2(unfulfilled),after:3+10(unfulfilled),singleton(unfulfilled)");
}

TEST(FormatRemaining, QuestionMarkShowsAllUntilOneHolds) {
  FakeLookup lookup;
  lookup.Set(1, JobState::kFailed);
  lookup.Set(2, JobState::kRunning);
  const Dependency dep = MustParse("afterok:1?afterok:2_*");
  EXPECT_EQ(FormatRemaining(dep, EvaluateDependency(dep, Self(), lookup, 0)),
            "afterok:1(failed)?afterok:2_*(unfulfilled)");
  lookup.Set(2, JobState::kCompleted);
  EXPECT_EQ(FormatRemaining(dep, EvaluateDependency(dep, Self(), lookup, 0)), "");
}

TEST(FormatRemaining, TextParsesBackToTheSameDecision) {
  FakeLookup lookup;
  lookup.Set(1, JobState::kCompleted);
  lookup.Set(2, JobState::kFailed);
  lookup.Set(3, JobState::kRunning);
  const Dependency dep = MustParse("afterok:1,afterok:2,afterany:3");
  const DependencyEvaluation evaluation = EvaluateDependency(dep, Self(), lookup, 0);
  const std::string text = FormatRemaining(dep, evaluation);
  EXPECT_EQ(text, "afterok:2(failed),afterany:3(unfulfilled)");
  lookup.Set(2, JobState::kCompleted);  // requeued and now fine: still failed
  EXPECT_EQ(Overall(text, lookup), R::kNeverSatisfied);
}

}  // namespace
}  // namespace skiff::ctld
