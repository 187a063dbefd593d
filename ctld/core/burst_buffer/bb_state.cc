#include "ctld/core/burst_buffer/bb_state.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace skiff::ctld {
namespace {

constexpr BbState kAllStates[] = {BbState::kPending,    BbState::kStagingIn, BbState::kStagedIn,
                                  BbState::kPreRun,     BbState::kRunning,   BbState::kPostRun,
                                  BbState::kStagingOut, BbState::kTeardown,  BbState::kTeardownFail,
                                  BbState::kComplete};

}  // namespace

const char* BbStateName(BbState state) {
  switch (state) {
    case BbState::kPending:
      return "pending";
    case BbState::kStagingIn:
      return "staging-in";
    case BbState::kStagedIn:
      return "staged-in";
    case BbState::kPreRun:
      return "pre-run";
    case BbState::kRunning:
      return "running";
    case BbState::kPostRun:
      return "post-run";
    case BbState::kStagingOut:
      return "staging-out";
    case BbState::kTeardown:
      return "teardown";
    case BbState::kTeardownFail:
      return "teardown-fail";
    case BbState::kComplete:
      return "complete";
  }
  return "?";
}

const char* BbEventName(BbEvent event) {
  switch (event) {
    case BbEvent::kStageInQueued:
      return "StageInQueued";
    case BbEvent::kStageInDone:
      return "StageInDone";
    case BbEvent::kPreRunQueued:
      return "PreRunQueued";
    case BbEvent::kPreRunDone:
      return "PreRunDone";
    case BbEvent::kJobEnded:
      return "JobEnded";
    case BbEvent::kPostRunDone:
      return "PostRunDone";
    case BbEvent::kStageOutDone:
      return "StageOutDone";
    case BbEvent::kTeardownQueued:
      return "TeardownQueued";
    case BbEvent::kTeardownDone:
      return "TeardownDone";
    case BbEvent::kTeardownFailed:
      return "TeardownFailed";
    case BbEvent::kRestage:
      return "Restage";
    case BbEvent::kCancelPending:
      return "CancelPending";
  }
  return "?";
}

absl::StatusOr<BbState> ParseBbState(std::string_view name) {
  for (BbState state : kAllStates) {
    if (name == BbStateName(state)) return state;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown burst buffer state \"", std::string(name), "\""));
}

bool BbHoldsSpace(BbState state) {
  return state != BbState::kPending && state != BbState::kComplete;
}

absl::StatusOr<BbState> NextBbState(BbState from, BbEvent event) {
  using S = BbState;
  using E = BbEvent;
  switch (event) {
    case E::kStageInQueued:
      if (from == S::kPending) return S::kStagingIn;
      break;
    case E::kStageInDone:
      if (from == S::kStagingIn) return S::kStagedIn;
      break;
    case E::kPreRunQueued:
      if (from == S::kStagedIn) return S::kPreRun;
      break;
    case E::kPreRunDone:
      if (from == S::kPreRun) return S::kRunning;
      break;
    case E::kJobEnded:
      if (from == S::kRunning) return S::kPostRun;
      break;
    case E::kPostRunDone:
      if (from == S::kPostRun) return S::kStagingOut;
      break;
    case E::kStageOutDone:
      if (from == S::kStagingOut) return S::kTeardown;
      break;
    case E::kTeardownQueued:
      // Not from running: a running job ends through post-run first, so that
      // slurm_bb_post_run always follows a started script. Not from pending
      // (kCancelPending) or complete: there is nothing to tear down.
      if (from == S::kStagingIn || from == S::kStagedIn || from == S::kPreRun ||
          from == S::kPostRun || from == S::kStagingOut || from == S::kTeardownFail) {
        return S::kTeardown;
      }
      break;
    case E::kTeardownDone:
      if (from == S::kTeardown) return S::kComplete;
      break;
    case E::kTeardownFailed:
      if (from == S::kTeardown) return S::kTeardownFail;
      break;
    case E::kRestage:
      if (from == S::kTeardown) return S::kPending;
      break;
    case E::kCancelPending:
      if (from == S::kPending) return S::kComplete;
      break;
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "illegal burst buffer transition: ", BbStateName(from), " on ", BbEventName(event)));
}

}  // namespace skiff::ctld
