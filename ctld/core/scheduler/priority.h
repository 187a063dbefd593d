// Multifactor job priority (Slurm's priority/multifactor) and the queue order.
//
// priority = round(w_age * age + w_fs * fairshare + w_size * job_size +
//                  w_part * partition + w_qos * qos), each factor in [0, 1]:
//   age       = min(now - eligible_time, PriorityMaxAge) / PriorityMaxAge
//   fairshare = 2^(-U/S): U = the user's decayed usage / all users' decayed usage,
//               S = the user's shares / all shares (1 when nobody has usage);
//               usage decays with PriorityDecayHalfLife
//   job_size  = CPUs asked (nodes x cpus/node) / the cluster's CPUs
//   partition = PriorityTier / the highest PriorityTier
//   qos       = QOS Priority / the highest QOS Priority (0 when none is > 0)
// plus, with PriorityWeightTRES, w_tres(t) * tres(t) for cpu, mem, node and
// gres/gpu: what the job asks for of the TRES over its partition's total
// (Slurm's priority_tres factors).
// less the job's nice (--nice, Nice=; the result never below 1 then); a
// priority an operator set (scontrol update Priority=) replaces all of it.
// With PriorityType=priority/basic the factors are unused: a job's priority is
// its place in line (PendingJob::basic_priority, counting down from Slurm's
// 4294901759 as jobs are submitted or released) less its nice, so the queue is
// first come, first served and a released job goes last.
// The queue order is the partition's PriorityTier descending (Slurm considers
// higher-tier partitions' jobs first), then priority descending, then submit
// time, then job id, so a pass is deterministic.
//
// Pure; no threads, no clock reads. Ownership: callers own all arguments.
#ifndef SKIFF_CTLD_CORE_SCHEDULER_PRIORITY_H_
#define SKIFF_CTLD_CORE_SCHEDULER_PRIORITY_H_

#include <cstdint>
#include <vector>

#include "ctld/core/scheduler/types.h"

namespace skiff::ctld {

struct PriorityWeights {
  int64_t age = 0;        // PriorityWeightAge
  int64_t fairshare = 0;  // PriorityWeightFairshare
  int64_t job_size = 0;   // PriorityWeightJobSize
  int64_t partition = 0;  // PriorityWeightPartition
  int64_t qos = 0;        // PriorityWeightQOS
  // PriorityWeightTRES per TRES.
  struct Tres {
    int64_t cpu = 0, mem = 0, node = 0, gpu = 0;
    bool any() const { return cpu != 0 || mem != 0 || node != 0 || gpu != 0; }
  } tres;
  int64_t max_age = 7 * 24 * 3600;          // PriorityMaxAge seconds
  int64_t decay_half_life = 7 * 24 * 3600;  // PriorityDecayHalfLife seconds, 0 = no decay
  bool basic = false;                       // PriorityType=priority/basic
};

// The factors behind one job's priority (what `sprio` shows).
struct PriorityFactors {
  double age = 0;
  double fairshare = 0;
  double job_size = 0;
  double partition = 0;
  double qos = 0;
  // What the job asks for of each TRES over its partition's total, in [0, 1]
  // (computed only with PriorityWeightTRES).
  double tres_cpu = 0, tres_mem = 0, tres_node = 0, tres_gpu = 0;
  int64_t priority = 0;
};

// Cluster-wide figures the factors are normalised by; computed once per pass.
struct PriorityContext {
  int64_t total_cpus = 0;
  int32_t max_tier = 1;
  int64_t max_qos_priority = 0;
  std::vector<double> fairshare;  // per user
  // Per partition, its nodes' CPUs, memory (MB), nodes and GPUs (with
  // PriorityWeightTRES only).
  struct TresTotals {
    double cpu = 0, mem = 0, node = 0, gpu = 0;
  };
  std::vector<TresTotals> partition_tres;
};

// `usage` recorded at `as_of`, decayed to `now`.
double DecayedUsage(double usage, int64_t as_of, int64_t now, int64_t half_life);

// Adds `cpu_seconds` of use in a QOS with `usage_factor` to a user's record:
// decays the old usage to `now`, adds cpu_seconds x usage_factor; the caller
// stores the result with usage_as_of = now.
double AccrueUsage(double usage, int64_t as_of, double cpu_seconds, double usage_factor,
                   int64_t now, int64_t half_life);

PriorityContext MakePriorityContext(const ClusterView& view, const PriorityWeights& weights,
                                    int64_t now);

PriorityFactors ComputePriority(const ClusterView& view, const PriorityContext& context,
                                const PriorityWeights& weights, const PendingJob& job, int64_t now);

// Indices into `pending` in scheduling order; `priorities` (optional) gets each
// job's priority, indexed like `pending`.
std::vector<uint32_t> OrderQueue(const ClusterView& view, const std::vector<PendingJob>& pending,
                                 const PriorityWeights& weights, int64_t now,
                                 std::vector<int64_t>* priorities);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_SCHEDULER_PRIORITY_H_
