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
#include "cli/common/percent_format.h"
#include "proto/ctld.pb.h"

namespace skiff {

// Slurm's default format, the one -l/--long uses and the one --start uses.
inline constexpr char kSqueueDefaultFormat[] = "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R";
inline constexpr char kSqueueLongFormat[] = "%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R";
inline constexpr char kSqueueStartFormat[] = "%.18i %.9P %.8j %.8u %.2t %.19S %.6D %20Y %R";

// Field codes for -O/--Format names that have no -o letter.
inline constexpr char kFieldBurstBuffer = '\x01';       // -O BurstBuffer
inline constexpr char kFieldBurstBufferState = '\x02';  // -O BurstBufferState

// One piece of a format: literal text, or a field with its width and side.
using SqueueFormatItem = PercentFormatItem;

// Parses an -o format, "%.18i %.9P %j...", into items. "%%" is a literal '%'.
// Error: InvalidArgument "Invalid job format specification: <letter>" for a letter
// squeue does not know (see SqueueFieldHeader for the supported ones), or a '%' at
// the end.
absl::StatusOr<std::vector<SqueueFormatItem>> ParseSqueueFormat(std::string_view format);

// Parses an -O/--Format list, "JobID:.10,Name,BurstBuffer:30|", as Slurm does:
// comma-separated names (any case), each optionally followed by ':', '.' for
// right-justification, a width and a suffix printed after the field. Without ':'
// a field is 20 wide, left-justified; fields are not otherwise separated.
// Names: Account ArrayJobID ArrayTaskID BurstBuffer BurstBufferState Command
// Comment Dependency EndTime GroupID GroupName JobArrayID JobID MinMemory Name
// NodeList NumCPUs NumNodes Partition PriorityLong QOS Reason ReasonList
// SchedNodes StartTime State StateCompact SubmitTime TimeLeft TimeLimit TimeUsed
// tres-per-node (and its old name gres) UserID UserName WorkDir.
// Error: InvalidArgument "Invalid job format specification: <name>".
absl::StatusOr<std::vector<SqueueFormatItem>> ParseSqueueLongFormat(std::string_view format);

// The column header of a field ("JOBID" for 'i'); empty for an unknown one.
// Supported letters: a A b C D e E F g G i j k K l L m M N o P q Q r R S t T u U V Y Z,
// and the kField* codes.
std::string SqueueFieldHeader(char field);

struct SqueueOptions {
  std::string format;         // -o; empty = kSqueueDefaultFormat (or -l's, --start's)
  std::string format_fields;  // -O, used when format is empty
  bool no_header = false;     // -h
  bool long_format = false;   // -l: long format and a timestamp line first
  bool array = false;         // -r: one line per array task, never collapsed
  bool start = false;         // --start: kSqueueStartFormat, ordered by expected start
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

// One output line: a job, or (without -r) the pending tasks of one array that wait
// for the same reason, collapsed into "15400_[1-5]" as Slurm shows them.
struct SqueueRow {
  const v1::JobInfo* job = nullptr;  // for a collapsed line, its first task in display order
  std::vector<int32_t> tasks;        // a collapsed line's task ids (2 or more); else empty
};

// SelectAndSortJobs, then (unless options.array) each group of PENDING tasks of one
// array with the same partition and reason becomes one row, where the group's
// first task would be. With options.start, rows are then ordered by expected start
// time, unknown ones last. Pointers are into `reply`.
std::vector<SqueueRow> SelectAndSortRows(const v1::GetJobsReply& reply,
                                         const SqueueOptions& options);

// One field of one row, untruncated. A collapsed row shows "15400_[1-5%2]" for
// %i, "1-5%2" for %K and the array's id for %A and %F; its other fields are its
// first task's.
std::string SqueueRowValue(const SqueueRow& row, char field, int64_t now);

// One field of one job, untruncated: "15391", "15400_3", "n[1-2]", "(Resources)".
std::string SqueueFieldValue(const v1::JobInfo& job, char field, int64_t now);

// The whole output, newline-terminated lines (a header unless no_header).
// Errors as ParseSqueueFormat.
absl::StatusOr<std::string> FormatSqueue(const v1::GetJobsReply& reply,
                                         const SqueueOptions& options);

}  // namespace skiff

#endif  // SKIFF_CLI_SQUEUE_SQUEUE_FORMAT_H_
