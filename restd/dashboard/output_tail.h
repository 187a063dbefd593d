// The last lines of a job's output, the pure part of restd's
// GET /skiff/v1/job/{job_id}/output?lines=N (issue 36): what "lines" may ask
// for and which bytes of the file's end make the answer. At most
// kMaxTailLines lines and kMaxTailBytes bytes (the last MiB of the file), so
// a job that wrote gigabytes costs one bounded read.
//
// Pure; thread-safe.
#ifndef SKIFF_RESTD_DASHBOARD_OUTPUT_TAIL_H_
#define SKIFF_RESTD_DASHBOARD_OUTPUT_TAIL_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace skiff::restd {

inline constexpr int kDefaultTailLines = 100;
inline constexpr int kMaxTailLines = 1000;
inline constexpr size_t kMaxTailBytes = 1 << 20;

// The "lines" query parameter: "" gives kDefaultTailLines; a number from 1
// up, capped at kMaxTailLines; anything else is InvalidArgument.
absl::StatusOr<int> ParseTailLines(absl::string_view text);

// Where to start reading a file of `file_size` bytes: the last kMaxTailBytes.
int64_t TailReadOffset(int64_t file_size);

struct OutputTail {
  std::string text;        // the lines, each with its '\n' (the last may lack one)
  bool truncated = false;  // earlier output exists that `text` does not show
};

// The last `lines` lines of `window`, the file's bytes from `window_offset`
// to its end, as `tail -n` counts them: a final '\n' ends the last line
// rather than starting an empty one. When the lines reach back past the
// window's start (window_offset > 0), the first line shown is cut and
// `truncated` is set; it is set too when earlier lines exist.
OutputTail TailOf(absl::string_view window, int64_t window_offset, int lines);

}  // namespace skiff::restd

#endif  // SKIFF_RESTD_DASHBOARD_OUTPUT_TAIL_H_
