#include "noded/allocation_epilogs.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <future>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "noded/file_io.h"
#include "noded/gpu/gpu_usage.h"
#include "noded/job_files.h"
#include "spdlog/sinks/null_sink.h"

namespace skiff::noded {
namespace {

// The job manager's side: finished jobs as set by the test.
class FakeJobs final : public JobReportSource {
 public:
  std::vector<JobReport> Jobs() override { return FinishedJobs(); }
  std::vector<JobReport> FinishedJobs() override {
    std::lock_guard<std::mutex> lock(mu_);
    return finished_;
  }
  void Acknowledge(uint64_t job_id) override {
    std::lock_guard<std::mutex> lock(mu_);
    acknowledged_.push_back(job_id);
  }
  void Abandon(uint64_t) override {}
  void Finish(uint64_t job_id, int exit_code) {
    std::lock_guard<std::mutex> lock(mu_);
    JobReport report;
    report.job_id = job_id;
    report.finished = true;
    report.result.exit_code = exit_code;
    finished_.push_back(report);
  }
  std::vector<uint64_t> acknowledged_;

 private:
  std::mutex mu_;
  std::vector<JobReport> finished_;
};

// The other nodes: each answers as the test says, or waits until cancelled.
class FakeNodes final : public OtherNodes {
 public:
  absl::StatusOr<OtherNodeEnd> EndJobOnNode(uint64_t job_id, const AllocatedNode& node,
                                            const std::string& spec_text,
                                            const JobResult& result) override {
    std::unique_lock<std::mutex> lock(mu_);
    calls_.push_back(absl::StrCat(job_id, " ", node.name, " ", node.address, " exit ",
                                  result.exit_code, spec_text.empty() ? " no spec" : ""));
    if (hang_) {
      cv_.wait(lock, [this] { return cancelled_; });
      return absl::CancelledError("cancelled");
    }
    OtherNodeEnd end;
    if (auto gpus = gpus_.find(node.name); gpus != gpus_.end()) end.gpus = gpus->second;
    auto it = answers_.find(node.name);
    if (it == answers_.end()) return end;
    if (!it->second.ok()) return it->second.status();
    end.epilog_error = *it->second;
    return end;
  }
  void CancelAll() override {
    std::lock_guard<std::mutex> lock(mu_);
    cancelled_ = true;
    cv_.notify_all();
  }
  std::vector<std::string> Calls() {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_;
  }
  std::map<std::string, absl::StatusOr<std::string>> answers_;  // the Epilog's error
  std::map<std::string, std::vector<GpuUse>> gpus_;             // what each sampled
  bool hang_ = false;

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool cancelled_ = false;
  std::vector<std::string> calls_;
};

class AllocationEpilogsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/allocation_epilogs_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    spool_ = tmpl;
  }
  void TearDown() override { (void)system(absl::StrCat("rm -rf ", spool_).c_str()); }

  std::string Dir(uint64_t id) const { return absl::StrCat(spool_, "/", JobDirName(id)); }
  // A job directory whose spec names `nodes` (the first is this node).
  void MakeJob(uint64_t id, const std::vector<std::string>& nodes) {
    ASSERT_EQ(mkdir(Dir(id).c_str(), 0700), 0);
    LaunchSpec spec;
    spec.job_id = id;
    spec.user_name = "alice";
    for (const std::string& name : nodes) {
      AllocatedNode node;
      node.name = name;
      node.address = absl::StrCat(name, ":6818");
      node.cpus = 2;
      spec.allocation.push_back(node);
    }
    ASSERT_TRUE(
        WriteFileAtomically(absl::StrCat(Dir(id), "/", kSpecFileName), FormatLaunchSpec(spec), 0600)
            .ok());
  }
  std::unique_ptr<AllocationEpilogs> Make() {
    auto epilogs = std::make_unique<AllocationEpilogs>(
        jobs_, [this](uint64_t id) { return Dir(id); }, nodes_, logger_);
    epilogs->SetFinishedListener([this] {
      std::lock_guard<std::mutex> lock(mu_);
      ++ready_signals_;
      cv_.notify_all();
    });
    return epilogs;
  }
  // Waits (bounded) for the listener to say that `n` jobs became ready.
  bool WaitForReady(int n) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(20), [&] { return ready_signals_ >= n; });
  }

  std::string spool_;
  FakeJobs jobs_;
  FakeNodes nodes_;
  spdlog::logger logger_{"test", std::make_shared<spdlog::sinks::null_sink_mt>()};
  std::mutex mu_;
  std::condition_variable cv_;
  int ready_signals_ = 0;
};

TEST_F(AllocationEpilogsTest, AOneNodeJobIsReportedAtOnceWithoutAskingAnyNode) {
  MakeJob(7, {"n1"});
  jobs_.Finish(7, 3);
  auto epilogs = Make();
  std::vector<JobReport> ready = epilogs->FinishedJobs();
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(ready[0].result.exit_code, 3);
  EXPECT_TRUE(epilogs->Jobs()[0].finished);
  EXPECT_TRUE(nodes_.Calls().empty());
}

TEST_F(AllocationEpilogsTest, AMultiNodeJobWaitsForItsOtherNodesAndCarriesTheirFailures) {
  MakeJob(8, {"n1", "n2", "n3"});
  nodes_.answers_["n3"] = std::string("exit code 3: no scratch");
  // n2 sampled the job's GPU there (its steps ran on it); n3 has none.
  GpuUse sampled;
  sampled.index = 1;
  sampled.samples = 4;
  sampled.util_sum = 200;
  nodes_.gpus_["n2"] = {sampled};
  jobs_.Finish(8, 0);
  auto epilogs = Make();
  // Before the other nodes have answered, ctld sees the job still running.
  EXPECT_TRUE(epilogs->FinishedJobs().empty());
  ASSERT_EQ(epilogs->Jobs().size(), 1u);
  EXPECT_FALSE(epilogs->Jobs()[0].finished);

  epilogs->Start();
  epilogs->Wake();
  ASSERT_TRUE(WaitForReady(1));
  std::vector<JobReport> ready = epilogs->FinishedJobs();
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(ready[0].result.node_epilog_errors,
            (std::vector<NodeScriptError>{{"n3", "exit code 3: no scratch"}}));
  std::vector<std::string> calls = nodes_.Calls();
  std::sort(calls.begin(), calls.end());
  EXPECT_EQ(calls, (std::vector<std::string>{"8 n2 n2:6818 exit 0", "8 n3 n3:6818 exit 0"}));
  // Their GPUs, named by node, for the GPU monitor to add to the report.
  sampled.node = "n2";
  absl::StatusOr<std::string> others =
      ReadFile(absl::StrCat(Dir(8), "/", kOtherNodesGpuUsageFileName));
  ASSERT_TRUE(others.ok()) << others.status();
  EXPECT_EQ(ParseGpuUses(*others).value(), (std::vector<GpuUse>{sampled}));
  epilogs->Stop();

  // A restarted noded reads the outcome from the job's directory: no node is
  // asked again.
  auto again = Make();
  ready = again->FinishedJobs();
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(ready[0].result.node_epilog_errors.size(), 1u);
  EXPECT_EQ(nodes_.Calls().size(), 2u);
}

TEST_F(AllocationEpilogsTest, ANodeThatCannotBeReachedIsNotBlamed) {
  MakeJob(9, {"n1", "n2"});
  nodes_.answers_["n2"] = absl::UnavailableError("connection refused");
  jobs_.Finish(9, 1);
  auto epilogs = Make();
  epilogs->Start();
  ASSERT_TRUE(WaitForReady(1));  // found by the worker's own look, unwoken
  std::vector<JobReport> ready = epilogs->FinishedJobs();
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_TRUE(ready[0].result.node_epilog_errors.empty());
  EXPECT_EQ(nodes_.Calls(), (std::vector<std::string>{"9 n2 n2:6818 exit 1"}));
}

TEST_F(AllocationEpilogsTest, StoppingWhileANodeRunsItsEpilogLeavesTheJobToAskAgain) {
  MakeJob(10, {"n1", "n2"});
  nodes_.hang_ = true;
  jobs_.Finish(10, 0);
  auto epilogs = Make();
  epilogs->Start();
  epilogs->Wake();
  for (int i = 0; i < 2000 && nodes_.Calls().empty(); ++i) usleep(1000);
  ASSERT_EQ(nodes_.Calls().size(), 1u);
  epilogs->Stop();  // cancels the call and joins
  EXPECT_FALSE(ReadFile(absl::StrCat(Dir(10), "/", kNodeEpilogsFileName)).ok());
  EXPECT_TRUE(epilogs->FinishedJobs().empty());
  EXPECT_EQ(ready_signals_, 0);
}

TEST_F(AllocationEpilogsTest, NodeEpilogsFileRoundTrips) {
  const std::vector<NodeScriptError> failures = {{"n2", "exit code 1: a\tb\nc"}, {"n4", "x"}};
  absl::StatusOr<std::vector<NodeScriptError>> parsed =
      ParseNodeEpilogs(FormatNodeEpilogs(failures));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(*parsed, failures);
  EXPECT_TRUE(ParseNodeEpilogs(FormatNodeEpilogs({}))->empty());
  EXPECT_FALSE(ParseNodeEpilogs("failed=no-tab\n").ok());
}

}  // namespace
}  // namespace skiff::noded
