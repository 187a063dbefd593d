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

// What Slurm's commands print among their options (spank_print_options) when
// NVIDIA's pyxis plugin is loaded: sbatch, salloc and srun take its container
// options (cli/common/container_options.h). Laid out as Slurm lays out a
// plugin's options (6 blanks, a 30-column name, the text wrapped at 80),
// with descriptions of Skiff's own.
inline constexpr char kPyxisOptionsHelp[] =
    "\n"
    "Options provided by plugins:\n"
    "\n"
    "      --container-image=[USER@][REGISTRY#]IMAGE[:TAG]|PATH\n"
    "                              [pyxis] the image the tasks' container is made\n"
    "                              from: an enroot URI of a docker image, or the path\n"
    "                              of a squashfs file on the nodes\n"
    "\n"
    "      --container-mounts=SRC[:DST[:FLAGS]][,SRC[:DST...]]\n"
    "                              [pyxis] bind mounts inside the container; a\n"
    "                              mount's flags are separated by \"+\", as in\n"
    "                              \"ro+rprivate\"\n"
    "\n"
    "      --container-workdir=PATH\n"
    "                              [pyxis] the working directory inside the container\n"
    "\n"
    "      --container-name=NAME[:FLAG]\n"
    "                              [pyxis] keep the container on the nodes under this\n"
    "                              name and use it again while it exists; FLAG is\n"
    "                              auto (the default), create, exec or no_exec\n"
    "      --container-mount-home  [pyxis] bind mount the user's home directory\n"
    "\n"
    "      --no-container-mount-home\n"
    "                              [pyxis] do not bind mount the user's home\n"
    "                              directory\n"
    "      --container-remap-root  [pyxis] be root inside the container (in a user\n"
    "                              namespace: no privilege on the host)\n"
    "\n"
    "      --no-container-remap-root\n"
    "                              [pyxis] do not remap to root inside the container\n"
    "\n"
    "      --container-env=NAME[,NAME...]\n"
    "                              [pyxis] environment variables whose values from\n"
    "                              the host win over the image's\n";

// `slurm_text` with kPyxisOptionsHelp where Slurm prints its plugins' options:
// before the blank line that precedes the heading `next_heading` ("GPU
// scheduling options:" for sbatch and srun, "Help options:" for salloc).
// REQUIRES: `slurm_text` has that heading once, after a blank line; else it
// crashes, as MarkUnsupported does for a bad table.
std::string WithPluginOptions(std::string_view slurm_text, std::string_view next_heading);

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
