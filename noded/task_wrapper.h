// srun --task-prolog / --task-epilog, as Slurm's slurmstepd runs them: the
// prolog runs in the task's process just before the task's program, as the
// task's user, with its environment and SLURM_TASK_PID; its output changes the
// task's environment and output as TaskProlog's does (node_scripts.h: "export
// NAME=value", "unset NAME", "print TEXT"). The epilog runs once the task has
// ended, and is killed with its process group after a few seconds.
//
// The shepherd binary's `--task-wrap` mode (shepherd_main.cc), which noded's
// StepTasks execs in place of a task that has either. Single-threaded.
#ifndef SKIFF_NODED_TASK_WRAPPER_H_
#define SKIFF_NODED_TASK_WRAPPER_H_

#include <chrono>

namespace skiff::noded {

// The arguments after --task-wrap: [--prolog=PATH] [--epilog=PATH] --
// PROGRAM ARGS... (PROGRAM a path). Runs the prolog, applies its output and
// execs PROGRAM. With an epilog, PROGRAM runs in a child, the epilog after it,
// and the wrapper then ends as PROGRAM did (the same exit code, or the same
// signal). Returns only on a usage error (2).
int RunWrappedTask(int argc, char** argv,
                   std::chrono::milliseconds epilog_timeout = std::chrono::seconds(5));

}  // namespace skiff::noded

#endif  // SKIFF_NODED_TASK_WRAPPER_H_
