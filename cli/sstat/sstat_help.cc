#include "cli/sstat/sstat_help.h"

namespace skiff::cli {
namespace {

// Slurm 22.05.8's `sstat --help`, byte for byte.
constexpr char kSlurmHelp[] =
    "sstat [<OPTION>] -j <job(.stepid)>                                          \n"
    "    Valid <OPTION> values are:                                              \n"
    "      -a, --allsteps:                                                       \n"
    "                   Print all steps for the given job(s) when no step is     \n"
    "                   specified.                                               \n"
    "      -e, --helpformat:                                                     \n"
    "\t           Print a list of fields that can be specified with the    \n"
    "\t           '--format' option                                        \n"
    "     -h, --help:   Print this description of use.                           \n"
    "     -i, --pidformat:                                                       \n"
    "                   Predefined format to list the pids running for each      \n"
    "                   job step.  (JobId,Nodes,Pids)                            \n"
    "     -j, --jobs:                                                            \n"
    "\t           Format is <job(.step)>. Stat this job step               \n"
    "                   or comma-separated list of job steps. This option is     \n"
    "                   required.  The step portion will default to the lowest   \n"
    "                   numbered (not batch, extern, etc) step running if not    \n"
    "                   specified, unless the --allsteps flag is set where not   \n"
    "                   specifying a step will result in all running steps       \n"
    "                   to be displayed. A step id of 'batch' will display the   \n"
    "                   information about the batch step. A step id of 'extern'  \n"
    "                   will display the information about the extern step       \n"
    "                   when using PrologFlags=contain.                          \n"
    "     -n, --noheader:                                                        \n"
    "\t           No header will be added to the beginning of output.      \n"
    "                   The default is to print a header.                        \n"
    "     --noconvert:  Don't convert units from their original type             \n"
    "\t\t   (e.g. 2048M won't be converted to 2G).                   \n"
    "     -o, --format:                                                          \n"
    "\t           Comma separated list of fields. (use \"--helpformat\"    \n"
    "                   for a list of available fields).                         \n"
    "     -p, --parsable: output will be '|' delimited with a '|' at the end     \n"
    "     -P, --parsable2: output will be '|' delimited without a '|' at the end \n"
    "     --usage:      Display brief usage message.                             \n"
    "     -v, --verbose:                                                         \n"
    "\t           Primarily for debugging purposes, report the state of    \n"
    "                   various variables during processing.                     \n"
    "     -V, --version: Print version.                                          \n"
    "\n";

// Slurm 22.05.8's `sstat --usage`, byte for byte.
constexpr char kSlurmUsage[] =
    "Usage: sstat [options] -j <job(.stepid)>\n"
    "\tUse --help for help\n";

}  // namespace

// Skiff supports every option of kSlurmHelp: nothing to mark.
std::string SstatHelp() { return kSlurmHelp; }

std::string SstatUsage() { return kSlurmUsage; }

}  // namespace skiff::cli
