#include "cli/common/sbatch_help.h"

#include <string_view>

#include "cli/common/help_text.h"
#include "cli/common/slurm_help_sections.h"

namespace skiff::cli {
namespace {

// Slurm 22.05.8's `sbatch --help`, byte for byte: its own lines and the sections
// it shares with the others (slurm_help_sections.h), one macro a line.
// clang-format off
constexpr char kSlurmHelp[] =
    "Usage: sbatch [OPTIONS(0)...] [ : [OPTIONS(N)...]] script(0) [args(0)...]\n"
    "\n"
    "Parallel run options:\n"
    "  -a, --array=indexes         job array index values\n"
    "  -A, --account=name          charge job to specified account\n"
    "      --bb=<spec>             burst buffer specifications\n"
    "      --bbf=<file_name>       burst buffer specification file\n"
    "  -b, --begin=time            defer job until HH:MM MM/DD/YY\n"
    "      --comment=name          arbitrary comment\n"
    "      --cpu-freq=min[-max[:gov]] requested cpu frequency (and governor)\n"
    "  -c, --cpus-per-task=ncpus   number of cpus required per task\n"
    "  -d, --dependency=type:jobid[:time] defer job until condition on jobid is satisfied\n"
    "      --deadline=time         remove the job if no ending possible before\n"
    "                              this deadline (start > (deadline - time[-min]))\n"
    "      --delay-boot=mins       delay boot for desired node features\n"
    "  -D, --chdir=directory       set working directory for batch script\n"
    "  -e, --error=err             file for batch script's standard error\n"
    "      --export[=names]        specify environment variables to export\n"
    "      --export-file=file|fd   specify environment variables file or file\n"
    "                              descriptor to export\n"
    "      --get-user-env          load environment from local cluster\n"
    "      --gid=group_id          group ID to run job as (user root only)\n"
    "      --gres=list             required generic resources\n"
    "      --gres-flags=opts       flags related to GRES management\n"
    "  -H, --hold                  submit job in held state\n"
    "      --ignore-pbs            Ignore #PBS and #BSUB options in the batch script\n"
    "  -i, --input=in              file for batch script's standard input\n"
    "  -J, --job-name=jobname      name of job\n"
    "  -k, --no-kill               do not kill job on node failure\n"
    "  -L, --licenses=names        required license, comma separated\n"
    SLURM_HELP_CLUSTERS_OPTION
    "      --container             Path to OCI container bundle\n"
    SLURM_HELP_DISTRIBUTION_AND_MAIL_OPTIONS
    "  -n, --ntasks=ntasks         number of tasks to run\n"
    "      --nice[=value]          decrease scheduling priority by value\n"
    "      --no-requeue            if set, do not permit the job to be requeued\n"
    "      --ntasks-per-node=n     number of tasks to invoke on each node\n"
    "  -N, --nodes=N               number of nodes on which to run (N = min[-max])\n"
    "  -o, --output=out            file for batch script's standard output\n"
    "  -O, --overcommit            overcommit resources\n"
    "  -p, --partition=partition   partition requested\n"
    "      --parsable              outputs only the jobid and cluster name (if present),\n"
    "                              separated by semicolon, only on successful submission.\n"
    "      --power=flags           power management options\n"
    "      --priority=value        set the priority of the job to value\n"
    "      --profile=value         enable acct_gather_profile for detailed data\n"
    "                              value is all or none or any combination of\n"
    "                              energy, lustre, network or task\n"
    "      --propagate[=rlimits]   propagate all [or specific list of] rlimits\n"
    "  -q, --qos=qos               quality of service\n"
    "  -Q, --quiet                 quiet mode (suppress informational messages)\n"
    "      --reboot                reboot compute nodes before starting job\n"
    "      --requeue               if set, permit the job to be requeued\n"
    "  -s, --oversubscribe         over subscribe resources with other jobs\n"
    "  -S, --core-spec=cores       count of reserved cores\n"
    "      --signal=[[R][B]:]num[@time] send signal when time limit within time seconds\n"
    "      --spread-job            spread job across as many nodes as possible\n"
    "      --switches=max-switches{@max-time-to-wait}\n"
    "                              Optimum switches and max time to wait for optimum\n"
    "      --thread-spec=threads   count of reserved threads\n"
    "  -t, --time=minutes          time limit\n"
    "      --time-min=minutes      minimum time limit (if distinct)\n"
    "      --uid=user_id           user ID to run job as (user root only)\n"
    "      --use-min-nodes         if a range of node counts is given, prefer the\n"
    "                              smaller count\n"
    "  -v, --verbose               verbose mode (multiple -v's increase verbosity)\n"
    "  -W, --wait                  wait for completion of submitted job\n"
    "      --wckey=wckey           wckey to run job under\n"
    "      --wrap[=command string] wrap command string in a sh script and submit\n"
    "\n"
    "Constraint options:\n"
    "      --cluster-constraint=[!]list specify a list of cluster constraints\n"
    SLURM_HELP_ALLOCATION_RESOURCE_OPTIONS
    SLURM_HELP_HELP_AND_OTHER_OPTIONS;
// clang-format on

// Slurm 22.05.8's `sbatch --usage`, byte for byte.
constexpr char kSlurmUsage[] =
    "Usage: sbatch [-N nnodes] [-n ntasks]\n"
    "              [-c ncpus] [-r n] [-p partition] [--hold] [--parsable] [-t minutes]\n"
    "              [-D path] [--no-kill] [--overcommit]\n"
    "              [--input file] [--output file] [--error file]\n"
    "              [--time-min=minutes] [--licenses=names] [--clusters=cluster_names]\n"
    "              [--chdir=directory] [--oversubscribe] [-m dist] [-J jobname]\n"
    "              [--verbose] [--gid=group] [--uid=user]\n"
    "              [--contiguous] [--mincpus=n] [--mem=MB] [--tmp=MB] [-C list]\n"
    "              [--account=name] [--dependency=type:jobid[+time]] [--comment=name]\n"
    "              [--mail-type=type] [--mail-user=user] [--nice[=value]] [--wait]\n"
    "              [--requeue] [--no-requeue] [--ntasks-per-node=n] [--propagate]\n"
    "              [--nodefile=file] [--nodelist=hosts] [--exclude=hosts]\n"
    "              [--network=type] [--mem-per-cpu=MB] [--qos=qos] [--gres=list]\n"
    "              [--mem-bind=...] [--reservation=name] [--mcs-label=mcs]\n"
    "              [--cpu-freq=min[-max[:gov]]] [--power=flags] [--gres-flags=opts]\n"
    "              [--switches=max-switches{@max-time-to-wait}] [--reboot]\n"
    "              [--core-spec=cores] [--thread-spec=threads]\n"
    "              [--bb=burst_buffer_spec] [--bbf=burst_buffer_file]\n"
    "              [--array=index_values] [--profile=...] [--ignore-pbs] [--spread-job]\n"
    "              [--export[=names]] [--export-file=file|fd] [--delay-boot=mins]\n"
    "              [--use-min-nodes]\n"
    "              [--cpus-per-gpu=n] [--gpus=n] [--gpu-bind=...] [--gpu-freq=...]\n"
    "              [--gpus-per-node=n] [--gpus-per-socket=n] [--gpus-per-task=n]\n"
    "              [--mem-per-gpu=MB]\n"
    "              executable [args...]\n";

// The lines of kSlurmHelp that Skiff does not support, by how they start: those
// sbatch_options.cc accepts and ignores with a warning (kIgnoredWithValue,
// kIgnoredFlags, --exclusive=mcs) and those missing from its table.
constexpr std::string_view kUnsupported[] = {
    "--cpu-freq=",
    "--delay-boot=",
    "--ignore-pbs",
    "--mcs-label=",
    "--power=",
    "--profile=",
    "--reboot",
    "-S, --core-spec=",
    "--switches=",
    "--thread-spec=",
    "--wckey=",
    "--exclusive[=mcs]",
    "--gid=",
    "-M, --clusters=",
    "--propagate",
    "--uid=",
    "--cluster-constraint=",
    "-F, --nodefile=",
    SLURM_HELP_UNSUPPORTED_AFFINITY_AND_GPU_OPTIONS,
};

}  // namespace

// Slurm's text, with pyxis's options where Slurm prints a loaded plugin's.
std::string SbatchHelp() {
  return MarkUnsupported(WithPluginOptions(kSlurmHelp, "GPU scheduling options:"), kUnsupported);
}

std::string SbatchUsage() { return kSlurmUsage; }

}  // namespace skiff::cli
