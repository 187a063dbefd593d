// A step as ctld records it (v1::AcctStep, what sacct and squeue -s show),
// built by the step manager from the step's request and grant, and settled
// from its tasks' ends. Pure.
#ifndef SKIFF_NODED_STEPS_STEP_RECORD_H_
#define SKIFF_NODED_STEPS_STEP_RECORD_H_

#include <cstdint>
#include <string>

#include "noded/steps/step_manager.h"
#include "proto/accounting.pb.h"
#include "proto/noded.pb.h"

namespace skiff::noded {

// The step RUNNING since `now`: its id, name (-J, else the command's base
// name, as Slurm names steps), nodes, CPUs, tasks and TRES.
v1::AcctStep StepRecordAtStart(const v1::StepRequest& request, const StepGrant& grant, int64_t now);

// How a step's tasks ended, gathered as they end.
struct StepOutcome {
  int exit_code = 0;       // the highest task exit code
  int signal = 0;          // the signal of a task killed by one (the last seen)
  bool failed = false;     // a task could not start, or its node lost it
  bool cancelled = false;  // scancel N.S, or the job ended under the step
  bool timed_out = false;  // its own time limit (srun -t) ended it

  // Usage, from the tasks that reported theirs.
  int tasks_measured = 0;
  int64_t user_cpu_usec = 0;
  int64_t system_cpu_usec = 0;
  int64_t rss_total_kb = 0;
  int64_t max_rss_kb = -1;  // -1: none yet
  std::string max_rss_node;
  int max_rss_task = 0;

  void Add(int task_exit_code, int task_signal, bool task_failed);
  void AddUsage(int task_id, const std::string& node, int64_t user_cpu_usec,
                int64_t system_cpu_usec, int64_t max_rss_kb);
};

// The record at the step's end: COMPLETED when every task exited 0, TIMEOUT
// when its time limit ended it, CANCELLED when cancelled, FAILED otherwise; ExitCode is the highest
// task exit code with the signal that killed a task; usage as the tasks
// reported it (CPU summed, MaxRSS the largest task's, AveRSS their mean).
void FinishStepRecord(const StepOutcome& outcome, int64_t now, v1::AcctStep* record);

}  // namespace skiff::noded

#endif  // SKIFF_NODED_STEPS_STEP_RECORD_H_
