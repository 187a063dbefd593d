#include "cli/salloc/salloc_help.h"

#include <string_view>

#include "cli/common/help_text.h"
#include "cli/common/slurm_help_sections.h"

namespace skiff::cli {
namespace {

// Slurm 22.05.8's `salloc --help`, byte for byte: its own lines and the sections
// it shares with the others (slurm_help_sections.h), one macro a line.
// clang-format off
constexpr char kSlurmHelp[] =
    "Usage: salloc [OPTIONS(0)...] [ : [OPTIONS(N)]] [command(0) [args(0)...]]\n"
    "\n"
    "Parallel run options:\n"
    "  -A, --account=name          charge job to specified account\n"
    "  -b, --begin=time            defer job until HH:MM MM/DD/YY\n"
    "      --bell                  ring the terminal bell when the job is allocated\n"
    "      --bb=<spec>             burst buffer specifications\n"
    "      --bbf=<file_name>       burst buffer specification file\n"
    "  -c, --cpus-per-task=ncpus   number of cpus required per task\n"
    "      --comment=name          arbitrary comment\n"
    "      --container             Path to OCI container bundle\n"
    "      --cpu-freq=min[-max[:gov]] requested cpu frequency (and governor)\n"
    "      --delay-boot=mins       delay boot for desired node features\n"
    "  -d, --dependency=type:jobid[:time] defer job until condition on jobid is satisfied\n"
    "      --deadline=time         remove the job if no ending possible before\n"
    "                              this deadline (start > (deadline - time[-min]))\n"
    "  -D, --chdir=path            change working directory\n"
    "      --get-user-env          used by Moab.  See srun man page.\n"
    "      --gid=group_id          group ID to run job as (user root only)\n"
    "      --gres=list             required generic resources\n"
    "      --gres-flags=opts       flags related to GRES management\n"
    "  -H, --hold                  submit job in held state\n"
    "  -I, --immediate[=secs]      exit if resources not available in \"secs\"\n"
    "  -J, --job-name=jobname      name of job\n"
    "  -k, --no-kill               do not kill job on node failure\n"
    "  -K, --kill-command[=signal] signal to send terminating job\n"
    "  -L, --licenses=names        required license, comma separated\n"
    SLURM_HELP_CLUSTERS_OPTION
    SLURM_HELP_DISTRIBUTION_AND_MAIL_OPTIONS
    "  -n, --ntasks=N              number of processors required\n"
    "      --nice[=value]          decrease scheduling priority by value\n"
    "      --no-bell               do NOT ring the terminal bell\n"
    "      --ntasks-per-node=n     number of tasks to invoke on each node\n"
    "  -N, --nodes=N               number of nodes on which to run (N = min[-max])\n"
    "  -O, --overcommit            overcommit resources\n"
    "      --power=flags           power management options\n"
    "      --priority=value        set the priority of the job to value\n"
    "      --profile=value         enable acct_gather_profile for detailed data\n"
    "                              value is all or none or any combination of\n"
    "                              energy, lustre, network or task\n"
    "  -p, --partition=partition   partition requested\n"
    "  -q, --qos=qos               quality of service\n"
    "  -Q, --quiet                 quiet mode (suppress informational messages)\n"
    "      --reboot                reboot compute nodes before starting job\n"
    "  -s, --oversubscribe         oversubscribe resources with other jobs\n"
    "      --signal=[R:]num[@time] send signal when time limit within time seconds\n"
    "      --spread-job            spread job across as many nodes as possible\n"
    "      --switches=max-switches{@max-time-to-wait}\n"
    "                              Optimum switches and max time to wait for optimum\n"
    "  -S, --core-spec=cores       count of reserved cores\n"
    "      --thread-spec=threads   count of reserved threads\n"
    "  -t, --time=minutes          time limit\n"
    "      --time-min=minutes      minimum time limit (if distinct)\n"
    "      --uid=user_id           user ID to run job as (user root only)\n"
    "      --use-min-nodes         if a range of node counts is given, prefer the\n"
    "                              smaller count\n"
    "  -v, --verbose               verbose mode (multiple -v's increase verbosity)\n"
    "      --wckey=wckey           wckey to run job under\n"
    "\n"
    "Constraint options:\n"
    "      --cluster-constraint=list specify a list of cluster constraints\n"
    SLURM_HELP_ALLOCATION_RESOURCE_OPTIONS
    "\n"
    SLURM_HELP_HELP_AND_OTHER_OPTIONS;
// clang-format on

// Slurm 22.05.8's `salloc --usage`, byte for byte.
constexpr char kSlurmUsage[] =
    "Usage: salloc [-N numnodes|[min nodes]-[max nodes]] [-n num-processors]\n"
    "              [-c cpus-per-node] [-r n] [-p partition] [--hold] [-t minutes]\n"
    "              [--immediate[=secs]] [--no-kill] [--overcommit] [-D path]\n"
    "              [--oversubscribe] [-J jobname]\n"
    "              [--verbose] [--gid=group] [--uid=user] [--licenses=names]\n"
    "              [--clusters=cluster_names]\n"
    "              [--contiguous] [--mincpus=n] [--mem=MB] [--tmp=MB] [-C list]\n"
    "              [--account=name] [--dependency=type:jobid[+time]] [--comment=name]\n"
    "              [--mail-type=type] [--mail-user=user] [--nice[=value]]\n"
    "              [--bell] [--no-bell] [--kill-command[=signal]] [--spread-job]\n"
    "              [--nodefile=file] [--nodelist=hosts] [--exclude=hosts]\n"
    "              [--network=type] [--mem-per-cpu=MB] [--qos=qos]\n"
    "              [--mem-bind=...] [--reservation=name] [--mcs-label=mcs]\n"
    "              [--time-min=minutes] [--gres=list] [--gres-flags=opts]\n"
    "              [--cpu-freq=min[-max[:gov]]] [--power=flags] [--profile=...]\n"
    "              [--switches=max-switches[@max-time-to-wait]]\n"
    "              [--core-spec=cores] [--thread-spec=threads] [--reboot]\n"
    "              [--bb=burst_buffer_spec] [--bbf=burst_buffer_file]\n"
    "              [--delay-boot=mins] [--use-min-nodes]\n"
    "              [--cpus-per-gpu=n] [--gpus=n] [--gpu-bind=...] [--gpu-freq=...]\n"
    "              [--gpus-per-node=n] [--gpus-per-socket=n] [--gpus-per-task=n]\n"
    "              [--mem-per-gpu=MB]\n"
    "              [command [args...]]\n";

// The lines of kSlurmHelp that Skiff does not support, by how they start: those
// missing from salloc.cc's option table (and --exclusive=mcs).
constexpr std::string_view kUnsupported[] = {
    "--bell",
    "--bb=",
    "--bbf=",
    "--cpu-freq=",
    "--delay-boot=",
    "--get-user-env",
    "--gid=",
    "-K, --kill-command",
    "-M, --clusters=",
    "--mcs-label=",
    "--no-bell",
    "--power=",
    "--profile=",
    "--reboot",
    "--switches=",
    "-S, --core-spec=",
    "--thread-spec=",
    "--uid=",
    "--wckey=",
    "--cluster-constraint=",
    "-F, --nodefile=",
    "--exclusive[=mcs]",
    SLURM_HELP_UNSUPPORTED_AFFINITY_AND_GPU_OPTIONS,
};

}  // namespace

// Slurm's text, with pyxis's options where Slurm prints a loaded plugin's.
std::string SallocHelp() {
  return MarkUnsupported(WithPluginOptions(kSlurmHelp, "Help options:"), kUnsupported);
}

std::string SallocUsage() { return kSlurmUsage; }

}  // namespace skiff::cli
