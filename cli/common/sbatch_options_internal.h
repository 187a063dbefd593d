// What the sbatch_options library's files share: the merge of the option
// levels (sbatch_option_sources.cc) and the checks of single option values
// (sbatch_option_values.cc). Internal to //cli/common:sbatch_options.
#ifndef SKIFF_CLI_COMMON_SBATCH_OPTIONS_INTERNAL_H_
#define SKIFF_CLI_COMMON_SBATCH_OPTIONS_INTERNAL_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cli/common/sbatch_options.h"
#include "proto/job.pb.h"

namespace skiff::cli::sbatch_internal {

// ---- Levels (sbatch_option_sources.cc) ---------------------------------------

// SBATCH_* variables Skiff reads, as Slurm's sbatch does.
SbatchRawOptions OptionsFromEnvironment(const std::map<std::string, std::string>& env);

// `high` over `low`, field by field. Setting any memory option at the higher
// level replaces all three of the lower level's, so that "--mem-per-cpu" on the
// command line overrides "#SBATCH --mem" instead of conflicting with it, as in
// Slurm (only options set at one level conflict).
SbatchRawOptions Merge(const SbatchRawOptions& low, const SbatchRawOptions& high);

// ---- Values (sbatch_option_values.cc) -----------------------------------------

// Slurm's own words for a value it refuses without naming it
// (src/common/slurm_opt.c): "Invalid --mem specification".
absl::Status BadSpecification(const std::string& option);

absl::Status BadValue(const std::string& option, const std::string& value);

std::optional<int64_t> PositiveInt(std::string_view text);

absl::StatusOr<int32_t> CountOption(const std::string& option, const std::string& value);

// A memory size in MiB (bare numbers are MiB), rounded up to whole MiB.
absl::StatusOr<uint64_t> MemoryOption(const std::string& option, const std::string& value);

std::string Absolute(const std::string& path, const std::string& base);

bool StartsWith(const std::string& text, const std::string& prefix);

// -G/--gpus and --gpus-per-node: "N" or "type:N", a comma list for -G (Slurm
// takes "a100:1,v100:2"). Only the form is checked; ctld knows the types.
absl::Status GpuCountOption(const std::string& option, const std::string& value, bool list);

// --array, checked for form: INDEXES[%MAX] where INDEXES is a comma list of N,
// N-M or N-M:STEP (M >= N, STEP > 0). ctld checks it against MaxArraySize.
absl::Status ArrayOption(const std::string& value);

// --mail-type: a comma list of Slurm's event names, any case. Slurm quietly
// drops unknown names when at least one is known; Skiff refuses them, with
// Slurm's message, so that a typo ("--mail-type=ENDS") does not go unnoticed.
absl::Status MailTypeOption(const std::string& value);

// -w/-x: a hostlist expression, or a host file when the value holds a '/', as
// in Slurm. Names come back expanded, in order, without duplicates.
absl::StatusOr<std::vector<std::string>> NodeListOption(const std::string& option,
                                                        const std::string& value,
                                                        const SubmitContext& context);

// --export: the environment the job gets. SLURM_* variables always go, as in Slurm.
absl::Status FillEnvironment(const std::string& mode, const SubmitContext& context,
                             v1::JobSpec* spec);

}  // namespace skiff::cli::sbatch_internal

#endif  // SKIFF_CLI_COMMON_SBATCH_OPTIONS_INTERNAL_H_
