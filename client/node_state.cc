#include "client/node_state.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace skiff::client {
namespace {

uint32_t BaseOf(const std::string& name) {
  if (name == "DOWN") return kStateDown;
  if (name == "IDLE") return kStateIdle;
  if (name == "ALLOCATED") return kStateAllocated;
  if (name == "MIXED") return kStateMixed;
  if (name == "FUTURE") return kStateFuture;
  return kStateUnknown;
}

// The one-character marks Slurm appends for power, reboot and maintenance
// flags and for a node not responding, in Slurm's order of precedence.
const char* Mark(uint32_t inx) {
  if (inx & kFlagMaint) return "$";
  if (inx & kFlagRebootIssued) return "^";
  if (inx & kFlagRebootRequested) return "@";
  if (inx & kFlagPoweringUp) return "#";
  if (inx & kFlagPoweringDown) return "%";
  if (inx & kFlagPoweredDown) return "~";
  if (inx & kFlagPowerDown) return "!";
  if (inx & kFlagNoRespond) return "*";
  return nullptr;
}

// node_state_string and node_state_string_compact share their shape; the
// names differ. `names` is {long, compact}.
struct Names {
  const char* maint;
  const char* reboot;
  const char* draining;
  const char* drained;
  const char* failing;
  const char* fail;
  const char* reboot_issued;
  const char* cancel_reboot;
  const char* power_down;
  const char* power_up;
  const char* powering_down;
  const char* powered_down;
  const char* powering_up;
  const char* allocated;
  const char* completing;
  const char* mixed;
  const char* future;
  const char* resume;
  const char* unknown;
  const char* perfctrs;
  const char* reserved;
  const char* planned;
};

constexpr Names kLong = {
    "MAINT",         "REBOOT",        "DRAINING",   "DRAINED",  "FAILING",       "FAIL",
    "REBOOT_ISSUED", "CANCEL_REBOOT", "POWER_DOWN", "POWER_UP", "POWERING_DOWN", "POWERED_DOWN",
    "POWERING_UP",   "ALLOCATED",     "COMPLETING", "MIXED",    "FUTURE",        "RESUME",
    "UNKNOWN",       "PERFCTRS",      "RESERVED",   "PLANNED"};
constexpr Names kCompact = {"MAINT",       "BOOT",   "DRNG",   "DRAIN",  "FAILG",      "FAIL",
                            "BOOT^",       "CANC_R", "POW_DN", "POW_UP", "POWRING_DN", "POWERED_DN",
                            "POWERING_UP", "ALLOC",  "COMP",   "MIX",    "FUTR",       "RESM",
                            "UNK",         "NPC",    "RESV",   "PLND"};

std::string WithMark(const char* name, uint32_t inx) {
  const char* mark = Mark(inx);
  return mark == nullptr ? name : absl::StrCat(name, mark);
}

std::string StateString(uint32_t inx, const Names& n, bool compact) {
  const uint32_t base = inx & kStateBase;
  const bool comp = inx & kFlagCompleting, drain = inx & kFlagDrain, fail = inx & kFlagFail,
             maint = inx & kFlagMaint, reboot = inx & kFlagRebootRequested,
             reboot_issued = inx & kFlagRebootIssued, no_resp = inx & kFlagNoRespond;
  if (inx & kFlagInvalidReg) return "INVAL";
  if (maint) {
    if (!(drain || base == kStateAllocated || base == kStateDown || base == kStateMixed)) {
      return no_resp ? absl::StrCat(n.maint, "*") : n.maint;
    }
  }
  if (reboot || reboot_issued) {
    if (!(base == kStateAllocated || base == kStateMixed)) {
      if (reboot_issued) return absl::StrCat(n.reboot, "^");
      return no_resp ? absl::StrCat(n.reboot, "*") : n.reboot;
    }
  }
  if (drain) {
    if (comp || base == kStateAllocated || base == kStateMixed) return WithMark(n.draining, inx);
    return WithMark(n.drained, inx);
  }
  if (fail) {
    if (comp || base == kStateAllocated) return no_resp ? absl::StrCat(n.failing, "*") : n.failing;
    return no_resp ? absl::StrCat(n.fail, "*") : n.fail;
  }
  // node_state_string compares the whole word here, the compact form only the
  // base (which can never equal these flags): Slurm's own asymmetry.
  const uint32_t whole = compact ? base : inx;
  if (whole == kFlagRebootIssued) return n.reboot_issued;
  if (whole == kFlagRebootCancel) return n.cancel_reboot;
  if (whole == kFlagCloud) return "CLOUD";
  if (whole == kFlagPowerDown) return n.power_down;
  if (whole == kFlagPowerUp) return n.power_up;
  if (whole == kFlagPoweringDown) return n.powering_down;
  if (whole == kFlagPoweredDown) return n.powered_down;
  if (whole == kFlagPoweringUp) return n.powering_up;
  if (base == kStateDown) return WithMark("DOWN", inx);
  if (base == kStateAllocated) {
    if (Mark(inx) != nullptr) return WithMark(n.allocated, inx);
    return comp ? absl::StrCat(n.allocated, "+") : n.allocated;
  }
  if (comp) return WithMark(n.completing, inx);
  if (base == kStateIdle) {
    if (Mark(inx) != nullptr) return WithMark("IDLE", inx);
    if (inx & kFlagNet) return n.perfctrs;
    if (inx & kFlagRes) return n.reserved;
    if (inx & kFlagPlanned) return n.planned;
    return "IDLE";
  }
  if (base == kStateMixed) {
    if (Mark(inx) != nullptr) return WithMark(n.mixed, inx);
    if (inx & kFlagPlanned) return absl::StrCat(n.mixed, "-");
    return n.mixed;
  }
  if (base == kStateFuture) return WithMark(n.future, inx);
  if (inx & kFlagResume) return n.resume;
  if (base == kStateUnknown) return no_resp ? absl::StrCat(n.unknown, "*") : n.unknown;
  return "?";
}

const std::pair<uint32_t, const char*> kBaseNames[] = {
    {kStateDown, "DOWN"},       {kStateIdle, "IDLE"},   {kStateAllocated, "ALLOCATED"},
    {kStateError, "ERROR"},     {kStateMixed, "MIXED"}, {kStateFuture, "FUTURE"},
    {kStateUnknown, "UNKNOWN"},
};

const std::pair<uint32_t, const char*> kFlagNames[] = {
    {kFlagCloud, "CLOUD"},
    {kFlagCompleting, "COMPLETING"},
    {kFlagDrain, "DRAIN"},
    {kFlagDynamicFuture, "DYNAMIC_FUTURE"},
    {kFlagDynamicNorm, "DYNAMIC_NORM"},
    {kFlagInvalidReg, "INVALID_REG"},
    {kFlagFail, "FAIL"},
    {kFlagMaint, "MAINTENANCE"},
    {kFlagPowerDown, "POWER_DOWN"},
    {kFlagPowerUp, "POWER_UP"},
    {kFlagNet, "PERFCTRS"},
    {kFlagPoweredDown, "POWERED_DOWN"},
    {kFlagRebootRequested, "REBOOT_REQUESTED"},
    {kFlagRebootIssued, "REBOOT_ISSUED"},
    {kFlagRes, "RESERVED"},
    {kFlagResume, "RESUME"},
    {kFlagNoRespond, "NOT_RESPONDING"},
    {kFlagPlanned, "PLANNED"},
    {kFlagPoweringUp, "POWERING_UP"},
    {kFlagPoweringDown, "POWERING_DOWN"},
};

// Slurm's xstrncasecmp(name, text, strlen(text)) == 0: `text` is a prefix.
bool IsPrefix(std::string_view name, std::string_view text) {
  if (text.size() > name.size()) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (absl::ascii_tolower(static_cast<unsigned char>(name[i])) !=
        absl::ascii_tolower(static_cast<unsigned char>(text[i]))) {
      return false;
    }
  }
  return true;
}

bool StateEqual(uint32_t state, std::string_view text) {
  return IsPrefix(NodeStateStringCompact(state), text) || IsPrefix(NodeStateString(state), text);
}

// Slurm's _node_state_id; -1 when nothing matches.
int64_t StateId(std::string_view text) {
  for (uint32_t i = 0; i < kStateEnd; ++i) {
    if (StateEqual(i, text)) return i;
  }
  if (IsPrefix("PLANNED", text) || IsPrefix("PLND", text)) return kFlagPlanned;
  if (IsPrefix("DRAIN", text)) return kFlagDrain;
  if (IsPrefix("DRAINED", text)) return kFlagDrain | kStateIdle;
  if (IsPrefix("RESV", text) || IsPrefix("RESERVED", text)) return kFlagRes;
  if (IsPrefix("PERFCTRS", text) || IsPrefix("NPC", text)) return kFlagNet;
  if (IsPrefix("DRAINING", text) || IsPrefix("DRNG", text)) return kFlagDrain | kStateAllocated;
  for (uint32_t flag : {kFlagCompleting}) {
    if (StateEqual(flag, text)) return flag;
  }
  if (IsPrefix("NO_RESPOND", text)) return kFlagNoRespond;
  for (uint32_t flag :
       {kFlagPoweringDown, kFlagPoweredDown, kFlagPowerDown, kFlagPoweringUp, kFlagFail, kFlagMaint,
        kFlagRebootRequested, kFlagRebootIssued, kFlagCloud}) {
    if (StateEqual(flag, text)) return flag;
  }
  return -1;
}

bool IsDraining(uint32_t state) {
  const uint32_t base = state & kStateBase;
  return (state & kFlagDrain) &&
         (base == kStateAllocated || base == kStateMixed || (state & kFlagCompleting));
}

bool IsDrained(uint32_t state) { return (state & kFlagDrain) && !IsDraining(state); }

}  // namespace

uint32_t NodeStateWord(const v1::NodeInfo& node) {
  uint32_t base = BaseOf(node.state());
  const bool drain = node.drain();
  if (drain) {
    // Slurm's controller knows no MIXED: a draining node with work is ALLOCATED.
    if (base == kStateMixed) base = kStateAllocated;
  } else if (node.alloc_cpus() > 0 && node.alloc_cpus() < node.cpus()) {
    base = kStateMixed;
  }
  uint32_t state = base;
  if (drain) state |= kFlagDrain;
  if (node.fail()) state |= kFlagFail;
  if (node.not_responding()) state |= kFlagNoRespond;
  if (node.reserved()) state |= kFlagRes;
  if (node.maint()) state |= kFlagMaint;
  return state;
}

std::string NodeStateString(uint32_t state) { return StateString(state, kLong, false); }

std::string NodeStateStringCompact(uint32_t state) { return StateString(state, kCompact, true); }

std::string NodeStateBaseString(uint32_t state) {
  for (const auto& [value, name] : kBaseNames) {
    if (value == (state & kStateBase)) return name;
  }
  return "INVALID";
}

std::vector<std::string> NodeStateFlagNames(uint32_t state) {
  std::vector<std::string> out;
  uint32_t flags = state & kStateFlags;
  while (flags != 0) {
    bool named = false;
    for (const auto& [flag, name] : kFlagNames) {
      if (flags & flag) {
        out.push_back(name);
        flags &= ~flag;
        named = true;
        break;
      }
    }
    if (!named) {
      out.push_back("?");
      flags &= ~(flags & (~flags + 1));
    }
  }
  return out;
}

std::string NodeStateStringComplete(uint32_t state) {
  std::string out = NodeStateBaseString(state);
  for (const std::string& flag : NodeStateFlagNames(state)) absl::StrAppend(&out, "+", flag);
  return out;
}

absl::StatusOr<StateFilter> ParseStateFilter(std::string_view text) {
  StateFilter filter;
  if (absl::EqualsIgnoreCase(absl::string_view(text.data(), text.size()), "all")) {
    for (uint32_t i = 0; i < kStateEnd; ++i) filter.states.push_back(i);
    filter.states.push_back(kFlagDrain);
    filter.states.push_back(kFlagCompleting);
    return filter;
  }
  filter.all_of = text.find('&') != std::string_view::npos;
  for (absl::string_view name : absl::StrSplit(absl::string_view(text.data(), text.size()),
                                               absl::ByAnyChar(",&"), absl::SkipEmpty())) {
    const int64_t id = StateId(std::string_view(name.data(), name.size()));
    if (id < 0) {
      return absl::InvalidArgumentError(absl::StrCat("Bad state string: \"", name, "\""));
    }
    filter.states.push_back(static_cast<uint32_t>(id));
  }
  return filter;
}

std::string ValidStatesList() {
  std::vector<std::string> names;
  for (uint32_t i = 0; i < kStateEnd; ++i) names.push_back(NodeStateString(i));
  for (const char* name : {"DRAIN", "DRAINED", "DRAINING", "NO_RESPOND", "RESERVED", "PERFCTRS"}) {
    names.push_back(name);
  }
  for (uint32_t flag : {kFlagCloud, kFlagCompleting, kFlagPoweringDown, kFlagPoweredDown,
                        kFlagPowerDown, kFlagPoweringUp, kFlagFail, kFlagMaint,
                        kFlagRebootRequested, kFlagRebootIssued, kFlagPlanned}) {
    names.push_back(NodeStateString(flag));
  }
  return absl::AsciiStrToLower(absl::StrJoin(names, ","));
}

bool MatchesStateFilter(const StateFilter& filter, uint32_t state, int alloc_cpus) {
  bool match = false;
  for (uint32_t wanted : filter.states) {
    if (wanted == kFlagDrain) {
      match = (state & kFlagDrain) != 0;
    } else if (IsDraining(wanted)) {
      match = IsDraining(state);
    } else if (IsDrained(wanted)) {
      match = IsDrained(state);
    } else if (wanted & kStateFlags) {
      match = (wanted & state) != 0;
    } else if (wanted == kStateAllocated) {
      match = alloc_cpus > 0;
    } else {
      match = (state & kStateBase) == wanted;
    }
    if (!filter.all_of && match) break;
    if (filter.all_of && !match) break;
  }
  return match;
}

}  // namespace skiff::client
