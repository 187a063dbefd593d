#include "cli/sprio/sprio_help.h"

#include <string_view>

#include "cli/common/help_text.h"

namespace skiff::cli {
namespace {

// Slurm 22.05.8's `sprio --help`, byte for byte.
constexpr char kSlurmHelp[] =
    "Usage: sprio [OPTIONS]\n"
    "      --federation                display jobs in federation if a member of one\n"
    "  -h, --noheader                  no headers on output\n"
    "  -j, --jobs                      comma separated list of jobs\n"
    "                                  to view, default is all\n"
    "      --local                     display jobs on local cluster only\n"
    "  -l, --long                      long report\n"
    "  -M, --cluster=cluster_name      cluster to issue commands to.  Default is\n"
    "                                  current cluster.  cluster with no name will\n"
    "                                  reset to default.\n"
    "                                  NOTE: SlurmDBD must be up.\n"
    "  -n, --norm                      display normalized values\n"
    "  -o, --format=format             format specification\n"
    "      --sibling                   display job records separately for each federation cluster\n"
    "  -p, --partition=partition_name  comma separated list of partitions\n"
    "  -u, --user=user_name            comma separated list of users to view\n"
    "  -v, --verbose                   verbosity level\n"
    "  -V, --version                   output version information and exit\n"
    "  -w, --weights                   show the weights for each priority factor\n"
    "\n"
    "Help options:\n"
    "  --help                          show this help message\n"
    "  --usage                         display a brief summary of sprio options\n";

// Slurm 22.05.8's `sprio --usage`, byte for byte.
constexpr char kSlurmUsage[] =
    "Usage: sprio [-j jid[s]] [-u user_name[s]] [-o format] [-p partitions]\n"
    "   [--federation] [--local] [--sibling] [--usage] [-hlnvVw]\n";

// The lines of kSlurmHelp that Skiff does not support, by how they start: those
// missing from sprio.cc's option table.
constexpr std::string_view kUnsupported[] = {
    "--federation", "--local", "-M, --cluster=", "--sibling", "-p, --partition=", "-v, --verbose",
};

}  // namespace

std::string SprioHelp() { return MarkUnsupported(kSlurmHelp, kUnsupported); }

std::string SprioUsage() { return kSlurmUsage; }

}  // namespace skiff::cli
