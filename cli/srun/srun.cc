// srun: runs a job step, as Slurm's srun. Inside an allocation (SLURM_JOB_ID
// set) it asks the job's step manager (the noded of the job's first node,
// SKIFF_STEPMGR_ADDR) to create the step; ctld is not involved. Outside one it
// first makes an allocation of its own (srun_allocation.h), relinquished with
// the step's exit code. The step itself (its stream, stdin, Ctrl-C and
// signals, the tasks' output in order per task) is step_launch.h's and
// step_session.h's.
#include <unistd.h>

#include <cstdio>
#include <map>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "cli/command.h"
#include "cli/common/container_options.h"
#include "cli/common/environment.h"
#include "cli/common/sbatch_options.h"
#include "cli/srun/srun_allocation.h"
#include "cli/srun/srun_command_line.h"
#include "cli/srun/srun_help.h"
#include "cli/srun/step_launch.h"
#include "client/ctld_client.h"

namespace {

int Fail(const std::string& message) {
  return skiff::client::ReportError("srun", absl::UnknownError(message), 1);
}

}  // namespace

int skiff::cli::SrunMain(int argc, char** argv) {
  // Slurm's input variables first; the command line overrides them.
  std::map<std::string, std::string> env = skiff::cli::ProcessEnvironment();
  skiff::cli::SrunCommandLine line;
  if (int rc = skiff::cli::ParseSrunCommandLine(argc, argv, env, &line); rc >= 0) return rc;
  if (skiff::cli::PrintAskedInfo({line.version, line.help, line.usage}, &skiff::cli::SrunHelp,
                                 &skiff::cli::SrunUsage)) {
    return 0;
  }
  // As Slurm's srun checks its options, before it shows them (-v).
  if (line.slurmd_debug) {
    bool capped = false;
    skiff::cli::SlurmdDebugIncrement(*line.slurmd_debug, &capped);
    if (capped) fprintf(stderr, "srun: Using srun's max debug increment of 4\n");
  }
  if (line.verbose > 0) {
    char dir[4096];
    for (const std::string& text :
         skiff::cli::DefinedOptionsBlock(skiff::cli::SrunGivenOptions(line, env),
                                         {time(nullptr), getcwd(dir, sizeof(dir)) ? dir : "/"})) {
      fprintf(stderr, "srun: %s\n", text.c_str());
    }
  }
  // A bad --tmp is refused as Slurm refuses it; a good one is the
  // allocation's (AllocateForStep), as a step asks no TmpDisk.
  if (line.tmp) {
    if (absl::Status s = skiff::cli::CheckTmpOption(*line.tmp); !s.ok()) {
      return skiff::client::ReportError("srun", s, 255);
    }
  }
  if (line.args.pty && !isatty(0)) return Fail("--pty needs a terminal on stdin");
  if (line.args.command.empty()) return Fail("No command given to execute.");
  char cwd_buf[4096];
  const std::string cwd = getcwd(cwd_buf, sizeof(cwd_buf)) ? cwd_buf : "/";
  // The container options are checked before srun makes an allocation of its
  // own, and their warnings printed here once (BuildStepRequest only drops
  // what they warn of).
  absl::StatusOr<skiff::cli::ContainerBuild> container =
      skiff::cli::BuildContainerRequest(line.args.container, cwd);
  if (!container.ok()) return Fail(std::string(container.status().message()));
  for (const std::string& warning : container->warnings) {
    fprintf(stderr, "srun: warning: %s\n", warning.c_str());
  }
  if (absl::Status s = skiff::cli::CountTasksOfMultiProg(env, &line.args); !s.ok()) {
    return Fail(std::string(s.message()));
  }
  // Outside a job: an allocation of srun's own first, relinquished at the end.
  std::optional<skiff::cli::SrunAllocation> own;
  if (env.find("SLURM_JOB_ID") == env.end()) {
    if (int rc = skiff::cli::AllocateForStep(line, cwd, &env, &own); rc >= 0) return rc;
  }
  skiff::cli::EndSrun(own ? &*own : nullptr, skiff::cli::LaunchStep(line, cwd, env));
}
