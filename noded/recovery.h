// What a restarted noded makes of a job directory it finds in its spool. Pure:
// the job manager reads the files and /proc, this decides.
#ifndef SKIFF_NODED_RECOVERY_H_
#define SKIFF_NODED_RECOVERY_H_

#include <optional>
#include <string>

#include "noded/job_files.h"
#include "noded/job_report.h"

namespace skiff::noded {

// The failure text of a job whose shepherd is gone without writing a status.
inline constexpr char kShepherdLost[] = "shepherd lost";

// A job directory as found on disk.
struct JobDirSnapshot {
  std::optional<std::string> status;  // <jobdir>/status, when present
  std::optional<std::string> pids;    // <jobdir>/pids, when present
  // /proc/<shepherd_pid>/cmdline for the shepherd_pid in `pids` (NUL-separated
  // argv); empty when there is no such live process.
  std::string shepherd_cmdline;
};

struct Adoption {
  enum Kind { kFinished, kRunning };
  Kind kind = kFinished;
  JobResult result;  // kFinished: how it ended (a failure text for a lost shepherd)
  JobPids pids;      // kRunning: whom to watch and signal
};

// status present -> finished with it (an unreadable one: failed, saying so);
// else the shepherd named in pids alive and really ours -> running;
// else -> finished, failed with kShepherdLost.
Adoption DecideAdoption(const std::string& job_dir, const JobDirSnapshot& snapshot);

// True when `cmdline` (NUL-separated argv) is a shepherd's, started for
// `job_dir`: a recycled pid running something else does not match.
bool IsShepherdCmdline(const std::string& cmdline, const std::string& job_dir);

// The result reported for a job whose shepherd vanished without a status file.
JobResult ShepherdLostResult();

}  // namespace skiff::noded

#endif  // SKIFF_NODED_RECOVERY_H_
