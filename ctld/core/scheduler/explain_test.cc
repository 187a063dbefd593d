#include "ctld/core/scheduler/explain.h"

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "ctld/core/scheduler/test_util.h"

namespace skiff::ctld {
namespace {

using testing_util::MakeJob;
using testing_util::MakeNode;
using testing_util::MakeRunning;
using testing_util::MakeView;

constexpr int64_t kNow = 1000;

// Times as seconds from now, so the text is exact.
std::string InSeconds(int64_t t) { return absl::StrCat("now+", t - kNow, "s"); }

// g1 (2 a100) runs job 7 for another 30 minutes, g2 (2 v100) job 8 for
// another 10; "cpu" holds one idle CPU-only node.
ClusterView Lab() {
  ClusterView view = MakeView({MakeNode("g1", 8, 2, 0), MakeNode("g2", 8, 2, 1)});
  view.nodes.push_back(MakeNode("c1", 8));
  SchedPartition cpu;
  cpu.name = "cpu";
  cpu.nodes = {2};
  view.partitions.push_back(cpu);
  view.running.push_back(MakeRunning(7, 1, {0}, 8, {{0, 1}}, kNow - 600, 2400));
  view.running.push_back(MakeRunning(8, 1, {1}, 8, {{0, 1}}, kNow - 600, 1200));
  return view;
}

ExplainRequest Request(const ClusterView& view, PendingJob job, const std::string& reason) {
  ExplainRequest request;
  request.view = &view;
  request.job = std::move(job);
  request.name = "train";
  request.reason = reason;
  request.now = kNow;
  request.format_time = InSeconds;
  return request;
}

TEST(Explain, NamesTheReasonTheBusyNodesTheStartAndWhatWouldBeSooner) {
  const ClusterView view = Lab();
  PendingJob job = MakeJob(42, 0, 4, 2);
  job.gpu_type = 0;  // a100 only: g1, busy for 30 minutes
  EXPECT_EQ(ExplainPending(Request(view, job, "Resources")),
            "Job 42 (train) is pending (Resources): the nodes it could use are busy. It asks for "
            "1 node with 4 CPUs, 2 GPUs (a100) for 1 hour in partition debug. Its nodes are busy: "
            "g1 until now+1800s (job 7). If no job ahead of it took them first, it would start at "
            "now+1800s. It would start sooner on v100 GPUs (at now+600s).");
}

TEST(Explain, SaysWhenNothingWouldHelp) {
  const ClusterView view = Lab();
  PendingJob job = MakeJob(43, 0, 4, 1);  // any type: g2 frees first
  const std::string text = ExplainPending(Request(view, job, "Priority"));
  EXPECT_NE(text.find("(Priority): jobs ahead of it in the queue take the free resources first."),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Its nodes are busy: g1 until now+1800s (job 7), g2 until now+600s (job 8)."),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("it would start at now+600s."), std::string::npos) << text;
  EXPECT_EQ(text.find("sooner"), std::string::npos) << text;
}

TEST(Explain, OffersAnotherPartitionAndFewerGpus) {
  ClusterView view = Lab();
  // A CPU-only job waiting in debug would start now in "cpu".
  PendingJob cpu_job = MakeJob(44, 0, 8);
  std::string text = ExplainPending(Request(view, cpu_job, "Resources"));
  EXPECT_NE(text.find("It would start sooner in partition cpu (now)."), std::string::npos) << text;
  // A partition the job may not use is not offered.
  view.partitions[1].allow_accounts = {1};
  text = ExplainPending(Request(view, cpu_job, "Resources"));
  EXPECT_EQ(text.find("partition cpu"), std::string::npos) << text;

  // Two GPUs on a node whose job holds one of them: one GPU starts now.
  ClusterView shared = MakeView({MakeNode("g1", 8, 2, 0)});
  shared.running.push_back(MakeRunning(9, 1, {0}, 1, {{0}}, kNow, 3600));
  text = ExplainPending(Request(shared, MakeJob(45, 0, 1, 2), "Resources"));
  EXPECT_NE(text.find("It would start sooner with 1 GPU per node (now)."), std::string::npos)
      << text;
}

// Shards: a job asking three of a GPU's four, with two held on each GPU by
// jobs ending in 10 and 30 minutes, starts at the first end; two would start
// now. The per-GPU rule holds now: four free shards over two GPUs are not three.
TEST(Explain, ShardJobsAreOfferedFewerShards) {
  SchedNode g1 = MakeNode("g1", 8, 2);
  g1.gpu_shares = {4, 4};
  ClusterView view = MakeView({g1});
  RunningJob first = MakeRunning(9, 1, {0}, 1, {{}}, kNow, 600);
  first.shares = {{0, 2}};
  RunningJob second = MakeRunning(10, 1, {0}, 1, {{}}, kNow, 1800);
  second.shares = {{1, 2}};
  view.running = {first, second};
  PendingJob job = MakeJob(46, 0, 1);
  job.shares_per_node = 3;
  const std::string text = ExplainPending(Request(view, job, "Resources"));
  EXPECT_NE(text.find("It asks for 1 node with 1 CPU, 3 GPU shards for 1 hour"), std::string::npos)
      << text;
  EXPECT_NE(text.find("it would start at now+600s."), std::string::npos) << text;
  EXPECT_NE(text.find("It would start sooner with 2 GPU shards per node (now)."), std::string::npos)
      << text;
}

TEST(Explain, ReasonsWithoutPlainWordsAreQuotedAndUnknownPartitionsStopEarly) {
  const ClusterView view = Lab();
  PendingJob job = MakeJob(46, 0, 1);
  job.partition = 9;
  EXPECT_EQ(ExplainPending(Request(view, job, "SomethingNew")),
            "Job 46 (train) is pending (SomethingNew).");
  EXPECT_EQ(PlainReason("AssocGrpGRESMinutes"),
            "its account's GPU-minutes budget (GrpTRESMins=gres/gpu) has too little left for the "
            "most it may use");
  // Every TRES of a family reads the same.
  EXPECT_EQ(PlainReason("MaxGRESRunMinsPerUser"), PlainReason("MaxCpuRunMinsPerUser"));
  EXPECT_NE(PlainReason("QOSMaxGRESMinutesPerJob").find("MaxTRESMinsPerJob"), std::string::npos);
  EXPECT_NE(PlainReason("AssocGrpGRESRunMinutes").find("GrpTRESRunMins"), std::string::npos);
}

}  // namespace
}  // namespace skiff::ctld
