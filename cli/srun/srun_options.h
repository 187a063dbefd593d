// srun's command line and environment as Slurm 22.05's srun reads them, and
// the step request they make. Pure.
#ifndef SKIFF_CLI_SRUN_SRUN_OPTIONS_H_
#define SKIFF_CLI_SRUN_SRUN_OPTIONS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/common/container_options.h"
#include "proto/noded.pb.h"

namespace skiff::cli {

// The options as given (strings where srun validates them later).
struct SrunArgs {
  std::optional<int> ntasks;
  std::optional<std::string> nodes;  // "N" or "N-M"
  std::optional<int> ntasks_per_node;
  std::optional<int> cpus_per_task;
  std::optional<std::string> mem;
  std::optional<std::string> mem_per_cpu;  // --mem-per-cpu
  std::optional<std::string> mem_per_gpu;  // --mem-per-gpu
  std::optional<int> cpus_per_gpu;         // --cpus-per-gpu (with --gpus-per-task)
  std::optional<std::string> gpu_bind;     // --gpu-bind: [verbose,]none or per_task:N
  std::optional<std::string> gres;
  std::optional<std::string> gpus;
  std::optional<int> gpus_per_task;  // --gpus-per-task=[type:]N: N
  std::optional<std::string> gpus_per_node;
  std::optional<std::string> nodelist;
  std::optional<std::string> exclude;
  bool exact = false;
  bool overlap = false;
  bool immediate = false;
  std::optional<std::string> job_name;
  bool label = false;
  bool unbuffered = false;
  bool kill_on_bad_exit = false;
  std::optional<std::string> input;  // --input/-i: "all", "none", a task id, or a FILE pattern
  std::optional<std::string> mpi;
  std::optional<std::string> cpu_bind;
  std::optional<int> wait;
  std::optional<std::string> export_env;
  std::optional<std::string> chdir;
  bool pty = false;
  bool multi_prog = false;                 // command[0] is a --multi-prog configuration file
  std::optional<std::string> output;       // -o: "all", "none", a task id or a FILE pattern
  std::optional<std::string> error;        // -e: the same (ClassifyIo)
  std::optional<std::string> task_prolog;  // --task-prolog PROGRAM
  std::optional<std::string> task_epilog;  // --task-epilog PROGRAM
  // -m/--distribution (cli/common/task_distribution.h): the step's task
  // layout; block, cyclic or plane=N (arbitrary is refused).
  std::optional<std::string> distribution;
  // --signal: the allocation's warning signal (srun outside a job), as
  // sbatch's; inside a job Slurm's srun does nothing with it, nor does Skiff's.
  std::optional<std::string> signal;
  // --container (SRUN_CONTAINER), --container-image...: the step's own. As in
  // Slurm a step never takes its job's container; only what srun is given.
  ContainerOptions container;
  // For an allocation made by srun itself (outside one).
  std::optional<std::string> partition;
  std::optional<std::string> time;
  std::optional<std::string> time_min;  // --time-min (the allocation's)
  std::optional<std::string> account;
  std::optional<std::string> qos;
  std::optional<std::string> reservation;  // --reservation
  std::optional<std::string> constraint;
  std::optional<std::string> prefer;  // --prefer (the allocation's)
  // The allocation's (srun outside a job), as sbatch's; inside a job Slurm's
  // srun does nothing with them, nor does Skiff's.
  std::optional<std::string> mail_type;
  std::optional<std::string> mail_user;
  std::optional<std::string> deadline;
  std::optional<std::string> priority;
  std::optional<std::string> comment;
  std::optional<std::string> dependency;  // -d
  std::optional<std::string> nice;        // --nice[=adjustment]
  std::optional<std::string> gres_flags;  // --gres-flags (checked; see sbatch's)
  bool exclusive = false;
  // Allocation shape (srun outside a job), as sbatch's.
  bool overcommit = false;           // -O (the allocation's and the step's)
  bool spread_job = false;           // --spread-job
  bool contiguous = false;           // --contiguous (the allocation's; a step ignores it)
  bool use_min_nodes = false;        // --use-min-nodes
  std::optional<int> mincpus;        // --mincpus
  std::vector<std::string> command;  // the program and its arguments
};

// Slurm's srun input variables into `args`, before the command line
// overrides them: SLURM_ACCOUNT, SLURM_CONSTRAINT, SLURM_CPU_BIND,
// SRUN_CPUS_PER_TASK, SLURM_DEBUG (-v), SLURM_EXACT, SLURM_EXCLUSIVE,
// SLURM_EXPORT_ENV, SLURM_GPUS, SLURM_GPUS_PER_NODE, SLURM_GPUS_PER_TASK,
// SLURM_GRES / SLURM_STEP_GRES, SLURM_IMMEDIATE, SLURM_JOB_NAME (outside an
// allocation only, as Slurm's), SLURM_KILL_BAD_EXIT, SLURM_LABELIO,
// SLURM_MPI_TYPE, SLURM_OVERCOMMIT, SLURM_OVERLAP, SLURM_PARTITION, SLURM_QOS,
// SLURM_REMOTE_CWD, SLURM_SPREAD_JOB, SLURM_STDOUTMODE / SLURM_STDERRMODE /
// SLURM_STDINMODE, SLURM_TASK_PROLOG / SLURM_TASK_EPILOG, SLURM_TIMELIMIT, SLURM_UNBUFFEREDIO,
// SLURM_WAIT, SRUN_CONTAINER (not SLURM_CONTAINER, Slurm's output variable
// of a job with a container: a step does not inherit the job's). Task and
// node counts (SLURM_NTASKS / SLURM_NPROCS, SLURM_NNODES /
// SLURM_JOB_NUM_NODES) are BuildStepRequest's. Returns "Invalid NAME: VALUE"
// lines for values that are not numbers where one is needed.
std::vector<std::string> ApplySrunEnvironment(const std::map<std::string, std::string>& env,
                                              SrunArgs* args, int* verbose);

// What srun's -i, -o or -e value names, as Slurm's srun reads it (its
// fname_create): "all" (any value starting so, any case, or with '-'), "none"
// (any case), a task id below `ntasks` (strtoul's whole value: "" is task 0),
// or else a file name pattern.
struct IoTarget {
  enum Kind { kAll, kNone, kTask, kFile };
  Kind kind = kAll;
  int task = -1;  // kTask's
};
IoTarget ClassifyIo(const std::string& value, int ntasks);

// The step request, with Slurm's defaults from the job's environment
// (SLURM_JOB_ID, SLURM_NTASKS, SLURM_NNODES, SLURM_CPUS_PER_TASK) and srun's
// `environment` (passed on to the tasks, filtered by --export). The container
// options make request.container (BuildContainerRequest, a relative
// --container against `cwd`; their warnings are the caller's to print). Errors
// are srun's texts without the "srun: error: " prefix.
absl::StatusOr<v1::StepRequest> BuildStepRequest(const SrunArgs& args,
                                                 const std::map<std::string, std::string>& env,
                                                 const std::string& cwd);

// srun -v's lines once the step exists (each printed after "srun: "), as
// Slurm 22.05's, which tools read: "jobid 18: nodes(2):`n[1-2]', cpu counts:
// 2(x1),1(x1)", then per node "launching StepId=18.0 on host n1, 2 tasks:
// [0-1]" (one task: "... 1 tasks: 2").
std::vector<std::string> VerboseLaunchLines(
    uint64_t job_id, uint32_t step_id,
    const google::protobuf::RepeatedPtrField<v1::StepTaskPlacement>& placement);

// --multi-prog: each task's command line from the configuration file's text
// (Slurm's format: "RANKS PROGRAM ARGS...", RANKS "3", "0-2", "1,4" or "*"
// last; '#' comments; %t the task id, %o its offset in its range; quotes group
// words), for `ntasks` tasks. Unless `ntasks_set` (-n, or the job's task
// count), the file sets the count, as Slurm's srun: its highest task id + 1
// (from 1, which a "*" line then covers). Returns one command per task.
// Errors are srun's lines, one per line of the message ("Invalid task id, 5
// >= ntasks", then "Line 2 of configuration file F invalid"; "Configuration
// file F invalid, no record for task id 3"), each to print after "srun:
// error: ".
absl::StatusOr<std::vector<std::vector<std::string>>> ParseMultiProg(const std::string& text,
                                                                     const std::string& file,
                                                                     int ntasks, bool ntasks_set);

// Whether srun's task count is given, as BuildStepRequest reads it: -n, or the
// job's SLURM_NTASKS (SLURM_NPROCS) when -N is not given.
bool TaskCountGiven(const SrunArgs& args, const std::map<std::string, std::string>& env);

// Task ids folded as Slurm prints them: {0,1,2,5} -> "0-2,5".
std::string TaskRanges(std::vector<int> ids);

// srun's exit code: the highest task exit code; a task killed by a signal
// counts 128 + the signal.
struct TaskResult {
  int task_id = 0;
  std::string node;
  int exit_code = 0;
  int signal = 0;
  std::string failure;
};
int SrunExitCode(const std::vector<TaskResult>& results);

// srun's step status (Ctrl-C once, -W): "StepId=42.0 tasks 1-3: running",
// "StepId=42.0 task 0: exited", as Slurm groups them (failed to start,
// running, exited abnormally, exited). `ended` holds the tasks that ended.
std::vector<std::string> StepStatusLines(uint64_t job_id, uint32_t step_id, int ntasks,
                                         const std::vector<TaskResult>& ended);
// srun's lines for tasks that did not end cleanly, grouped by node and outcome:
// "srun: error: n1: tasks 0-1: Exited with exit code 4",
// "srun: error: n2: task 3: Killed".
std::vector<std::string> TaskErrorLines(const std::vector<TaskResult>& results);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_SRUN_SRUN_OPTIONS_H_
