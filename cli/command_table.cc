#include "cli/command_table.h"

#include <string_view>

#include "cli/command.h"

namespace skiff::cli {
namespace {

// Sorted by name. The summaries are what Slurm's man pages say each does,
// shortened, with Skiff where Slurm's say Slurm.
constexpr Command kCommands[] = {
    {"sacct", "view accounting data of jobs and job steps", SacctMain},
    {"sacctmgr", "manage accounts, users, associations and QOS", SacctmgrMain},
    {"salloc", "obtain a job allocation and run a shell or command in it", SallocMain},
    {"sattach", "attach to a running job step's output and input", SattachMain},
    {"sbatch", "submit a batch script to Skiff", SbatchMain},
    {"sbcast", "copy a file to every node of a job", SbcastMain},
    {"scancel", "cancel or signal jobs and job steps", ScancelMain},
    {"scontrol", "view or change Skiff's jobs, nodes, partitions and configuration", ScontrolMain},
    {"sdiag", "view the controller's scheduling and RPC statistics", SdiagMain},
    {"seff", "view a job's CPU, memory and GPU efficiency", SeffMain},
    {"sinfo", "view Skiff's nodes and partitions", SinfoMain},
    {"sprio", "view the priority factors of pending jobs", SprioMain},
    {"squeue", "view the jobs in Skiff's queue", SqueueMain},
    {"sreport", "report usage from accounting data", SreportMain},
    {"srun", "run a parallel job step, allocating first if needed", SrunMain},
    {"sshare", "view fair-share information", SshareMain},
    {"sstat", "view the CPU and memory use of running job steps", SstatMain},
    {"sstatus", "view GPU usage, free nodes and your GPU limits and jobs", SstatusMain},
    {"strigger", "set, get or clear event triggers (programs run on node and job events)",
     StriggerMain},
};

std::string_view Basename(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

absl::Span<const Command> Commands() { return kCommands; }

const Command* FindCommand(std::string_view name) {
  for (const Command& command : kCommands) {
    if (command.name == name) return &command;
  }
  return nullptr;
}

Dispatch DispatchFor(int argc, const char* const* argv) {
  Dispatch dispatch;
  if (argc < 1 || argv[0] == nullptr) return dispatch;
  if (const Command* command = FindCommand(Basename(argv[0]))) {
    dispatch.kind = Dispatch::Kind::kRun;
    dispatch.command = command;
    dispatch.first_arg = 0;
    return dispatch;
  }
  if (argc < 2) return dispatch;
  const std::string_view first = argv[1];
  if (first == "--help" || first == "-h") {
    dispatch.kind = Dispatch::Kind::kHelp;
  } else if (first == "--version" || first == "-V") {
    dispatch.kind = Dispatch::Kind::kVersion;
  } else if (first == "--commands") {
    dispatch.kind = Dispatch::Kind::kCommands;
  } else if (const Command* command = FindCommand(first)) {
    dispatch.kind = Dispatch::Kind::kRun;
    dispatch.command = command;
    dispatch.first_arg = 1;
  } else {
    dispatch.kind = Dispatch::Kind::kUnknown;
    dispatch.unknown = first;
  }
  return dispatch;
}

}  // namespace skiff::cli
