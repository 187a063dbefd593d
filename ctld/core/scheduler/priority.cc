#include "ctld/core/scheduler/priority.h"

#include <algorithm>
#include <cmath>

namespace skiff::ctld {

double DecayedUsage(double usage, int64_t as_of, int64_t now, int64_t half_life) {
  if (half_life <= 0 || now <= as_of) return usage;
  return usage * std::exp2(-static_cast<double>(now - as_of) / static_cast<double>(half_life));
}

double AccrueUsage(double usage, int64_t as_of, double cpu_seconds, double usage_factor,
                   int64_t now, int64_t half_life) {
  return DecayedUsage(usage, as_of, now, half_life) + cpu_seconds * usage_factor;
}

PriorityContext MakePriorityContext(const ClusterView& view, const PriorityWeights& weights,
                                    int64_t now) {
  PriorityContext context;
  for (const SchedNode& node : view.nodes) context.total_cpus += node.cpus;
  for (const SchedPartition& partition : view.partitions) {
    context.max_tier = std::max(context.max_tier, partition.priority_tier);
  }
  for (const Qos& qos : view.qos) {
    context.max_qos_priority = std::max(context.max_qos_priority, qos.priority);
  }
  if (weights.tres.any()) {
    for (const SchedPartition& partition : view.partitions) {
      PriorityContext::TresTotals totals;
      for (int32_t n : partition.nodes) {
        const SchedNode& node = view.nodes[n];
        totals.cpu += node.cpus;
        totals.mem += static_cast<double>(node.memory_mb);
        totals.node += 1;
        totals.gpu += node.gpu_count;
      }
      context.partition_tres.push_back(totals);
    }
  }
  double total_usage = 0, total_shares = 0;
  std::vector<double> usage(view.users.size());
  for (size_t u = 0; u < view.users.size(); ++u) {
    const SchedUser& user = view.users[u];
    usage[u] = DecayedUsage(user.usage, user.usage_as_of, now, weights.decay_half_life);
    total_usage += usage[u];
    total_shares += std::max(0.0, user.shares);
  }
  context.fairshare.assign(view.users.size(), 1.0);
  if (total_usage > 0 && total_shares > 0) {
    for (size_t u = 0; u < view.users.size(); ++u) {
      const double shares = std::max(0.0, view.users[u].shares) / total_shares;
      const double used = usage[u] / total_usage;
      context.fairshare[u] = shares > 0 ? std::exp2(-used / shares) : 0.0;
    }
  }
  return context;
}

PriorityFactors ComputePriority(const ClusterView& view, const PriorityContext& context,
                                const PriorityWeights& weights, const PendingJob& job,
                                int64_t now) {
  PriorityFactors f;
  if (weights.basic) {
    // Slurm's priority/basic: the place in line less the nice, never below 1.
    f.priority = std::max<int64_t>(1, job.basic_priority - job.nice);
    if (job.admin_priority > 0) f.priority = job.admin_priority;
    return f;
  }
  if (weights.max_age > 0) {
    const int64_t age = std::clamp<int64_t>(now - job.eligible_time, 0, weights.max_age);
    f.age = static_cast<double>(age) / static_cast<double>(weights.max_age);
  } else {
    f.age = 1.0;
  }
  if (job.user >= 0 && static_cast<size_t>(job.user) < context.fairshare.size()) {
    f.fairshare = context.fairshare[job.user];
  }
  if (context.total_cpus > 0) {
    f.job_size = std::min(1.0, static_cast<double>(job.num_nodes) * job.cpus_per_node /
                                   static_cast<double>(context.total_cpus));
  }
  if (job.partition >= 0 && static_cast<size_t>(job.partition) < view.partitions.size() &&
      context.max_tier > 0) {
    f.partition = static_cast<double>(view.partitions[job.partition].priority_tier) /
                  static_cast<double>(context.max_tier);
  }
  if (job.qos != kNone && static_cast<size_t>(job.qos) < view.qos.size() &&
      context.max_qos_priority > 0) {
    f.qos = static_cast<double>(std::max<int64_t>(0, view.qos[job.qos].priority)) /
            static_cast<double>(context.max_qos_priority);
  }
  if (weights.tres.any() && job.partition >= 0 &&
      static_cast<size_t>(job.partition) < context.partition_tres.size()) {
    const PriorityContext::TresTotals& total = context.partition_tres[job.partition];
    const double nodes = std::max(1, job.num_nodes);
    const double cpus =
        std::max(nodes * job.cpus_per_node, static_cast<double>(job.ntasks) * job.cpus_per_task);
    const double mem = job.mem_per_node_mb > 0 ? nodes * static_cast<double>(job.mem_per_node_mb)
                                               : cpus * static_cast<double>(job.mem_per_cpu_mb);
    auto share = [](double asked, double of) { return of > 0 ? std::min(1.0, asked / of) : 0.0; };
    f.tres_cpu = share(cpus, total.cpu);
    f.tres_mem = share(mem, total.mem);
    f.tres_node = share(nodes, total.node);
    f.tres_gpu = share(nodes * job.gpus_per_node, total.gpu);
  }
  const double sum = weights.age * f.age + weights.fairshare * f.fairshare +
                     weights.job_size * f.job_size + weights.partition * f.partition +
                     weights.qos * f.qos + weights.tres.cpu * f.tres_cpu +
                     weights.tres.mem * f.tres_mem + weights.tres.node * f.tres_node +
                     weights.tres.gpu * f.tres_gpu;
  // Slurm's: the weighted sum less the job's nice, never below 1; a priority an
  // operator set (scontrol update Priority=) replaces the sum.
  f.priority = static_cast<int64_t>(std::llround(sum));
  if (job.nice != 0) f.priority = std::max<int64_t>(1, f.priority - job.nice);
  if (job.admin_priority > 0) f.priority = job.admin_priority;
  return f;
}

std::vector<uint32_t> OrderQueue(const ClusterView& view, const std::vector<PendingJob>& pending,
                                 const PriorityWeights& weights, int64_t now,
                                 std::vector<int64_t>* priorities) {
  const PriorityContext context = MakePriorityContext(view, weights, now);
  struct Key {
    int32_t tier;  // the partition's PriorityTier orders first, as in Slurm
    int64_t priority;
    int64_t submit;
    uint64_t id;
    uint32_t index;
  };
  std::vector<Key> keys(pending.size());
  for (size_t i = 0; i < pending.size(); ++i) {
    const PendingJob& job = pending[i];
    const int32_t tier =
        job.partition >= 0 && static_cast<size_t>(job.partition) < view.partitions.size()
            ? view.partitions[job.partition].priority_tier
            : 0;
    keys[i] = {tier, ComputePriority(view, context, weights, job, now).priority, job.submit_time,
               job.id, static_cast<uint32_t>(i)};
  }
  if (priorities != nullptr) {
    priorities->resize(pending.size());
    for (const Key& key : keys) (*priorities)[key.index] = key.priority;
  }
  std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
    if (a.tier != b.tier) return a.tier > b.tier;
    if (a.priority != b.priority) return a.priority > b.priority;
    if (a.submit != b.submit) return a.submit < b.submit;
    if (a.id != b.id) return a.id < b.id;
    return a.index < b.index;
  });
  std::vector<uint32_t> order(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) order[i] = keys[i].index;
  return order;
}

}  // namespace skiff::ctld
