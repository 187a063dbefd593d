// Expected placements are what Slurm 22.05 (select/cons_tres, CR_Core_Memory)
// did on four 2-CPU nodes n1..n4 (shared/slurm-anchor), read from each batch
// job's SLURM_JOB_NODELIST, SLURM_JOB_CPUS_PER_NODE and SLURM_TASKS_PER_NODE.
#include "ctld/core/scheduler/placement.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace skiff::ctld {
namespace {

std::vector<PlacementCandidate> Nodes(const std::vector<int>& free_cpus, int total = 2) {
  std::vector<PlacementCandidate> out;
  for (size_t i = 0; i < free_cpus.size(); ++i) {
    PlacementCandidate c;
    c.node = static_cast<int32_t>(i);
    c.total_cpus = total;
    c.total_mem_mb = 4000;
    c.room = {free_cpus[i], 4000, 0, free_cpus[i] == total};
    out.push_back(c);
  }
  return out;
}

// "n[1-2] cpus 2,1 tasks 2,1" with nodes numbered from 1 as in Slurm.
std::string Show(const std::vector<NodeTake>& takes) {
  std::string nodes, cpus, tasks;
  for (const NodeTake& t : takes) {
    nodes += (nodes.empty() ? "n" : ",n") + std::to_string(t.node + 1);
    cpus += (cpus.empty() ? "" : ",") + std::to_string(t.cpus);
    tasks += (tasks.empty() ? "" : ",") + std::to_string(t.tasks);
  }
  return nodes + " cpus " + cpus + " tasks " + tasks;
}

TaskShape Tasks(int ntasks, int min_nodes = 1, int max_nodes = 0, int want = 0) {
  TaskShape s;
  s.ntasks = ntasks;
  s.min_nodes = min_nodes;
  s.max_nodes = max_nodes > 0 ? max_nodes : std::max(ntasks, min_nodes);
  s.want_nodes = want > 0 ? want : min_nodes;
  return s;
}

TEST(PlaceTasks, SpreadsTasksOverAsFewNodesAsHoldThem) {
  EXPECT_EQ(Show(PlaceTasks(Tasks(3), Nodes({2, 2, 2, 2}))), "n1,n2 cpus 2,1 tasks 2,1");
  EXPECT_EQ(Show(PlaceTasks(Tasks(8), Nodes({2, 2, 2, 2}))),
            "n1,n2,n3,n4 cpus 2,2,2,2 tasks 2,2,2,2");
  EXPECT_TRUE(PlaceTasks(Tasks(9), Nodes({2, 2, 2, 2})).empty());
}

TEST(PlaceTasks, AFixedNodeCountKeepsATaskForEachLaterNode) {
  EXPECT_EQ(Show(PlaceTasks(Tasks(3, 2, 2, 2), Nodes({2, 2, 2, 2}))), "n1,n2 cpus 2,1 tasks 2,1");
  EXPECT_EQ(Show(PlaceTasks(Tasks(3, 3, 3, 3), Nodes({2, 2, 2, 2}))),
            "n1,n2,n3 cpus 1,1,1 tasks 1,1,1");
  // Slurm's _cpus_to_use on bigger nodes: -N2 -n4 on 4-CPU nodes is 3+1.
  EXPECT_EQ(Show(PlaceTasks(Tasks(4, 2, 2, 2), Nodes({4, 4}, 4))), "n1,n2 cpus 3,1 tasks 3,1");
}

TEST(PlaceTasks, ANodeRangeIsFilledToItsTop) {
  // -N1-3 -n4
  EXPECT_EQ(Show(PlaceTasks(Tasks(4, 1, 3, 3), Nodes({2, 2, 2, 2}))),
            "n1,n2,n3 cpus 2,1,1 tasks 2,1,1");
  // -N-3 -n2: no more nodes than tasks.
  EXPECT_EQ(Show(PlaceTasks(Tasks(2, 1, 2, 3), Nodes({2, 2, 2, 2}))), "n1,n2 cpus 1,1 tasks 1,1");
  // --use-min-nodes: -N1-3 -n4 takes what two nodes hold.
  EXPECT_EQ(Show(PlaceTasks(Tasks(4, 1, 3, 1), Nodes({2, 2, 2, 2}))), "n1,n2 cpus 2,2 tasks 2,2");
}

TEST(PlaceTasks, CpusPerTaskAndTasksPerNodeAndMinCpus) {
  TaskShape c2 = Tasks(3);
  c2.cpus_per_task = 2;
  EXPECT_EQ(Show(PlaceTasks(c2, Nodes({2, 2, 2, 2}))), "n1,n2,n3 cpus 2,2,2 tasks 1,1,1");
  TaskShape per_node = Tasks(2);
  per_node.ntasks_per_node = 1;
  EXPECT_EQ(Show(PlaceTasks(per_node, Nodes({2, 2, 2, 2}))), "n1,n2 cpus 1,1 tasks 1,1");
  // -n5 --ntasks-per-node=2: three nodes hold 2 CPUs each, the last runs one task.
  TaskShape five = Tasks(5, 3, 3, 3);
  five.ntasks_per_node = 2;
  EXPECT_EQ(Show(PlaceTasks(five, Nodes({2, 2, 2, 2}))), "n1,n2,n3 cpus 2,2,2 tasks 2,2,1");
  TaskShape mincpus = Tasks(2);
  mincpus.min_cpus_per_node = 2;
  EXPECT_EQ(Show(PlaceTasks(mincpus, Nodes({1, 2, 2, 2}))), "n2 cpus 2 tasks 2");
}

TEST(PlaceTasks, OvercommitHoldsOneTasksCpusPerNode) {
  TaskShape one = Tasks(6);
  one.overcommit = true;
  one.max_nodes = 1;
  EXPECT_EQ(Show(PlaceTasks(one, Nodes({2, 2, 2, 2}))), "n1 cpus 1 tasks 6");
  TaskShape two = Tasks(6, 2, 2, 2);
  two.overcommit = true;
  EXPECT_EQ(Show(PlaceTasks(two, Nodes({2, 2, 2, 2}))), "n1,n2 cpus 1,1 tasks 3,3");
}

TEST(PlaceTasks, ExclusiveTakesWholeIdleNodes) {
  TaskShape s = Tasks(3);
  s.exclusive = true;
  EXPECT_EQ(Show(PlaceTasks(s, Nodes({2, 2, 2, 2}))), "n1,n2 cpus 2,2 tasks 2,1");
  EXPECT_EQ(Show(PlaceTasks(s, Nodes({1, 2, 2, 2}))), "n2,n3 cpus 2,2 tasks 2,1");
}

TEST(PlaceTasks, BestFitPrefersTheNodeLeftWithLeastRoom) {
  // n2 runs a 1-CPU job.
  EXPECT_EQ(Show(PlaceTasks(Tasks(1), Nodes({2, 1, 2, 2}))), "n2 cpus 1 tasks 1");
  EXPECT_EQ(Show(PlaceTasks(Tasks(2), Nodes({2, 1, 2, 2}))), "n1 cpus 2 tasks 2");
  EXPECT_EQ(Show(PlaceTasks(Tasks(3), Nodes({2, 1, 2, 2}))), "n1,n2 cpus 2,1 tasks 2,1");
  EXPECT_EQ(Show(PlaceTasks(Tasks(2, 2, 2, 2), Nodes({2, 1, 2, 2}))), "n1,n2 cpus 1,1 tasks 1,1");
}

TEST(PlaceTasks, LighterNodesFirstAndRequiredNodesAlways) {
  std::vector<PlacementCandidate> nodes = Nodes({2, 2, 2, 2});
  nodes[0].weight = nodes[1].weight = 10;
  EXPECT_EQ(Show(PlaceTasks(Tasks(3), nodes)), "n3,n4 cpus 2,1 tasks 2,1");
  nodes[0].required = true;
  EXPECT_EQ(Show(PlaceTasks(Tasks(3), nodes)), "n1,n3 cpus 2,1 tasks 2,1");
}

TEST(PlaceTasks, ContiguousTakesConsecutiveNodesOfTheBestFittingRun) {
  TaskShape two_nodes = Tasks(2, 2, 2, 2);
  two_nodes.contiguous = true;
  // n2 is full: n1 and n3 are not neighbours.
  EXPECT_EQ(Show(PlaceTasks(two_nodes, Nodes({2, 0, 2, 2}))), "n3,n4 cpus 1,1 tasks 1,1");
  TaskShape three = Tasks(3);
  three.contiguous = true;
  EXPECT_EQ(Show(PlaceTasks(three, Nodes({2, 0, 2, 2}))), "n3,n4 cpus 2,1 tasks 2,1");
  EXPECT_TRUE(PlaceTasks(two_nodes, Nodes({2, 0, 2, 0, 2})).empty());
  // Of the runs that fit, the one with the fewest CPUs to spare.
  EXPECT_EQ(Show(PlaceTasks(two_nodes, Nodes({2, 2, 0, 2, 2, 2}))), "n1,n2 cpus 1,1 tasks 1,1");
  EXPECT_EQ(Show(PlaceTasks(two_nodes, Nodes({2, 2, 2, 0, 2, 2}))), "n5,n6 cpus 1,1 tasks 1,1");
  // Consecutive means consecutive indices: a gap in the candidates breaks a run.
  std::vector<PlacementCandidate> gap = Nodes({2, 2});
  gap[1].node = 2;
  EXPECT_TRUE(PlaceTasks(two_nodes, gap).empty());
  EXPECT_FALSE(TaskShape(two_nodes).OneTaskPerNode());
}

TEST(PlaceTasks, ContiguousKeepsTheRequiredNodesInItsRun) {
  TaskShape two_nodes = Tasks(2, 2, 2, 2);
  two_nodes.contiguous = true;
  std::vector<PlacementCandidate> nodes = Nodes({2, 2, 2, 2});
  nodes[2].required = true;
  EXPECT_EQ(Show(PlaceTasks(two_nodes, nodes)), "n3,n4 cpus 1,1 tasks 1,1");
  nodes[2].required = false;
  nodes[3].required = true;  // the last node: its neighbour before it comes too
  EXPECT_EQ(Show(PlaceTasks(two_nodes, nodes)), "n3,n4 cpus 1,1 tasks 1,1");
  nodes[0].required = true;  // n1 and n4 cannot be two consecutive nodes
  EXPECT_TRUE(PlaceTasks(two_nodes, nodes).empty());
}

TEST(PlaceTasks, MemoryPerCpuLimitsTheCpusANodeGives) {
  TaskShape s = Tasks(3);
  s.mem_per_cpu_mb = 1500;  // a node's 4000 MB hold two CPUs' worth
  std::vector<PlacementCandidate> nodes = Nodes({4, 4}, 4);
  EXPECT_EQ(Show(PlaceTasks(s, nodes)), "n1,n2 cpus 2,1 tasks 2,1");
  EXPECT_EQ(PlaceTasks(s, nodes)[1].mem_mb, 1500u);
  s.mem_per_cpu_mb = 0;
  s.mem_per_node_mb = 5000;
  EXPECT_TRUE(PlaceTasks(s, nodes).empty());
}

TEST(DealTasks, RoundRobinWithinCpusThenPastThem) {
  EXPECT_EQ(DealTasks({2, 2}, 3, 1), (std::vector<int32_t>{2, 1}));
  EXPECT_EQ(DealTasks({4, 1}, 5, 1), (std::vector<int32_t>{4, 1}));
  EXPECT_EQ(DealTasks({1, 1}, 6, 0), (std::vector<int32_t>{3, 3}));
  EXPECT_EQ(DealTasks({4, 4}, 4, 2), (std::vector<int32_t>{2, 2}));
}

}  // namespace
}  // namespace skiff::ctld
