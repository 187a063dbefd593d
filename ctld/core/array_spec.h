// Job array index specifications (sbatch --array) and their compact text.
//
// ParseArraySpec("1-100%10") turns Slurm's --array argument into sorted, unique
// task ids and the %N throttle. Grammar (Slurm's): a comma-separated list of
// "N", "N-M" or "N-M:S" (step S > 0), optionally followed by "%N" (at most N
// tasks running at once, N > 0), optionally inside one pair of brackets
// ("[1-5]%2" or "[1-5%2]", as squeue prints them). Every id must be below
// MaxArraySize. Errors are InvalidArgument whose message starts with Slurm's
// text, kInvalidArraySpec ("Invalid job array specification"), followed by
// ": " and what is wrong.
//
// FormatTaskIds is the reverse, with Slurm's rule for squeue/scontrol: a set
// spanning more than 10 ids whose second id is not first+1 and whose gaps are all
// equal prints as "first-last:step" ("0-12:4"); anything else as ranges
// ("1-5,10"); "%N" is appended when throttled.
//
// Pure: no I/O, no locks, no clock. Ownership: results are values.
#ifndef SKIFF_CTLD_CORE_ARRAY_SPEC_H_
#define SKIFF_CTLD_CORE_ARRAY_SPEC_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace skiff::ctld {

// Slurm's MaxArraySize default: task ids 0..1000.
inline constexpr int64_t kDefaultMaxArraySize = 1001;
// The largest MaxArraySize Slurm accepts.
inline constexpr int64_t kMaxMaxArraySize = 4000001;
// The text every bad --array gets (sbatch prints it after "Batch job submission failed: ").
inline constexpr char kInvalidArraySpec[] = "Invalid job array specification";

struct ArraySpec {
  std::vector<uint32_t> task_ids;  // sorted ascending, unique, never empty
  uint32_t max_running = 0;        // %N; 0 = no throttle
};

// REQUIRES: 1 <= max_array_size <= kMaxMaxArraySize (MaxArraySize; ids must be < it).
absl::StatusOr<ArraySpec> ParseArraySpec(const std::string& text,
                                         int64_t max_array_size = kDefaultMaxArraySize);

// "8-100", "1,3,5", "0-12:4", "1-5,10", plus "%10" when max_running > 0.
// REQUIRES: `ids` sorted ascending and unique. Empty ids give "" (or "%N").
std::string FormatTaskIds(const std::vector<uint32_t>& ids, uint32_t max_running = 0);

// squeue's form for an array's pending tasks: "123_[8-100%10]".
std::string FormatArrayJobId(uint64_t array_job_id, const std::vector<uint32_t>& ids,
                             uint32_t max_running = 0);

// One task: "123_7".
std::string FormatArrayTaskId(uint64_t array_job_id, uint32_t task_id);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_ARRAY_SPEC_H_
