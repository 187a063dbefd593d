#include "noded/recovery.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace skiff::noded {

JobResult ShepherdLostResult() {
  JobResult result;
  result.exit_code = 1;
  result.failure = kShepherdLost;
  return result;
}

bool IsShepherdCmdline(const std::string& cmdline, const std::string& job_dir) {
  if (cmdline.empty()) return false;
  std::vector<std::string> argv = absl::StrSplit(cmdline, '\0', absl::SkipEmpty());
  if (argv.empty()) return false;
  const std::string& program = argv[0];
  const std::string base = program.substr(program.find_last_of('/') + 1);
  if (base.find("shepherd") == std::string::npos) return false;
  for (size_t i = 1; i < argv.size(); ++i) {
    if (argv[i] == job_dir) return true;
  }
  return false;
}

Adoption DecideAdoption(const std::string& job_dir, const JobDirSnapshot& snapshot) {
  Adoption adoption;
  if (snapshot.status.has_value()) {
    absl::StatusOr<JobResult> result = ParseJobStatus(*snapshot.status);
    if (result.ok()) {
      adoption.result = *result;
    } else {
      adoption.result.exit_code = 1;
      adoption.result.failure =
          absl::StrCat("unreadable status file: ", std::string(result.status().message()));
    }
    return adoption;
  }
  if (snapshot.pids.has_value()) {
    absl::StatusOr<JobPids> pids = ParseJobPids(*snapshot.pids);
    if (pids.ok() && IsShepherdCmdline(snapshot.shepherd_cmdline, job_dir)) {
      adoption.kind = Adoption::kRunning;
      adoption.pids = *pids;
      return adoption;
    }
  }
  adoption.result = ShepherdLostResult();
  return adoption;
}

}  // namespace skiff::noded
