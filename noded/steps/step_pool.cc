#include "noded/steps/step_pool.h"

#include <algorithm>
#include <utility>

#include "common/checked_math.h"

namespace skiff::noded {
namespace {

constexpr char kBadNodes[] = "Requested node configuration is not available";
constexpr char kBadCpus[] = "More processors requested than permitted";
constexpr char kBadGres[] = "Invalid generic resource (gres) specification";
constexpr char kBadMemory[] = "Memory required by task is not available";
constexpr char kBusy[] = "Requested nodes are busy";

// `total` over `k` slots, the first ones one more when they do not divide.
std::vector<int> Blocks(int total, int k) {
  std::vector<int> out(static_cast<size_t>(k), total / k);
  for (int i = 0; i < total % k; ++i) ++out[static_cast<size_t>(i)];
  return out;
}

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Task ids over the shares (in the job's node order), as -m deals them:
// block, consecutive on a node; cyclic and plane, `chunk` ids to each node
// that still has tasks, a round at a time.
void DealTaskIds(const StepAsk& ask, std::vector<StepNodeShare>* shares) {
  int next = 0;
  if (ask.distribution == StepAsk::Distribution::kBlock) {
    for (StepNodeShare& share : *shares) {
      for (int& id : share.task_ids) id = next++;
    }
    return;
  }
  const size_t chunk = ask.distribution == StepAsk::Distribution::kPlane
                           ? static_cast<size_t>(std::max(1, ask.plane_size))
                           : 1;
  std::vector<size_t> dealt(shares->size(), 0);
  for (bool more = true; more;) {
    more = false;
    for (size_t i = 0; i < shares->size(); ++i) {
      std::vector<int>& ids = (*shares)[i].task_ids;
      for (size_t k = 0; k < chunk && dealt[i] < ids.size(); ++k) ids[dealt[i]++] = next++;
      more |= dealt[i] < ids.size();
    }
  }
}

}  // namespace

StepPool::StepPool(std::vector<StepNode> nodes) : nodes_(std::move(nodes)) {
  for (const StepNode& node : nodes_) {
    free_cpus_.push_back(node.cpus);
    free_memory_mb_.push_back(node.memory_mb);
    free_gpus_.emplace_back(node.gpus.begin(), node.gpus.end());
  }
}

StepPool::Capacity StepPool::TotalOf(size_t node) const {
  return {nodes_[node].cpus, nodes_[node].memory_mb, static_cast<int>(nodes_[node].gpus.size())};
}

StepPool::Capacity StepPool::FreeOf(size_t node) const {
  return {free_cpus_[node], free_memory_mb_[node], static_cast<int>(free_gpus_[node].size())};
}

template <typename CapacityOf>
std::vector<StepNodeShare> StepPool::Layout(const StepAsk& ask,
                                            const std::vector<size_t>& candidates, size_t required,
                                            int k, CapacityOf cap) const {
  if (k < 1 || static_cast<size_t>(k) > candidates.size() || static_cast<size_t>(k) < required) {
    return {};
  }
  const std::vector<int> gpus_total = Blocks(ask.gpus_total, k);
  // The first k nodes with room for a task, then the tasks dealt to them as
  // Slurm's block layout deals them: a round at a time, one to each node with
  // CPUs left for it. Even blocks where the nodes are alike; on an allocation
  // of 3+1 CPUs, -n4 runs 3+1.
  std::vector<size_t> chosen;
  std::vector<int64_t> slots;
  for (size_t c = 0; c < candidates.size() && chosen.size() < static_cast<size_t>(k); ++c) {
    const Capacity have = cap(candidates[c]);
    int64_t room = have.cpus / std::max(1, ask.cpus_per_task);
    if (ask.ntasks_per_node > 0) room = std::min<int64_t>(room, ask.ntasks_per_node);
    if (ask.mem_per_cpu_mb > 0) {
      // Tasks whose CPUs' memory fits the node's (divided: no product to wrap).
      room = std::min<int64_t>(
          room, static_cast<int64_t>(have.memory_mb / ask.mem_per_cpu_mb /
                                     static_cast<uint64_t>(std::max(1, ask.cpus_per_task))));
    }
    // The GPUs its share would hold with one task.
    const int64_t gpus = ask.gpus_per_task > 0    ? ask.gpus_per_task
                         : ask.gpus_total > 0     ? gpus_total[chosen.size()]
                         : ask.gpus_per_node >= 0 ? ask.gpus_per_node
                                                  : TotalOf(candidates[c]).gpus;
    if (room < 1 || gpus > have.gpus || (ask.mem_given && ask.mem_per_node_mb > have.memory_mb) ||
        (ask.mem_per_gpu_mb > 0 &&
         static_cast<uint64_t>(gpus) * ask.mem_per_gpu_mb > have.memory_mb)) {
      if (c < required) return {};  // -w names it: it must take a share
      continue;
    }
    chosen.push_back(c);
    slots.push_back(room);
  }
  if (chosen.size() != static_cast<size_t>(k)) return {};
  std::vector<int> tasks(chosen.size(), 0);
  int placed = 0;
  // A plane's worth of tasks to a node per round (one for block and cyclic).
  const int64_t chunk =
      ask.distribution == StepAsk::Distribution::kPlane ? std::max(1, ask.plane_size) : 1;
  while (placed < ask.ntasks) {
    const int before = placed;
    for (size_t i = 0; i < chosen.size() && placed < ask.ntasks; ++i) {
      const int64_t take = std::min<int64_t>({chunk, slots[i] - tasks[i], ask.ntasks - placed});
      if (take > 0) {
        tasks[i] += static_cast<int>(take);
        placed += static_cast<int>(take);
      }
    }
    if (placed == before) {
      if (!ask.overcommit) return {};  // more tasks than these nodes' CPUs
      // -O: the rest a round at a time over the chosen nodes, as Slurm's block layout.
      for (size_t i = 0; placed < ask.ntasks; i = (i + 1) % chosen.size()) {
        ++tasks[i];
        ++placed;
      }
    }
  }
  std::vector<StepNodeShare> picked;
  for (size_t slot = 0; slot < chosen.size(); ++slot) {
    const size_t c = chosen[slot];
    const size_t node = candidates[c];
    const int count = tasks[slot];
    const Capacity have = cap(node);
    const Capacity all = TotalOf(node);
    // Products in 64 bits: both factors are ints (count <= ntasks), so they
    // cannot wrap there, and an int of 2^32 CPUs wrapped to 0 and "fit".
    int64_t gpus = 0;
    bool every_gpu = false;
    if (ask.gpus_per_task > 0) {
      gpus = int64_t{count} * ask.gpus_per_task;
    } else if (ask.gpus_total > 0) {
      gpus = gpus_total[slot];
    } else if (ask.gpus_per_node >= 0) {
      gpus = ask.gpus_per_node;
    } else {
      every_gpu = true;  // Slurm's default: all of the node's job GPUs
      gpus = all.gpus;
    }
    int64_t cpus = int64_t{count} * ask.cpus_per_task;
    if (ask.overcommit) cpus = std::min<int64_t>(cpus, have.cpus);  // room >= 1 task's
    // What the share holds of the node's memory: --mem, or per CPU or GPU.
    const bool memory_held = ask.mem_given || ask.mem_per_cpu_mb > 0 || ask.mem_per_gpu_mb > 0;
    const uint64_t memory = ask.mem_given ? ask.mem_per_node_mb
                            : ask.mem_per_cpu_mb > 0
                                ? static_cast<uint64_t>(cpus) * ask.mem_per_cpu_mb
                                : static_cast<uint64_t>(gpus) * ask.mem_per_gpu_mb;
    const bool fits =
        cpus <= have.cpus && gpus <= have.gpus && memory <= have.memory_mb && count >= 1;
    if (!fits) return {};
    StepNodeShare share;
    share.node = node;
    share.task_ids.resize(static_cast<size_t>(count));
    share.cpus = ask.exact ? static_cast<int>(cpus) : have.cpus;  // cpus <= have.cpus
    share.memory_held = memory_held;
    share.memory_mb = memory_held ? memory : nodes_[node].memory_mb;
    // Which GPUs: the lowest free ones (all of the job's for an overlapping step).
    std::vector<int> pool =
        ask.overlap ? nodes_[node].gpus
                    : std::vector<int>(free_gpus_[node].begin(), free_gpus_[node].end());
    std::sort(pool.begin(), pool.end());
    if (every_gpu) {
      share.gpus = nodes_[node].gpus;
      std::sort(share.gpus.begin(), share.gpus.end());
    } else {
      share.gpus.assign(pool.begin(),
                        pool.begin() + std::min<size_t>(pool.size(), static_cast<size_t>(gpus)));
    }
    picked.push_back(std::move(share));
  }
  if (picked.size() != static_cast<size_t>(k)) return {};
  // Task ids run in the job's node order.
  std::sort(picked.begin(), picked.end(),
            [](const StepNodeShare& a, const StepNodeShare& b) { return a.node < b.node; });
  DealTaskIds(ask, &picked);
  return picked;
}

template <typename CapacityOf>
std::vector<StepNodeShare> StepPool::LayoutAnyCount(const StepAsk& ask,
                                                    const std::vector<size_t>& candidates,
                                                    size_t required, CapacityOf cap) const {
  int k_min = ask.min_nodes > 0 ? ask.min_nodes : std::max<int>(1, static_cast<int>(required));
  int k_max = ask.min_nodes > 0 ? std::max(ask.max_nodes, ask.min_nodes)
                                : static_cast<int>(candidates.size());
  if (ask.max_nodes > 0 && ask.min_nodes == 0) k_max = ask.max_nodes;
  // Fewer tasks than nodes asked: Slurm shrinks the node count to the tasks.
  // No layout has more nodes than there are candidates (and k never reaches
  // INT_MAX, where ++k would wrap).
  k_min = std::min(k_min, ask.ntasks);
  k_max = std::min({k_max, ask.ntasks, static_cast<int>(candidates.size())});
  for (int k = k_min; k <= k_max; ++k) {
    std::vector<StepNodeShare> layout = Layout(ask, candidates, required, k, cap);
    if (!layout.empty()) return layout;
  }
  return {};
}

StepPlan StepPool::Plan(const StepAsk& ask) const {
  StepPlan plan;
  plan.share.overlap = ask.overlap;
  if (ask.ntasks < 1 || ask.cpus_per_task < 1) {
    plan.reason = kBadCpus;
    return plan;
  }
  // Slurm's bound on a step's tasks (step_mgr.c: nodes x MaxTasksPerNode,
  // ESLURM_BAD_TASK_COUNT), checked before anything is sized by the task
  // count: `srun --overlap -n 65536 -c 65536` had noded build a 10 GB reply.
  if (ask.ntasks > static_cast<int64_t>(nodes_.size()) * kMaxTasksPerNode) {
    plan.reason = kBadTaskCount;
    return plan;
  }
  // Candidates: -w's nodes first (each must be in the job), then the others.
  std::vector<size_t> candidates;
  for (const std::string& name : ask.nodelist) {
    size_t i = 0;
    while (i < nodes_.size() && nodes_[i].name != name) ++i;
    if (i == nodes_.size() || Contains(ask.exclude, name)) {
      plan.reason = kBadNodes;
      return plan;
    }
    if (std::find(candidates.begin(), candidates.end(), i) == candidates.end()) {
      candidates.push_back(i);
    }
  }
  const size_t required = candidates.size();
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (Contains(ask.nodelist, nodes_[i].name) || Contains(ask.exclude, nodes_[i].name)) continue;
    candidates.push_back(i);
  }
  std::vector<StepNodeShare> ever =
      LayoutAnyCount(ask, candidates, required, [this](size_t n) { return TotalOf(n); });
  if (ever.empty()) {
    // Name what the job lacks, as Slurm does.
    int64_t cpus = 0;
    int64_t gpus = 0;
    int max_node_gpus = 0;
    uint64_t max_memory = 0;
    for (size_t n : candidates) {
      cpus += nodes_[n].cpus;
      gpus += static_cast<int>(nodes_[n].gpus.size());
      max_node_gpus = std::max(max_node_gpus, static_cast<int>(nodes_[n].gpus.size()));
      max_memory = std::max(max_memory, nodes_[n].memory_mb);
    }
    const int64_t gpus_asked =
        ask.gpus_per_task > 0 ? int64_t{ask.ntasks} * ask.gpus_per_task : ask.gpus_total;
    if (ask.min_nodes > static_cast<int>(candidates.size())) {
      plan.reason = kBadNodes;
    } else if (int64_t{ask.ntasks} * ask.cpus_per_task > cpus) {
      plan.reason = kBadCpus;
    } else if (gpus_asked > gpus || ask.gpus_per_node > max_node_gpus) {
      plan.reason = kBadGres;
    } else if ((ask.mem_given && ask.mem_per_node_mb > max_memory) ||
               ask.mem_per_cpu_mb >
                   max_memory / static_cast<uint64_t>(std::max(1, ask.cpus_per_task))) {
      plan.reason = kBadMemory;
    } else {
      plan.reason = kBadNodes;
    }
    return plan;
  }
  if (ask.overlap) {
    plan.fit = StepFit::kNow;
    plan.share.nodes = std::move(ever);
    return plan;
  }
  std::vector<StepNodeShare> now =
      LayoutAnyCount(ask, candidates, required, [this](size_t n) { return FreeOf(n); });
  if (now.empty()) {
    plan.fit = StepFit::kLater;
    plan.reason = kBusy;
    return plan;
  }
  // Slurm's default GPU request (every job GPU of the node) waits for all of them.
  for (const StepNodeShare& share : now) {
    for (int gpu : share.gpus) {
      if (free_gpus_[share.node].count(gpu) == 0) {
        plan.fit = StepFit::kLater;
        plan.reason = kBusy;
        return plan;
      }
    }
  }
  plan.fit = StepFit::kNow;
  plan.share.nodes = std::move(now);
  return plan;
}

void StepPool::Take(const StepShare& share) {
  if (share.overlap) return;
  for (const StepNodeShare& s : share.nodes) {
    free_cpus_[s.node] -= s.cpus;
    if (s.memory_held) free_memory_mb_[s.node] -= s.memory_mb;
    for (int gpu : s.gpus) free_gpus_[s.node].erase(gpu);
  }
}

void StepPool::Give(const StepShare& share) {
  if (share.overlap) return;
  for (const StepNodeShare& s : share.nodes) {
    free_cpus_[s.node] += s.cpus;
    if (s.memory_held) free_memory_mb_[s.node] += s.memory_mb;
    for (int gpu : s.gpus) free_gpus_[s.node].insert(gpu);
  }
}

}  // namespace skiff::noded
