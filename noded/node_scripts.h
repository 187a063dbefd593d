// The node's scripts around a batch job, as Slurm's slurmd runs them (Prolog
// and Epilog Guide): Prolog (as root) before the job, Epilog (as root) after
// it, both with Slurm's prolog/epilog variables and killed after
// PrologEpilogTimeout; TaskProlog (as the user) right before the batch script,
// whose "export NAME=value", "unset NAME" and "print TEXT" lines change the
// script's environment and output; TaskEpilog (as the user) after it.
//
// A failing Prolog drains the node ("Prolog error") and requeues the job held;
// a failing Epilog drains the node ("Epilog error"); ctld decides both from the
// job's status (JobResult::prolog_error / epilog_error). The shepherd runs
// them; the functions here are pure.
#ifndef SKIFF_NODED_NODE_SCRIPTS_H_
#define SKIFF_NODED_NODE_SCRIPTS_H_

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "noded/job_files.h"
#include "noded/run_captured.h"

namespace skiff::noded {

// How the job child tells the shepherd that the Prolog failed (before the
// reason), on its error pipe.
inline constexpr char kPrologFailedMarker[] = "\x01prolog failed\x01";

// "NAME=value" for Prolog ("prolog_slurmd") or Epilog ("epilog_slurmd"): the
// job's id, user, uid, gid, node list, partition, account, name, array ids,
// GPUs and cluster; SLURMD_NODENAME; SLURM_SCRIPT_CONTEXT; a root PATH. The
// Epilog also gets SLURM_JOB_EXIT_CODE2 ("exit:signal") when `exit` is given.
std::vector<std::string> NodeScriptEnvironment(const LaunchSpec& spec, const std::string& context,
                                               const std::string& exit = "");

// PrologEpilogTimeout seconds as a timeout (0: Slurm's unlimited, a day here).
std::chrono::milliseconds NodeScriptTimeout(int64_t seconds);

// Why a run failed, for the drain reason's log and the job's detail:
// "exit code 3: <first line of output>", "killed after 30 s (PrologEpilogTimeout)".
// "" when it succeeded.
std::string NodeScriptFailure(const CapturedRun& run, int64_t timeout_seconds);

// TaskProlog's standard output, as Slurm's task plugin reads it.
struct TaskPrologOutput {
  std::vector<std::pair<std::string, std::string>> exports;  // export NAME=value
  std::vector<std::string> unsets;                           // unset NAME
  std::string print;                                         // print TEXT lines, joined
};
TaskPrologOutput ParseTaskPrologOutput(const std::string& output);

// Applies `output` to a "NAME=value" environment (exports replace or add,
// unsets remove), in the order Slurm applies them.
void ApplyTaskProlog(const TaskPrologOutput& output, std::vector<std::string>* environment);

}  // namespace skiff::noded

#endif  // SKIFF_NODED_NODE_SCRIPTS_H_
