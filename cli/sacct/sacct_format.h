// sacct's output as pure functions: the rows of a GetAccountingReply (jobs and
// their steps) in Slurm 22.05's fields, widths and value forms (src/sacct/
// sacct.c's field table, print.c's values, print_fields.c's layout): fixed
// columns with '+' where a value is cut, or '|'-separated with -p/-P.
#ifndef SKIFF_CLI_SACCT_SACCT_FORMAT_H_
#define SKIFF_CLI_SACCT_SACCT_FORMAT_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "client/json_writer.h"
#include "proto/accounting.pb.h"

namespace skiff::cli {

// Slurm's default field lists.
inline constexpr char kSacctDefaultFields[] =
    "jobid,jobname,partition,account,alloccpus,state,exitcode";
inline constexpr char kSacctBriefFields[] = "jobid,state,exitcode";
// -l: Slurm's long list, less the fields of job-gathering plugins Skiff does
// not run (step statistics: MaxRSS, AveCPU, ...), which would always be empty.
inline constexpr char kSacctLongFields[] =
    "jobid,jobidraw,jobname,partition,ntasks,alloccpus,elapsed,state,exitcode,reqmem,reqtres,"
    "alloctres";

struct SacctField {
  std::string name;  // as Slurm spells it in the header
  int width = 10;    // negative: left-aligned
  int column = 0;    // which value (internal)
};

// "jobid,state%20,..." -> fields. Names are case-insensitive and exact, as in
// Slurm. Error: InvalidArgument `Invalid field requested: "X"`.
absl::StatusOr<std::vector<SacctField>> ParseSacctFormat(const std::string& format);

struct SacctLayout {
  bool no_header = false;  // -n
  bool parsable = false;   // -p: '|' after every field
  bool parsable2 = false;  // -P: '|' between fields
  std::string delimiter;   // --delimiter; empty = '|'
  bool truncate = false;   // -T: Start/End clipped to the window
  int64_t window_start = 0;
  int64_t window_end = 0;
  int units = 0;  // --units: 1 K, 2 M, 3 G, 4 T, 5 P; 0 = Slurm's exact units
};

// --units=[KMGTP] (any case; Slurm reads the first letter) to
// SacctLayout::units. Error: InvalidArgument "Invalid unit type 'X'. Possible
// options are 'KMGTP'".
absl::StatusOr<int> ParseSacctUnits(const std::string& text);

// The table: a header (and dashes when fixed-width) unless no_header, then a row
// per job (unless steps_only) followed by its steps. Pending array tasks that
// never started and share a state show as one row "N_[a-b]", as Slurm's
// database holds them.
std::string FormatSacct(const v1::GetAccountingReply& reply, const std::vector<SacctField>& fields,
                        const SacctLayout& layout);

// sacct -e: the field names, four to a line in 20-character columns.
std::string SacctHelpFormat();

// A TRES string as Slurm's JSON lists it: "billing=2,cpu=2,gres/gpu=1,mem=200M"
// -> [{"type": "cpu", "name": null, "id": 1, "count": 2}, {"type": "mem", ...,
// "id": 2, "count": 200 (MB)}, ..., {"type": "gres", "name": "gpu", "id": 1001,
// ...}], by id as Slurm's database holds them (cpu 1, mem 2, energy 3, node 4,
// billing 5; gres/gpu 1001 and bb/lua 1002, the ids Slurm gives them on a
// cluster that defines them first).
client::Json SacctTresArray(const std::string& tres);

// Slurm's JSON (--json, v0.0.38 layout of `jobs`), one object per job with its
// steps, handed to `write` a piece at a time, made one job at a time (a year
// of a lab's jobs is hundreds of MB of JSON).
void WriteSacctJson(const v1::GetAccountingReply& reply,
                    const std::function<void(std::string_view)>& write);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_SACCT_SACCT_FORMAT_H_
