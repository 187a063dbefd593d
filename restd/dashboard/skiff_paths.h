// Skiff's own REST paths, for the lab dashboard (issue 36); slurmrestd has
// no such paths:
//   GET /skiff/v1/status[?user=NAME]  the caller's (or NAME's) `sstatus
//       --json` report: GPU usage, free nodes, GPU limits and what the user
//       holds under each, the user's jobs (cli/sstatus/sstatus_report.h);
//   GET /skiff/v1/job/{job_id}/output[?lines=N]  the last N lines (default
//       100, at most 1000, at most the file's last MiB) of a job's stdout,
//       for its owner and operators only, read with the caller's own file
//       permissions (caller_files.h);
//   GET /skiff/v1/gpu_usage  the running jobs' sampled GPUs (utilisation,
//       memory, energy), the caller's own, every job's for operators
//       (gpu_usage_json.h).
// Every ctld call is made as the request's user, so ctld decides what they
// see, as it does for the commands.
#ifndef SKIFF_RESTD_DASHBOARD_SKIFF_PATHS_H_
#define SKIFF_RESTD_DASHBOARD_SKIFF_PATHS_H_

#include "restd/router.h"

namespace skiff::restd {

void AddSkiffPaths(Router& router);

}  // namespace skiff::restd

#endif  // SKIFF_RESTD_DASHBOARD_SKIFF_PATHS_H_
