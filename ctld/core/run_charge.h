// How long a run may hold its resources and how much of a run is charged: the
// rules the service units (GrpTRESMins=billing), sshare's RawUsage and the
// time-limit enforcement share, so that what admission reserves, what the
// SIGKILL allows and what the books charge are the same seconds.
//
// A job that ignores SIGTERM runs its time limit, then OverTimeLimit, then
// KillWait until noded's SIGKILL: that whole span is what it may use, so that
// is what admission reserves, and a run is charged what it used of it.
//
// Threads: none; pure functions.
#ifndef SKIFF_CTLD_CORE_RUN_CHARGE_H_
#define SKIFF_CTLD_CORE_RUN_CHARGE_H_

#include <cstdint>

namespace skiff::ctld {

// OverTimeLimit (minutes; 0 or UNLIMITED = -1) as the seconds a job may run
// past its time limit before it is told to stop. Skiff enforces UNLIMITED as
// no grace at all, so it counts as 0 here too.
int64_t OverTimeSeconds(int64_t over_time_limit_minutes);

// The most a run can last, not counting time suspended: its time limit, the
// OverTimeLimit grace and KillWait. kUnlimited (-1) without a time limit.
// Pinned to int64's maximum rather than wrapped.
int64_t MaxRunSeconds(int64_t time_limit, int64_t over_time_limit_minutes, int64_t kill_wait);

// The seconds to wait between SIGTERM and SIGKILL for a job told at `now` to
// stop for its time limit, so that the SIGKILL falls at its deadline
// (`limit_end` + `kill_wait`, `limit_end` being when the limit and grace ran
// out) however late the telling is (a busy ctld, a resend after a restart):
// kill_wait when told on time, less when late, 0 past the deadline.
int64_t KillWaitLeft(int64_t limit_end, int64_t kill_wait, int64_t now);

// The seconds of a run [start, end] that are charged: the time it held its
// resources, less the time suspended, never below 0 and never above
// `max_run` (kUnlimited: no cap). The cap only trims ctld's own lateness in
// hearing of the end (the report's latency, a ctld restart): noded's SIGKILL
// ends a run at `max_run`, and admission reserved no more.
int64_t ChargedSeconds(int64_t start, int64_t end, int64_t suspended, int64_t max_run);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_RUN_CHARGE_H_
