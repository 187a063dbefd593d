#include "cli/sinfo/sinfo_format.h"

#include <gtest/gtest.h>

namespace skiff {
namespace {

// The reference cluster of shared/reference: n[1-4] in debug (default), n[3-4] also in gpu.
v1::GetPartitionsReply ReferenceCluster(const std::string& state) {
  v1::GetPartitionsReply reply;
  v1::PartitionInfo* debug = reply.add_partitions();
  debug->set_name("debug");
  debug->set_is_default(true);
  debug->set_state("UP");
  debug->set_max_time(86400);
  for (const char* n : {"n1", "n2", "n3", "n4"}) debug->add_nodes(n);
  v1::PartitionInfo* gpu = reply.add_partitions();
  gpu->set_name("gpu");
  gpu->set_state("UP");
  gpu->set_max_time(86400);
  for (const char* n : {"n3", "n4"}) gpu->add_nodes(n);
  for (const char* n : {"n1", "n2", "n3", "n4"}) {
    v1::NodeInfo* node = reply.add_nodes();
    node->set_name(n);
    node->set_state(state);
    node->set_cpus(2);
    node->set_sockets(1);
    node->set_cores_per_socket(2);
    node->set_threads_per_core(1);
    node->set_real_memory_mb(4821);
    node->set_weight(1);
  }
  return reply;
}

TEST(FormatSinfo, DefaultViewMatchesSlurmForIdleCluster) {
  EXPECT_EQ(FormatSinfo(ReferenceCluster("IDLE"), {}),
            "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"
            "debug*       up 1-00:00:00      4   idle n[1-4]\n"
            "gpu          up 1-00:00:00      2   idle n[3-4]\n");
}

TEST(FormatSinfo, DefaultViewMatchesSlurmForBusyCluster) {
  EXPECT_EQ(FormatSinfo(ReferenceCluster("ALLOCATED"), {}),
            "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"
            "debug*       up 1-00:00:00      4  alloc n[1-4]\n"
            "gpu          up 1-00:00:00      2  alloc n[3-4]\n");
}

TEST(FormatSinfo, GroupsNodesByStateAndMarksNotResponding) {
  v1::GetPartitionsReply reply = ReferenceCluster("IDLE");
  reply.mutable_nodes(1)->set_not_responding(true);
  reply.mutable_nodes(1)->set_state("DOWN");
  reply.mutable_partitions(0)->set_max_time(-1);
  SinfoOptions options;
  options.no_header = true;
  EXPECT_EQ(FormatSinfo(reply, options),
            "debug*       up   infinite      3   idle n[1,3-4]\n"
            "debug*       up   infinite      1  down* n2\n"
            "gpu          up 1-00:00:00      2   idle n[3-4]\n");
}

TEST(FormatSinfo, NodeLongViewMatchesSlurm) {
  SinfoOptions options;
  options.node_oriented = true;
  options.long_format = true;
  std::string out = FormatSinfo(ReferenceCluster("IDLE"), options);
  // Drop the timestamp line.
  out = out.substr(out.find('\n') + 1);
  EXPECT_EQ(out,
            "NODELIST   NODES PARTITION       STATE CPUS    S:C:T MEMORY TMP_DISK WEIGHT AVAIL_FE "
            "REASON              \n"
            "n1             1    debug*        idle 2       1:2:1   4821        0      1   (null) "
            "none                \n"
            "n2             1    debug*        idle 2       1:2:1   4821        0      1   (null) "
            "none                \n"
            "n3             1       gpu        idle 2       1:2:1   4821        0      1   (null) "
            "none                \n"
            "n3             1    debug*        idle 2       1:2:1   4821        0      1   (null) "
            "none                \n"
            "n4             1       gpu        idle 2       1:2:1   4821        0      1   (null) "
            "none                \n"
            "n4             1    debug*        idle 2       1:2:1   4821        0      1   (null) "
            "none                \n");
}

TEST(NodeStates, DrainAndUnknownNamesFollowSlurm) {
  v1::NodeInfo node;
  node.set_state("IDLE");
  node.set_drain(true);
  EXPECT_EQ(ShortNodeState(node), "drain");
  EXPECT_EQ(LongNodeState(node), "drained");
  node.set_state("MIXED");
  EXPECT_EQ(ShortNodeState(node), "drng");
  node.set_drain(false);
  node.set_state("UNKNOWN");
  node.set_not_responding(true);
  EXPECT_EQ(ShortNodeState(node), "unk*");
  EXPECT_EQ(LongNodeState(node), "unknown*");
}

}  // namespace
}  // namespace skiff
