// What `scontrol reconfigure` may change while ctld runs, as a pure comparison
// of the configuration in force with skiff.conf as read again.
//
// Applied at once: partitions (with the stored scontrol overrides over them),
// job and time limits (MaxJobCount, MaxArraySize, MinJobAge, OverTimeLimit,
// KillWait, ...), PrologSlurmctld/EpilogSlurmctld, MailProg, PrivateData,
// SkiffOperators' display, burst_buffer.conf and burst_buffer.lua.
// Kept until a restart ("requires restart", as Slurm reports it): the
// addresses and ports, StateSaveLocation, the users and auth, the log and pid
// files, the scheduler and priority settings ctld derived its options from,
// BurstBufferType. Refused (nothing changes): node definitions that differ
// (ctld's node table is built once), and a partition removed while jobs are
// in it.
#ifndef SKIFF_CTLD_CORE_CONFIG_CHANGE_H_
#define SKIFF_CTLD_CORE_CONFIG_CHANGE_H_

#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/config/config.h"

namespace skiff::ctld {

struct ConfigChange {
  absl::Status refused;            // not OK: nothing may change
  std::vector<std::string> notes;  // "SlurmctldPort changed: requires restart"
};

// Compares `running` (in force) and `next` (read again). Keys that need a
// restart are put back to their running values in `next` and listed in
// notes. `busy_partitions`: partitions with unfinished jobs.
// `refused` is FailedPrecondition naming what cannot change at run time.
ConfigChange PrepareReconfigure(const SkiffConfig& running, SkiffConfig& next,
                                const std::set<std::string>& busy_partitions);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_CONFIG_CHANGE_H_
