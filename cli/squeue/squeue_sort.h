// squeue -S/--sort: Slurm's sort keys ("P,t,-p", "-S,i", "cluster") and the
// order they give. Pure; thread-safe.
#ifndef SKIFF_CLI_SQUEUE_SQUEUE_SORT_H_
#define SKIFF_CLI_SQUEUE_SQUEUE_SORT_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/job.pb.h"

namespace skiff::cli {

// Slurm's default sorts: partition, state, priority (highest first); and with
// --start, expected start time.
inline constexpr char kSqueueDefaultSort[] = "P,t,-p";
inline constexpr char kSqueueStartSort[] = "S";

struct SqueueSortKey {
  char field = 0;        // a format letter: 'P', 't', 'p', 'S', ...
  bool reverse = false;  // written with a '-' before it
};

struct SqueueSort {
  std::vector<SqueueSortKey> keys;  // most significant first
  // What Slurm says but does not stop for ("Invalid sort specification: b").
  std::vector<std::string> notes;
};

// Reads `spec` as Slurm's sort_job_list does: every character other than ',',
// '+' and '-' is one key letter, reversed when a '-' comes just before it;
// "cluster" (any case) is one key. Keys: B C d D e g G H i I j J l L m M N p P
// Q S t T u U v V z; c f h n O are accepted and ignored, as in Slurm, and so
// is "cluster" (Skiff has one cluster); b is ignored with a note.
// Error: InvalidArgument "Invalid sort specification: <letter>" for the last
// (rightmost) other letter, as Slurm reports it.
absl::StatusOr<SqueueSort> ParseSqueueSort(std::string_view spec);

// Orders `jobs` by `keys` (a stable sort: jobs that tie keep their order).
// `now` is for time used/left and for pending jobs' start times, which Slurm
// counts as now when earlier; jobs with no start time sort last by 'S'.
void SortSqueueJobs(const std::vector<SqueueSortKey>& keys, int64_t now,
                    std::vector<const v1::JobInfo*>* jobs);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_SQUEUE_SQUEUE_SORT_H_
