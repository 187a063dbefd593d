// The shepherd: one small single-threaded process per batch job (Slurm's
// slurmstepd role), exec'd by noded with the job's spool directory.
//
// It leaves noded's session (setsid), records its pid, forks the job child and
// records the child's pid and process group in <jobdir>/pids, tells noded it is
// ready, waits for the batch script to end, kills whatever the script left behind
// in its process group and (with cgroups) in its cgroup, which it then removes,
// appends Slurm's OOM line to the job's error output when the kernel killed some
// of its processes for memory, and writes <jobdir>/status (see job_files.h). It does not
// depend on noded: a job keeps running, and its status is still written, while
// noded is down or restarting.
//
// The job child, before exec'ing <jobdir>/slurm_script with the spec's arguments:
// joins the job's cgroup when the spec names one (writes its pid to each
// controller's cgroup.procs, open/write only; a failure ends the job naming the
// file), resets signals, setpgid(0, 0); as root setgroups/setgid/setuid to the job's user
// (not root: runs only jobs of noded's own uid); chdir(work_dir); opens stdin
// (default /dev/null), stdout and stderr (O_WRONLY|O_CREAT|O_APPEND, 0644; stderr
// empty = stdout's fd) as the job's user; sets the environment from
// BuildJobEnvironment. Any step that fails ends the job with a `failure` text
// naming the field (for example "cannot chdir to work_dir /x: No such file or
// directory") and exit code 1. A script without "#!" runs under /bin/sh.
#ifndef SKIFF_NODED_SHEPHERD_H_
#define SKIFF_NODED_SHEPHERD_H_

#include <string>

#include "noded/job_files.h"

namespace skiff::noded {

// Runs the job in `job_dir`; `ready_fd` is the pipe to noded (-1: none). Returns
// the shepherd's exit status: 0 once a status file is written, 1 when even that
// failed. REQUIRES: a single-threaded process.
int RunShepherd(const std::string& job_dir, int ready_fd);

// Appends `message` to the job's error output (its stderr file, else its
// stdout file) as the job's user, from a forked child, and waits for it. The
// child makes only async-signal-safe calls, so noded's threads may call it.
void AppendToJobOutput(const LaunchSpec& spec, const std::string& job_dir,
                       const std::string& message);

}  // namespace skiff::noded

#endif  // SKIFF_NODED_SHEPHERD_H_
