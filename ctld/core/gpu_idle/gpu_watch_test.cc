#include "ctld/core/gpu_idle/gpu_watch.h"

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"

namespace skiff::ctld {
namespace {

JobGpuReport Report(std::vector<int> peaks) {
  JobGpuReport r;
  r.job_id = 7;
  r.gpus.resize(peaks.size());
  r.recent_peaks = std::move(peaks);
  return r;
}

GpuIdlePolicy Policy(GpuIdlePolicy::Action action) {
  GpuIdlePolicy p;
  p.enabled = true;
  p.threshold_percent = 5;
  p.window_seconds = 600;
  p.grace_seconds = 60;
  p.action = action;
  return p;
}

TEST(GpuWatch, IdleFromThePeriodsStartWarnedAfterTheWindowActedOnAfterTheGrace) {
  const GpuIdlePolicy policy = Policy(GpuIdlePolicy::Action::kCancel);
  GpuWatch w;
  ObserveGpus(Report({50, 2}), 5, 1000, &w);  // busy
  EXPECT_EQ(w.idle_since, 0);
  ObserveGpus(Report({4, 2}), 5, 1030, &w);  // idle since the last report
  EXPECT_EQ(w.idle_since, 1000);
  ObserveGpus(Report({-1, 0}), 5, 1060, &w);  // one GPU not sampled: no change
  EXPECT_EQ(w.idle_since, 1000);
  EXPECT_EQ(NextIdleStep(policy, w, 1599), IdleStep::kNone);
  EXPECT_EQ(NextIdleStep(policy, w, 1600), IdleStep::kWarn);
  w.warned_at = 1600;
  EXPECT_EQ(NextIdleStep(policy, w, 1659), IdleStep::kNone);
  EXPECT_EQ(NextIdleStep(policy, w, 1660), IdleStep::kAct);
  EXPECT_EQ(NextIdleStep(Policy(GpuIdlePolicy::Action::kNotify), w, 9999), IdleStep::kNone);
}

TEST(GpuWatch, AWarnedJobThatIsBusyAgainIsLeftAlone) {
  const GpuIdlePolicy policy = Policy(GpuIdlePolicy::Action::kRequeue);
  GpuWatch w;
  ObserveGpus(Report({0}), 5, 1000, &w);
  ObserveGpus(Report({0}), 5, 2000, &w);
  w.warned_at = 2000;
  ObserveGpus(Report({5}), 5, 2030, &w);
  EXPECT_EQ(w.idle_since, 0);
  EXPECT_EQ(w.warned_at, 0);
  EXPECT_EQ(NextIdleStep(policy, w, 99999), IdleStep::kNone);
  // Without a policy a job is never idle, but its figures are kept.
  GpuWatch plain;
  JobGpuReport r = Report({0});
  r.gpus[0].util_max = 3;
  ObserveGpus(r, 0, 1000, &plain);
  ObserveGpus(r, 0, 2000, &plain);
  EXPECT_EQ(plain.idle_since, 0);
  EXPECT_EQ(plain.usage[0].util_max, 3);
}

// A multi-node job: the batch host reports all along, another node while the
// job's steps run there. Each node's figures replace its own; a busy GPU on
// the other node keeps the job busy, and its idleness starts no earlier than
// that node's last busy report.
TEST(GpuWatch, AnotherNodesBusyGpuKeepsAMultiNodeJobBusy) {
  const GpuIdlePolicy policy = Policy(GpuIdlePolicy::Action::kCancel);
  GpuWatch w;
  auto from = [](const std::string& node, bool batch_host, std::vector<int> peaks) {
    JobGpuReport r = Report(std::move(peaks));
    r.node = node;
    r.batch_host = batch_host;
    for (GpuUsage& g : r.gpus) g.util_max = r.recent_peaks.front();
    return r;
  };
  ObserveGpus(from("n1", true, {0}), 5, 1000, &w);
  ObserveGpus(from("n2", false, {90, 80}), 5, 1010, &w);
  ObserveGpus(from("n1", true, {0}), 5, 1030, &w);
  EXPECT_EQ(w.idle_since, 1010) << "not before n2 was last busy";
  ASSERT_EQ(w.usage.size(), 3u);
  EXPECT_EQ(w.usage[0].node, "n2");
  EXPECT_EQ(w.usage[2].node, "n1");
  // n2 busy again: the job is busy; its figures replace n2's, n1's stay.
  ObserveGpus(from("n2", false, {70, 0}), 5, 1040, &w);
  EXPECT_EQ(w.idle_since, 0);
  ASSERT_EQ(w.usage.size(), 3u);
  EXPECT_EQ(w.usage[1].node, "n2");
  EXPECT_EQ(w.usage[1].util_max, 70);
  // Another node's idle GPUs alone never make a job idle...
  ObserveGpus(from("n2", false, {0, 0}), 5, 1070, &w);
  EXPECT_EQ(w.idle_since, 0);
  // ...the batch host's do, from the later of its last report and n2's busy one.
  ObserveGpus(from("n1", true, {0}), 5, 1100, &w);
  EXPECT_EQ(w.idle_since, 1040);
  EXPECT_EQ(NextIdleStep(policy, w, 1640), IdleStep::kWarn);
}

TEST(GpuWatch, ThePartitionsPolicyWinsAndAnExemptQosHasNone) {
  SkiffConfig config;
  config.gpu_idle_policy = Policy(GpuIdlePolicy::Action::kCancel);
  config.gpu_idle_policy.exempt_qos = {"long"};
  PartitionConfig debug;
  debug.name = "debug";
  debug.gpu_idle_policy = GpuIdlePolicy{};  // "none"
  PartitionConfig gpu;
  gpu.name = "gpu";
  config.partitions = {debug, gpu};
  EXPECT_EQ(GpuIdlePolicyFor(config, "debug", "normal"), nullptr);
  EXPECT_EQ(GpuIdlePolicyFor(config, "gpu", "normal"), &config.gpu_idle_policy);
  EXPECT_EQ(GpuIdlePolicyFor(config, "gpu", "long"), nullptr);
  EXPECT_EQ(GpuIdlePolicyFor(SkiffConfig{}, "gpu", "normal"), nullptr);
}

TEST(GpuWatch, TheWarningAndTheReasonSayWhatAndWhen) {
  GpuWatch w;
  w.idle_since = 1000;
  w.warned_at = 1600;
  auto when = [](int64_t t) { return absl::StrCat("T", t); };
  EXPECT_EQ(GpuIdleWarning(Policy(GpuIdlePolicy::Action::kCancel), w, +when),
            "GPUs idle: every GPU of the job under 5% since T1000; it will be cancelled at T1660 "
            "unless one is used");
  EXPECT_EQ(GpuIdleWarning(Policy(GpuIdlePolicy::Action::kNotify), w, +when),
            "GPUs idle: every GPU of the job under 5% since T1000");
  EXPECT_EQ(GpuIdleReason(Policy(GpuIdlePolicy::Action::kCancel)), "GPUs idle under 5% for 11 min");
  GpuIdlePolicy quick = Policy(GpuIdlePolicy::Action::kCancel);
  quick.window_seconds = 3;
  quick.grace_seconds = 12;
  EXPECT_EQ(GpuIdleReason(quick), "GPUs idle under 5% for 15 s");
}

}  // namespace
}  // namespace skiff::ctld
