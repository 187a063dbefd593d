// sprio's output as pure functions of what ctld returned: the pending jobs' weighted
// priority factors (JobInfo.priority_factors) and the configured weights
// (GetConfig's PriorityWeight* entries), laid out as Slurm 22.05's sprio does:
// its default column choice, its -o field language, -l, -n and -w.
#ifndef SKIFF_CLI_SPRIO_SPRIO_FORMAT_H_
#define SKIFF_CLI_SPRIO_SPRIO_FORMAT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cli/common/percent_format.h"
#include "proto/ctld.pb.h"

namespace skiff::cli {

// The multifactor weights, from GetConfig. Unset = ctld did not publish that
// entry; sprio then shows the column, as it does for a non-zero weight.
struct PublishedWeights {
  std::optional<int64_t> age;        // PriorityWeightAge
  std::optional<int64_t> fairshare;  // PriorityWeightFairshare
  std::optional<int64_t> job_size;   // PriorityWeightJobSize
  std::optional<int64_t> partition;  // PriorityWeightPartition
  std::optional<int64_t> qos;        // PriorityWeightQOS
  std::string tres;                  // PriorityWeightTRES, "" = none
  std::string priority_type;         // PriorityType, "" = not published
};

// Reads the weights out of `scontrol show config` entries; values that are not
// whole numbers count as not published.
PublishedWeights WeightsFromConfig(const v1::GetConfigReply& config);

// OK unless PriorityType is priority/basic, which has no factors to show:
// FailedPrecondition with Slurm's text ("You are not running a supported priority
// plugin\n(priority/basic).\nOnly 'priority/multifactor' is supported.").
absl::Status CheckPriorityType(const PublishedWeights& weights);

struct SprioOptions {
  std::string format;        // -o; empty = the default for the other options
  bool long_format = false;  // -l
  bool normalized = false;   // -n: factors as fractions of their weights
  bool weights = false;      // -w: print the weights instead of jobs
  bool no_header = false;    // -h
  bool show_user = false;    // -u given: the default format gains a USER column
  bool jobs_named = false;   // -j given: say so when none matched
};

// Slurm's default format for these options and weights: "%.15i %9r", " %.8u" with
// -u, then " %.10Y %.10S" and " %.10A %.10F %.10J %.10P %.10Q" for each factor
// whose weight is not zero (unpublished weights count as non-zero). -n uses the
// lower-case, left-justified "%10y %10a ..." forms; -l a fixed list of every column.
std::string SprioDefaultFormat(const SprioOptions& options, const PublishedWeights& weights);

// One piece of a format: literal text, or a field with its width and side.
using SprioFormatItem = PercentFormatItem;

// Parses "%.15i %9r %.10Y..." ("%%" is a literal '%'). Letters: a A b B f F i j J
// n N o p P q Q r S t T u y Y (sprio's; see the man page).
// Error: InvalidArgument "Invalid job format specification: <letter>".
absl::StatusOr<std::vector<SprioFormatItem>> ParseSprioFormat(std::string_view format);

// The whole output: a header line (unless no_header), then with -w one "Weights"
// line, else one line per PENDING job of `reply`, by job id. With jobs_named and
// no pending job: Slurm's "Unable to find jobs matching user/id(s) specified" line
// alone. Errors as ParseSprioFormat.
absl::StatusOr<std::string> FormatSprio(const v1::GetJobsReply& reply,
                                        const PublishedWeights& weights,
                                        const SprioOptions& options);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_SPRIO_SPRIO_FORMAT_H_
