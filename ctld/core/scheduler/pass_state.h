// One scheduling pass's working state (scheduler.cc's passes use it; nothing
// else may): the nodes' free resources and GPU owners over time, the holds and
// reservations the pass has made, and the QOS and association usage they add
// up to, with the limit checks that read them. Built from a ClusterView at the
// pass's start and thrown away at its end.
//
// Everything is defined in headers (this one, pass_limits.h for the limit
// checks, pass_estimate.h for the start-time estimates) so that the passes'
// inner loops inline it as they did when it lived in scheduler.cc; include
// pass_state.h from scheduler.cc only.
//
// Thread-safety: none; one pass, one thread.
#ifndef SKIFF_CTLD_CORE_SCHEDULER_PASS_STATE_H_
#define SKIFF_CTLD_CORE_SCHEDULER_PASS_STATE_H_

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "ctld/core/scheduler/pass_limits.h"
#include "ctld/core/scheduler/scheduler.h"

namespace skiff::ctld {
namespace pass {

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

inline bool Contains(const std::vector<int32_t>& list, int32_t value) {
  return std::find(list.begin(), list.end(), value) != list.end();
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
        total_shares_(view.nodes.size(), 0),
        shares_used_(view.nodes.size()),
        share_user_(view.nodes.size()),
        share_pick_(view.nodes.size(), -1),
        releases_(view.nodes.size()),
        claimed_(view.nodes.size()),
        claims_(view.nodes.size()),
        in_partition_(view.partitions.size()),
        usage_(view.qos.size() * view.users.size()),
        assoc_usage_(view.assocs.size()),
        qos_run_mins_(view.qos.size()),
        qos_cost_(view.qos.size()),
        blocks_(view.nodes.size()),
        license_used_(view.licenses.size(), 0) {
    for (size_t r = 0; r < view.resvs.size(); ++r) {
      const SchedResv& resv = view.resvs[r];
      for (size_t k = 0; k < resv.nodes.size(); ++k) {
        const int32_t n = resv.nodes[k];
        if (n < 0 || static_cast<size_t>(n) >= view.nodes.size()) continue;
        const int32_t gpus = resv.gpus.empty() ? 0 : resv.gpus[k];
        for (const SchedResv::Window& w : resv.windows) {
          blocks_[n].push_back({w.start, w.end, static_cast<int32_t>(r), gpus, resv.maint});
        }
      }
    }
    for (size_t n = 0; n < view.nodes.size(); ++n) {
      const SchedNode& node = view.nodes[n];
      for (int32_t count : node.gpu_shares) total_shares_[n] += count;
      free_[n] = WholeNode(static_cast<int32_t>(n));
      gpu_owner_[n].assign(node.gpu_count, 0);
      shares_used_[n].assign(node.gpu_shares.size(), 0);
      share_user_[n].assign(node.gpu_shares.size(), kNone);
    }
    // A shared GPU is given back whole when its last share job ends: the
    // timeline counts it with the share job expected to end last.
    std::vector<std::vector<std::pair<int64_t, uint64_t>>> last_share_job(view.nodes.size());
    for (const RunningJob& job : view.running) {
      for (size_t k = 0; k < job.shares.size(); ++k) {
        const GpuShare& held = job.shares[k];
        if (held.count == 0 || job.exclusive) continue;
        auto& last = last_share_job[job.nodes[k]];
        if (last.empty()) last.assign(view.nodes[job.nodes[k]].gpu_count, {kNone, 0});
        if (last[held.gpu].second == 0 || job.ExpectedEnd() >= last[held.gpu].first) {
          last[held.gpu] = {job.ExpectedEnd(), job.id};
        }
      }
    }
    for (size_t p = 0; p < view.partitions.size(); ++p) {
      in_partition_[p].assign(view.nodes.size(), 0);
      for (int32_t n : view.partitions[p].nodes) in_partition_[p][n] = 1;
    }
    for (const RunningJob& job : view.running) {
      for (size_t k = 0; k < job.nodes.size(); ++k) {
        const int32_t n = job.nodes[k];
        Amount amount;
        if (job.exclusive) {
          amount = WholeNode(n);
        } else {
          amount.cpus = job.CpusOn(k);
          amount.mem = static_cast<int64_t>(job.MemOn(k));
          amount.gpus = job.gpu_indices.empty() ? 0 : job.gpu_indices[k].size();
          if (!job.gpu_indices.empty()) {
            for (int32_t g : job.gpu_indices[k]) amount.shares += SharesOf(n, g);
          }
          if (!job.shares.empty() && job.shares[k].count > 0) {
            amount.shares += job.shares[k].count;
            amount.gpus += last_share_job[n][job.shares[k].gpu].second == job.id;
          }
        }
        Take(n, amount, ClampEnd(job.ExpectedEnd()));
        if (!job.gpu_indices.empty()) {
          for (int32_t g : job.gpu_indices[k]) gpu_owner_[n][g] = job.id;
        }
        if (!job.shares.empty() && job.shares[k].count > 0) {
          shares_used_[n][job.shares[k].gpu] += job.shares[k].count;
          share_user_[n][job.shares[k].gpu] = job.user;
        }
      }
      int64_t gpus = 0, cpus = 0, mem = 0;
      for (const auto& per_node : job.gpu_indices) gpus += per_node.size();
      for (size_t k = 0; k < job.nodes.size(); ++k) {
        cpus += job.CpusOn(k);
        mem += static_cast<int64_t>(job.MemOn(k));
      }
      Charge(job.user, job.qos, job.partition, job.assoc, job.max_cost, RunMinutesLeft(job, now),
             job.nodes.size(), cpus, mem, gpus);
      TakeLicenses(job.licenses);
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
    if (job.resv == kResvGone) return WaitReason::kReservationDeleted;
    if (job.resv >= 0 && !view_.resvs[job.resv].flex && !OwnWindowOpen(job, now_)) {
      return WaitReason::kReservation;
    }
    if (job.partition < 0 || static_cast<size_t>(job.partition) >= view_.partitions.size()) {
      return WaitReason::kPartitionInactive;
    }
    if (job.qos != kNone && (job.qos < 0 || static_cast<size_t>(job.qos) >= view_.qos.size())) {
      return WaitReason::kInvalidQos;
    }
    if (const WaitReason refused = PartitionRefuses(view_.partitions[job.partition], job);
        refused != WaitReason::kNone) {
      return refused;
    }
    int32_t qos[2];
    const int count = QosList(view_, job.qos, job.partition, qos);
    for (int i = 0; i < count; ++i) {
      const WaitReason reason = PerJobLimit(view_.qos[qos[i]], job);
      if (reason != WaitReason::kNone) return reason;
    }
    const WaitReason limit = UserLimit(job);
    if (limit != WaitReason::kNone) return limit;
    return LicensesFree(job) ? WaitReason::kNone : WaitReason::kLicenses;
  }

  // Whether every license the job asks for is free now (Slurm's
  // license_job_test at `now`, without bf_licenses' planning).
  bool LicensesFree(const PendingJob& job) const {
    for (const LicenseUse& use : job.licenses) {
      if (license_used_[use.license] + use.count > view_.licenses[use.license].total) return false;
    }
    return true;
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
      const Qos& limits = view_.qos[qos[i]];
      if (std::optional<BudgetTres> over =
              OverRunMinutes(limits.grp_tres_run_mins, qos_run_mins_[qos[i]], job)) {
        return MinutesWait(MinutesLimit::kQosGrpRunMins, *over);
      }
      if (std::optional<BudgetTres> over = OverBudget(
              limits.grp_tres_mins, limits.tres_mins_used + qos_cost_[qos[i]], job.max_cost)) {
        return MinutesWait(MinutesLimit::kQosGrpMins, *over);
      }
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
    if (job.exclusive) return WholeNode(n);
    return {job.cpus_per_node, static_cast<int64_t>(job.mem_per_node_mb), job.gpus_per_node,
            job.shares_per_node};
  }

  // Whether `free` (of node n) can hold the job's share.
  bool FitsIn(int32_t n, const Amount& free, const PendingJob& job) const {
    if (job.exclusive) return Whole(n, free);
    return ShareFits(AmountOn(n, job), free);
  }

  // What node n has free now.
  Amount FreeNow(int32_t n) const { return free_[n]; }

  // Whether `room` is all of node n.
  bool Whole(int32_t n, const Amount& room) const {
    const Amount whole = WholeNode(n);
    return room.cpus == whole.cpus && room.mem == whole.mem && room.gpus == whole.gpus &&
           room.shares == whole.shares;
  }

  // All of node n.
  Amount WholeNode(int32_t n) const {
    const SchedNode& node = view_.nodes[n];
    return {node.cpus, static_cast<int64_t>(node.memory_mb), node.gpu_count,
            static_cast<int32_t>(total_shares_[n])};
  }

  // The shares (shards, MPS) GPU g of node n has.
  int64_t SharesOf(int32_t n, int32_t g) const {
    const std::vector<int32_t>& shares = view_.nodes[n].gpu_shares;
    return static_cast<size_t>(g) < shares.size() ? shares[g] : 0;
  }

  // The GPU of node n that gives the job its shares now: the first, by
  // index, that no job holds whole with that many free (Slurm 22.05's
  // _pick_specific_topo), one no share job uses yet only if `fresh_ok` (room
  // for one more busy GPU). MPS: the GPU already in MPS use if there is one
  // (Slurm's one_sharing). MPS and fenced shards (which run under MPS): a
  // GPU in use only while its user is the job's, as one MPS server serves
  // one uid. -1 if none.
  int32_t ShareGpu(int32_t n, const PendingJob& job, bool fresh_ok) const {
    const std::vector<int32_t>& used = shares_used_[n];
    const bool mps = job.share_kind == GpuShareKind::kMps;
    const bool one_user = mps || view_.nodes[n].share_fenced;
    const bool busy = std::any_of(used.begin(), used.end(), [](int32_t u) { return u > 0; });
    for (size_t g = 0; g < used.size(); ++g) {
      if (gpu_owner_[n][g] != 0 ||
          SharesOf(n, static_cast<int32_t>(g)) - used[g] < job.shares_per_node) {
        continue;
      }
      if (used[g] == 0 && (!fresh_ok || (mps && busy))) continue;
      if (one_user && used[g] > 0 && share_user_[n][g] != job.user) continue;
      return static_cast<int32_t>(g);
    }
    return -1;
  }

  // What node n can give a job that runs from now until `end` without taking
  // room any reservation there counts on.
  Amount FreeUntil(int32_t n, int64_t end) const {
    Amount room = free_[n];
    for (const Claim& claim : claims_[n]) {
      if (end <= claim.start) continue;
      room.cpus = std::min(room.cpus, claim.spare.cpus);
      room.mem = std::min(room.mem, claim.spare.mem);
      room.gpus = std::min(room.gpus, claim.spare.gpus);
      room.shares = std::min(room.shares, claim.spare.shares);
    }
    return room;
  }

  // ---- advance reservations (ClusterView::resvs)

  bool HasResvs() const { return !view_.resvs.empty(); }

  // What node n leaves of `room` to a job running [start, end), given the
  // advance reservations: nothing where one holds the node whole for part of
  // that time (unless the job may pass it: PassesBlock), fewer GPUs where
  // one holds some; and, for a job in a reservation (not FLEX), nothing off
  // its nodes.
  Amount ResvRoom(int32_t n, const PendingJob& job, Amount room, int64_t start, int64_t end) const {
    if (!HasResvs()) return room;
    if (job.resv >= 0 && !view_.resvs[job.resv].flex && !InResv(job.resv, n)) return Amount{};
    for (const Block& b : blocks_[n]) {
      if (PassesBlock(job, b) || !(b.start < end && start < b.end)) continue;
      if (b.gpus == 0) return Amount{};
      room.gpus = std::max<int64_t>(0, room.gpus - b.gpus);
      // The reserved GPUs' shards: counted at the most a GPU there has.
      int64_t most = 0;
      for (int32_t count : view_.nodes[n].gpu_shares) most = std::max<int64_t>(most, count);
      room.shares = std::max<int64_t>(0, room.shares - b.gpus * most);
    }
    return room;
  }

  // Whether a MAINT reservation other than the job's own holds some node of
  // its partition during [now, end): what Slurm calls "Reserved for maintenance".
  bool MaintBlocks(const PendingJob& job, int64_t end) const {
    for (int32_t n : view_.partitions[job.partition].nodes) {
      for (const Block& b : blocks_[n]) {
        if (b.maint && !PassesBlock(job, b) && b.start < end && now_ < b.end) return true;
      }
    }
    return false;
  }

  // The earliest time from `t` at which the job may run on node n for its
  // whole time limit without meeting another reservation's window there (and,
  // in a reservation, within one of its own windows); kNever if none. Room on
  // a node only grows with time in this model, so a later start still fits.
  int64_t ResvFitFrom(int32_t n, const PendingJob& job, int64_t t) const {
    if (t == kNever || !HasResvs()) return t;
    const bool bound = job.resv >= 0 && !view_.resvs[job.resv].flex;
    if (bound && !InResv(job.resv, n)) return kNever;
    for (int round = 0; round < 64; ++round) {
      const int64_t before = t;
      if (bound) {
        t = OwnWindowFrom(job, t);
        if (t == kNever) return kNever;
      }
      const int64_t end =
          job.time_limit == kNoLimit || t > kNever - job.time_limit ? kNever : t + job.time_limit;
      for (const Block& b : blocks_[n]) {
        if (PassesBlock(job, b)) continue;
        // A GPU reservation is in the way only of a job that could not fit
        // beside it on the node (what else runs there the releases model).
        if (b.gpus != 0 && !job.exclusive &&
            job.gpus_per_node + (job.shares_per_node > 0 ? 1 : 0) + b.gpus <=
                view_.nodes[n].gpu_count) {
          continue;
        }
        if (b.start < end && t < b.end) t = std::max(t, b.end);
      }
      if (t == before) return t;
    }
    return kNever;
  }

  // Places the job (placement.h) on its -w nodes and the partition's eligible
  // nodes, each giving room(n). False when it does not fit. `now`: room(n)
  // is now's, so a shard job needs a GPU with its shards free now (the one
  // Start gives it); else (an estimate) the node's shard total is the bound.
  template <typename Room>
  bool Place(const PendingJob& job, Room room, std::vector<NodeTake>* takes,
             bool now = true) const {
    takes->clear();
    candidates_.clear();
    const TaskShape shape = ShapeOf(job);
    auto add = [&](int32_t n, const Amount& a, bool required) {
      const SchedNode& node = view_.nodes[n];
      PlacementCandidate c;
      c.node = n;
      c.weight = node.weight;
      c.required = required;
      c.total_cpus = node.cpus;
      c.total_mem_mb = node.memory_mb;
      c.room = {a.cpus, a.mem, a.gpus, Whole(n, a)};
      candidates_.push_back(c);
    };
    auto shares_fit = [&](int32_t n, const Amount& a) {
      if (job.shares_per_node == 0) return true;
      if (a.shares < job.shares_per_node) return false;
      if (!now) return true;
      share_pick_[n] = ShareGpu(n, job, a.gpus > job.gpus_per_node);
      return share_pick_[n] >= 0;
    };
    for (int32_t r : job.nodelist) {
      if (!Eligible(r, job)) return false;
      const Amount a = room(r);
      if (!shares_fit(r, a)) return false;
      add(r, a, true);
    }
    const int64_t floor = job.overcommit ? 1 : job.cpus_per_node;
    for (int32_t n : view_.partitions[job.partition].nodes) {
      if (!job.nodelist.empty() && Contains(job.nodelist, n)) continue;
      if (!Eligible(n, job)) continue;
      // Cheap early outs; PlaceTasks would drop these nodes too.
      const Amount a = room(n);
      if (a.gpus < job.gpus_per_node || a.cpus < floor) continue;
      if (job.exclusive && !Whole(n, a)) continue;
      if (!shares_fit(n, a)) continue;
      add(n, a, false);
    }
    *takes = PlaceTasks(shape, candidates_);
    return !takes->empty();
  }

  // Why a job that passed Precheck does not fit now.
  WaitReason NoFitReason(const PendingJob& job) const {
    const SchedPartition& partition = view_.partitions[job.partition];
    int64_t fits_empty = 0, fits_usable = 0;
    // A spreading job also needs enough CPUs over the nodes (placed on them empty).
    int64_t cpus_empty = 0, cpus_usable = 0;
    const TaskShape shape = ShapeOf(job);
    const bool spread = !shape.OneTaskPerNode();
    for (int32_t n : partition.nodes) {
      if (!StaticFit(n, job)) continue;
      ++fits_empty;
      if (view_.nodes[n].usable) ++fits_usable;
      if (!spread) continue;
      // What the node holds of the job when empty: whole tasks, within its
      // memory and the job's per-node cap.
      const SchedNode& node = view_.nodes[n];
      const int64_t per_task = std::max(1, shape.cpus_per_task);
      int64_t cpus = node.cpus;
      if (shape.mem_per_cpu_mb > 0) {
        cpus = std::min<int64_t>(cpus, node.memory_mb / shape.mem_per_cpu_mb);
      }
      cpus -= cpus % per_task;
      if (shape.ntasks_per_node > 0)
        cpus = std::min<int64_t>(cpus, shape.ntasks_per_node * per_task);
      cpus_empty += cpus;
      if (node.usable) cpus_usable += cpus;
    }
    if (spread && !shape.overcommit) {
      const int64_t need = shape.MinCpus();
      if (cpus_empty < need) return WaitReason::kBadConstraints;
      if (cpus_usable < need) return WaitReason::kReqNodeNotAvail;
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

  // What the job holds on node n when placed there with `take`.
  Amount Held(int32_t n, const PendingJob& job, int64_t cpus, int64_t mem) const {
    if (job.exclusive) return WholeNode(n);
    return {cpus, mem, job.gpus_per_node, job.shares_per_node};
  }

  // Starts `job` as placed (REQUIRES: it fits, as the last Place said):
  // takes resources, the lowest free GPU indices and the shards Place found,
  // charges QOS usage.
  JobStart Start(uint32_t index, const PendingJob& job, const std::vector<NodeTake>& takes,
                 bool backfilled) {
    JobStart start;
    start.job_id = job.id;
    start.pending_index = index;
    start.exclusive = job.exclusive;
    start.backfilled = backfilled;
    start.expected_end = job.time_limit == kNoLimit ? kNever : now_ + job.time_limit;
    const int64_t end = EndOf(job);
    start.gpu_indices.resize(takes.size());
    if (job.shares_per_node > 0) start.shares.resize(takes.size());
    int64_t cpus = 0, mem = 0;
    for (size_t k = 0; k < takes.size(); ++k) {
      const int32_t n = takes[k].node;
      start.nodes.push_back(n);
      // An exclusive job holds its nodes whole: it gets (and shows) every CPU.
      start.cpus.push_back(job.exclusive ? view_.nodes[n].cpus : takes[k].cpus);
      start.mem_mb.push_back(takes[k].mem_mb);
      start.tasks.push_back(takes[k].tasks);
      std::vector<int32_t>& gpus = start.gpu_indices[k];
      std::vector<uint64_t>& owner = gpu_owner_[n];
      for (size_t g = 0; g < owner.size() && static_cast<int32_t>(gpus.size()) < job.gpus_per_node;
           ++g) {
        if (owner[g] == 0 && (g >= shares_used_[n].size() || shares_used_[n][g] == 0)) {
          owner[g] = job.id;
          gpus.push_back(static_cast<int32_t>(g));
        }
      }
      if (job.shares_per_node > 0) {
        start.shares[k] = {share_pick_[n], job.shares_per_node};
      }
      const Amount amount = TakeGpus(n, job, takes[k].cpus, static_cast<int64_t>(takes[k].mem_mb),
                                     gpus, job.shares_per_node > 0 ? start.shares[k] : GpuShare{});
      cpus += takes[k].cpus;
      mem += static_cast<int64_t>(takes[k].mem_mb);
      Take(n, amount, end);
      for (Claim& claim : claims_[n]) {
        if (end > claim.start) claim.spare = Minus(claim.spare, amount);
      }
    }
    const int64_t count = static_cast<int64_t>(takes.size());
    Charge(job.user, job.qos, job.partition, job.assoc, job.max_cost, JobRunMinutes(job), count,
           cpus, mem, count * job.gpus_per_node);
    TakeLicenses(job.licenses);
    return start;
  }

  // Re-applies a start made by an earlier pass over the same view.
  void Replay(const PendingJob& job, const JobStart& start) {
    const int64_t end = EndOf(job);
    int64_t cpus = 0, mem = 0;
    for (size_t k = 0; k < start.nodes.size(); ++k) {
      const int32_t n = start.nodes[k];
      for (int32_t g : start.gpu_indices[k]) gpu_owner_[n][g] = job.id;
      Take(n,
           TakeGpus(n, job, start.cpus[k], static_cast<int64_t>(start.mem_mb[k]),
                    start.gpu_indices[k], start.shares.empty() ? GpuShare{} : start.shares[k]),
           end);
      cpus += start.cpus[k];
      mem += static_cast<int64_t>(start.mem_mb[k]);
    }
    const int64_t count = static_cast<int64_t>(start.nodes.size());
    Charge(job.user, job.qos, job.partition, job.assoc, job.max_cost, JobRunMinutes(job), count,
           cpus, mem, count * job.gpus_per_node);
    TakeLicenses(job.licenses);
  }

  // ---- start-time estimates and backfill reservations (pass_estimate.h)

  StartEstimate Estimate(const PendingJob& job, std::vector<Amount>* need,
                         std::vector<Amount>* spare) const;
  StartEstimate EstimateOneTaskPerNode(const PendingJob& job, std::vector<Amount>* need,
                                       std::vector<Amount>* spare) const;
  StartEstimate EstimateSpread(const PendingJob& job, std::vector<Amount>* need,
                               std::vector<Amount>* spare) const;
  void Reserve(const PendingJob& job, const StartEstimate& estimate,
               const std::vector<Amount>& need_by_node, const std::vector<Amount>& spare);

 private:
  // A reservation's window on one node.
  struct Block {
    int64_t start;
    int64_t end;
    int32_t resv;  // index into ClusterView::resvs
    int32_t gpus;  // GPUs held; 0 = the node whole
    bool maint;
  };

  // What a job started on node n holds there, its whole GPUs `gpus` (already
  // its own in gpu_owner_) and `share` now marked as used: a GPU held whole
  // takes its shares, and shares of a GPU no share job used yet take it.
  Amount TakeGpus(int32_t n, const PendingJob& job, int64_t cpus, int64_t mem,
                  const std::vector<int32_t>& gpus, const GpuShare& share) {
    Amount amount = Held(n, job, cpus, mem);
    if (job.exclusive) return amount;
    for (int32_t g : gpus) amount.shares += SharesOf(n, g);
    if (share.count > 0 && share.gpu >= 0) {
      amount.gpus += shares_used_[n][share.gpu] == 0;
      shares_used_[n][share.gpu] += share.count;
      share_user_[n][share.gpu] = job.user;
    }
    return amount;
  }

  void TakeLicenses(const std::vector<LicenseUse>& uses) {
    for (const LicenseUse& use : uses) license_used_[use.license] += use.count;
  }

  bool InResv(int32_t resv, int32_t n) const { return Contains(view_.resvs[resv].nodes, n); }

  // Whether a job may use what reservation window `b` holds: its own
  // reservation's; for a job in a MAINT reservation any other's, and for one
  // in an OVERLAP reservation any other's but a MAINT one's (Slurm's
  // job_test_resv: two OVERLAP reservations on a node both run their jobs).
  bool PassesBlock(const PendingJob& job, const Block& b) const {
    if (b.resv == job.resv) return true;
    if (job.resv < 0) return false;
    const SchedResv& own = view_.resvs[job.resv];
    return own.maint || (own.overlap && !b.maint);
  }

  // Whether one of the job's reservation's windows is open at `t`.
  bool OwnWindowOpen(const PendingJob& job, int64_t t) const {
    for (const SchedResv::Window& w : view_.resvs[job.resv].windows) {
      if (w.start <= t && t < w.end) return true;
    }
    return false;
  }

  // The first time from `t` at which one of the job's reservation's windows
  // is open; kNever after the last.
  int64_t OwnWindowFrom(const PendingJob& job, int64_t t) const {
    for (const SchedResv::Window& w : view_.resvs[job.resv].windows) {
      if (t < w.end) return std::max(t, w.start);
    }
    return kNever;
  }

  size_t UsageIndex(int32_t qos, int32_t user) const {
    return static_cast<size_t>(qos) * view_.users.size() + static_cast<size_t>(user);
  }

  int64_t ClampEnd(int64_t end) const { return end == kNever ? kNever : std::max(end, now_ + 1); }

  void Take(int32_t n, const Amount& amount, int64_t end) {
    free_[n] = Minus(free_[n], amount);
    AddRelease(n, end, amount);
  }

  static void Add(Amount* to, const Amount& amount) {
    to->cpus += amount.cpus;
    to->mem += amount.mem;
    to->gpus += amount.gpus;
    to->shares += amount.shares;
  }

  static Amount Minus(const Amount& a, const Amount& b) {
    return {a.cpus - b.cpus, a.mem - b.mem, a.gpus - b.gpus, a.shares - b.shares};
  }

  // Free now once every reservation on `n` is counted as held from now.
  Amount FreeBeyondClaims(int32_t n) const { return Minus(free_[n], claimed_[n]); }

  // Keeps releases_[n] sorted by end (equal ends in arrival order).
  void AddRelease(int32_t n, int64_t end, const Amount& amount) {
    if (end == kNever) return;
    std::vector<Release>& list = releases_[n];
    auto at = std::upper_bound(list.begin(), list.end(), end,
                               [](int64_t e, const Release& r) { return e < r.end; });
    list.insert(at, Release{end, amount});
  }

  void Charge(int32_t user, int32_t job_qos, int32_t partition, int32_t assoc,
              const TresMinutes& cost, const TresMinutes& run_mins, int64_t nodes, int64_t cpus,
              int64_t mem, int64_t gpus) {
    for (int32_t a = assoc; a != kNone; a = view_.assocs[a].parent) {
      Usage& usage = assoc_usage_[a];
      usage.cost += cost;
      usage.run_mins += run_mins;
      usage.jobs += 1;
      usage.nodes += nodes;
      usage.cpus += cpus;
      usage.mem += mem;
      usage.gpus += gpus;
    }
    int32_t qos[2];
    const int count = QosList(view_, job_qos, partition, qos);
    for (int i = 0; i < count; ++i) {
      qos_run_mins_[qos[i]] += run_mins;
      qos_cost_[qos[i]] += cost;
    }
    if (user < 0 || static_cast<size_t>(user) >= view_.users.size()) return;
    for (int i = 0; i < count; ++i) {
      Usage& usage = usage_[UsageIndex(qos[i], user)];
      usage.run_mins += run_mins;
      usage.jobs += 1;
      usage.nodes += nodes;
      usage.cpus += cpus;
      usage.mem += mem;
      usage.gpus += gpus;
    }
  }

  const ClusterView& view_;
  const int64_t now_;
  mutable std::vector<PlacementCandidate> candidates_;  // Place's scratch
  std::vector<Amount> free_;
  std::vector<std::vector<uint64_t>> gpu_owner_;   // per node, per GPU index: job id, 0 = free
  std::vector<int64_t> total_shares_;              // per node: its GPUs' shares
  std::vector<std::vector<int32_t>> shares_used_;  // per node, per GPU index: shares held
  std::vector<std::vector<int32_t>> share_user_;   // per node, per GPU index: a share job's user
  // Per node: the GPU the last Place (now) found for a shard job; Start's.
  mutable std::vector<int32_t> share_pick_;
  // Per node, what running jobs and reservations give back and when, by end.
  std::vector<std::vector<Release>> releases_;
  std::vector<Amount> claimed_;                     // per node: what its reservations hold
  std::vector<std::vector<Claim>> claims_;          // per node
  std::vector<std::vector<uint8_t>> in_partition_;  // [partition][node]
  std::vector<Usage> usage_;                        // [qos x users + user]
  std::vector<Usage> assoc_usage_;                  // per association, its subtree's
  std::vector<TresMinutes> qos_run_mins_;           // per QOS: its running jobs' run minutes
  std::vector<TresMinutes> qos_cost_;               // per QOS: its running jobs' max costs
  std::vector<std::vector<Block>> blocks_;          // per node: advance reservations' windows
  std::vector<int64_t> license_used_;               // per ClusterView::licenses: held now
};

}  // namespace pass
}  // namespace skiff::ctld

// State's estimate and reservation members, defined inline after the class.
#include "ctld/core/scheduler/pass_estimate.h"

#endif  // SKIFF_CTLD_CORE_SCHEDULER_PASS_STATE_H_
