// The shepherd binary's --oci-run and --oci-cleanup modes: one task of a job
// or step in its OCI container (Slurm's --container), as the job's user, in
// the job's cgroup (the task's process is already in it, and so is what the
// runtime starts: a rootless runtime cannot move it out).
//
//   shepherd --oci-run [FLAGS] -- COMMAND ARGS...
//     writes the task's config.json (oci_task.h) into the container's spool
//     directory and runs oci.conf's RunTimeRun (or RunTimeCreate, then
//     RunTimeStart, polling RunTimeQuery), each through /bin/sh -c as Slurm
//     does, in that directory. Signals it gets go on to the runtime (run) or
//     become RunTimeKill (create/start). At the end the container is killed
//     and deleted if the runtime still knows it, the generated files removed
//     (unless DisableCleanup), and the runner ends as the container's main
//     process did (its exit code, or its signal).
//   shepherd --oci-cleanup [FLAGS]
//     the same end for a task whose runner was killed (scancel, time limit):
//     the shepherd runs it once the job's processes are gone.
//
// FLAGS: --oci-conf=PATH ("" or absent: DefaultOciConfig), --bundle=PATH,
// --node=NAME, --user=NAME, --job=ID, --step=ID, --task=ID, --job-dir=DIR,
// --slurmd-spool=DIR, --stdin= --stdout= --stderr= (batch), --device=FILE
// (repeated), --entry=ARG (repeated: what the command goes through inside), --pty. The uid is the
// caller's.
//
// Errors go to stderr as "slurmstepd: error: container: ..." and end the
// runner with exit code 1 before anything runs.
//
// Single-threaded; runs as the job's user.
#ifndef SKIFF_NODED_CONTAINER_OCI_RUNNER_H_
#define SKIFF_NODED_CONTAINER_OCI_RUNNER_H_

#include <string>
#include <vector>

#include "noded/container/oci_task.h"

namespace skiff::noded {

inline constexpr char kOciRunFlag[] = "--oci-run";
inline constexpr char kOciCleanupFlag[] = "--oci-cleanup";

// The FLAGS above for `task` (not its command, which follows "--"): what
// the shepherd and noded's step tasks pass to the runner.
std::vector<std::string> OciRunnerFlags(const OciTask& task, const std::string& oci_conf,
                                        const std::string& slurmd_spool);

// argv as after the mode flag. Returns the exit code for usage or setup
// errors; otherwise ends as the container did.
int RunOciTask(int argc, char** argv);
int CleanUpOciTask(int argc, char** argv);

}  // namespace skiff::noded

#endif  // SKIFF_NODED_CONTAINER_OCI_RUNNER_H_
