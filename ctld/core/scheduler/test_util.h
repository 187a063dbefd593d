// Small builders for the scheduler's tests. Test-only.
#ifndef SKIFF_CTLD_CORE_SCHEDULER_TEST_UTIL_H_
#define SKIFF_CTLD_CORE_SCHEDULER_TEST_UTIL_H_

#include <string>
#include <vector>

#include "ctld/core/scheduler/scheduler.h"

namespace skiff::ctld {
namespace testing_util {

inline SchedNode MakeNode(const std::string& name, int cpus, int gpus = 0, int32_t gpu_type = kNone,
                          uint64_t memory_mb = 64000) {
  SchedNode node;
  node.name = name;
  node.usable = true;
  node.cpus = cpus;
  node.memory_mb = memory_mb;
  node.gpu_count = gpus;
  node.gpu_type = gpus > 0 ? gpu_type : kNone;
  return node;
}

// A view with `nodes` all in partition 0 ("debug"), `users` users and one QOS
// "normal" (index 0) without limits; GPU types "a100" (0) and "v100" (1).
inline ClusterView MakeView(std::vector<SchedNode> nodes, int users = 4) {
  ClusterView view;
  view.nodes = std::move(nodes);
  SchedPartition debug;
  debug.name = "debug";
  for (size_t n = 0; n < view.nodes.size(); ++n) debug.nodes.push_back(static_cast<int32_t>(n));
  view.partitions.push_back(debug);
  Qos normal;
  normal.name = "normal";
  view.qos.push_back(normal);
  for (int u = 0; u < users; ++u) {
    SchedUser user;
    user.name = "user" + std::to_string(u);
    view.users.push_back(user);
  }
  view.accounts = {"lab", "other"};
  view.groups = {"lab", "other"};
  view.gpu_types = {"a100", "v100"};
  view.features = {"ib", "fast"};
  return view;
}

inline PendingJob MakeJob(uint64_t id, int32_t user = 0, int cpus = 1, int gpus = 0,
                          int num_nodes = 1, int64_t time_limit = 3600) {
  PendingJob job;
  job.id = id;
  job.user = user;
  job.account = 0;
  job.group = 0;
  job.qos = 0;
  job.partition = 0;
  job.submit_time = static_cast<int64_t>(id);
  job.eligible_time = static_cast<int64_t>(id);
  job.time_limit = time_limit;
  job.num_nodes = num_nodes;
  job.cpus_per_node = cpus;
  job.gpus_per_node = gpus;
  return job;
}

inline RunningJob MakeRunning(uint64_t id, int32_t user, std::vector<int32_t> nodes, int cpus,
                              std::vector<std::vector<int32_t>> gpus, int64_t start,
                              int64_t time_limit) {
  RunningJob job;
  job.id = id;
  job.user = user;
  job.qos = 0;
  job.partition = 0;
  job.nodes = std::move(nodes);
  job.cpus_per_node = cpus;
  job.gpu_indices = std::move(gpus);
  job.start_time = start;
  job.time_limit = time_limit;
  return job;
}

// The reason for the job with `id`, by name.
inline std::string ReasonOf(const SchedulePlan& plan, const std::vector<PendingJob>& pending,
                            uint64_t id) {
  for (size_t i = 0; i < pending.size(); ++i) {
    if (pending[i].id == id) return WaitReasonName(plan.reasons[i]);
  }
  return "missing";
}

inline const JobStart* StartOf(const SchedulePlan& plan, uint64_t id) {
  for (const JobStart& start : plan.starts) {
    if (start.job_id == id) return &start;
  }
  return nullptr;
}

}  // namespace testing_util
}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_SCHEDULER_TEST_UTIL_H_
