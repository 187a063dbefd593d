// srun's command line as getopt_long reads it, over Slurm's input variables:
// the CLI11 declarations of every option srun takes. The options' meaning is
// srun_options.h's.
#ifndef SKIFF_CLI_SRUN_SRUN_COMMAND_LINE_H_
#define SKIFF_CLI_SRUN_SRUN_COMMAND_LINE_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cli/common/defined_options.h"
#include "cli/common/option_values.h"
#include "cli/srun/srun_options.h"

namespace skiff::cli {

struct SrunCommandLine {
  SrunArgs args;
  bool help = false;
  bool usage = false;
  bool version = false;
  bool quiet = false;  // -Q: accepted; nothing reads it
  int verbose = 0;     // -v, repeated
  bool quit_on_interrupt = false;
  // -I[secs] as given ("" bare); args.immediate says it was (or SLURM_IMMEDIATE).
  std::optional<std::string> immediate;
  // An allocation's (srun outside a job), as sbatch's.
  std::optional<std::string> begin;
  bool hold = false;
  std::optional<std::string> tmp;       // --tmp: the allocation's (outside a job), as sbatch's
  std::optional<std::string> licenses;  // -L: the allocation's (outside a job), as sbatch's
  // -B, --sockets-per-node, --cores-per-socket, --threads-per-core: floors on
  // the allocation's nodes (outside a job), as sbatch's; "*" = not asked.
  TopologyOptionValues topology;  // as given, for -v's block
  std::optional<std::string> sockets_per_node;
  std::optional<std::string> cores_per_socket;
  std::optional<std::string> threads_per_core;
  // -s/--oversubscribe and -k/--no-kill[=off]: the allocation's (outside a
  // job), as sbatch's; -s undoes an earlier --exclusive and the reverse.
  bool oversubscribe = false;
  std::optional<std::string> no_kill;  // "set" when bare
  // -T: accepted as Slurm's (a positive number), with nothing to change here:
  // srun's own fan-out threads (one stream serves every node).
  std::optional<std::string> threads;
  // --slurmd-debug: the step's nodes add their lines about the tasks to the
  // first task's stderr there (SlurmdDebugIncrement, StepRequest.slurmd_debug).
  std::optional<std::string> slurmd_debug;
};

// Slurm's input variables in `env` first (each bad one printed as an "srun:
// error: " line), then argv over them, each option's value checked as Slurm's
// srun checks it while it reads it (cli/common/option_values.h: the first bad
// one is printed and ends srun). Returns -1 when srun goes on, or the exit
// code srun ends with: 255 for a command line getopt refuses, as Slurm's srun
// (its '?' case exits -1), else the value check's (1 or 255); 1 for a
// --gpus-per-task that is no [type:]N.
int ParseSrunCommandLine(int argc, char** argv, const std::map<std::string, std::string>& env,
                         SrunCommandLine* line);

// --slurmd-debug=LEVEL as Slurm's srun takes it: a number (its leading
// digits), or a level name (quiet 0, fatal, error, info, verbose 4, debug,
// debug2 .. debug5 9), what slurmstepd adds to its error level for the
// step's stderr; at most 4 (debug2), and anything else is that most.
// `capped` says srun lowered it ("Using srun's max debug increment of 4").
int SlurmdDebugIncrement(const std::string& text, bool* capped);

// The options srun -v shows in its "defined options" block: those `line`
// holds (from the command line or Slurm's input variables), and inside an
// allocation what Slurm's srun reads from it too: the job's id, name, node
// and task counts and node list (SLURM_JOB_ID, SLURM_JOB_NAME, SLURM_NNODES,
// SLURM_NTASKS, SLURM_JOB_NODELIST) unless the command line gave them.
std::vector<GivenOption> SrunGivenOptions(const SrunCommandLine& line,
                                          const std::map<std::string, std::string>& env);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_SRUN_SRUN_COMMAND_LINE_H_
