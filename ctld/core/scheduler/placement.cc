#include "ctld/core/scheduler/placement.h"

#include <algorithm>

namespace skiff::ctld {
namespace {

int64_t PerTask(const TaskShape& shape) { return std::max<int64_t>(1, shape.cpus_per_task); }

// The CPUs node `c` could give the job (whole tasks, within its memory and the
// job's caps); 0 when it cannot take even one task.
int64_t Avail(const TaskShape& shape, const PlacementCandidate& c) {
  const int64_t per_task = PerTask(shape);
  if (c.room.gpus < shape.gpus_per_node) return 0;
  if (shape.exclusive) {
    if (!c.room.whole) return 0;
    if (shape.mem_per_node_mb > c.total_mem_mb) return 0;
    return c.total_cpus >= std::max<int64_t>(per_task, shape.min_cpus_per_node) ? c.total_cpus : 0;
  }
  int64_t cpus = c.room.cpus;
  if (shape.mem_per_node_mb > 0) {
    if (c.room.mem_mb < static_cast<int64_t>(shape.mem_per_node_mb)) return 0;
  } else if (shape.mem_per_cpu_mb > 0) {
    cpus = std::min<int64_t>(cpus, c.room.mem_mb / static_cast<int64_t>(shape.mem_per_cpu_mb));
  }
  const int64_t floor = std::max<int64_t>(per_task, shape.min_cpus_per_node);
  if (shape.overcommit) return cpus >= floor ? floor : 0;  // one task's CPUs per node
  cpus -= cpus % per_task;
  if (shape.ntasks_per_node > 0) cpus = std::min<int64_t>(cpus, shape.ntasks_per_node * per_task);
  return cpus >= floor ? cpus : 0;
}

std::vector<NodeTake> Deal(const TaskShape& shape, std::vector<NodeTake> taken);
std::vector<NodeTake> PlaceContiguous(const TaskShape& shape,
                                      const std::vector<PlacementCandidate>& candidates,
                                      const std::vector<int64_t>& avail, int64_t floor);

// Slurm's _cpus_to_use: all a node can give (`avail`), less a task for each
// node still wanted after it, never below `floor`.
int64_t CpusToUse(const TaskShape& shape, int64_t avail, int64_t rem_max_cpus, int64_t nodes_after,
                  int64_t floor) {
  if (shape.exclusive) return avail;
  const int64_t per_task = PerTask(shape);
  const int64_t limit = rem_max_cpus - std::max<int64_t>(nodes_after - 1, 0) * per_task;
  if (avail <= limit) return avail;
  int64_t cpus = std::max(limit, floor);
  cpus -= shape.overcommit ? 0 : cpus % per_task;
  return std::max(cpus, floor);
}

// Slurm's _enough_nodes for one node: would it complete the node count?
bool EnoughNodes(int64_t rem_nodes, const TaskShape& shape) {
  const int64_t needed = shape.want_nodes > shape.min_nodes
                             ? rem_nodes + shape.min_nodes - shape.want_nodes
                             : rem_nodes;
  return needed <= 1;
}

}  // namespace

int64_t TaskShape::MinCpus() const {
  const int64_t per_task = std::max<int64_t>(1, cpus_per_task);
  if (overcommit) return static_cast<int64_t>(std::max(1, min_nodes)) * per_task;
  int64_t tasks = std::max(1, ntasks);
  if (ntasks_per_node > 0) {
    tasks = std::max<int64_t>(tasks, static_cast<int64_t>(ntasks_per_node) * min_nodes);
  }
  return tasks * per_task;
}

std::vector<NodeTake> PlaceTasks(const TaskShape& shape,
                                 const std::vector<PlacementCandidate>& candidates) {
  const int64_t per_task = PerTask(shape);
  const int64_t floor = std::max<int64_t>(per_task, shape.min_cpus_per_node);
  int64_t rem_cpus = shape.MinCpus();
  int64_t rem_max_cpus = rem_cpus;
  int64_t rem_nodes = std::max(shape.want_nodes, shape.min_nodes);
  int64_t min_rem_nodes = shape.min_nodes;
  int64_t max_nodes = std::max(shape.max_nodes, shape.min_nodes);

  std::vector<int64_t> avail(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) avail[i] = Avail(shape, candidates[i]);

  std::vector<NodeTake> taken;
  std::vector<uint8_t> used(candidates.size(), 0);
  // Takes candidate i with the CPUs it should give (CpusToUse).
  auto take = [&](size_t i, int64_t nodes_after) {
    const int64_t cpus = CpusToUse(shape, avail[i], rem_max_cpus, nodes_after, floor);
    NodeTake t;
    t.node = candidates[i].node;
    t.cpus = static_cast<int32_t>(cpus);
    used[i] = 1;
    taken.push_back(t);
    rem_cpus -= cpus;
    rem_max_cpus -= cpus;
    --rem_nodes;
    --min_rem_nodes;
    --max_nodes;
  };

  if (shape.contiguous) {
    return Deal(shape, PlaceContiguous(shape, candidates, avail, floor));
  }
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (!candidates[i].required) continue;
    if (avail[i] == 0 || max_nodes <= 0) return {};
    take(i, min_rem_nodes);
  }
  while (max_nodes > 0 && !(rem_nodes <= 0 && rem_cpus <= 0)) {
    int64_t best = -1;
    bool best_sufficient = false;
    for (size_t i = 0; i < candidates.size(); ++i) {
      if (used[i] || avail[i] == 0) continue;
      const bool sufficient = avail[i] >= rem_cpus && EnoughNodes(rem_nodes, shape);
      bool better = best < 0 || candidates[i].weight < candidates[best].weight;
      if (!better && candidates[i].weight == candidates[best].weight) {
        better = (sufficient && !best_sufficient) ||
                 (sufficient && best_sufficient && avail[i] < avail[best]) ||
                 (!sufficient && !best_sufficient && avail[i] > avail[best]);
      }
      if (better) {
        best = static_cast<int64_t>(i);
        best_sufficient = sufficient;
      }
    }
    if (best < 0) break;
    take(static_cast<size_t>(best), rem_nodes);
  }
  if (rem_cpus > 0 || min_rem_nodes > 0) return {};
  return Deal(shape, std::move(taken));
}

namespace {

std::vector<NodeTake> Deal(const TaskShape& shape, std::vector<NodeTake> taken) {
  if (taken.empty()) return taken;
  const int64_t per_task = PerTask(shape);
  std::sort(taken.begin(), taken.end(),
            [](const NodeTake& a, const NodeTake& b) { return a.node < b.node; });
  std::vector<int32_t> cpus;
  for (const NodeTake& t : taken) cpus.push_back(t.cpus);
  const int32_t ntasks = std::max(1, shape.ntasks);
  const std::vector<int32_t> tasks = DealTasks(cpus, ntasks, shape.overcommit ? 0 : per_task);
  for (size_t k = 0; k < taken.size(); ++k) {
    taken[k].tasks = tasks[k];
    taken[k].mem_mb = shape.mem_per_node_mb > 0
                          ? shape.mem_per_node_mb
                          : shape.mem_per_cpu_mb * static_cast<uint64_t>(taken[k].cpus);
  }
  return taken;
}

// Takes nodes in order from `begin` (< end) while the job wants more, as
// PlaceTasks's `take` does; empty when [begin, end) cannot hold the job or
// leaves a -w node out.
std::vector<NodeTake> TakeRun(const TaskShape& shape, const std::vector<PlacementCandidate>& sorted,
                              const std::vector<int64_t>& avail, size_t begin, size_t end,
                              int64_t floor) {
  int64_t rem_cpus = shape.MinCpus();
  int64_t rem_max_cpus = rem_cpus;
  int64_t rem_nodes = std::max(shape.want_nodes, shape.min_nodes);
  int64_t min_rem_nodes = shape.min_nodes;
  int64_t max_nodes = std::max(shape.max_nodes, shape.min_nodes);
  size_t last_required = begin;
  bool any_required = false;
  for (size_t i = begin; i < end; ++i) {
    if (sorted[i].required) {
      last_required = i;
      any_required = true;
    }
  }
  std::vector<NodeTake> taken;
  size_t i = begin;
  for (; i < end && max_nodes > 0; ++i) {
    const bool more_required = any_required && i <= last_required;
    if (rem_nodes <= 0 && rem_cpus <= 0 && !more_required) break;
    const int64_t cpus = CpusToUse(shape, avail[i], rem_max_cpus, rem_nodes, floor);
    NodeTake t;
    t.node = sorted[i].node;
    t.cpus = static_cast<int32_t>(cpus);
    taken.push_back(t);
    rem_cpus -= cpus;
    rem_max_cpus -= cpus;
    --rem_nodes;
    --min_rem_nodes;
    --max_nodes;
  }
  if (rem_cpus > 0 || min_rem_nodes > 0) return {};
  if (any_required && i <= last_required) return {};
  return taken;
}

std::vector<NodeTake> PlaceContiguous(const TaskShape& shape,
                                      const std::vector<PlacementCandidate>& candidates,
                                      const std::vector<int64_t>& unsorted_avail, int64_t floor) {
  std::vector<size_t> order(candidates.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return candidates[a].node < candidates[b].node; });
  std::vector<PlacementCandidate> sorted;
  std::vector<int64_t> avail;
  size_t required = 0;
  for (size_t i : order) {
    sorted.push_back(candidates[i]);
    avail.push_back(unsorted_avail[i]);
    if (candidates[i].required) ++required;
  }
  std::vector<NodeTake> best;
  int64_t best_spare = 0;
  for (size_t begin = 0; begin < sorted.size();) {
    if (avail[begin] == 0) {
      ++begin;
      continue;
    }
    size_t end = begin + 1;
    while (end < sorted.size() && avail[end] > 0 && sorted[end].node == sorted[end - 1].node + 1) {
      ++end;
    }
    size_t run_required = 0;
    size_t first = begin;
    for (size_t i = begin; i < end; ++i) {
      if (!sorted[i].required) continue;
      if (run_required++ == 0) first = i;
    }
    // Every -w node must lie in the run; the take starts at the first of them
    // (the nodes before it may be needed too: step back while short).
    if (run_required == required) {
      std::vector<NodeTake> taken;
      for (size_t start = required > 0 ? first + 1 : begin + 1; start-- > begin;) {
        taken = TakeRun(shape, sorted, avail, start, end, floor);
        if (!taken.empty()) break;
        if (required == 0) break;
      }
      if (!taken.empty()) {
        int64_t spare = 0;
        for (size_t i = begin; i < end; ++i) spare += avail[i];
        if (best.empty() || spare < best_spare) {
          best = std::move(taken);
          best_spare = spare;
        }
      }
    }
    begin = end;
  }
  return best;
}

}  // namespace

std::vector<int32_t> DealTasks(const std::vector<int32_t>& cpus, int32_t ntasks,
                               int32_t cpus_per_task) {
  std::vector<int32_t> tasks(cpus.size(), 0);
  if (cpus.empty()) return tasks;
  // How many tasks each node's CPUs hold; 0 per task (overcommit) = one.
  std::vector<int64_t> slots(cpus.size());
  for (size_t i = 0; i < cpus.size(); ++i) {
    slots[i] = cpus_per_task > 0 ? std::max<int64_t>(1, cpus[i] / cpus_per_task) : 1;
  }
  int64_t placed = 0;
  bool past_cpus = false;
  for (int64_t round = 0; placed < ntasks; ++round) {
    bool room_left = false;
    for (size_t i = 0; i < cpus.size() && placed < ntasks; ++i) {
      if (round < slots[i] || past_cpus) {
        ++tasks[i];
        ++placed;
        if (round + 1 < slots[i]) room_left = true;
      }
    }
    if (!room_left) past_cpus = true;
  }
  return tasks;
}

}  // namespace skiff::ctld
