// srun outside a job: the allocation it makes for its step first (a job
// holding the nodes, as salloc's; cli/common/allocation.h), and srun's end,
// which relinquishes it with the step's exit code.
#ifndef SKIFF_CLI_SRUN_SRUN_ALLOCATION_H_
#define SKIFF_CLI_SRUN_SRUN_ALLOCATION_H_

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "cli/common/sbatch_options.h"
#include "cli/srun/srun_command_line.h"
#include "client/ctld_client.h"
#include "proto/ctld.pb.h"

namespace skiff::cli {

struct SrunAllocation {
  std::unique_ptr<client::CtldClient> ctld;
  v1::JobInfo job;
};

// The allocation request srun's options make (salloc's). Pure.
SbatchRawOptions SrunAllocationOptions(const SrunArgs& args);

// Submits srun's allocation and waits until it runs, printing Slurm's lines
// (SIGINT or SIGTERM meanwhile give it up and cancel it). On success `*own`
// holds it and `*env` gets its environment (SLURM_JOB_ID, the step manager's
// address...) and -1 is returned; else the exit code srun ends with, its
// error printed. `cwd` is the submission's directory.
int AllocateForStep(const SrunCommandLine& line, const std::string& cwd,
                    std::map<std::string, std::string>* env, std::optional<SrunAllocation>* own);

// Ends srun with `code`: its output flushed and `own` (may be null)
// relinquished with `code` (an error printed when that fails), then _exit:
// srun's stdin and signal threads never return, and gRPC's teardown would
// only slow srun's end (cli/common/ctld_client.h: ExitNow).
[[noreturn]] void EndSrun(SrunAllocation* own, int code);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_SRUN_SRUN_ALLOCATION_H_
