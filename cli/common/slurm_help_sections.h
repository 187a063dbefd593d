// The parts of Slurm 22.05.8's `sbatch --help`, `salloc --help` and `srun
// --help` that the three print alike, byte for byte, for sbatch_help.cc,
// salloc/salloc_help.cc and srun/srun_help.cc to build their texts from.
//
// String-literal macros, so that each command's text stays one constant that
// reads from top to bottom as Slurm prints it. A section's macro holds its
// heading (where it has one) and ends with the blank line that follows it.
#ifndef SKIFF_CLI_COMMON_SLURM_HELP_SECTIONS_H_
#define SKIFF_CLI_COMMON_SLURM_HELP_SECTIONS_H_

// Parallel run options: -M.
#define SLURM_HELP_CLUSTERS_OPTION                                                    \
  "  -M, --clusters=names        Comma separated list of clusters to issue\n"         \
  "                              commands to.  Default is current cluster.\n"         \
  "                              Name of 'all' will submit to run on all clusters.\n" \
  "                              NOTE: SlurmDBD must up.\n"

// Parallel run options: -m to --mcs-label.
#define SLURM_HELP_DISTRIBUTION_AND_MAIL_OPTIONS                                    \
  "  -m, --distribution=type     distribution method for processes to nodes\n"      \
  "                              (type = block|cyclic|arbitrary)\n"                 \
  "      --mail-type=type        notify on state change: BEGIN, END, FAIL or ALL\n" \
  "      --mail-user=user        who to send email notification for job state\n"    \
  "                              changes\n"                                         \
  "      --mcs-label=mcs         mcs label if mcs plugin mcs/group is used\n"

// Constraint options: --mem to -x.
#define SLURM_HELP_NODE_CONSTRAINT_OPTIONS                                         \
  "      --mem=MB                minimum amount of real memory\n"                  \
  "      --mincpus=n             minimum number of logical processors (threads)\n" \
  "                              per node\n"                                       \
  "      --reservation=name      allocate resources from named reservation\n"      \
  "      --tmp=MB                minimum amount of temporary disk\n"               \
  "  -w, --nodelist=hosts...     request a specific list of hosts\n"               \
  "  -x, --exclude=hosts...      exclude a specific list of hosts\n"

// The Affinity/Multi-core section; srun prints its --cpu-bind (`cpu_bind`, ""
// for the others) before --hint.
#define SLURM_HELP_AFFINITY_OPTIONS(cpu_bind)                                         \
  "Affinity/Multi-core options: (when the task/affinity plugin is enabled)\n"         \
  "                              For the following 4 options, you are\n"              \
  "                              specifying the minimum resources available for\n"    \
  "                              the node(s) allocated to the job.\n"                 \
  "      --sockets-per-node=S    number of sockets per node to allocate\n"            \
  "      --cores-per-socket=C    number of cores per socket to allocate\n"            \
  "      --threads-per-core=T    number of threads per core to allocate\n"            \
  "  -B  --extra-node-info=S[:C[:T]]  combine request of sockets per node,\n"         \
  "                              cores per socket and threads per core.\n"            \
  "                              Specify an asterisk (*) as a placeholder,\n"         \
  "                              a minimum value, or a min-max range.\n"              \
  "\n"                                                                                \
  "      --ntasks-per-core=n     number of tasks to invoke on each core\n"            \
  "      --ntasks-per-socket=n   number of tasks to invoke on each socket\n" cpu_bind \
  "      --hint=                 Bind tasks according to application hints\n"         \
  "                              (see \"--hint=help\" for options)\n"                 \
  "      --mem-bind=             Bind memory to locality domains (ldom)\n"            \
  "                              (see \"--mem-bind=help\" for options)\n"             \
  "\n"

// The GPU scheduling section.
#define SLURM_HELP_GPU_OPTIONS                                                   \
  "GPU scheduling options:\n"                                                    \
  "      --cpus-per-gpu=n        number of CPUs required per allocated GPU\n"    \
  "  -G, --gpus=n                count of GPUs required for the job\n"           \
  "      --gpu-bind=...          task to gpu binding options\n"                  \
  "      --gpu-freq=...          frequency and voltage of GPUs\n"                \
  "      --gpus-per-node=n       number of GPUs required per allocated node\n"   \
  "      --gpus-per-socket=n     number of GPUs required per allocated socket\n" \
  "      --gpus-per-task=n       number of GPUs required per spawned task\n"     \
  "      --mem-per-gpu=n         real memory required per allocated GPU\n"       \
  "\n"

// The lines of SLURM_HELP_AFFINITY_OPTIONS and SLURM_HELP_GPU_OPTIONS that no
// command supports (Skiff has no task/affinity plugin, sets no GPU frequency
// and counts no GPUs per socket), as entries of a MarkUnsupported table.
// (-B and --sockets-per-node, ... choose nodes: supported.)
#define SLURM_HELP_UNSUPPORTED_AFFINITY_AND_GPU_OPTIONS                                  \
  "--ntasks-per-core=", "--ntasks-per-socket=", "--hint=", "--mem-bind=", "--gpu-freq=", \
      "--gpus-per-socket="

// sbatch's and salloc's text from the Constraint options after
// --cluster-constraint through the GPU scheduling section.
#define SLURM_HELP_ALLOCATION_RESOURCE_OPTIONS                                    \
  "      --contiguous            demand a contiguous range of nodes\n"            \
  "  -C, --constraint=list       specify a list of constraints\n"                 \
  "  -F, --nodefile=filename     request a specific list of "                     \
  "hosts\n" SLURM_HELP_NODE_CONSTRAINT_OPTIONS                                    \
  "\n"                                                                            \
  "Consumable resources related options:\n"                                       \
  "      --exclusive[=user]      allocate nodes in exclusive mode when\n"         \
  "                              cpu consumable resource is enabled\n"            \
  "      --exclusive[=mcs]       allocate nodes in exclusive mode when\n"         \
  "                              cpu consumable resource is enabled\n"            \
  "                              and mcs plugin is enabled\n"                     \
  "      --mem-per-cpu=MB        maximum amount of real memory per allocated\n"   \
  "                              cpu required by the job.\n"                      \
  "                              --mem >= --mem-per-cpu if --mem is specified.\n" \
  "\n" SLURM_HELP_AFFINITY_OPTIONS("") SLURM_HELP_GPU_OPTIONS

// The end of every text: the Help and Other options sections.
#define SLURM_HELP_HELP_AND_OTHER_OPTIONS                               \
  "Help options:\n"                                                     \
  "  -h, --help                  show this help message\n"              \
  "      --usage                 display brief usage message\n"         \
  "\n"                                                                  \
  "Other options:\n"                                                    \
  "  -V, --version               output version information and exit\n" \
  "\n"

#endif  // SKIFF_CLI_COMMON_SLURM_HELP_SECTIONS_H_
