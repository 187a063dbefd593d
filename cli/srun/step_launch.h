// srun's step, once it has a job (its own allocation or the one it runs in):
// the step request from its options and environment, the RunStep stream to
// the job's step manager (the noded at SKIFF_STEPMGR_ADDR), srun's signals and
// terminal, and the StepSession (step_session.h) that drives them.
#ifndef SKIFF_CLI_SRUN_STEP_LAUNCH_H_
#define SKIFF_CLI_SRUN_STEP_LAUNCH_H_

#include <map>
#include <string>

#include "absl/status/status.h"
#include "cli/srun/srun_command_line.h"

namespace skiff::cli {

// --multi-prog without a task count (TaskCountGiven in `env`, srun's own
// environment): the count the configuration file (args->command[0]) gives,
// set as args->ntasks, as Slurm's srun reads the file with its options, so
// that an allocation of srun's own is made for that many tasks. Errors are
// srun's lines ("Could not open multi_prog config file F", ParseMultiProg's).
absl::Status CountTasksOfMultiProg(const std::map<std::string, std::string>& env, SrunArgs* args);

// Runs the step that `line` asks for in the job of `env` (SLURM_JOB_ID and the
// step manager's address; srun's own umask, nice value and resource limits
// are added for the tasks). Returns srun's exit code: the step's, or 1 with
// the error printed. Blocks srun's signals in the calling thread (before any
// thread starts) and takes them on a thread of its own from then on.
int LaunchStep(const SrunCommandLine& line, const std::string& cwd,
               std::map<std::string, std::string> env);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_SRUN_STEP_LAUNCH_H_
