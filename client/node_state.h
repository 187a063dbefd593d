// Node states as Slurm 22.05's sinfo sees and names them: the node state word
// (base state in the low bits, flags above, as in slurm.h), its names
// ("IDLE", "DRAINED*", "drng", "IDLE+DRAIN"), and the -t/--states filter.
// Pure; thread-safe.
#ifndef SKIFF_CLIENT_NODE_STATE_H_
#define SKIFF_CLIENT_NODE_STATE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/types.pb.h"

namespace skiff::client {

// Base states (node_states in slurm.h).
inline constexpr uint32_t kStateUnknown = 0;
inline constexpr uint32_t kStateDown = 1;
inline constexpr uint32_t kStateIdle = 2;
inline constexpr uint32_t kStateAllocated = 3;
inline constexpr uint32_t kStateError = 4;
inline constexpr uint32_t kStateMixed = 5;
inline constexpr uint32_t kStateFuture = 6;
inline constexpr uint32_t kStateEnd = 7;
inline constexpr uint32_t kStateBase = 0x0000000f;
inline constexpr uint32_t kStateFlags = 0xfffffff0;
// Flags.
inline constexpr uint32_t kFlagNet = 1u << 4;
inline constexpr uint32_t kFlagRes = 1u << 5;
inline constexpr uint32_t kFlagCloud = 1u << 7;
inline constexpr uint32_t kFlagResume = 1u << 8;
inline constexpr uint32_t kFlagDrain = 1u << 9;
inline constexpr uint32_t kFlagCompleting = 1u << 10;
inline constexpr uint32_t kFlagNoRespond = 1u << 11;
inline constexpr uint32_t kFlagPoweredDown = 1u << 12;
inline constexpr uint32_t kFlagFail = 1u << 13;
inline constexpr uint32_t kFlagPoweringUp = 1u << 14;
inline constexpr uint32_t kFlagMaint = 1u << 15;
inline constexpr uint32_t kFlagRebootRequested = 1u << 16;
inline constexpr uint32_t kFlagRebootCancel = 1u << 17;
inline constexpr uint32_t kFlagPoweringDown = 1u << 18;
inline constexpr uint32_t kFlagDynamicFuture = 1u << 19;
inline constexpr uint32_t kFlagRebootIssued = 1u << 20;
inline constexpr uint32_t kFlagPlanned = 1u << 21;
inline constexpr uint32_t kFlagInvalidReg = 1u << 22;
inline constexpr uint32_t kFlagPowerDown = 1u << 23;
inline constexpr uint32_t kFlagPowerUp = 1u << 24;
inline constexpr uint32_t kFlagPowerDrain = 1u << 25;
inline constexpr uint32_t kFlagDynamicNorm = 1u << 26;
// Slurm's NO_VAL, which a node's next_state holds when no reboot is pending.
inline constexpr uint32_t kNoVal = 0xfffffffe;
// Slurm's NO_VAL64: a node's free memory or CPU load not yet reported.
inline constexpr uint64_t kNoVal64 = 0xfffffffffffffffe;

// The state word of a node as sinfo computes it after loading: ctld's base
// state and flags, with MIXED for a node (not draining) some but not all of
// whose CPUs are allocated, and ALLOCATED for a draining node with any.
uint32_t NodeStateWord(const v1::NodeInfo& node);

// Slurm's node_state_string ("IDLE", "DRAINING*", "ALLOCATED+", "?").
std::string NodeStateString(uint32_t state);
// Slurm's node_state_string_compact ("IDLE", "DRNG*", "ALLOC").
std::string NodeStateStringCompact(uint32_t state);
// Slurm's node_state_base_string ("IDLE"; "INVALID" for an unknown base).
std::string NodeStateBaseString(uint32_t state);
// The names of the flags set, in Slurm's table order ("DRAIN",
// "NOT_RESPONDING"); "?" for a flag without a name.
std::vector<std::string> NodeStateFlagNames(uint32_t state);
// Slurm's node_state_string_complete ("IDLE+DRAIN+NOT_RESPONDING").
std::string NodeStateStringComplete(uint32_t state);

// A parsed -t/--states list.
struct StateFilter {
  std::vector<uint32_t> states;  // state words as Slurm's _node_state_id gives them
  bool all_of = false;           // '&' in the list: every state must match
};

// Parses -t's value as Slurm does: "all" (any case), or names separated by
// ',' or '&', each a case-insensitive prefix of a state name ("i" is IDLE,
// "drain", "drng", "no_respond", "resv", ...).
// Error: InvalidArgument with Slurm's text, `Bad state string: "<name>"`.
absl::StatusOr<StateFilter> ParseStateFilter(std::string_view text);

// The list Slurm prints after a bad state ("unknown,down,idle,...").
std::string ValidStatesList();

// Whether a node with `state` and `alloc_cpus` passes the filter (Slurm's
// _filter_out: DRAIN matches any draining or drained node, ALLOCATED any node
// with allocated CPUs, a flag any node with that flag, else the base state).
bool MatchesStateFilter(const StateFilter& filter, uint32_t state, int alloc_cpus);

}  // namespace skiff::client

#endif  // SKIFF_CLIENT_NODE_STATE_H_
