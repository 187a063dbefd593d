// Slurm's --help texts with what Skiff does not support marked.
//
// Each command prints Slurm 22.05's help text byte for byte, so that scripts
// and people that grep it ("-b, --begin=time", "Valid <COMMAND> values are:")
// find what they find in Slurm's. An option or command that Skiff refuses, or
// accepts and ignores, keeps its line, with a '*' in place of the blank that
// starts it (columns stay where they were), and the text ends with
// kUnsupportedNote. A text with nothing to mark is Slurm's unchanged.
#ifndef SKIFF_CLI_COMMON_HELP_TEXT_H_
#define SKIFF_CLI_COMMON_HELP_TEXT_H_

#include <string>
#include <string_view>

#include "absl/types/span.h"

namespace skiff::cli {

// The line a marked text ends with.
inline constexpr char kUnsupportedNote[] =
    "Entries marked * are not supported by Skiff (refused, or accepted and ignored).\n";

// `slurm_text` with a '*' in the first column of each line that, after its
// leading blanks, starts with one of `unsupported`, then (after a blank line)
// kUnsupportedNote when any line was marked.
// REQUIRES: each entry of `unsupported` starts exactly as many lines of
// `slurm_text` as it is listed times (once, usually), and those lines start
// with a blank; a table that breaks this (a typo, an entry that is the start
// of another's line too, or one that no longer matches) crashes.
std::string MarkUnsupported(std::string_view slurm_text,
                            absl::Span<const std::string_view> unsupported);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_COMMON_HELP_TEXT_H_
