// Finding and killing what a dead scriptd left running.
//
// A script's process group outlives scriptd when scriptd is killed with SIGKILL:
// PR_SET_PDEATHSIG ends the script itself, but not what it started. The next
// scriptd kills the rest of every group the journal says was still running
// (run_journal.h). Process ids wrap around, so a group is named by its id and
// its leader's start time: only processes of that group that started no earlier
// than the leader can be its members (a group id reused since then belongs to
// processes that all started later than the old leader, too, which is why the
// caller must kill leftovers promptly: scriptd does it before it serves).
//
// Threads: any; these only read /proc and send signals.
#ifndef SKIFF_SCRIPTD_PROCESS_GROUPS_H_
#define SKIFF_SCRIPTD_PROCESS_GROUPS_H_

#include <sys/types.h>

#include <cstdint>
#include <optional>

namespace skiff::scriptd {

// The process's start time in clock ticks since boot (/proc/PID/stat field 22);
// nullopt when it does not exist.
std::optional<uint64_t> ProcessStartTicks(pid_t pid);

// SIGKILLs every live process of group `pgid` that started at or after
// `leader_start_ticks`, scanning /proc again until none is left (a member may
// fork while it is being killed) or a few rounds have passed. Returns how many
// processes it killed.
int KillGroupLeftovers(pid_t pgid, uint64_t leader_start_ticks);

}  // namespace skiff::scriptd

#endif  // SKIFF_SCRIPTD_PROCESS_GROUPS_H_
