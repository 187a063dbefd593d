#include "ctld/core/accounting/batch_step.h"

#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "common/size.h"

namespace skiff::ctld {
namespace {

// The batch step's state and exit status as Slurm records them: the script's
// own end, or CANCELLED by SIGTERM when the job was ended from outside.
void BatchOutcome(const Job& job, StepRecord* step) {
  JobState state = job.state == JobState::kCompleting ? job.final_state : job.state;
  switch (state) {
    case JobState::kCancelled:
    case JobState::kTimeout:
    case JobState::kPreempted:
    case JobState::kNodeFail:
      step->state = "CANCELLED";
      step->exit_code = 0;
      step->exit_signal = job.exit_signal != 0 ? job.exit_signal : 15;
      return;
    case JobState::kOutOfMemory:
      step->state = "OUT_OF_MEMORY";
      step->exit_code = 0;
      step->exit_signal = 125;
      return;
    case JobState::kPending:
    case JobState::kConfiguring:
    case JobState::kRunning:
      step->state = "RUNNING";
      return;
    default:
      step->state = JobStateName(state);
      step->exit_code = job.exit_code;
      step->exit_signal = job.exit_signal;
  }
}

}  // namespace

StepRecord BatchStep(const Job& job, int64_t suspended) {
  StepRecord batch;
  batch.step_id = "batch";
  batch.name = "batch";
  BatchOutcome(job, &batch);
  batch.start_time = job.start_time;
  batch.end_time = job.end_time;
  batch.alloc_cpus = job.CpusOn(0);
  batch.num_nodes = 1;
  batch.node_list = job.nodes.empty() ? "" : job.nodes.front();
  batch.ntasks = 1;
  // "cpu=1,gres/gpu=1,mem=100M,node=1": sorted by name, as sacct prints TRES.
  std::map<std::string, std::string> tres{{"cpu", std::to_string(job.CpusOn(0))}, {"node", "1"}};
  if (job.MemOnMb(0) > 0) tres["mem"] = FormatSize(job.MemOnMb(0) * kMiB);
  if (!job.gpu_indices.empty()) tres["gres/gpu"] = std::to_string(job.gpu_indices.size());
  batch.alloc_tres = absl::StrJoin(tres, ",", absl::PairFormatter("="));
  batch.suspended = suspended;
  if (job.batch_usage.measured) {
    batch.has_usage = true;
    batch.user_cpu_usec = job.batch_usage.user_cpu_usec;
    batch.system_cpu_usec = job.batch_usage.system_cpu_usec;
    batch.max_rss_kb = job.batch_usage.max_rss_kb;
    batch.ave_rss_kb = job.batch_usage.max_rss_kb;  // one task
    batch.max_rss_node = job.nodes.front();
    batch.max_rss_task = 0;
  }
  return batch;
}

}  // namespace skiff::ctld
