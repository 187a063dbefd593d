#include "ctld/core/scheduler/scheduler.h"

#include <algorithm>

namespace skiff {
namespace {

// What a job takes on one node (an exclusive job takes the node whole).
using Amount = Share;

// What a running (or just started) job or a reservation gives back on one
// node at `end`.
struct Release {
  int64_t end;
  Amount amount;
};

// A reservation's claim on one node from `start` to `end`, and how much room the
// node has left at `start` once the claim and every job still running then are
// counted.
struct Claim {
  int64_t start;
  int64_t end;
  Amount need;
  Amount spare;
};

// Per-user usage within one QOS.
struct Usage {
  double cost = 0;  // billing-minutes held (associations only)
  int64_t jobs = 0;
  int64_t cpus = 0;
  int64_t mem = 0;
  int64_t nodes = 0;
  int64_t gpus = 0;
};

bool Over(int64_t limit, int64_t value) { return limit != kNoLimit && value > limit; }

bool Contains(const std::vector<int32_t>& list, int32_t value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// The QOS whose limits apply to a job: its own and its partition's.
int QosList(const ClusterView& view, int32_t qos, int32_t partition, int32_t out[2]) {
  int count = 0;
  if (qos != kNone) out[count++] = qos;
  const int32_t part_qos = view.partitions[partition].qos;
  if (part_qos != kNone && part_qos != qos) out[count++] = part_qos;
  return count;
}

WaitReason PerJobLimit(const Qos& qos, const PendingJob& job) {
  if (qos.max_wall != kNoLimit && (job.time_limit == kNoLimit || job.time_limit > qos.max_wall)) {
    return WaitReason::kQosMaxWallDurationPerJobLimit;
  }
  const TresLimits& limit = qos.max_tres_per_job;
  const int64_t nodes = job.num_nodes;
  if (Over(limit.gpus, nodes * job.gpus_per_node)) return WaitReason::kQosMaxGresPerJob;
  if (Over(limit.cpus, nodes * job.cpus_per_node)) return WaitReason::kQosMaxCpuPerJobLimit;
  if (Over(limit.mem_mb, nodes * static_cast<int64_t>(job.mem_per_node_mb))) {
    return WaitReason::kQosMaxMemoryPerJob;
  }
  if (Over(limit.nodes, nodes)) return WaitReason::kQosMaxNodePerJobLimit;
  return WaitReason::kNone;
}

WaitReason PerUserLimit(const Qos& qos, const Usage& usage, const PendingJob& job) {
  if (Over(qos.max_jobs_per_user, usage.jobs + 1)) return WaitReason::kQosMaxJobsPerUserLimit;
  const TresLimits& limit = qos.max_tres_per_user;
  const int64_t nodes = job.num_nodes;
  if (Over(limit.gpus, usage.gpus + nodes * job.gpus_per_node)) {
    return WaitReason::kQosMaxGresPerUser;
  }
  if (Over(limit.cpus, usage.cpus + nodes * job.cpus_per_node)) {
    return WaitReason::kQosMaxCpuPerUserLimit;
  }
  if (Over(limit.mem_mb, usage.mem + nodes * static_cast<int64_t>(job.mem_per_node_mb))) {
    return WaitReason::kQosMaxMemoryPerUser;
  }
  if (Over(limit.nodes, usage.nodes + nodes)) return WaitReason::kQosMaxNodePerUserLimit;
  return WaitReason::kNone;
}

// The first association limit a job would exceed if it started now: its own
// association's MaxJobs, then the Grp limits of it and every one above it.
WaitReason AssocLimit(const ClusterView& view, const std::vector<Usage>& usage,
                      const PendingJob& job) {
  if (job.assoc == kNone) return WaitReason::kNone;
  const int64_t nodes = job.num_nodes;
  if (Over(view.assocs[job.assoc].max_jobs, usage[job.assoc].jobs + 1)) {
    return WaitReason::kAssocMaxJobsLimit;
  }
  for (int32_t a = job.assoc; a != kNone; a = view.assocs[a].parent) {
    const SchedAssoc& assoc = view.assocs[a];
    const Usage& used = usage[a];
    if (Over(assoc.grp_jobs, used.jobs + 1)) return WaitReason::kAssocGrpJobsLimit;
    const TresLimits& limit = assoc.grp_tres;
    if (Over(limit.gpus, used.gpus + nodes * job.gpus_per_node)) return WaitReason::kAssocGrpGres;
    if (Over(limit.cpus, used.cpus + nodes * job.cpus_per_node)) {
      return WaitReason::kAssocGrpCpuLimit;
    }
    if (Over(limit.mem_mb, used.mem + nodes * static_cast<int64_t>(job.mem_per_node_mb))) {
      return WaitReason::kAssocGrpMemLimit;
    }
    if (Over(limit.nodes, used.nodes + nodes)) return WaitReason::kAssocGrpNodeLimit;
    if (assoc.grp_billing_mins >= 0 &&
        assoc.billing_used + used.cost + job.max_cost > assoc.grp_billing_mins) {
      return WaitReason::kAssocGrpBillingMinutes;
    }
  }
  return WaitReason::kNone;
}

// Nodes' free resources, GPU owners, holds over time, reservations and QOS usage
// during one pass.
class State {
 public:
  State(const ClusterView& view, int64_t now)
      : view_(view),
        now_(now),
        free_(view.nodes.size()),
        gpu_owner_(view.nodes.size()),
        releases_(view.nodes.size()),
        claimed_(view.nodes.size()),
        claims_(view.nodes.size()),
        in_partition_(view.partitions.size()),
        usage_(view.qos.size() * view.users.size()),
        assoc_usage_(view.assocs.size()) {
    for (size_t n = 0; n < view.nodes.size(); ++n) {
      const SchedNode& node = view.nodes[n];
      free_[n] = {node.cpus, static_cast<int64_t>(node.memory_mb), node.gpu_count};
      gpu_owner_[n].assign(node.gpu_count, 0);
    }
    for (size_t p = 0; p < view.partitions.size(); ++p) {
      in_partition_[p].assign(view.nodes.size(), 0);
      for (int32_t n : view.partitions[p].nodes) in_partition_[p][n] = 1;
    }
    for (const RunningJob& job : view.running) {
      for (size_t k = 0; k < job.nodes.size(); ++k) {
        const int32_t n = job.nodes[k];
        const SchedNode& node = view.nodes[n];
        Amount amount;
        if (job.exclusive) {
          amount = {node.cpus, static_cast<int64_t>(node.memory_mb), node.gpu_count};
        } else {
          amount.cpus = job.cpus_per_node;
          amount.mem = static_cast<int64_t>(job.mem_per_node_mb);
          amount.gpus = job.gpu_indices.empty() ? 0 : job.gpu_indices[k].size();
        }
        Take(n, amount, ClampEnd(job.ExpectedEnd()));
        if (!job.gpu_indices.empty()) {
          for (int32_t g : job.gpu_indices[k]) gpu_owner_[n][g] = job.id;
        }
      }
      int64_t gpus = 0;
      for (const auto& per_node : job.gpu_indices) gpus += per_node.size();
      Charge(job.user, job.qos, job.partition, job.assoc, job.max_cost, job.nodes.size(),
             static_cast<int64_t>(job.nodes.size()) * job.cpus_per_node,
             static_cast<int64_t>(job.nodes.size()) * static_cast<int64_t>(job.mem_per_node_mb),
             gpus);
    }
  }

  int64_t now() const { return now_; }

  int64_t EndOf(const PendingJob& job) const {
    return ClampEnd(job.time_limit == kNoLimit ? kNever : now_ + job.time_limit);
  }

  // Checks that do not depend on resources: holds, begin time, partition, QOS.
  WaitReason Precheck(const PendingJob& job) const {
    if (job.held) return job.held_by_admin ? WaitReason::kJobHeldAdmin : WaitReason::kJobHeldUser;
    if (job.eligible_time > now_) return WaitReason::kBeginTime;
    if (job.partition < 0 || static_cast<size_t>(job.partition) >= view_.partitions.size()) {
      return WaitReason::kPartitionInactive;
    }
    const SchedPartition& partition = view_.partitions[job.partition];
    switch (partition.state) {
      case PartitionState::kUp:
      case PartitionState::kDrain:  // Slurm: queued jobs of a DRAIN partition still run
        break;
      case PartitionState::kDown:
        return WaitReason::kPartitionDown;
      case PartitionState::kInactive:
        return WaitReason::kPartitionInactive;
    }
    if (job.qos != kNone && (job.qos < 0 || static_cast<size_t>(job.qos) >= view_.qos.size())) {
      return WaitReason::kInvalidQos;
    }
    if ((!partition.allow_accounts.empty() && !Contains(partition.allow_accounts, job.account)) ||
        (!partition.allow_groups.empty() && !Contains(partition.allow_groups, job.group)) ||
        (!partition.allow_qos.empty() && !Contains(partition.allow_qos, job.qos))) {
      return WaitReason::kPartitionConfig;
    }
    if (partition.max_time != kNoLimit &&
        (job.time_limit == kNoLimit || job.time_limit > partition.max_time)) {
      return WaitReason::kPartitionTimeLimit;
    }
    if (partition.max_nodes != kNoLimit && job.num_nodes > partition.max_nodes) {
      return WaitReason::kPartitionNodeLimit;
    }
    int32_t qos[2];
    const int count = QosList(view_, job.qos, job.partition, qos);
    for (int i = 0; i < count; ++i) {
      const WaitReason reason = PerJobLimit(view_.qos[qos[i]], job);
      if (reason != WaitReason::kNone) return reason;
    }
    return UserLimit(job);
  }

  // The first per-user QOS limit the job would exceed if it started now.
  WaitReason UserLimit(const PendingJob& job) const {
    int32_t qos[2];
    const int count = QosList(view_, job.qos, job.partition, qos);
    const bool known_user = job.user >= 0 && static_cast<size_t>(job.user) < view_.users.size();
    const Usage none;
    for (int i = 0; i < count; ++i) {
      const Usage& usage = known_user ? usage_[UsageIndex(qos[i], job.user)] : none;
      const WaitReason reason = PerUserLimit(view_.qos[qos[i]], usage, job);
      if (reason != WaitReason::kNone) return reason;
    }
    return AssocLimit(view_, assoc_usage_, job);
  }

  bool StaticFit(int32_t n, const PendingJob& job) const {
    return NodeCouldHold(view_.nodes[n], n, job);
  }

  bool Eligible(int32_t n, const PendingJob& job) const {
    return n >= 0 && static_cast<size_t>(n) < view_.nodes.size() &&
           in_partition_[job.partition][n] && view_.nodes[n].usable && StaticFit(n, job);
  }

  Amount AmountOn(int32_t n, const PendingJob& job) const {
    if (job.exclusive) {
      const SchedNode& node = view_.nodes[n];
      return {node.cpus, static_cast<int64_t>(node.memory_mb), node.gpu_count};
    }
    return {job.cpus_per_node, static_cast<int64_t>(job.mem_per_node_mb), job.gpus_per_node};
  }

  // Whether `free` (of node n) can hold the job's share.
  bool FitsIn(int32_t n, const Amount& free, const PendingJob& job) const {
    if (job.exclusive) {
      const SchedNode& node = view_.nodes[n];
      return free.cpus == node.cpus && free.mem == static_cast<int64_t>(node.memory_mb) &&
             free.gpus == node.gpu_count;
    }
    return ShareFits(AmountOn(n, job), free);
  }

  bool FitsNow(int32_t n, const PendingJob& job) const { return FitsIn(n, free_[n], job); }

  // Would a job ending at `end` on node `n` leave every reservation there room?
  bool RespectsClaims(int32_t n, const PendingJob& job, int64_t end) const {
    if (claims_[n].empty()) return true;
    const Amount amount = AmountOn(n, job);
    for (const Claim& claim : claims_[n]) {
      if (end <= claim.start) continue;
      if (!ShareFits(amount, claim.spare)) return false;
    }
    return true;
  }

  // Picks the nodes: every -w node, then the partition's first nodes that pass
  // `fit`. False when there are not enough.
  template <typename Fit>
  bool SelectNodes(const PendingJob& job, Fit fit, std::vector<int32_t>* out) const {
    out->clear();
    const size_t wanted = static_cast<size_t>(std::max(job.num_nodes, 1));
    for (int32_t r : job.nodelist) {
      if (!Eligible(r, job) || !fit(r)) return false;
      out->push_back(r);
    }
    if (out->size() > wanted) return false;
    for (int32_t n : view_.partitions[job.partition].nodes) {
      if (out->size() == wanted) break;
      if (!job.nodelist.empty() && Contains(job.nodelist, n)) continue;
      if (Eligible(n, job) && fit(n)) out->push_back(n);
    }
    return out->size() == wanted;
  }

  // Why a job that passed Precheck does not fit now.
  WaitReason NoFitReason(const PendingJob& job) const {
    const SchedPartition& partition = view_.partitions[job.partition];
    int64_t fits_empty = 0, fits_usable = 0;
    for (int32_t n : partition.nodes) {
      if (!StaticFit(n, job)) continue;
      ++fits_empty;
      if (view_.nodes[n].usable) ++fits_usable;
    }
    for (int32_t r : job.nodelist) {
      if (r < 0 || static_cast<size_t>(r) >= view_.nodes.size() ||
          !in_partition_[job.partition][r] || !StaticFit(r, job)) {
        return WaitReason::kBadConstraints;
      }
      if (!view_.nodes[r].usable) return WaitReason::kReqNodeNotAvail;
    }
    if (fits_empty < job.num_nodes) return WaitReason::kBadConstraints;
    if (fits_usable < job.num_nodes) return WaitReason::kReqNodeNotAvail;
    return WaitReason::kResources;
  }

  // Starts `job` on `nodes` now (REQUIRES: they fit): takes resources and the
  // lowest free GPU indices, charges QOS usage.
  JobStart Start(uint32_t index, const PendingJob& job, const std::vector<int32_t>& nodes,
                 bool backfilled) {
    JobStart start;
    start.job_id = job.id;
    start.pending_index = index;
    start.nodes = nodes;
    start.cpus_per_node = job.cpus_per_node;
    start.mem_per_node_mb = job.mem_per_node_mb;
    start.exclusive = job.exclusive;
    start.backfilled = backfilled;
    start.expected_end = job.time_limit == kNoLimit ? kNever : now_ + job.time_limit;
    const int64_t end = EndOf(job);
    start.gpu_indices.resize(nodes.size());
    for (size_t k = 0; k < nodes.size(); ++k) {
      const int32_t n = nodes[k];
      std::vector<int32_t>& gpus = start.gpu_indices[k];
      std::vector<uint64_t>& owner = gpu_owner_[n];
      for (size_t g = 0; g < owner.size() && static_cast<int32_t>(gpus.size()) < job.gpus_per_node;
           ++g) {
        if (owner[g] == 0) {
          owner[g] = job.id;
          gpus.push_back(static_cast<int32_t>(g));
        }
      }
      const Amount amount = AmountOn(n, job);
      Take(n, amount, end);
      for (Claim& claim : claims_[n]) {
        if (end > claim.start) {
          claim.spare.cpus -= amount.cpus;
          claim.spare.mem -= amount.mem;
          claim.spare.gpus -= amount.gpus;
        }
      }
    }
    const int64_t count = static_cast<int64_t>(nodes.size());
    Charge(job.user, job.qos, job.partition, job.assoc, job.max_cost, count,
           count * job.cpus_per_node, count * static_cast<int64_t>(job.mem_per_node_mb),
           count * job.gpus_per_node);
    return start;
  }

  // Re-applies a start made by an earlier pass over the same view.
  void Replay(const PendingJob& job, const JobStart& start) {
    const int64_t end = EndOf(job);
    for (size_t k = 0; k < start.nodes.size(); ++k) {
      const int32_t n = start.nodes[k];
      Take(n, AmountOn(n, job), end);
      for (int32_t g : start.gpu_indices[k]) gpu_owner_[n][g] = job.id;
    }
    const int64_t count = static_cast<int64_t>(start.nodes.size());
    Charge(job.user, job.qos, job.partition, job.assoc, job.max_cost, count,
           count * job.cpus_per_node, count * static_cast<int64_t>(job.mem_per_node_mb),
           count * job.gpus_per_node);
  }

  // The earliest time `job` fits, counting running jobs until their ends and
  // reservations as held from now until their ends; and the nodes then.
  // `spare` gets, per chosen node, the room left at that time after the job.
  //
  // Each node's room only grows with time here, so a node fits from its own
  // earliest time on: the job starts when enough nodes (and every -w node) do.
  // Cost: per candidate node, its releases up to the first that makes it fit.
  StartEstimate Estimate(const PendingJob& job, std::vector<Amount>* spare) const {
    StartEstimate estimate;
    const SchedPartition& partition = view_.partitions[job.partition];
    const size_t wanted = static_cast<size_t>(std::max(job.num_nodes, 1));
    for (int32_t r : job.nodelist) {
      if (!Eligible(r, job)) return estimate;
    }
    // Candidates: -w nodes first, then the partition's other eligible nodes.
    std::vector<int32_t> candidates(job.nodelist.begin(), job.nodelist.end());
    for (int32_t n : partition.nodes) {
      if (!job.nodelist.empty() && Contains(job.nodelist, n)) continue;
      if (Eligible(n, job)) candidates.push_back(n);
    }
    if (candidates.size() < wanted) return estimate;
    std::vector<int64_t> fit_from(candidates.size(), kNever);
    for (size_t c = 0; c < candidates.size(); ++c) {
      const int32_t n = candidates[c];
      Amount free = FreeBeyondClaims(n);
      if (FitsIn(n, free, job)) {
        fit_from[c] = now_;
        continue;
      }
      for (const Release& release : releases_[n]) {
        Add(&free, release.amount);
        if (FitsIn(n, free, job)) {
          fit_from[c] = std::max(release.end, now_);
          break;
        }
      }
    }
    int64_t when = now_;
    for (size_t c = 0; c < job.nodelist.size(); ++c) when = std::max(when, fit_from[c]);
    std::vector<int64_t> sorted = fit_from;
    std::nth_element(sorted.begin(), sorted.begin() + (wanted - 1), sorted.end());
    when = std::max(when, sorted[wanted - 1]);
    if (when == kNever) return estimate;
    estimate.start = when;
    for (size_t c = 0; c < candidates.size() && estimate.nodes.size() < wanted; ++c) {
      if (fit_from[c] > when) continue;
      const int32_t n = candidates[c];
      estimate.nodes.push_back(n);
      if (spare != nullptr) {
        Amount free = FreeBeyondClaims(n);
        for (const Release& release : releases_[n]) {
          if (release.end > when) break;
          Add(&free, release.amount);
        }
        const Amount need = AmountOn(n, job);
        spare->push_back({free.cpus - need.cpus, free.mem - need.mem, free.gpus - need.gpus});
      }
    }
    return estimate;
  }

  // Reserves `estimate.nodes` for `job` from `estimate.start`.
  void Reserve(const PendingJob& job, const StartEstimate& estimate,
               const std::vector<Amount>& spare) {
    const int64_t end = job.time_limit == kNoLimit || estimate.start > kNever - job.time_limit
                            ? kNever
                            : estimate.start + job.time_limit;
    for (size_t k = 0; k < estimate.nodes.size(); ++k) {
      const int32_t n = estimate.nodes[k];
      const Amount need = AmountOn(n, job);
      for (Claim& claim : claims_[n]) {
        if (claim.start >= estimate.start && claim.start < end) {
          claim.spare.cpus -= need.cpus;
          claim.spare.mem -= need.mem;
          claim.spare.gpus -= need.gpus;
        }
      }
      claims_[n].push_back({estimate.start, end, need, spare[k]});
      Add(&claimed_[n], need);
      AddRelease(n, end, need);
    }
  }

 private:
  size_t UsageIndex(int32_t qos, int32_t user) const {
    return static_cast<size_t>(qos) * view_.users.size() + static_cast<size_t>(user);
  }

  int64_t ClampEnd(int64_t end) const { return end == kNever ? kNever : std::max(end, now_ + 1); }

  void Take(int32_t n, const Amount& amount, int64_t end) {
    free_[n].cpus -= amount.cpus;
    free_[n].mem -= amount.mem;
    free_[n].gpus -= amount.gpus;
    AddRelease(n, end, amount);
  }

  static void Add(Amount* to, const Amount& amount) {
    to->cpus += amount.cpus;
    to->mem += amount.mem;
    to->gpus += amount.gpus;
  }

  // Free now once every reservation on `n` is counted as held from now.
  Amount FreeBeyondClaims(int32_t n) const {
    const Amount& f = free_[n];
    const Amount& c = claimed_[n];
    return {f.cpus - c.cpus, f.mem - c.mem, f.gpus - c.gpus};
  }

  // Keeps releases_[n] sorted by end (equal ends in arrival order).
  void AddRelease(int32_t n, int64_t end, const Amount& amount) {
    if (end == kNever) return;
    std::vector<Release>& list = releases_[n];
    auto at = std::upper_bound(list.begin(), list.end(), end,
                               [](int64_t e, const Release& r) { return e < r.end; });
    list.insert(at, Release{end, amount});
  }

  void Charge(int32_t user, int32_t job_qos, int32_t partition, int32_t assoc, double cost,
              int64_t nodes, int64_t cpus, int64_t mem, int64_t gpus) {
    for (int32_t a = assoc; a != kNone; a = view_.assocs[a].parent) {
      Usage& usage = assoc_usage_[a];
      usage.cost += cost;
      usage.jobs += 1;
      usage.nodes += nodes;
      usage.cpus += cpus;
      usage.mem += mem;
      usage.gpus += gpus;
    }
    if (user < 0 || static_cast<size_t>(user) >= view_.users.size()) return;
    int32_t qos[2];
    const int count = QosList(view_, job_qos, partition, qos);
    for (int i = 0; i < count; ++i) {
      Usage& usage = usage_[UsageIndex(qos[i], user)];
      usage.jobs += 1;
      usage.nodes += nodes;
      usage.cpus += cpus;
      usage.mem += mem;
      usage.gpus += gpus;
    }
  }

  const ClusterView& view_;
  const int64_t now_;
  std::vector<Amount> free_;
  std::vector<std::vector<uint64_t>> gpu_owner_;  // per node, per GPU index: job id, 0 = free
  // Per node, what running jobs and reservations give back and when, by end.
  std::vector<std::vector<Release>> releases_;
  std::vector<Amount> claimed_;                     // per node: what its reservations hold
  std::vector<std::vector<Claim>> claims_;          // per node
  std::vector<std::vector<uint8_t>> in_partition_;  // [partition][node]
  std::vector<Usage> usage_;                        // [qos x users + user]
  std::vector<Usage> assoc_usage_;                  // per association, its subtree's
};

// A job's shape, for skipping backfill candidates that cannot fit when an
// identical one with an earlier or equal end just failed.
struct Shape {
  int32_t partition, num_nodes, cpus_per_node, gpus_per_node, gpu_type;
  uint64_t mem_per_node_mb;
  bool exclusive;
  int64_t failed_end;

  bool Same(const PendingJob& job) const {
    return partition == job.partition && num_nodes == job.num_nodes &&
           cpus_per_node == job.cpus_per_node && gpus_per_node == job.gpus_per_node &&
           gpu_type == job.gpu_type && mem_per_node_mb == job.mem_per_node_mb &&
           exclusive == job.exclusive;
  }
};

bool Plain(const PendingJob& job) {
  return job.nodelist.empty() && job.exclude.empty() && job.features.empty();
}

}  // namespace

MainPassResult MainPass(const ClusterView& view, const std::vector<PendingJob>& pending,
                        const std::vector<uint32_t>& order, int64_t now) {
  MainPassResult result;
  result.reasons.assign(pending.size(), WaitReason::kNone);
  result.details.assign(pending.size(), WaitDetail::kNone);
  State state(view, now);
  std::vector<uint8_t> blocked(view.partitions.size(), 0);
  // Partitions whose own top job waits for resources (Slurm's failed_parts).
  std::vector<uint8_t> failed(view.partitions.size(), 0);
  // Nodes Slurm counts as unavailable to later jobs: not usable, or in a
  // failed partition; and per partition how many of its nodes remain.
  std::vector<uint8_t> unavailable(view.nodes.size(), 0);
  for (size_t n = 0; n < view.nodes.size(); ++n) unavailable[n] = view.nodes[n].usable ? 0 : 1;
  std::vector<int64_t> available(view.partitions.size(), 0);
  auto count_available = [&] {
    for (size_t p = 0; p < view.partitions.size(); ++p) {
      available[p] = 0;
      for (int32_t n : view.partitions[p].nodes) available[p] += unavailable[n] ? 0 : 1;
    }
  };
  count_available();
  // A blocked partition also blocks the lower-tier partitions that share nodes
  // with it: their jobs go to backfill, which respects the blocked job's
  // reservation, so a higher tier (a preemptor waiting for its victims to
  // leave, say) is never overtaken on its own nodes.
  std::vector<std::vector<int32_t>> shadowed(view.partitions.size());
  {
    std::vector<std::vector<uint8_t>> has(view.partitions.size(),
                                          std::vector<uint8_t>(view.nodes.size(), 0));
    for (size_t p = 0; p < view.partitions.size(); ++p) {
      for (int32_t n : view.partitions[p].nodes) has[p][n] = 1;
    }
    for (size_t p = 0; p < view.partitions.size(); ++p) {
      for (size_t q = 0; q < view.partitions.size(); ++q) {
        if (view.partitions[q].priority_tier >= view.partitions[p].priority_tier) continue;
        const bool overlap =
            std::any_of(view.partitions[q].nodes.begin(), view.partitions[q].nodes.end(),
                        [&](int32_t n) { return has[p][n] != 0; });
        if (overlap) shadowed[p].push_back(static_cast<int32_t>(q));
      }
    }
  }
  std::vector<int32_t> nodes;
  for (uint32_t index : order) {
    const PendingJob& job = pending[index];
    WaitReason reason = state.Precheck(job);
    WaitDetail detail = WaitDetail::kNone;
    const bool too_few_nodes = available[job.partition] < std::max(job.num_nodes, 1);
    if (reason == WaitReason::kNone) {
      // A job asking for a down node waits for it, whatever else waits (Slurm
      // names the node even behind its partition's top job).
      for (int32_t r : job.nodelist) {
        if (r >= 0 && static_cast<size_t>(r) < view.nodes.size() && !view.nodes[r].usable) {
          reason = WaitReason::kReqNodeNotAvail;
          detail = WaitDetail::kUnavailableNodes;
          break;
        }
      }
    }
    if (reason == WaitReason::kNone && blocked[job.partition]) {
      reason = WaitReason::kPriority;
      // Slurm says why for a job whose partition's nodes are taken by another
      // partition's waiting job (not for one waiting behind its own partition's).
      if (!failed[job.partition] && too_few_nodes) detail = WaitDetail::kNodesUnavailable;
    }
    if (reason == WaitReason::kNone) {
      if (state.SelectNodes(
              job, [&](int32_t n) { return state.FitsNow(n, job); }, &nodes)) {
        result.starts.push_back(state.Start(index, job, nodes, /*backfilled=*/false));
        continue;
      }
      reason = state.NoFitReason(job);
      if (reason == WaitReason::kReqNodeNotAvail) {
        detail = job.nodelist.empty() && too_few_nodes ? WaitDetail::kNodesUnavailable
                                                       : WaitDetail::kUnavailableNodes;
      } else if (reason == WaitReason::kResources && too_few_nodes) {
        detail = WaitDetail::kNodesUnavailable;
      }
      if (reason == WaitReason::kResources) {
        blocked[job.partition] = 1;
        for (int32_t q : shadowed[job.partition]) blocked[q] = 1;
        result.blocked.push_back(index);
        if (!failed[job.partition]) {
          failed[job.partition] = 1;
          for (int32_t n : view.partitions[job.partition].nodes) unavailable[n] = 1;
          count_available();
        }
      }
    }
    result.reasons[index] = reason;
    result.details[index] = detail;
  }
  return result;
}

BackfillResult Backfill(const ClusterView& view, const std::vector<PendingJob>& pending,
                        const std::vector<uint32_t>& order, const MainPassResult& main,
                        const SchedulerOptions& options, int64_t now) {
  BackfillResult result;
  State state(view, now);
  for (const JobStart& start : main.starts) state.Replay(pending[start.pending_index], start);
  // Reserves the earliest place `index` fits after every reservation so far.
  std::vector<uint8_t> planned(pending.size(), 0);
  auto plan = [&](uint32_t index) {
    planned[index] = 1;
    const PendingJob& job = pending[index];
    std::vector<Amount> spare;
    StartEstimate estimate = state.Estimate(job, &spare);
    if (estimate.start == kNever) return;
    state.Reserve(job, estimate, spare);
    result.reservations.push_back({job.id, index, estimate.start, std::move(estimate.nodes)});
  };
  for (uint32_t index : main.blocked) plan(index);
  std::vector<Shape> failed;
  std::vector<int32_t> nodes;
  for (uint32_t index : order) {
    const WaitReason reason = main.reasons[index];
    if (reason != WaitReason::kPriority && reason != WaitReason::kResources) continue;
    if (result.tested >= options.bf_max_job_test) break;
    ++result.tested;
    if (planned[index]) continue;  // a partition's top job: reserved above
    const PendingJob& job = pending[index];
    const WaitReason limit = state.UserLimit(job);
    if (limit != WaitReason::kNone) {
      result.newly_limited.push_back(index);
      result.limit_reasons.push_back(limit);
      continue;
    }
    const int64_t end = state.EndOf(job);
    const bool plain = Plain(job);
    bool skip = reason == WaitReason::kResources;  // nothing was freed since the main pass
    if (plain && !skip) {
      for (const Shape& shape : failed) {
        if (shape.Same(job) && end >= shape.failed_end) skip = true;
      }
    }
    if (!skip &&
        state.SelectNodes(
            job,
            [&](int32_t n) { return state.FitsNow(n, job) && state.RespectsClaims(n, job, end); },
            &nodes)) {
      result.starts.push_back(state.Start(index, job, nodes, /*backfilled=*/true));
      // Starting consumed room: earlier failures stay failures.
      continue;
    }
    if (plain && !skip) {
      bool found = false;
      for (Shape& shape : failed) {
        if (shape.Same(job)) {
          shape.failed_end = std::min(shape.failed_end, end);
          found = true;
        }
      }
      if (!found && failed.size() < 256) {
        failed.push_back({job.partition, job.num_nodes, job.cpus_per_node, job.gpus_per_node,
                          job.gpu_type, job.mem_per_node_mb, job.exclusive, end});
      }
    }
    plan(index);  // cannot start now: its own reservation, later jobs respect it
  }
  return result;
}

SchedulePlan Schedule(const ClusterView& view, const std::vector<PendingJob>& pending,
                      const SchedulerOptions& options, int64_t now) {
  SchedulePlan plan;
  const std::vector<uint32_t> order =
      OrderQueue(view, pending, options.weights, now, &plan.priorities);
  MainPassResult main = MainPass(view, pending, order, now);
  BackfillResult backfill;
  if (options.backfill) backfill = Backfill(view, pending, order, main, options, now);
  plan.reasons = std::move(main.reasons);
  plan.details = std::move(main.details);
  plan.starts = std::move(main.starts);
  for (JobStart& start : backfill.starts) {
    plan.reasons[start.pending_index] = WaitReason::kNone;
    plan.details[start.pending_index] = WaitDetail::kNone;
    plan.starts.push_back(std::move(start));
  }
  for (size_t i = 0; i < backfill.newly_limited.size(); ++i) {
    plan.reasons[backfill.newly_limited[i]] = backfill.limit_reasons[i];
    plan.details[backfill.newly_limited[i]] = WaitDetail::kNone;
  }
  plan.reservations = std::move(backfill.reservations);
  plan.backfill_tested = backfill.tested;
  return plan;
}

StartEstimate EarliestStart(const ClusterView& view, const PendingJob& job, int64_t now) {
  State state(view, now);
  if (job.partition < 0 || static_cast<size_t>(job.partition) >= view.partitions.size()) {
    return {};
  }
  return state.Estimate(job, nullptr);
}

absl::Status CheckSubmitLimits(const ClusterView& view, const PendingJob& job, int64_t user_jobs) {
  if (job.partition < 0 || static_cast<size_t>(job.partition) >= view.partitions.size()) {
    return absl::InvalidArgumentError("Invalid partition name specified");
  }
  if (job.qos != kNone && (job.qos < 0 || static_cast<size_t>(job.qos) >= view.qos.size())) {
    return absl::InvalidArgumentError("Invalid qos specification");
  }
  int32_t qos[2];
  const int count = QosList(view, job.qos, job.partition, qos);
  for (int i = 0; i < count; ++i) {
    if (Over(view.qos[qos[i]].max_submit_jobs_per_user, user_jobs + 1)) {
      return absl::InvalidArgumentError(
          "Job violates accounting/QOS policy (job submit limit, user's size and/or time "
          "limits)");
    }
  }
  return absl::OkStatus();
}

ClusterView WithStarts(const ClusterView& view, const std::vector<PendingJob>& pending,
                       const std::vector<JobStart>& starts, int64_t now) {
  ClusterView out = view;
  for (const JobStart& start : starts) {
    const PendingJob& job = pending[start.pending_index];
    RunningJob running;
    running.id = job.id;
    running.user = job.user;
    running.qos = job.qos;
    running.partition = job.partition;
    running.nodes = start.nodes;
    running.cpus_per_node = start.cpus_per_node;
    running.mem_per_node_mb = start.mem_per_node_mb;
    running.gpu_indices = start.gpu_indices;
    running.exclusive = start.exclusive;
    running.start_time = now;
    running.time_limit = job.time_limit;
    out.running.push_back(std::move(running));
  }
  return out;
}

}  // namespace skiff
