// An allocation made by salloc, or by srun outside a job: a job whose script
// only holds the nodes (as Slurm's extern step holds them with a sleep), granted
// by ctld, used through its step manager (the first node's noded), and ended
// there with the exit code of the command that used it.
//
// Not thread-safe; one allocation per CLI process.
#ifndef SKIFF_CLI_COMMON_ALLOCATION_H_
#define SKIFF_CLI_COMMON_ALLOCATION_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "client/ctld_client.h"
#include "proto/ctld.pb.h"
#include "proto/job.pb.h"

namespace skiff::cli {

// The script of an allocation's job: it holds the nodes until relinquished.
inline constexpr char kAllocationHolderScript[] =
    "#!/bin/sh\n"
    "# Skiff allocation (salloc or srun): holds the nodes until it is relinquished\n"
    "exec sleep 2147483647\n";

struct AllocationMessages {
  std::string program;  // "salloc" or "srun": each line starts "<program>: "
  // salloc says every stage ("Pending job allocation N", "Granted job
  // allocation N"); srun only that it waits and when it got resources.
  bool verbose = true;
  // salloc says "Job allocation N has been revoked." when it gives the
  // allocation up (-I); srun does not.
  bool says_revoked = false;
};

// -I/--immediate[=secs], as Slurm's salloc and srun take it: unset, wait as
// long as it takes; at most 1 (a bare -I is 1), the job must start at once;
// more, it may wait that many seconds.
struct AllocationPatience {
  std::optional<int> immediate_seconds;
};

// Submits `spec` (an allocation: kAllocationHolderScript, output /dev/null) and
// waits until it runs, printing Slurm's lines on stderr. `interrupted` is polled
// while it waits; when it says so the job is cancelled. Errors: the submission's
// (as sbatch's), "Job allocation N has been revoked." when the job ended first.
// With `patience.immediate_seconds`, a job that cannot start in time is
// cancelled with Slurm's lines printed here ("Unable to allocate resources:
// Requested nodes are busy", salloc's "Connection timed out" after waiting,
// "Job dependency problem" for a held job that must start at once), and the
// error is DeadlineExceeded, which the caller only exits 1 on.
absl::StatusOr<v1::JobInfo> Allocate(client::CtldClient& client, const v1::JobSpec& spec,
                                     const AllocationMessages& messages,
                                     const std::function<bool()>& interrupted,
                                     const AllocationPatience& patience = {});

// -I's value: "" (bare) is Slurm's DEFAULT_IMMEDIATE, 1. InvalidArgument
// 'Invalid numeric value "x" for immediate.' otherwise, as Slurm's parse_int.
absl::StatusOr<int> ImmediateSeconds(const std::string& text);

// The environment salloc's command (and srun's step outside a job) gets on top
// of the caller's, as Slurm's salloc sets it: SLURM_JOB_ID, SLURM_JOB_NODELIST,
// SLURM_NNODES, SLURM_JOB_CPUS_PER_NODE, SLURM_TASKS_PER_NODE, SLURM_NTASKS
// (with -n), SLURM_CPUS_PER_TASK (with -c), SLURM_MEM_PER_NODE, partition,
// account, cluster, submit dir and host, and the step manager
// (SLURM_STEPMGR, SKIFF_STEPMGR_ADDR). Pure.
std::map<std::string, std::string> AllocationEnvironment(const v1::JobInfo& job,
                                                         const std::string& cluster_name,
                                                         const std::string& submit_dir,
                                                         const std::string& submit_host);

// Ends the allocation with `exit_code` through its step manager; when that
// cannot be reached, cancels the job through ctld instead.
absl::Status Relinquish(client::CtldClient& client, const v1::JobInfo& job, int exit_code);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_COMMON_ALLOCATION_H_
