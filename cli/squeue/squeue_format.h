// squeue's output as pure functions of what ctld returned: which jobs are shown,
// in which order, and the -o/--format field language, column for column as
// Slurm 22.05 prints them (see shared/reference/squeue_*.txt).
#ifndef SKIFF_CLI_SQUEUE_SQUEUE_FORMAT_H_
#define SKIFF_CLI_SQUEUE_SQUEUE_FORMAT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/ctld.pb.h"

namespace skiff {

// Slurm's default format and the one -l/--long uses.
inline constexpr char kSqueueDefaultFormat[] = "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R";
inline constexpr char kSqueueLongFormat[] = "%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R";

// One piece of a format: literal text, or a field with its width and side.
struct SqueueFormatItem {
  std::string literal;  // set for text between fields; field == 0 then
  char field = 0;       // the letter after '%', e.g. 'i'
  int width = 0;        // 0 = as wide as the value, never truncated
  bool right = false;   // '.' before the width: right-justify
};

// Parses "%.18i %.9P %j..." into items. "%%" is a literal '%'.
// Error: InvalidArgument "Invalid job format specification: <letter>" for a letter
// squeue does not know (see FieldHeader for the supported ones), or a '%' at the end.
absl::StatusOr<std::vector<SqueueFormatItem>> ParseSqueueFormat(std::string_view format);

// The column header of a field letter ("JOBID" for 'i'); empty for an unknown one.
// Supported: a b C D e E g i j k l L m M N o P q Q r R S t T u U V Z.
std::string SqueueFieldHeader(char field);

struct SqueueOptions {
  std::string format;        // -o; empty = kSqueueDefaultFormat (or the long one)
  bool no_header = false;    // -h
  bool long_format = false;  // -l: long format and a timestamp line first
  // -t: jobs in these states; empty = PENDING, CONFIGURING, RUNNING, COMPLETING
  // (Slurm hides finished jobs unless asked).
  std::vector<v1::JobState> states;
  int64_t now = 0;  // for TIME of running jobs and the -l timestamp
};

// The jobs to print, in Slurm's default order ("P,t,-p"): by partition name, then by
// compact state code as text (so CG < PD < R), then by priority, highest first.
// The sort is stable, so jobs that tie keep ctld's order, as Slurm's list_sort keeps
// slurmctld's. Filters by options.states. Pointers are into `reply`.
std::vector<const v1::JobInfo*> SelectAndSortJobs(const v1::GetJobsReply& reply,
                                                  const SqueueOptions& options);

// One field of one job, untruncated: "15391", "n[1-2]", "(Resources)", "0:06".
std::string SqueueFieldValue(const v1::JobInfo& job, char field, int64_t now);

// The whole output, newline-terminated lines (a header unless no_header).
// Errors as ParseSqueueFormat.
absl::StatusOr<std::string> FormatSqueue(const v1::GetJobsReply& reply,
                                         const SqueueOptions& options);

}  // namespace skiff

#endif  // SKIFF_CLI_SQUEUE_SQUEUE_FORMAT_H_
