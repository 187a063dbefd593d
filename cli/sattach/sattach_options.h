// sattach's command line and what it prints of a step, as Slurm 22.05's
// sattach (src/sattach/opt.c, sattach.c). Pure: no I/O.
#ifndef SKIFF_CLI_SATTACH_SATTACH_OPTIONS_H_
#define SKIFF_CLI_SATTACH_SATTACH_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "proto/noded.pb.h"

namespace skiff::cli {

struct SattachArgs {
  uint64_t job_id = 0;
  uint32_t step_id = 0;
  // The one task whose stdin/stdout/stderr sattach passes; unset: every task.
  // The error filter defaults to the output filter, as in Slurm.
  std::optional<int> input_filter, output_filter, error_filter;
  bool input_filter_set = false;  // --input-filter given (with "-": every task)
  bool label = false;             // -l
  bool layout_only = false;       // --layout
  bool pty = false;               // --pty
  int quiet = 0, verbose = 0;
  bool help = false, usage = false, version = false;
};

// What parsing decided: the arguments, or the lines to print to stderr (and
// whether Slurm's one-line usage follows on stdout) before exiting with the
// error exit code.
struct SattachParse {
  std::optional<SattachArgs> args;
  std::vector<std::string> errors;  // whole lines, "sattach: error: ..." or getopt's
  bool print_usage = false;
};

// Parses argv (argv[0] is the program) as sattach's getopt_long does.
SattachParse ParseSattachArgs(const std::vector<std::string>& argv);

// --help and --usage: Slurm's texts.
std::string SattachHelp();
std::string SattachUsage();

// --layout: "Job step layout:\n\t3 tasks, 2 nodes (n[1-2])\n\n\tNode 0 (n1),
// 2 task(s): 0 1 \n...", from the step manager's placement.
std::string SattachLayout(const v1::StepOutput& layout);

// The step's task count, from its placement.
int StepTaskCount(const v1::StepOutput& layout);

// SLURM_EXIT_ERROR: the exit code for sattach's own errors (1 when unset,
// invalid or 0; `warning` then says why).
int SattachErrorExit(const char* slurm_exit_error, std::string* warning);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_SATTACH_SATTACH_OPTIONS_H_
