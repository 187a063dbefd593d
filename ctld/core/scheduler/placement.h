// Where a job's tasks go: which nodes, how many CPUs and tasks on each, as
// Slurm 22.05's select/cons_tres decides it (job_test.c's _eval_nodes and
// _cpus_to_use, dist_tasks.c and the step layout that sets
// SLURM_TASKS_PER_NODE).
//
//  - Nodes are taken by weight (lowest first), then best fit: the node that
//    alone holds what is still wanted and leaves the least room, else the one
//    with the most room; ties go to the lower index. -w nodes come first.
//  - Each node takes as many CPUs as it can, in whole tasks, keeping one task
//    back for each further node the job wants: `-n3` on 2-CPU nodes is 2+1 on
//    two nodes, `-N1-3 -n4` is 2+1+1 on three (a node range is filled to its
//    top, as Slurm does, unless --use-min-nodes).
//  - Tasks are dealt to the chosen nodes round-robin up to each node's CPUs,
//    then (with --overcommit) round-robin past them.
//  - --overcommit allocates one task's CPUs per node and places every task.
//  - --exclusive takes every CPU and all memory of each node.
//  - --contiguous takes consecutive nodes (consecutive `node` indices, all
//    usable): of each run of such nodes, from its first node (or first -w
//    node) on, in order; the run that fits with the fewest CPUs to spare
//    wins, ties to the lower index (Slurm's _eval_nodes_consec: best fit).
//
// Pure: no I/O, no clock, no locks. The caller owns every argument.
#ifndef SKIFF_CTLD_CORE_SCHEDULER_PLACEMENT_H_
#define SKIFF_CTLD_CORE_SCHEDULER_PLACEMENT_H_

#include <cstdint>
#include <vector>

namespace skiff::ctld {

// A job's resource request in the terms placement needs.
struct TaskShape {
  int32_t min_nodes = 1;
  // At most this many nodes; already no more than max(ntasks, min_nodes).
  int32_t max_nodes = 1;
  // Nodes the job would like: the top of a -N range, else min_nodes.
  int32_t want_nodes = 1;
  int32_t ntasks = 1;
  int32_t cpus_per_task = 1;
  int32_t ntasks_per_node = 0;    // 0 = no cap
  int32_t min_cpus_per_node = 0;  // --mincpus
  bool overcommit = false;
  bool exclusive = false;
  bool contiguous = false;       // --contiguous
  uint64_t mem_per_node_mb = 0;  // --mem (0 = see mem_per_cpu_mb)
  uint64_t mem_per_cpu_mb = 0;   // --mem-per-cpu
  int32_t gpus_per_node = 0;

  // True when every node gets one task of the same size (-N k with k tasks,
  // and every job with one node): the scheduler's fast paths apply.
  bool OneTaskPerNode() const {
    return min_nodes == max_nodes && want_nodes == min_nodes && ntasks == min_nodes &&
           !overcommit && ntasks_per_node <= 1 && !contiguous;
  }
  // CPUs the job holds at least (Slurm's min_cpus).
  int64_t MinCpus() const;
};

// What one node can give the job now (or at some time).
struct NodeRoom {
  int64_t cpus = 0;
  int64_t mem_mb = 0;
  int64_t gpus = 0;
  bool whole = false;  // nothing of it is held: an exclusive job may take it
};

// A node the job could use, with its size (an exclusive job takes it whole).
struct PlacementCandidate {
  int32_t node = 0;  // the caller's index
  uint32_t weight = 1;
  bool required = false;  // -w
  int32_t total_cpus = 0;
  uint64_t total_mem_mb = 0;
  NodeRoom room;
};

struct NodeTake {
  int32_t node = 0;  // PlacementCandidate::node
  int32_t cpus = 0;
  uint64_t mem_mb = 0;
  int32_t tasks = 0;
};

// The chosen nodes in the caller's node order (ascending `node`), or empty
// when the job does not fit. REQUIRES: candidates' `node` values distinct.
std::vector<NodeTake> PlaceTasks(const TaskShape& shape,
                                 const std::vector<PlacementCandidate>& candidates);

// Slurm's task count per node for `ntasks` tasks on nodes holding `cpus`
// CPUs each: one round at a time, a task to each node with CPUs left for it,
// then round-robin past the CPUs when they run out (overcommit).
std::vector<int32_t> DealTasks(const std::vector<int32_t>& cpus, int32_t ntasks,
                               int32_t cpus_per_task);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_SCHEDULER_PLACEMENT_H_
