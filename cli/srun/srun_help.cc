#include "cli/srun/srun_help.h"

#include <string_view>

#include "cli/common/help_text.h"
#include "cli/common/slurm_help_sections.h"

namespace skiff::cli {
namespace {

// Slurm 22.05.8's `srun --help`, byte for byte: its own lines and the sections
// it shares with the others (slurm_help_sections.h), one macro a line.
// clang-format off
constexpr char kSlurmHelp[] =
    "Usage: srun [OPTIONS(0)... [executable(0) [args(0)...]]] [ : [OPTIONS(N)...]] executable(N) "
    "[args(N)...]\n"
    "\n"
    "Parallel run options:\n"
    "  -A, --account=name          charge job to specified account\n"
    "      --acctg-freq=<datatype>=<interval> accounting and profiling sampling\n"
    "                              intervals. Supported datatypes:\n"
    "                              task=<interval> energy=<interval>\n"
    "                              network=<interval> filesystem=<interval>\n"
    "      --bb=<spec>             burst buffer specifications\n"
    "      --bbf=<file_name>       burst buffer specification file\n"
    "      --bcast=<dest_path>     Copy executable file to compute nodes\n"
    "      --bcast-exclude=<paths> Shared object directory paths to exclude\n"
    "  -b, --begin=time            defer job until HH:MM MM/DD/YY\n"
    "  -c, --cpus-per-task=ncpus   number of cpus required per task\n"
    "      --comment=name          arbitrary comment\n"
    "      --compress[=library]    data compression library used with --bcast\n"
    "      --container             Path to OCI container bundle\n"
    "      --cpu-freq=min[-max[:gov]] requested cpu frequency (and governor)\n"
    "  -d, --dependency=type:jobid[:time] defer job until condition on jobid is satisfied\n"
    "      --deadline=time         remove the job if no ending possible before\n"
    "                              this deadline (start > (deadline - time[-min]))\n"
    "      --delay-boot=mins       delay boot for desired node features\n"
    "  -D, --chdir=path            change remote current working directory\n"
    "      --export=env_vars|NONE  environment variables passed to launcher with\n"
    "                              optional values or NONE (pass no variables)\n"
    "  -e, --error=err             location of stderr redirection\n"
    "      --epilog=program        run \"program\" after launching job step\n"
    "  -E, --preserve-env          env vars for node and task counts override\n"
    "                              command-line flags\n"
    "      --gres=list             required generic resources\n"
    "      --gres-flags=opts       flags related to GRES management\n"
    "  -H, --hold                  submit job in held state\n"
    "  -i, --input=in              location of stdin redirection\n"
    "  -I, --immediate[=secs]      exit if resources not available in \"secs\"\n"
    "      --jobid=id              run under already allocated job\n"
    "  -J, --job-name=jobname      name of job\n"
    "  -k, --no-kill               do not kill job on node failure\n"
    "  -K, --kill-on-bad-exit      kill the job if any task terminates with a\n"
    "                              non-zero exit code\n"
    "  -l, --label                 prepend task number to lines of stdout/err\n"
    "  -L, --licenses=names        required license, comma separated\n"
    SLURM_HELP_CLUSTERS_OPTION
    SLURM_HELP_DISTRIBUTION_AND_MAIL_OPTIONS
    "      --mpi=type              type of MPI being used\n"
    "      --multi-prog            if set the program name specified is the\n"
    "                              configuration specification for multiple programs\n"
    "  -n, --ntasks=ntasks         number of tasks to run\n"
    "      --nice[=value]          decrease scheduling priority by value\n"
    "      --ntasks-per-node=n     number of tasks to invoke on each node\n"
    "  -N, --nodes=N               number of nodes on which to run (N = min[-max])\n"
    "  -o, --output=out            location of stdout redirection\n"
    "  -O, --overcommit            overcommit resources\n"
    "      --overlap               Allow other steps to overlap this step\n"
    "      --het-group=value       hetjob component allocation(s) in which to launch\n"
    "                              application\n"
    "  -p, --partition=partition   partition requested\n"
    "      --power=flags           power management options\n"
    "      --priority=value        set the priority of the job to value\n"
    "      --prolog=program        run \"program\" before launching job step\n"
    "      --profile=value         enable acct_gather_profile for detailed data\n"
    "                              value is all or none or any combination of\n"
    "                              energy, lustre, network or task\n"
    "      --propagate[=rlimits]   propagate all [or specific list of] rlimits\n"
    "      --pty                   run task zero in pseudo terminal\n"
    "      --quit-on-interrupt     quit on single Ctrl-C\n"
    "  -q, --qos=qos               quality of service\n"
    "  -Q, --quiet                 quiet mode (suppress informational messages)\n"
    "      --reboot                reboot block before starting job\n"
    "  -r, --relative=n            run job step relative to node n of allocation\n"
    "  -s, --oversubscribe         over-subscribe resources with other jobs\n"
    "  -S, --core-spec=cores       count of reserved cores\n"
    "      --send-libs[=yes|no]    autodetect and broadcast shared objects\n"
    "      --signal=[R:]num[@time] send signal when time limit within time seconds\n"
    "      --slurmd-debug=level    slurmd debug level\n"
    "      --spread-job            spread job across as many nodes as possible\n"
    "      --switches=max-switches{@max-time-to-wait}\n"
    "                              Optimum switches and max time to wait for optimum\n"
    "      --task-epilog=program   run \"program\" after launching task\n"
    "      --task-prolog=program   run \"program\" before launching task\n"
    "      --thread-spec=threads   count of reserved threads\n"
    "  -T, --threads=threads       set srun launch fanout\n"
    "  -t, --time=minutes          time limit\n"
    "      --time-min=minutes      minimum time limit (if distinct)\n"
    "  -u, --unbuffered            do not line-buffer stdout/err\n"
    "      --use-min-nodes         if a range of node counts is given, prefer the\n"
    "                              smaller count\n"
    "  -v, --verbose               verbose mode (multiple -v's increase verbosity)\n"
    "  -W, --wait=sec              seconds to wait after first task exits\n"
    "                              before killing job\n"
    "      --wckey=wckey           wckey to run job under\n"
    "  -X, --disable-status        Disable Ctrl-C status feature\n"
    "\n"
    "Constraint options:\n"
    "      --cluster-constraint=list specify a list of cluster-constraints\n"
    "      --contiguous            demand a contiguous range of nodes\n"
    "  -C, --constraint=list       specify a list of constraints\n"
    SLURM_HELP_NODE_CONSTRAINT_OPTIONS
    "  -Z, --no-allocate           don't allocate nodes (must supply -w)\n"
    "\n"
    "Consumable resources related options:\n"
    "      --exact                 use only the resources requested for the step\n"
    "                              (by default, all non-gres resources on each node\n"
    "                              in the allocation will be used in the step)\n"
    "      --exclusive[=user]      for job allocation, this allocates nodes in\n"
    "                              in exclusive mode\n"
    "                              for job steps, this is equivalent to --exact\n"
    "      --exclusive[=mcs]       allocate nodes in exclusive mode when\n"
    "                              cpu consumable resource is enabled\n"
    "                              and mcs plugin is enabled (--exact implied)\n"
    "                              or don't share CPUs for job steps\n"
    "      --mem-per-cpu=MB        maximum amount of real memory per allocated\n"
    "                              cpu required by the job.\n"
    "                              --mem >= --mem-per-cpu if --mem is specified.\n"
    "      --resv-ports            reserve communication ports\n"
    "\n"
    SLURM_HELP_AFFINITY_OPTIONS(
        "      --cpu-bind=             Bind tasks to CPUs\n"
        "                              (see \"--cpu-bind=help\" for options)\n")
    SLURM_HELP_GPU_OPTIONS
    SLURM_HELP_HELP_AND_OTHER_OPTIONS;
// clang-format on

// Slurm 22.05.8's `srun --usage`, byte for byte.
constexpr char kSlurmUsage[] =
    "Usage: srun [-N nnodes] [-n ntasks] [-i in] [-o out] [-e err]\n"
    "            [-c ncpus] [-r n] [-p partition] [--hold] [-t minutes]\n"
    "            [-D path] [--immediate[=secs]] [--overcommit] [--overlap] [--no-kill]\n"
    "            [--oversubscribe] [--label] [--unbuffered] [-m dist] [-J jobname]\n"
    "            [--jobid=id] [--verbose] [--slurmd_debug=#] [--gres=list]\n"
    "            [-T threads] [-W sec] [--gres-flags=opts]\n"
    "            [--licenses=names] [--clusters=cluster_names]\n"
    "            [--qos=qos] [--time-min=minutes]\n"
    "            [--contiguous] [--mincpus=n] [--mem=MB] [--tmp=MB] [-C list]\n"
    "            [--mpi=type] [--account=name] [--dependency=type:jobid[+time]]\n"
    "            [--kill-on-bad-exit] [--propagate[=rlimits] [--comment=name]\n"
    "            [--cpu-bind=...] [--mem-bind=...] [--network=type]\n"
    "            [--ntasks-per-node=n] [--ntasks-per-socket=n] [reservation=name]\n"
    "            [--ntasks-per-core=n] [--mem-per-cpu=MB] [--preserve-env]\n"
    "            [--profile=...] [--exact]\n"
    "            [--mail-type=type] [--mail-user=user] [--nice[=value]]\n"
    "            [--prolog=fname] [--epilog=fname]\n"
    "            [--task-prolog=fname] [--task-epilog=fname]\n"
    "            [--ctrl-comm-ifhn=addr] [--multi-prog] [--mcs-label=mcs]\n"
    "            [--cpu-freq=min[-max[:gov]]] [--power=flags] [--spread-job]\n"
    "            [--switches=max-switches{@max-time-to-wait}] [--reboot]\n"
    "            [--core-spec=cores] [--thread-spec=threads]\n"
    "            [--bb=burst_buffer_spec] [--bbf=burst_buffer_file]\n"
    "            [--bcast=<dest_path>] [--bcast-exclude=<NONE|path1,...,pathN>]\n"
    "            [--send-libs[=y|n]] [--compress[=library]]\n"
    "            [--acctg-freq=<datatype>=<interval>] [--delay-boot=mins]\n"
    "            [-w hosts...] [-x hosts...] [--use-min-nodes]\n"
    "            [--mpi-combine=yes|no] [--het-group=value]\n"
    "            [--cpus-per-gpu=n] [--gpus=n] [--gpu-bind=...] [--gpu-freq=...]\n"
    "            [--gpus-per-node=n] [--gpus-per-socket=n] [--gpus-per-task=n]\n"
    "            [--mem-per-gpu=MB]\n"
    "            executable [args...]\n";

// The lines of kSlurmHelp that Skiff does not support, by how they start: those
// srun.cc accepts and ignores (--cpu-bind) and those missing from its option
// table.
constexpr std::string_view kUnsupported[] = {
    "--cpu-bind=",
    "--acctg-freq=",
    "--bb=",
    "--bbf=",
    "--bcast=",
    "--bcast-exclude=",
    "--compress",
    "--cpu-freq=",
    "--delay-boot=",
    "--epilog=",
    "-E, --preserve-env",
    "--jobid=",
    "-M, --clusters=",
    "--mcs-label=",
    "--het-group=",
    "--power=",
    "--prolog=",
    "--profile=",
    "--propagate",
    "--reboot",
    "-r, --relative=",
    "-S, --core-spec=",
    "--send-libs",
    "--switches=",
    "--thread-spec=",
    "--wckey=",
    "-X, --disable-status",
    "--cluster-constraint=",
    "-Z, --no-allocate",
    "--exclusive[=mcs]",
    "--resv-ports",
    SLURM_HELP_UNSUPPORTED_AFFINITY_AND_GPU_OPTIONS,
};

}  // namespace

// Slurm's text, with pyxis's options where Slurm prints a loaded plugin's.
std::string SrunHelp() {
  return MarkUnsupported(WithPluginOptions(kSlurmHelp, "GPU scheduling options:"), kUnsupported);
}

std::string SrunUsage() { return kSlurmUsage; }

}  // namespace skiff::cli
