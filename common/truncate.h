// Bounds for text that a site's script or program produced and that Skiff passes
// on: a gRPC status message travels in the reply's metadata (gRPC refuses
// metadata over 8 KiB by default: the caller sees "received initial metadata
// size exceeds limit" instead of the message), and a job's Reason is shown by
// every squeue and scontrol. burst_buffer.lua can return megabytes.
//
// Pure; thread-safe.
#ifndef SKIFF_COMMON_TRUNCATE_H_
#define SKIFF_COMMON_TRUNCATE_H_

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace skiff {

// A Reason, or the message of a status that carries a script's words.
inline constexpr size_t kMaxMessageBytes = 1024;

// `text` as it is when it has at most `max_bytes` bytes; else its first bytes,
// cut at a UTF-8 character boundary so that at most `max_bytes` remain, then
// " ... (truncated, N bytes in all)".
std::string TruncateMessage(absl::string_view text, size_t max_bytes = kMaxMessageBytes);

}  // namespace skiff

#endif  // SKIFF_COMMON_TRUNCATE_H_
