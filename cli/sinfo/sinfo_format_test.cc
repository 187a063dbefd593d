#include "cli/sinfo/sinfo_format.h"

#include <gtest/gtest.h>

namespace skiff::cli {
namespace {

// The reference cluster of shared/reference: n[1-4] in debug (default), n[3-4]
// also in gpu with 2 GPUs each (device files, untyped).
v1::GetPartitionsReply ReferenceCluster(const std::string& state) {
  v1::GetPartitionsReply reply;
  v1::PartitionInfo* debug = reply.add_partitions();
  debug->set_name("debug");
  debug->set_is_default(true);
  debug->set_state("UP");
  debug->set_max_time(86400);
  debug->set_default_time(3600);
  debug->set_max_nodes(-1);
  for (const char* n : {"n1", "n2", "n3", "n4"}) debug->add_nodes(n);
  v1::PartitionInfo* gpu = reply.add_partitions();
  gpu->set_name("gpu");
  gpu->set_state("UP");
  gpu->set_max_time(86400);
  gpu->set_default_time(3600);
  gpu->set_max_nodes(-1);
  for (const char* n : {"n3", "n4"}) gpu->add_nodes(n);
  for (const char* n : {"n1", "n2", "n3", "n4"}) {
    v1::NodeInfo* node = reply.add_nodes();
    node->set_name(n);
    node->set_hostname(n);
    node->set_addr("127.0.0.1");
    node->set_state(state);
    node->set_cpus(2);
    node->set_alloc_cpus(state == "ALLOCATED" ? 2 : 0);
    node->set_sockets(1);
    node->set_cores_per_socket(2);
    node->set_threads_per_core(1);
    node->set_real_memory_mb(4821);
    node->set_weight(1);
    if (std::string(n) >= "n3") {
      v1::Gres* g = node->add_gres();
      g->set_name("gpu");
      g->set_count(2);
      g->add_files("/dev/nvidia0");
      g->add_files("/dev/nvidia1");
    }
  }
  return reply;
}

SinfoView LongFormatView(const std::string& format) {
  SinfoView view;
  view.items = ParseLongFormat(format).items;
  return view;
}

// sinfo's default view (-O of opts.c's default with the partition width computed).
SinfoView DefaultView() {
  SinfoView view =
      LongFormatView("partition:9 ,available:.5 ,time:.10 ,nodes:.6 ,statecompact:.6 ,nodelist:0");
  view.part_field_flag = true;
  return view;
}

std::string Sinfo(const v1::GetPartitionsReply& reply, const SinfoView& view) {
  return PrintSinfoRecords(BuildSinfoRecords(reply, view), view);
}

TEST(Sinfo, DefaultViewMatchesSlurmForIdleCluster) {
  EXPECT_EQ(Sinfo(ReferenceCluster("IDLE"), DefaultView()),
            "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"
            "debug*       up 1-00:00:00      4   idle n[1-4]\n"
            "gpu          up 1-00:00:00      2   idle n[3-4]\n");
}

TEST(Sinfo, DefaultViewMatchesSlurmForBusyCluster) {
  EXPECT_EQ(Sinfo(ReferenceCluster("ALLOCATED"), DefaultView()),
            "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"
            "debug*       up 1-00:00:00      4  alloc n[1-4]\n"
            "gpu          up 1-00:00:00      2  alloc n[3-4]\n");
}

TEST(Sinfo, StatesSortHighestFirstWithinAPartitionAndMarkNotResponding) {
  v1::GetPartitionsReply reply = ReferenceCluster("IDLE");
  reply.mutable_nodes(1)->set_not_responding(true);
  reply.mutable_nodes(1)->set_state("DOWN");
  reply.mutable_nodes(0)->set_drain(true);
  reply.mutable_partitions(0)->set_max_time(-1);
  SinfoView view = DefaultView();
  view.no_header = true;
  EXPECT_EQ(Sinfo(reply, view),
            "debug*       up   infinite      1  down* n2\n"
            "debug*       up   infinite      1  drain n1\n"
            "debug*       up   infinite      2   idle n[3-4]\n"
            "gpu          up 1-00:00:00      2   idle n[3-4]\n");
}

TEST(Sinfo, NodeLongViewListsEachNodeOncePerPartitionLaterPartitionFirst) {
  SinfoView view = LongFormatView(
      "nodelist:0 ,nodes:.6 ,partition:.9 ,statelong:.11 ,cpus:4 ,socketcorethread:.8 ,memory:.6 "
      ",disk:.8 ,weight:.6 ,features:.8 ,reason:20");
  view.node_flag = view.node_field_flag = view.part_field_flag = true;
  EXPECT_EQ(Sinfo(ReferenceCluster("IDLE"), view),
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

TEST(Sinfo, NodesWithEqualPrintedFieldsShareALineAcrossPartitions) {
  SinfoView view;
  view.items = ParseShortFormat("%N %t %G").items;
  EXPECT_EQ(Sinfo(ReferenceCluster("IDLE"), view),
            "NODELIST STATE GRES\n"
            "n[1-2] idle (null)\n"
            "n[3-4] idle gpu:2\n");
}

TEST(Sinfo, GresUsedShowsHeldGpuIndicesAsSlurmDoes) {
  v1::GetPartitionsReply reply = ReferenceCluster("IDLE");
  reply.mutable_nodes(2)->set_state("MIXED");
  reply.mutable_nodes(2)->set_alloc_cpus(1);
  reply.mutable_nodes(2)->add_alloc_gpu_indices(1);
  SinfoView view = LongFormatView("NodeHost,Gres:20,GresUsed:30");
  view.no_header = true;
  EXPECT_EQ(Sinfo(reply, view),
            "n3                  gpu:2               gpu:(null):1(IDX:1)           \n"
            "n1                  (null)              (null)                        \n"
            "n2                  (null)              (null)                        \n"
            "n4                  gpu:2               gpu:(null):0(IDX:N/A)         \n");
}

TEST(Sinfo, PartitionWithoutMatchingNodesShowsNa) {
  SinfoView view = DefaultView();
  view.states = client::StateFilter{{client::kFlagDrain}, false};
  EXPECT_EQ(Sinfo(ReferenceCluster("IDLE"), view),
            "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"
            "debug*       up 1-00:00:00      0    n/a \n"
            "gpu          up 1-00:00:00      0    n/a \n");
}

TEST(Sinfo, ListReasonsGroupsByReasonAcrossPartitions) {
  v1::GetPartitionsReply reply = ReferenceCluster("IDLE");
  for (int i : {2, 3}) {
    reply.mutable_nodes(i)->set_drain(true);
    reply.mutable_nodes(i)->set_reason("fan");
    reply.mutable_nodes(i)->set_reason_time(0);
  }
  SinfoView view = LongFormatView("reason:20 ,user:9 ,timestamp:19 ,nodelist:0");
  view.list_reasons = true;
  view.states =
      client::StateFilter{{client::kStateDown, client::kFlagFail, client::kFlagDrain}, false};
  EXPECT_EQ(Sinfo(reply, view),
            "REASON               USER      TIMESTAMP           NODELIST\n"
            "fan                  Unknown   Unknown             n[3-4]\n");
}

TEST(Sinfo, ExactSplitsNodesOfDifferentSizesOtherwiseShowsMinimumPlus) {
  v1::GetPartitionsReply reply = ReferenceCluster("IDLE");
  reply.mutable_nodes(1)->set_cpus(8);
  SinfoView view;
  view.items = ParseShortFormat("%P %c %D").items;
  view.no_header = true;
  EXPECT_EQ(Sinfo(reply, view), "debug* 2+ 4\ngpu 2 2\n");
  view.exact = true;
  EXPECT_EQ(Sinfo(reply, view), "debug* 2 3\ndebug* 8 1\ngpu 2 2\n");
}

TEST(ParseShortFormat, KeepsPrefixWidthsAndUnknownLetterText) {
  ParsedFormat f = ParseShortFormat("x%.5P|%-3q%N");
  ASSERT_EQ(f.items.size(), 4u);
  EXPECT_EQ(f.items[0].suffix, "x");
  EXPECT_EQ(f.items[1].field, SinfoField::kPartition);
  EXPECT_TRUE(f.items[1].right);
  EXPECT_EQ(f.items[1].width, 5);
  EXPECT_EQ(f.items[1].suffix, "|");
  EXPECT_EQ(f.items[2].field, SinfoField::kInvalid);
  EXPECT_EQ(f.items[2].suffix, "%-3q");
  EXPECT_EQ(f.warnings, std::vector<std::string>{"Invalid node format specification: -"});
}

TEST(ParseLongFormat, WidthDefaultsToTwentyAndTextAfterWidthIsSuffix) {
  ParsedFormat f = ParseLongFormat("gres,GresUsed:.30x,bogus:5");
  ASSERT_EQ(f.items.size(), 3u);
  EXPECT_EQ(f.items[0].width, 20);
  EXPECT_EQ(f.items[1].field, SinfoField::kGresUsed);
  EXPECT_TRUE(f.items[1].right);
  EXPECT_EQ(f.items[1].width, 30);
  EXPECT_EQ(f.items[1].suffix, "x");
  EXPECT_EQ(f.warnings,
            std::vector<std::string>{"sinfo: error: Invalid job format specification: bogus"});
}

TEST(SinfoReservations, SlurmsColumnsWithTheNameAsWideAsTheLongest) {
  setenv("TZ", "UTC", 1);
  v1::GetReservationsReply reply;
  EXPECT_EQ(FormatSinfoReservations(reply, false), "No reservations in the system\n");
  v1::ReservationInfo* resv = reply.add_reservations();
  resv->set_name("lab");
  resv->set_start_time(1800000000);
  resv->set_end_time(1800003600);
  resv->add_nodes("n1");
  resv->add_nodes("n2");
  v1::ReservationInfo* maint = reply.add_reservations();
  *maint = *resv;
  maint->set_name("maintenance_window");
  maint->set_active(true);
  EXPECT_EQ(FormatSinfoReservations(reply, false),
            "RESV_NAME              STATE           START_TIME             END_TIME     DURATION  "
            "NODELIST\n"
            "lab                 INACTIVE  2027-01-15T08:00:00  2027-01-15T09:00:00     01:00:00  "
            "n[1-2]\n"
            "maintenance_window    ACTIVE  2027-01-15T08:00:00  2027-01-15T09:00:00     01:00:00  "
            "n[1-2]\n");
}

}  // namespace
}  // namespace skiff::cli
