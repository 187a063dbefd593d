#include "ctld/core/burst_buffer/bb_state.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace skiff::ctld {
namespace {

constexpr BbState kAllStates[] = {BbState::kPending,    BbState::kStagingIn, BbState::kStagedIn,
                                  BbState::kPreRun,     BbState::kRunning,   BbState::kPostRun,
                                  BbState::kStagingOut, BbState::kTeardown,  BbState::kTeardownFail,
                                  BbState::kComplete};
constexpr BbEvent kAllEvents[] = {
    BbEvent::kStageInQueued,  BbEvent::kStageInDone,    BbEvent::kPreRunQueued,
    BbEvent::kPreRunDone,     BbEvent::kJobEnded,       BbEvent::kPostRunDone,
    BbEvent::kStageOutDone,   BbEvent::kTeardownQueued, BbEvent::kTeardownDone,
    BbEvent::kTeardownFailed, BbEvent::kRestage,        BbEvent::kCancelPending};

using S = BbState;
using E = BbEvent;

// The whole legal table; every other (state, event) pair must be refused.
const std::map<std::pair<S, E>, S>& LegalTable() {
  static const auto* table = new std::map<std::pair<S, E>, S>{
      {{S::kPending, E::kStageInQueued}, S::kStagingIn},
      {{S::kPending, E::kCancelPending}, S::kComplete},
      {{S::kStagingIn, E::kStageInDone}, S::kStagedIn},
      {{S::kStagingIn, E::kTeardownQueued}, S::kTeardown},
      {{S::kStagedIn, E::kPreRunQueued}, S::kPreRun},
      {{S::kStagedIn, E::kTeardownQueued}, S::kTeardown},
      {{S::kPreRun, E::kPreRunDone}, S::kRunning},
      {{S::kPreRun, E::kTeardownQueued}, S::kTeardown},
      {{S::kRunning, E::kJobEnded}, S::kPostRun},
      {{S::kPostRun, E::kPostRunDone}, S::kStagingOut},
      {{S::kPostRun, E::kTeardownQueued}, S::kTeardown},
      {{S::kStagingOut, E::kStageOutDone}, S::kTeardown},
      {{S::kStagingOut, E::kTeardownQueued}, S::kTeardown},
      {{S::kTeardown, E::kTeardownDone}, S::kComplete},
      {{S::kTeardown, E::kTeardownFailed}, S::kTeardownFail},
      {{S::kTeardown, E::kRestage}, S::kPending},
      {{S::kTeardownFail, E::kTeardownQueued}, S::kTeardown},
  };
  return *table;
}

TEST(NextBbState, ExhaustiveTableMatches) {
  for (S from : kAllStates) {
    for (E event : kAllEvents) {
      absl::StatusOr<S> next = NextBbState(from, event);
      auto it = LegalTable().find({from, event});
      if (it == LegalTable().end()) {
        EXPECT_EQ(next.status().code(), absl::StatusCode::kFailedPrecondition)
            << BbStateName(from) << " on " << BbEventName(event);
      } else {
        ASSERT_TRUE(next.ok()) << BbStateName(from) << " on " << BbEventName(event);
        EXPECT_EQ(*next, it->second) << BbStateName(from) << " on " << BbEventName(event);
      }
    }
  }
}

// The sequence Slurm 22.05 showed for a real job (transitions_burst_buffer_job.txt).
TEST(NextBbState, SlurmsSampledSequenceIsReachable) {
  const std::vector<std::pair<E, std::string>> steps = {
      {E::kStageInQueued, "staging-in"}, {E::kStageInDone, "staged-in"},
      {E::kPreRunQueued, "pre-run"},     {E::kPreRunDone, "running"},
      {E::kJobEnded, "post-run"},        {E::kPostRunDone, "staging-out"},
      {E::kStageOutDone, "teardown"},    {E::kTeardownDone, "complete"},
  };
  S state = S::kPending;
  EXPECT_STREQ(BbStateName(state), "pending");
  for (const auto& [event, name] : steps) {
    absl::StatusOr<S> next = NextBbState(state, event);
    ASSERT_TRUE(next.ok()) << next.status();
    state = *next;
    EXPECT_EQ(BbStateName(state), name);
  }
}

TEST(NextBbState, ErrorNamesStateAndEvent) {
  absl::StatusOr<S> next = NextBbState(S::kRunning, E::kTeardownQueued);
  ASSERT_FALSE(next.ok());
  EXPECT_EQ(next.status().message(), "illegal burst buffer transition: running on TeardownQueued");
}

TEST(BbStateName, NamesAreSlurmsAndParseBack) {
  std::set<std::string> names;
  for (S state : kAllStates) {
    names.insert(BbStateName(state));
    absl::StatusOr<S> back = ParseBbState(BbStateName(state));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, state);
  }
  EXPECT_EQ(names, (std::set<std::string>{"pending", "staging-in", "staged-in", "pre-run",
                                          "running", "post-run", "staging-out", "teardown",
                                          "teardown-fail", "complete"}));
  EXPECT_FALSE(ParseBbState("Staging-In").ok());
}

TEST(BbHoldsSpace, FromStageInUntilTeardownCompletes) {
  EXPECT_FALSE(BbHoldsSpace(S::kPending));
  EXPECT_FALSE(BbHoldsSpace(S::kComplete));
  for (S state : {S::kStagingIn, S::kStagedIn, S::kPreRun, S::kRunning, S::kPostRun, S::kStagingOut,
                  S::kTeardown, S::kTeardownFail}) {
    EXPECT_TRUE(BbHoldsSpace(state)) << BbStateName(state);
  }
}

}  // namespace
}  // namespace skiff::ctld
