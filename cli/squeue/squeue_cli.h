// squeue's command-line words, as Slurm 22.05's src/squeue/opts.c has them:
// --help and --usage texts, the -t and -i value checks with their error texts,
// and the -v listing of the options. Pure; thread-safe.
#ifndef SKIFF_CLI_SQUEUE_SQUEUE_CLI_H_
#define SKIFF_CLI_SQUEUE_SQUEUE_CLI_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/job.pb.h"

namespace skiff::cli {

// `squeue --help` and `squeue --usage`, Slurm's texts.
std::string SqueueHelpText();
std::string SqueueUsageText();

// What -t names: every state (-t all, any case), or a list. Slurm knows states
// Skiff never has (SUSPENDED, BOOT_FAIL, DEADLINE, RESIZING, ...): they are
// accepted and match no job.
struct SqueueStates {
  bool all = false;
  std::vector<v1::JobState> states;  // Skiff's states among those named (all of them for "all")
};

// Parses -t as Slurm's _build_state_list: "all", or comma-separated long names
// or compact codes, any case. Error: InvalidArgument whose message is Slurm's
// two error lines without the "squeue: error: " prefixes:
//   "Invalid job state specified: <text>\nValid job states include: PENDING,...\n"
absl::StatusOr<SqueueStates> ParseSqueueStates(std::string_view text);

// -i SECONDS as Slurm reads it (atoi: "5s" is 5). Error: InvalidArgument
// "--iterate=<text>\n" (Slurm's own text, with its stray newline) when not > 0.
absl::StatusOr<int> ParseSqueueIterate(std::string_view text);

// -j's list as Slurm's _build_job_list reads it: each comma-separated item is
// a job id read as strtol does ("12abc" is 12), optionally followed by "_<task>".
// Error: InvalidArgument "Invalid job id: <item>" for an id that is not > 0.
absl::StatusOr<std::vector<v1::JobRef>> ParseSqueueJobs(std::string_view text);

// -s's list: "<job>[_<task>].<step>" items; only the form is checked here (the
// listing keeps the steps named). Error: InvalidArgument "Invalid job_step id: <job>.??" (no
// step) or "Invalid job_step id: <job>.<step>".
absl::Status CheckSqueueSteps(std::string_view text);

// What -v prints before anything else: Slurm's _print_options block. Values
// not given print as "(null)".
struct SqueueVerboseOptions {
  bool all = false, array = false, start = false, steps_flag = false, jobs_flag = false;
  int iterate = 0, verbose = 0;
  std::string format, jobs, licenses, names, nodes, partitions, sort, states, steps, users;
  bool format_set = false, jobs_set = false, licenses_set = false, names_set = false,
       partitions_set = false, sort_set = false, states_set = false, steps_set = false,
       users_set = false;
};
std::string SqueueVerboseText(const SqueueVerboseOptions& options);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_SQUEUE_SQUEUE_CLI_H_
