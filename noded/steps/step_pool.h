// A job's allocation as its step manager carves steps from it. Pure: no I/O,
// no clock, no threads; the caller (StepManager) holds the lock.
//
// Slurm 22.05's rules, with one deliberate difference:
//  - A step's tasks are laid out in blocks over the fewest nodes that take them
//    (or over min_nodes..max_nodes, -N), consecutive task ids on one node, the
//    first nodes one task more when they do not divide; -m cyclic deals the
//    ids a node at a time, -m plane=N N at a time (and so N to a node).
//  - CPUs: with `exact` a step holds tasks x cpus_per_task on each of its nodes;
//    without, every job CPU of those nodes that no other step holds (Slurm's
//    default since 21.08: "all non-GRES resources on each node"). Steps never
//    share CPUs unless `overlap`.
//  - GPUs: by default a step gets every job GPU of its nodes; --gres=gpu:N per
//    node, --gpus N over the step, --gpus-per-task N. Never shared unless `overlap`.
//  - Memory: with --mem the step holds that much on each node. Without, it may
//    use the node's whole job memory but holds none (Slurm would hold it all and
//    block every later step, the classic "step creation temporarily disabled"
//    surprise; the job's cgroup still bounds the total).
//  - `overlap` steps hold nothing and fit whenever the job's totals allow.
#ifndef SKIFF_NODED_STEPS_STEP_POOL_H_
#define SKIFF_NODED_STEPS_STEP_POOL_H_

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace skiff::noded {

// One node of the job's allocation.
struct StepNode {
  std::string name;
  std::string address;  // its noded, "addr:port"
  int cpus = 0;
  uint64_t memory_mb = 0;
  std::vector<int> gpus;  // the node's GPU indices the job holds

  bool operator==(const StepNode& o) const {
    return name == o.name && address == o.address && cpus == o.cpus && memory_mb == o.memory_mb &&
           gpus == o.gpus;
  }
};

// What srun asks for (srun's options, defaults already applied).
struct StepAsk {
  int ntasks = 1;
  int min_nodes = 0;        // 0: as few as the tasks need
  int max_nodes = 0;        // 0: min_nodes, or as many as needed when min_nodes is 0
  int ntasks_per_node = 0;  // 0: no cap
  int cpus_per_task = 1;
  bool mem_given = false;
  uint64_t mem_per_node_mb = 0;
  // --mem-per-cpu / --mem-per-gpu: held per CPU (GPU) of the step's share on
  // a node; 0: not given (mem_per_node_mb, or none held).
  uint64_t mem_per_cpu_mb = 0;
  uint64_t mem_per_gpu_mb = 0;
  int gpus_per_node = -1;             // -1: Slurm's default, every job GPU of the node
  int gpus_total = 0;                 // --gpus
  int gpus_per_task = 0;              // --gpus-per-task
  std::vector<std::string> nodelist;  // -w: every one of them, plus others if needed
  std::vector<std::string> exclude;   // -x
  bool exact = false;
  bool overlap = false;
  // -O: tasks past the nodes' CPUs, dealt round-robin once each node's CPUs
  // are full; a node needs one task's CPUs.
  bool overcommit = false;
  // -m: how task ids are dealt over the chosen nodes. kBlock: consecutive ids
  // on a node; kCyclic: one a node at a time; kPlane: plane_size at a time,
  // which also decides how many tasks each node gets (as far as its CPUs let).
  enum class Distribution { kBlock, kCyclic, kPlane };
  Distribution distribution = Distribution::kBlock;
  int plane_size = 1;
};

// What a step holds on one node.
struct StepNodeShare {
  size_t node = 0;  // index into StepPool::nodes()
  std::vector<int> task_ids;
  int cpus = 0;
  uint64_t memory_mb = 0;
  bool memory_held = false;  // --mem: counted against the node's free memory
  std::vector<int> gpus;
};

struct StepShare {
  std::vector<StepNodeShare> nodes;
  bool overlap = false;  // holds nothing
};

enum class StepFit {
  kNow,    // `share` is what it gets
  kLater,  // fits the job, not while other steps hold what it needs
  kNever,  // the job's allocation cannot hold it
};

struct StepPlan {
  StepFit fit = StepFit::kNever;
  StepShare share;
  // kNever: Slurm's error text ("More processors requested than permitted");
  // kLater: the reason srun prints while it waits ("Requested nodes are busy").
  std::string reason;
};

class StepPool {
 public:
  explicit StepPool(std::vector<StepNode> nodes);

  StepPlan Plan(const StepAsk& ask) const;
  // Holds / returns what a planned step holds. REQUIRES: `share` came from
  // Plan() on this pool with kNow, and nothing was taken in between.
  void Take(const StepShare& share);
  void Give(const StepShare& share);

  const std::vector<StepNode>& nodes() const { return nodes_; }
  int free_cpus(size_t node) const { return free_cpus_[node]; }
  uint64_t free_memory_mb(size_t node) const { return free_memory_mb_[node]; }
  const std::set<int>& free_gpus(size_t node) const { return free_gpus_[node]; }

 private:
  struct Capacity {
    int cpus;
    uint64_t memory_mb;
    int gpus;
  };
  Capacity TotalOf(size_t node) const;
  Capacity FreeOf(size_t node) const;
  // The layout over exactly `k` nodes with each node's capacity from `cap`;
  // empty when it does not fit.
  template <typename CapacityOf>
  std::vector<StepNodeShare> Layout(const StepAsk& ask, const std::vector<size_t>& candidates,
                                    size_t required, int k, CapacityOf cap) const;
  template <typename CapacityOf>
  std::vector<StepNodeShare> LayoutAnyCount(const StepAsk& ask,
                                            const std::vector<size_t>& candidates, size_t required,
                                            CapacityOf cap) const;

  std::vector<StepNode> nodes_;
  std::vector<int> free_cpus_;
  std::vector<uint64_t> free_memory_mb_;
  std::vector<std::set<int>> free_gpus_;
};

}  // namespace skiff::noded

#endif  // SKIFF_NODED_STEPS_STEP_POOL_H_
