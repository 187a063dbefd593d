// squeue's output as pure functions of what ctld returned: which jobs are shown,
// in which order, and the -o/--format and -O/--Format field languages, column
// for column as Slurm 22.05 prints them (see shared/reference/squeue_*.txt and
// Slurm's src/squeue/print.c, opts.c, sort.c).
//
// Pure; thread-safe. Pointers returned point into the caller's reply.
#ifndef SKIFF_CLI_SQUEUE_SQUEUE_FORMAT_H_
#define SKIFF_CLI_SQUEUE_SQUEUE_FORMAT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/common/percent_format.h"
#include "proto/ctld.pb.h"

namespace skiff::cli {

// Slurm's default format, the one -l/--long uses and the one --start uses.
inline constexpr char kSqueueDefaultFormat[] = "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R";
inline constexpr char kSqueueLongFormat[] = "%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R";
inline constexpr char kSqueueStartFormat[] = "%.18i %.9P %.8j %.8u %.2t %.19S %.6D %20Y %R";
// Slurm's step format (squeue -s).
inline constexpr char kSqueueStepFormat[] = "%.15i %.8j %.9P %.8u %.9M %N";

// Field codes for -O/--Format names that have no -o letter.
inline constexpr char kFieldBurstBuffer = '\x01';       // -O BurstBuffer
inline constexpr char kFieldBurstBufferState = '\x02';  // -O BurstBufferState
// The other -O names without a letter (TRES_ALLOC, ACCRUE_TIME, ...) take codes
// from here up, one per name of Slurm 22.05's list (SqueueFieldHeader knows
// them all).
inline constexpr char kFieldExtraBase = static_cast<char>(0x80);

// One piece of a format: literal text, or a field with its width and side.
using SqueueFormatItem = PercentFormatItem;

// A parsed format and what Slurm says about its bad fields. Slurm does not stop
// at a bad field: it prints "squeue: error: <error>" and goes on, the bad field
// printing as its own text ("%!" stays "%!" in every line), as these items do.
struct SqueueFormatSpec {
  std::vector<SqueueFormatItem> items;
  std::vector<std::string> errors;  // "Invalid job format specification: !"
};

// Parses an -o format as Slurm does: text before the first '%' is printed
// as is; every '%' starts a field "[.][width]<letter>" whose following text,
// up to the next '%', is printed after it ("%%" is no escape: empty fields
// vanish). Every letter a-z and A-Z is a field (SqueueFieldHeader); anything
// else is a bad field (see SqueueFormatSpec).
SqueueFormatSpec ParseSqueueFormat(std::string_view format);

// Parses an -O/--Format list, "JobID:.10,Name,BurstBuffer:30|", as Slurm does:
// comma-separated names (any case), each optionally followed by ':', '.' for
// right-justification, a width and a suffix printed after the field. Without ':'
// a field is 20 wide, left-justified; fields are not otherwise separated.
// An unknown name is a bad field: "Invalid job format specification: <name>".
SqueueFormatSpec ParseSqueueLongFormat(std::string_view format);

// The column header of a field ("JOBID" for 'i'); empty for an unknown one.
std::string SqueueFieldHeader(char field);

struct SqueueOptions {
  std::string format;         // -o; empty = kSqueueDefaultFormat (or -l's, --start's)
  bool format_given = false;  // -o was given (even empty)
  std::string format_fields;  // -O, used when -o is not given
  bool format_fields_given = false;
  bool no_header = false;    // -h
  bool long_format = false;  // -l: long format
  bool array = false;        // -r: one line per array task, never collapsed
  bool start = false;        // --start: kSqueueStartFormat, sorted by expected start
  // -t: jobs in these states. With states_given false: PENDING, CONFIGURING,
  // RUNNING, COMPLETING (Slurm hides finished jobs unless asked). A -t list of
  // states Skiff never has (SUSPENDED, ...) leaves `states` empty and shows none.
  bool states_given = false;
  std::vector<v1::JobState> states;
  // -L: only jobs asking for one of these licenses (by name, counts aside).
  bool licenses_given = false;
  std::vector<std::string> licenses;
  std::string sort;  // -S; empty = "P,t,-p", or "S" with --start
  int64_t now = 0;   // for TIME of running jobs
};

// The parsed format these options print with: -o, else -O, else the default
// (long, start) one.
SqueueFormatSpec SqueueFormatFor(const SqueueOptions& options);

// One output line: a job, or (without -r) the pending tasks of one array that wait
// for the same reason, collapsed into "15400_[1-5]" as Slurm shows them.
struct SqueueRow {
  const v1::JobInfo* job = nullptr;  // for a collapsed line, its first task
  std::vector<int32_t> tasks;        // a collapsed line's task ids (2 or more); else empty
};

// The jobs the options select (states, -L), collapsed into rows unless
// options.array, then sorted by options.sort (or its default). REQUIRES: the
// sort passes ParseSqueueSort. Pointers are into `reply`.
std::vector<SqueueRow> SelectAndSortRows(const v1::GetJobsReply& reply,
                                         const SqueueOptions& options);

// One field of one row, untruncated. A collapsed row shows "15400_[1-5%2]" for
// %i, "1-5%2" for %K and the array's id for %A and %F; its other fields are its
// first task's.
std::string SqueueRowValue(const SqueueRow& row, char field, int64_t now);

// One field of one job, untruncated: "15391", "15400_3", "n[1-2]", "(Resources)".
std::string SqueueFieldValue(const v1::JobInfo& job, char field, int64_t now);

// Whether every field the options' format shows and every key they sort by
// reads only what ctld sends in a summary (GetJobsRequest.summary): the job's
// spec as far as ctld keeps it in memory, no output paths. squeue then asks
// for the summary, which ctld neither parses nor copies whole jobs for.
bool SqueueNeedsOnlySummary(const SqueueOptions& options);

// The whole output, newline-terminated lines (a header unless no_header), in
// the format SqueueFormatFor gives (its errors are the caller's to print).
std::string FormatSqueue(const v1::GetJobsReply& reply, const SqueueOptions& options);

// squeue -s: Slurm's step listing of `steps` in `format` (kSqueueStepFormat
// when empty): STEPID "42.0", "40_3.batch"; TIME since the step started.
std::string FormatSqueueSteps(const std::string& format, bool no_header,
                              const std::vector<v1::StepInfo>& steps, int64_t now);
std::string SqueueStepId(const v1::StepInfo& step);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_SQUEUE_SQUEUE_FORMAT_H_
