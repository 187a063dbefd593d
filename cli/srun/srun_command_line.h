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
  std::optional<std::string> tmp;  // ignored, with a warning
  // Accepted as Slurm's, with nothing to change here: srun's own fan-out
  // threads (one stream serves every node) and slurmstepd's log level.
  std::optional<std::string> threads;
  std::optional<std::string> slurmd_debug;
};

// Slurm's input variables in `env` first (each bad one printed as an "srun:
// error: " line), then argv over them. Returns -1 when srun goes on, or the
// exit code srun ends with (ParseGetoptCommandLine's).
int ParseSrunCommandLine(int argc, char** argv, const std::map<std::string, std::string>& env,
                         SrunCommandLine* line);

// The options srun -v shows in its "defined options" block: those `line`
// holds (from the command line or Slurm's input variables), and inside an
// allocation what Slurm's srun reads from it too: the job's id, name, node
// and task counts and node list (SLURM_JOB_ID, SLURM_JOB_NAME, SLURM_NNODES,
// SLURM_NTASKS, SLURM_JOB_NODELIST) unless the command line gave them.
std::vector<GivenOption> SrunGivenOptions(const SrunCommandLine& line,
                                          const std::map<std::string, std::string>& env);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_SRUN_SRUN_COMMAND_LINE_H_
