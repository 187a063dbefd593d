// The job side of burst_buffer/lua: which directives a job carries, what they
// ask for, and Slurm's submit-time checks. Pure functions, thread-safe.
//
// Flow at submit (ctld, before calling slurm_bb_job_process):
//   lines = ExtractBbDirectives(script, directive)
//         + BbOptionToDirectives(--bb or --bbf text, directive)
//   CheckBbUser(...)                      root / AllowUsers / DenyUsers
//   request = ParseBbRequest(lines, directive, pools)   pool= capacity=
//   once the job id is known: ExpandBbSymbols on each line (%j, %u, ...), and
//   MergeBbDirectivesIntoScript for the job_script file the Lua code opens.
// A job uses burst buffers exactly when `lines` is non-empty.
#ifndef SKIFF_CTLD_CORE_BURST_BUFFER_DIRECTIVES_H_
#define SKIFF_CTLD_CORE_BURST_BUFFER_DIRECTIVES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/config/config.h"
#include "ctld/core/burst_buffer/pools.h"

namespace skiff::ctld {

// Slurm's submit errors as sbatch prints them after "Batch job submission
// failed: ". Functions here return InvalidArgument for the first and
// PermissionDenied for the second, with a message saying what exactly is wrong
// (Slurm often prints nothing more; Skiff's CLI prints the message as its own
// "sbatch: error:" line first, as Slurm does for the Lua script's message).
inline constexpr char kBbInvalidText[] = "Burst Buffer request invalid";
inline constexpr char kBbPermissionText[] = "Burst Buffer permission denied";

// kBbPermissionText for PermissionDenied, kBbInvalidText otherwise.
const char* BbSubmitErrorText(const absl::Status& status);

// The directive lines ("#BB_LUA ...", `directive` without '#') of the script's
// leading comment block: every line up to the first one that is neither blank
// nor a comment, so #BB_LUA lines may sit before, after or among #SBATCH lines.
// Leading whitespace is dropped. A directive line ending in a single '\' is
// continued by the next comment line (its "#BB_LUA" or "#" prefix removed),
// joined with one space. The directive must be followed by whitespace or end
// the line: "#BB_LUAX" is not a directive.
std::vector<std::string> ExtractBbDirectives(std::string_view script, std::string_view directive);

// --bb text (or --bbf file contents) as directive lines. Slurm's lua plugin
// takes --bb verbatim ("#BB_LUA pool=p capacity=1K"), and Slurm 22.05 also
// accepted the bare form (sbatch --bb="pool=fast capacity=1G" in
// sbatch_bb_cmdline_bb_option.txt), so each non-blank line without the
// directive gets "#BB_LUA " put in front. Other comment lines are dropped.
std::vector<std::string> BbOptionToDirectives(std::string_view text, std::string_view directive);

// The script without its directive lines (those ExtractBbDirectives returns,
// continuation lines included); everything else, the "#!" line and #SBATCH
// lines among them, is kept as it is. Used to put the symbol-expanded lines
// back in with MergeBbDirectivesIntoScript instead of next to the originals.
std::string RemoveBbDirectives(std::string_view script, std::string_view directive);

// The job's batch script with `lines` inserted after the "#!" line (or first, if
// there is none), so they are in the leading comment block that
// ExtractBbDirectives and the Lua script read. Lines already in the script are
// not repeated. No lines: the script unchanged.
std::string MergeBbDirectivesIntoScript(std::string_view script,
                                        const std::vector<std::string>& lines);

// Values for Slurm's burst-buffer symbols.
struct BbSymbols {
  uint32_t job_id = 0;
  // Set for array tasks only. For a plain job %A is the job id and %a is
  // 4294967294 (Slurm's NO_VAL), as in Slurm's filename patterns.
  std::optional<uint32_t> array_job_id;
  std::optional<uint32_t> array_task_id;
  std::string work_dir;   // %d
  std::string user_name;  // %u
  std::string job_name;   // %x
};

// Expands %% %A %a %d %j %u %x. "\\" stops expansion: it is dropped and the rest
// of the line is copied as is. Any other "%c" is kept unchanged, as is a
// trailing '%'.
std::string ExpandBbSymbols(std::string_view line, const BbSymbols& symbols);

// What the directives ask of the pools.
struct BbRequest {
  std::string pool;   // "" when no pool= was given
  uint64_t size = 0;  // bytes, rounded up to the pool's granularity; 0 without capacity=
};

// Reads pool=NAME and capacity=SIZE tokens (whitespace separated, optional
// double quotes around the value) from the directive lines; other tokens are
// for burst_buffer.lua and ignored here. SIZE: a bare number is bytes;
// K/KiB/M/MiB/G/GiB/T/TiB are powers of 1024, KB/MB/GB/TB powers of 1000.
// Errors (InvalidArgument): capacity without pool, capacity 0 or malformed, two
// different pools or two capacities, an unknown pool, and a size larger than the
// pool's whole space (Slurm accepts that and pends forever; Skiff rejects it).
absl::StatusOr<BbRequest> ParseBbRequest(const std::vector<std::string>& lines,
                                         std::string_view directive, const BbPoolTable& pools);

// Whether this user may use burst buffers at all. Slurm refuses root ("User root
// can not allocate burst buffers") unless allow_root; then AllowUsers (only
// those listed) or DenyUsers (all but those listed), which hold user names or
// numeric uids. Errors: PermissionDenied with Slurm's wording for root.
absl::Status CheckBbUser(uint32_t uid, std::string_view user_name, const BurstBufferConfig& config,
                         bool allow_root = false);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_BURST_BUFFER_DIRECTIVES_H_
