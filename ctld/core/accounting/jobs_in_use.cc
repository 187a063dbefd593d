#include "ctld/core/accounting/jobs_in_use.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace skiff::ctld {
namespace {

void Add(TresSpec* tres, int64_t cpu, int64_t mem_mb, int64_t node, int64_t gpu) {
  tres->cpu = tres->cpu.value_or(0) + cpu;
  tres->mem_mb = tres->mem_mb.value_or(0) + mem_mb;
  tres->node = tres->node.value_or(0) + node;
  tres->gpu = tres->gpu.value_or(0) + gpu;
}

void Count(const Job& job, int64_t now, JobsInUse* in_use) {
  ++in_use->submitted_jobs;
  if (job.nodes.empty()) return;
  ++in_use->running_jobs;
  const int64_t nodes = static_cast<int64_t>(job.nodes.size());
  const int64_t cpus = job.AllocCpus();
  const int64_t mem = static_cast<int64_t>(job.AllocMemMb());
  int64_t gpus = 0;
  for (const std::vector<int>& on_node : job.gpus_by_node) gpus += on_node.size();
  if (job.gpus_by_node.empty()) gpus = static_cast<int64_t>(job.gpu_indices.size());
  Add(&in_use->running_tres, cpus, mem, nodes, gpus);
  if (job.request.time_limit > 0 && job.start_time > 0) {
    const int64_t ran = std::max<int64_t>(0, now - job.start_time - job.suspended_total);
    const int64_t left = std::max<int64_t>(0, job.request.time_limit - ran);
    Add(&in_use->running_tres_secs, cpus * left, mem * left, nodes * left, gpus * left);
  }
}

}  // namespace

JobsInUseTables CountJobsInUse(const std::vector<const Job*>& jobs,
                               const std::map<std::string, std::string>& parents, int64_t now) {
  JobsInUseTables tables;
  for (const Job* job : jobs) {
    if (IsFinal(job->state)) continue;
    Count(*job, now, &tables.by_assoc[AssocKey::User(job->account, job->user_name)]);
    std::string account = job->account;
    for (int depth = 0; depth < 64 && !account.empty(); ++depth) {
      Count(*job, now, &tables.by_assoc[AssocKey::Account(account)]);
      auto parent = parents.find(account);
      if (parent == parents.end() || parent->second == account) break;
      account = parent->second;
    }
    if (!job->qos.empty()) {
      Count(*job, now, &tables.by_qos[QosKey{job->qos, ""}]);
      Count(*job, now, &tables.by_qos[QosKey{job->qos, job->user_name}]);
    }
  }
  return tables;
}

}  // namespace skiff::ctld
