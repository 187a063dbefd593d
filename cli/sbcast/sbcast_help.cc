#include "cli/sbcast/sbcast_help.h"

#include <string_view>

#include "cli/common/help_text.h"

namespace skiff::cli {
namespace {

// Slurm 22.05.8's `sbcast --help`, byte for byte.
constexpr char kSlurmHelp[] =
    "Usage: sbcast [OPTIONS] SOURCE DEST\n"
    "  -C, --compress[=lib]  compress the file being transmitted\n"
    "  --exclude=<path_list> shared object paths to be excluded\n"
    "  -f, --force           replace destination file as required\n"
    "  -F, --fanout=num      specify message fanout\n"
    "  -j, --jobid=#[+#][.#] specify job ID with optional hetjob offset and/or step ID\n"
    "  -p, --preserve        preserve modes and times of source file\n"
    "  --send-libs[=yes|no]  autodetect and broadcast executable's shared objects\n"
    "  -s, --size=num        block size in bytes (rounded off)\n"
    "  -t, --timeout=secs    specify message timeout (seconds)\n"
    "  -v, --verbose         provide detailed event logging\n"
    "  -V, --version         print version information and exit\n"
    "\nHelp options:\n"
    "  --help                show this help message\n"
    "  --usage               display brief usage message\n";

constexpr char kSlurmUsage[] = "Usage: sbcast [--exclude] [-CfFjpvV] [--send-libs] SOURCE DEST\n";

// Accepted and ignored: the step manager sends to every node of the job at
// once, one stream each (docs/compatibility.md).
constexpr std::string_view kUnsupported[] = {
    "-F, --fanout=num",
};

}  // namespace

std::string SbcastHelp() { return MarkUnsupported(kSlurmHelp, kUnsupported); }

std::string SbcastUsage() { return kSlurmUsage; }

}  // namespace skiff::cli
