// The job lifecycle through the Controller with fake clients, store and clock:
// no gRPC, no daemons. Actions run on the Controller's work queue, so tests wait
// for observable effects with a generous deadline instead of sleeping.
#include "ctld/controller.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "absl/strings/str_cat.h"
#include "common/sha256.h"
#include "ctld/core/lifecycle/lifecycle_test_util.h"  // TestConfig: two nodes n1, n2
#include "proto/job.pb.h"                             // the spec blob sbatch would send
#include "spdlog/sinks/null_sink.h"

namespace skiff::ctld {
namespace {

class FakeStore : public JobStore {
 public:
  absl::Status Save(std::vector<Job> jobs, std::vector<RecordRow> records) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (full) return absl::ResourceExhaustedError("sqlite: database or disk is full");
    for (Job& job : jobs) {
      auto it = jobs_.find(job.id);
      if (it == jobs_.end() || it->second.version < job.version) jobs_[job.id] = job;
    }
    for (RecordRow& record : records) {
      if (record.blob.empty()) {
        records_[record.kind].erase(record.key);  // as the real store deletes it
      } else {
        records_[record.kind][record.key] = record.blob;
      }
    }
    for (Job& job : jobs) specs_.emplace(job.id, job.spec_blob);  // the first save's
    return absl::OkStatus();
  }
  absl::StatusOr<std::string> LoadSpec(uint64_t id) override {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = specs_.find(id);
    if (it == specs_.end()) return absl::NotFoundError("no spec");
    return it->second;
  }
  void SetFull(bool value) {
    std::lock_guard<std::mutex> lock(mu_);
    full = value;
  }

  // Gated: SaveInOrder queues writes until ReleaseQueued ends them, in order,
  // all stored or (a failure, as the real store fails every write after one)
  // none of them.
  std::unique_ptr<Ticket> SaveInOrder(std::vector<Job> jobs,
                                      std::vector<RecordRow> records) override {
    std::unique_lock<std::mutex> lock(mu_);
    if (!gated_) {
      lock.unlock();
      return JobStore::SaveInOrder(std::move(jobs), std::move(records));
    }
    auto write = std::make_shared<QueuedWrite>();
    write->jobs = std::move(jobs);
    write->records = std::move(records);
    queued_.push_back(write);
    return std::make_unique<QueuedTicket>(this, write);
  }
  void Gate(bool value) {
    std::lock_guard<std::mutex> lock(mu_);
    gated_ = value;
  }
  size_t Queued() {
    std::lock_guard<std::mutex> lock(mu_);
    return queued_.size();
  }
  void ReleaseQueued(bool stored) {
    std::vector<std::shared_ptr<QueuedWrite>> writes;
    {
      std::lock_guard<std::mutex> lock(mu_);
      writes.swap(queued_);
    }
    for (const auto& write : writes) {
      absl::Status result = stored
                                ? Save(write->jobs, write->records)
                                : absl::ResourceExhaustedError("sqlite: database or disk is full");
      std::lock_guard<std::mutex> lock(mu_);
      write->result = result;
      write->done = true;
    }
    written_.notify_all();
  }
  void Resume() override {
    std::lock_guard<std::mutex> lock(mu_);
    ++resumes;
  }
  int Resumes() {
    std::lock_guard<std::mutex> lock(mu_);
    return resumes;
  }
  absl::StatusOr<std::vector<Job>> LoadActive(int64_t) override {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<Job> out;
    for (auto& [id, job] : jobs_) out.push_back(job);
    return out;
  }
  absl::StatusOr<uint64_t> MaxJobId() override {
    std::lock_guard<std::mutex> lock(mu_);
    return jobs_.empty() ? 0 : jobs_.rbegin()->first;
  }
  Job Get(uint64_t id) {
    std::lock_guard<std::mutex> lock(mu_);
    return jobs_[id];
  }
  absl::StatusOr<std::vector<Job>> QueryJobs(const JobQuery& query) override {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<Job> out;
    for (auto& [id, job] : jobs_) {
      const bool named =
          std::find(query.ids.begin(), query.ids.end(), id) != query.ids.end() ||
          std::find(query.ids.begin(), query.ids.end(), job.array_job_id) != query.ids.end();
      if (!query.ids.empty() && !named) continue;
      out.push_back(job);
      out.back().spec_blob.clear();
    }
    return out;
  }
  absl::Status ForgetSpecs(int64_t) override { return absl::OkStatus(); }
  absl::StatusOr<std::vector<UsageSum>> SumUsage(int64_t, int64_t, int64_t) override {
    return std::vector<UsageSum>{};
  }
  absl::StatusOr<std::map<std::string, std::string>> LoadRecords(const std::string& kind) override {
    std::lock_guard<std::mutex> lock(mu_);
    return records_[kind];
  }

 private:
  struct QueuedWrite {
    std::vector<Job> jobs;
    std::vector<RecordRow> records;
    absl::Status result;
    bool done = false;
  };
  class QueuedTicket : public Ticket {
   public:
    QueuedTicket(FakeStore* store, std::shared_ptr<QueuedWrite> write)
        : store_(store), write_(std::move(write)) {}
    absl::Status Wait() override {
      std::unique_lock<std::mutex> lock(store_->mu_);
      store_->written_.wait(lock, [&] { return write_->done; });
      return write_->result;
    }

   private:
    FakeStore* store_;
    std::shared_ptr<QueuedWrite> write_;
  };

  std::mutex mu_;
  std::condition_variable written_;
  bool gated_ = false;
  std::vector<std::shared_ptr<QueuedWrite>> queued_;
  int resumes = 0;
  bool full = false;  // every Save fails as on a full disk
  std::map<uint64_t, Job> jobs_;
  std::map<uint64_t, std::string> specs_;  // as first saved
  std::map<std::string, std::map<std::string, std::string>> records_;
};

class FakeNodes : public NodedPort {
 public:
  absl::Status LaunchJob(const std::string& target, const BatchLaunch& launch) override {
    std::lock_guard<std::mutex> lock(mu_);
    events.push_back("launch " + std::to_string(launch.job_id) + " on " + target);
    ++attempts[launch.job_id];
    if (unreachable_launches > 0) {
      --unreachable_launches;
      return absl::UnavailableError("failed to connect to all addresses");
    }
    if (unreachable_forever) return absl::UnavailableError("failed to connect to all addresses");
    launches[launch.job_id] = launch;
    return launch_result;
  }
  absl::Status SignalJob(const std::string&, uint64_t job_id, int signal, SignalScope) override {
    std::lock_guard<std::mutex> lock(mu_);
    events.push_back("signal " + std::to_string(job_id) + " " + std::to_string(signal));
    return absl::OkStatus();
  }
  absl::Status TerminateJob(const std::string&, uint64_t job_id, int) override {
    std::lock_guard<std::mutex> lock(mu_);
    events.push_back("terminate " + std::to_string(job_id));
    return absl::OkStatus();
  }
  std::vector<std::string> Events() {
    std::lock_guard<std::mutex> lock(mu_);
    return events;
  }

  std::mutex mu_;
  std::vector<std::string> events;
  std::map<uint64_t, BatchLaunch> launches;  // the launches noded took
  std::map<uint64_t, int> attempts;          // every launch call, per job
  absl::Status launch_result;
  int unreachable_launches = 0;      // the next N launches cannot reach noded
  bool unreachable_forever = false;  // no launch reaches noded
};

class FakeScripts : public ScriptdPort {
 public:
  absl::StatusOr<ScriptEnd> RunScript(const ScriptCall& call) override {
    std::lock_guard<std::mutex> lock(mu_);
    runs.push_back(call.request_id);
    ScriptEnd end;
    end.exit_code = call.request_id.rfind("prolog", 0) == 0 ? prolog_exit : 0;
    end.output_tail = "prolog says no\n";
    return end;
  }
  void KillScript(const std::string&) override {}
  std::vector<std::string> Runs() {
    std::lock_guard<std::mutex> lock(mu_);
    return runs;
  }

  std::mutex mu_;
  std::vector<std::string> runs;
  int prolog_exit = 0;
};

bool Eventually(const std::function<bool()>& predicate) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    if (predicate()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return predicate();
}

class ControllerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    logger_ =
        std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::null_sink_mt>());
  }

  void Make(SkiffConfig config = TestConfig()) {
    controller_ = std::make_unique<Controller>(
        config, "/etc/skiff/skiff.conf", std::set<uid_t>{},
        Controller::Deps{&clock_, logger_.get(), &store_, &nodes_, &scripts_});
    if (join_) controller_->EnableJoin(*join_);
    ASSERT_TRUE(controller_->Recover().ok());
    controller_->Start();
    for (const char* name : {"n1", "n2"}) {
      NodeRegistration reg;
      reg.node_name = name;
      reg.cpus = 2;
      reg.real_memory_mb = 1000;
      ASSERT_TRUE(controller_->RegisterNode(reg, {}).ok());
    }
  }

  SubmitRequest NewJob(uid_t uid = 1001, int cpus = 1) {
    SubmitRequest job;
    job.uid = uid;
    job.user_name = uid == 0 ? "root" : "alice";
    job.name = "j";
    job.partition = "debug";
    job.cpus_per_task = cpus;
    job.time_limit = 600;
    job.script = "#!/bin/sh\ntrue\n";
    job.work_dir = "/tmp";
    v1::JobSpec spec;
    spec.set_script(job.script);
    spec.set_work_dir(job.work_dir);
    job.spec_blob = spec.SerializeAsString();
    return job;
  }

  JobState StateOf(uint64_t id) {
    std::vector<Job> jobs = controller_->SnapshotJobs({{id}});
    return jobs.empty() ? JobState::kPreempted : jobs[0].state;
  }

  bool Launched(uint64_t id) {
    std::lock_guard<std::mutex> lock(nodes_.mu_);
    return nodes_.launches.count(id) > 0;
  }

  void TearDown() override {
    if (controller_) controller_->Stop();
  }

  FakeClock clock_{1000};
  std::optional<Controller::JoinSettings> join_;  // EnableJoin before Recover when set
  std::shared_ptr<spdlog::logger> logger_;
  FakeStore store_;
  FakeNodes nodes_;
  FakeScripts scripts_;
  std::unique_ptr<Controller> controller_;
};

TEST_F(ControllerTest, JobRunsAndCompletesThroughPrologLaunchAndEpilog) {
  SkiffConfig config = TestConfig();
  config.prolog_ctld = "/bin/true";
  config.epilog_ctld = "/bin/true";
  Make(config);
  absl::StatusOr<uint64_t> id = controller_->SubmitJob(NewJob());
  ASSERT_TRUE(id.ok());
  // Durable before it is returned (a scheduling pass may have stored its start
  // already: the scheduler thread runs beside this one).
  EXPECT_EQ(store_.Get(*id).id, *id) << "durable before it is returned";
  EXPECT_GE(store_.Get(*id).version, 1u);
  ASSERT_TRUE(Eventually([&] { return StateOf(*id) == JobState::kRunning; }));
  EXPECT_EQ(scripts_.Runs(), std::vector<std::string>{"prolog-1-0"});
  ASSERT_TRUE(Launched(*id));
  EXPECT_EQ(nodes_.launches[*id].environment.at("SLURM_JOB_ID"), "1");
  EXPECT_EQ(nodes_.launches[*id].stdout_path, "/tmp/slurm-1.out");

  ASSERT_TRUE(controller_->JobComplete("n1", {*id, true, 0, 0, ""}).ok());
  ASSERT_TRUE(Eventually([&] { return StateOf(*id) == JobState::kCompleted; }));
  EXPECT_EQ(scripts_.Runs(), (std::vector<std::string>{"prolog-1-0", "epilog-1-0"}));
  // Stored by the thread that decided it, after it is decided (Commit: the
  // store writes outside the state lock), so a reader may see it first.
  EXPECT_TRUE(Eventually([&] { return store_.Get(*id).state == JobState::kCompleted; }));
  // A repeated completion report is harmless.
  EXPECT_TRUE(controller_->JobComplete("n1", {*id, true, 0, 0, ""}).ok());
}

// A submitter whose deadline passed or whose connection closed while its
// submission was being decided has been told it failed: the job must not
// exist, and its id is given to the next submission.
TEST_F(ControllerTest, ASubmissionWhoseCallerGaveUpIsNeverStored) {
  Make();
  absl::StatusOr<uint64_t> gone = controller_->SubmitJob(NewJob(), [] { return true; });
  EXPECT_EQ(gone.status().code(), absl::StatusCode::kCancelled) << gone.status();
  EXPECT_TRUE(controller_->SnapshotJobs({}).empty());
  absl::StatusOr<uint64_t> id = controller_->SubmitJob(NewJob(), [] { return false; });
  ASSERT_TRUE(id.ok()) << id.status();
  EXPECT_EQ(store_.Get(*id).id, *id);
  EXPECT_EQ(controller_->SnapshotJobs({}).size(), 1u);
}

TEST_F(ControllerTest, NonZeroExitIsFailed) {
  Make();
  uint64_t id = *controller_->SubmitJob(NewJob());
  ASSERT_TRUE(Eventually([&] { return StateOf(id) == JobState::kRunning; }));
  ASSERT_TRUE(controller_->JobComplete("n1", {id, true, 3, 0, ""}).ok());
  ASSERT_TRUE(Eventually([&] { return StateOf(id) == JobState::kFailed; }));
  EXPECT_EQ(controller_->SnapshotJobs({{id}})[0].exit_code, 3);
}

TEST_F(ControllerTest, FinishedJobsAccrueFairShareUsageThatSurvivesARestart) {
  Make();
  uint64_t id = *controller_->SubmitJob(NewJob());
  ASSERT_TRUE(Eventually([&] { return StateOf(id) == JobState::kRunning; }));
  clock_.Advance(100);
  ASSERT_TRUE(controller_->JobComplete("n1", {id, true, 0, 0, ""}).ok());
  ASSERT_TRUE(Eventually([&] { return StateOf(id) == JobState::kCompleted; }));
  const Job job = controller_->SnapshotJobs({{id}})[0];
  const double expected = job.CpusOn(0) * 100.0;  // one node, 100 s, UsageFactor 1
  EXPECT_NEAR(controller_->UserUsage(job.user_name).usage, expected, 1e-6);
  // Persisted: a new controller on the same store starts with it.
  ASSERT_TRUE(Eventually([&] { return store_.LoadRecords("usage")->size() == 1; }));
  Make();
  EXPECT_NEAR(controller_->UserUsage(job.user_name).usage, expected, 1e-6);
}

TEST_F(ControllerTest, FailingPrologRequeuesTheJobHeld) {
  SkiffConfig config = TestConfig();
  config.prolog_ctld = "/bin/false";
  scripts_.prolog_exit = 1;
  Make(config);
  uint64_t id = *controller_->SubmitJob(NewJob());
  ASSERT_TRUE(Eventually([&] {
    std::vector<Job> jobs = controller_->SnapshotJobs({{id}});
    return jobs[0].state == JobState::kPending && jobs[0].held;
  }));
  Job job = controller_->SnapshotJobs({{id}})[0];
  EXPECT_EQ(job.reason, "JobHeldAdmin");
  EXPECT_NE(job.reason_detail.find("PrologSlurmctld failed: exit code 1: prolog says no"),
            std::string::npos)
      << job.reason_detail;
  EXPECT_EQ(job.restart_count, 1);
  EXPECT_FALSE(Launched(id));
  EXPECT_TRUE(controller_->SnapshotNodes({})[0].alloc_cpus == 0) << "resources given back";
}

TEST_F(ControllerTest, OnlyTheOwnerOrAnAdminMayCancel) {
  Make();
  SkiffConfig config = TestConfig();
  uint64_t id = *controller_->SubmitJob(NewJob(1001, 2));
  ASSERT_TRUE(Eventually([&] { return StateOf(id) == JobState::kRunning; }));
  CancelSpec spec;
  spec.jobs = {{id}};
  std::vector<CancelOutcome> denied = *controller_->CancelJobs({1002, 1002}, spec);
  ASSERT_EQ(denied.size(), 1u);
  EXPECT_EQ(denied[0].status.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(StateOf(id), JobState::kRunning);

  std::vector<CancelOutcome> allowed = *controller_->CancelJobs({0, 0}, spec);
  ASSERT_TRUE(allowed[0].status.ok());
  ASSERT_TRUE(Eventually([&] {
    auto events = nodes_.Events();
    return std::find(events.begin(), events.end(), "terminate " + std::to_string(id)) !=
           events.end();
  }));
  ASSERT_TRUE(controller_->JobComplete("n1", {id, true, 0, 15, ""}).ok());
  ASSERT_TRUE(Eventually([&] { return StateOf(id) == JobState::kCancelled; }));
}

TEST_F(ControllerTest, CancelledPendingJobNeverStarts) {
  Make();
  // Fill both nodes so the third job pends.
  uint64_t a = *controller_->SubmitJob(NewJob(1001, 2));
  uint64_t b = *controller_->SubmitJob(NewJob(1001, 2));
  uint64_t c = *controller_->SubmitJob(NewJob(1001, 2));
  ASSERT_TRUE(Eventually(
      [&] { return StateOf(a) == JobState::kRunning && StateOf(b) == JobState::kRunning; }));
  ASSERT_TRUE(
      Eventually([&] { return controller_->SnapshotJobs({{c}})[0].reason == "Resources"; }));
  CancelSpec spec;
  spec.jobs = {{c}};
  ASSERT_TRUE((*controller_->CancelJobs({1001, 1001}, spec))[0].status.ok());
  EXPECT_EQ(StateOf(c), JobState::kCancelled);
  ASSERT_TRUE(controller_->JobComplete("n1", {a, true, 0, 0, ""}).ok());
  controller_->RunSchedulePass();
  EXPECT_FALSE(Launched(c));
}

TEST_F(ControllerTest, TimeLimitTerminatesAndEndsInTimeout) {
  SkiffConfig config = TestConfig();
  config.heartbeat_interval = 100;  // the nodes must not look silent after 61 s
  config.slurmd_timeout = 1000;
  Make(config);
  SubmitRequest job = NewJob();
  job.time_limit = 60;
  uint64_t id = *controller_->SubmitJob(job);
  ASSERT_TRUE(Eventually([&] { return StateOf(id) == JobState::kRunning; }));
  clock_.Advance(61);
  ASSERT_TRUE(Eventually([&] {
    auto events = nodes_.Events();
    return std::find(events.begin(), events.end(), "terminate " + std::to_string(id)) !=
           events.end();
  }));
  ASSERT_TRUE(controller_->JobComplete("n1", {id, true, 0, 9, ""}).ok());
  ASSERT_TRUE(Eventually([&] { return StateOf(id) == JobState::kTimeout; }));
}

// A noded restarting (issue 32 item 10): the launches it cannot take are
// tried again, and the job runs there; the node is not drained.
TEST_F(ControllerTest, ALaunchThatCannotReachTheNodeIsTriedAgainAndNothingIsDrained) {
  Make();
  {
    std::lock_guard<std::mutex> lock(nodes_.mu_);
    nodes_.unreachable_launches = 3;
  }
  SubmitRequest job = NewJob();
  job.nodelist = {"n1"};
  absl::StatusOr<uint64_t> id = controller_->SubmitJob(job);
  ASSERT_TRUE(id.ok()) << id.status();
  ASSERT_TRUE(Eventually([&] { return StateOf(*id) == JobState::kRunning; }));
  {
    std::lock_guard<std::mutex> lock(nodes_.mu_);
    EXPECT_EQ(nodes_.attempts[*id], 4);
  }
  EXPECT_EQ(controller_->SnapshotJobs({{*id}})[0].restart_count, 0);
  const std::vector<Node> n1 = controller_->SnapshotNodes({"n1"});
  ASSERT_EQ(n1.size(), 1u);
  EXPECT_FALSE(n1[0].drain) << n1[0].reason;
}

// A node that heartbeats but whose noded cannot be reached for SlurmdTimeout
// is blamed: drained, and the job requeued.
TEST_F(ControllerTest, ALaunchUnreachableForSlurmdTimeoutDrainsTheNodeAndRequeuesTheJob) {
  Make();
  {
    std::lock_guard<std::mutex> lock(nodes_.mu_);
    nodes_.unreachable_forever = true;
  }
  SubmitRequest job = NewJob();
  job.nodelist = {"n1"};
  absl::StatusOr<uint64_t> id = controller_->SubmitJob(job);
  ASSERT_TRUE(id.ok()) << id.status();
  auto attempts = [&] {
    std::lock_guard<std::mutex> lock(nodes_.mu_);
    return nodes_.attempts[*id];
  };
  ASSERT_TRUE(Eventually([&] { return attempts() >= 2; }));
  EXPECT_EQ(StateOf(*id), JobState::kConfiguring);
  EXPECT_FALSE(controller_->SnapshotNodes({"n1"})[0].drain);
  // SlurmdTimeout (60 s) passes with both nodes heartbeating.
  for (int i = 0; i < 13; ++i) {
    clock_.Advance(5);
    controller_->Heartbeat("n1");
    controller_->Heartbeat("n2");
  }
  ASSERT_TRUE(Eventually([&] { return StateOf(*id) == JobState::kPending; }))
      << JobStateName(StateOf(*id));
  EXPECT_EQ(controller_->SnapshotJobs({{*id}})[0].restart_count, 1);
  const std::vector<Node> n1 = controller_->SnapshotNodes({"n1"});
  EXPECT_TRUE(n1[0].drain);
  EXPECT_EQ(n1[0].reason, "batch job launch failure");
}

TEST_F(ControllerTest, SilentNodeRequeuesOrFailsItsJobs) {
  Make();
  SubmitRequest requeue = NewJob(1001, 2);
  SubmitRequest fail = NewJob(1001, 2);
  fail.requeue = false;
  uint64_t a = *controller_->SubmitJob(requeue);
  uint64_t b = *controller_->SubmitJob(fail);
  ASSERT_TRUE(Eventually(
      [&] { return StateOf(a) == JobState::kRunning && StateOf(b) == JobState::kRunning; }));
  clock_.Advance(61);  // neither node heartbeats
  ASSERT_TRUE(Eventually([&] { return StateOf(b) == JobState::kNodeFail; }));
  ASSERT_TRUE(Eventually([&] { return StateOf(a) == JobState::kPending; }));
  EXPECT_EQ(controller_->SnapshotJobs({{a}})[0].restart_count, 1);
}

// Raising a started job's limit is refused in the core (lifecycle_test).
TEST_F(ControllerTest, UserMayLowerTimeLimitButCannotReleaseAdminHold) {
  Make();
  SubmitRequest job = NewJob();
  job.hold = true;
  uint64_t id = *controller_->SubmitJob(job);
  JobUpdate lower;
  lower.job_id = id;
  lower.time_limit = 60;
  EXPECT_TRUE(controller_->UpdateJob({1001, 1001}, lower).ok());
  EXPECT_EQ(controller_->UpdateJob({1002, 1002}, lower).code(),
            absl::StatusCode::kPermissionDenied);
  JobUpdate admin_hold;
  admin_hold.job_id = id;
  admin_hold.held = true;
  ASSERT_TRUE(controller_->UpdateJob({0, 0}, admin_hold).ok());
  EXPECT_EQ(controller_->SnapshotJobs({{id}})[0].reason, "JobHeldAdmin");
  JobUpdate release;
  release.job_id = id;
  release.held = false;
  EXPECT_EQ(controller_->UpdateJob({1001, 1001}, release).code(),
            absl::StatusCode::kPermissionDenied);
  ASSERT_TRUE(controller_->UpdateJob({0, 0}, release).ok());
  ASSERT_TRUE(Eventually([&] { return StateOf(id) == JobState::kRunning; }));
}

TEST_F(ControllerTest, RestartedControllerResumesFromTheStore) {
  Make();
  uint64_t running = *controller_->SubmitJob(NewJob(1001, 2));
  ASSERT_TRUE(Eventually([&] { return StateOf(running) == JobState::kRunning; }));
  controller_->Stop();
  controller_.reset();

  // A new controller over the same store: the job is still RUNNING and holds n1.
  Make();
  EXPECT_EQ(StateOf(running), JobState::kRunning);
  EXPECT_EQ(controller_->SnapshotNodes({})[0].alloc_cpus, 2);
  // New ids continue after the old ones.
  EXPECT_EQ(*controller_->SubmitJob(NewJob()), running + 1);
  // The node reports the job finished while ctld was away.
  NodeRegistration reg;
  reg.node_name = "n1";
  reg.cpus = 2;
  reg.real_memory_mb = 1000;
  ASSERT_TRUE(controller_->RegisterNode(reg, {{running, true, 0, 0, ""}}).ok());
  ASSERT_TRUE(Eventually([&] { return StateOf(running) == JobState::kCompleted; }));
}

TEST_F(ControllerTest, BackfillStartsShortJobButNotOneThatWouldDelayTheBlockedJob) {
  Make();
  SubmitRequest running = NewJob(1001, 2);  // fills n1 for 600 s
  uint64_t a = *controller_->SubmitJob(running);
  ASSERT_TRUE(Eventually([&] { return StateOf(a) == JobState::kRunning; }));
  SubmitRequest wide = NewJob(1001, 2);  // needs both nodes: waits for `a`, reserves n1 and n2
  wide.min_nodes = 2;
  wide.ntasks = 2;
  wide.cpus_per_task = 2;
  uint64_t b = *controller_->SubmitJob(wide);
  SubmitRequest long_job = NewJob(1001, 2);
  long_job.time_limit = 6000;  // would still hold n2 when `b` may start
  uint64_t d = *controller_->SubmitJob(long_job);
  SubmitRequest short_job = NewJob(1001, 2);
  short_job.time_limit = 60;  // done long before `b` can start
  uint64_t c = *controller_->SubmitJob(short_job);
  ASSERT_TRUE(Eventually([&] { return StateOf(c) == JobState::kRunning; }));
  controller_->RunSchedulePass();
  EXPECT_EQ(StateOf(b), JobState::kPending);
  EXPECT_EQ(controller_->SnapshotJobs({{b}})[0].reason, "Resources");
  EXPECT_EQ(StateOf(d), JobState::kPending) << "backfill must not delay the blocked job";
}

// sdiag's counters follow the jobs through the real event path, and only
// privileged callers may zero them.
TEST_F(ControllerTest, StatsCountJobsAndPassesAndOnlyAdminsResetThem) {
  Make();
  uint64_t a = *controller_->SubmitJob(NewJob(1001, 2));  // fills n1 for 600 s
  ASSERT_TRUE(Eventually([&] { return StateOf(a) == JobState::kRunning; }));
  SubmitRequest wide = NewJob(1001, 2);  // needs both nodes: blocks the partition
  wide.min_nodes = 2;
  wide.ntasks = 2;
  uint64_t b = *controller_->SubmitJob(wide);
  SubmitRequest short_job = NewJob(1001, 2);
  short_job.time_limit = 60;  // backfilled onto n2
  uint64_t c = *controller_->SubmitJob(short_job);
  ASSERT_TRUE(Eventually([&] { return StateOf(c) == JobState::kRunning; }));
  CancelSpec spec;
  spec.jobs = {{b}};
  ASSERT_TRUE((*controller_->CancelJobs({1001, 1001}, spec))[0].status.ok());
  ASSERT_TRUE(controller_->JobComplete("n1", {a, true, 0, 0, ""}).ok());
  ASSERT_TRUE(Eventually([&] { return StateOf(a) == JobState::kCompleted; }));

  DiagStats::Snapshot stats = controller_->Stats();
  EXPECT_EQ(stats.jobs_submitted, 3u);
  EXPECT_EQ(stats.jobs_started, 2u);
  EXPECT_EQ(stats.jobs_completed, 1u);
  EXPECT_EQ(stats.jobs_canceled, 1u);
  EXPECT_EQ(stats.jobs_failed, 0u);
  EXPECT_EQ(stats.bf_backfilled_jobs, 1u);
  EXPECT_GE(stats.schedule_cycle_counter, 2u);
  EXPECT_GE(stats.schedule_cycle_depth, 2u);
  EXPECT_GE(stats.bf_cycle_counter, 1u);
  EXPECT_EQ(stats.bf_when_last_cycle, clock_.Now());

  EXPECT_EQ(controller_->ResetStats({1001, 1001}).code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(controller_->Stats().jobs_submitted, 3u);
  ASSERT_TRUE(controller_->ResetStats({0, 0}).ok());
  stats = controller_->Stats();
  EXPECT_EQ(stats.jobs_submitted, 0u);
  EXPECT_EQ(stats.jobs_started, 0u);
  EXPECT_EQ(stats.bf_backfilled_jobs, 0u);
  EXPECT_EQ(stats.req_time_start, clock_.Now());
}

// An acknowledgement means stored: with the store failing, every caller hears
// it, nothing is dispatched, and nothing of the refused event stays in memory.
TEST_F(ControllerTest, StoreFailureIsReportedAndNothingOfTheEventRemains) {
  Make();
  uint64_t id = *controller_->SubmitJob(NewJob(1001, 2));
  ASSERT_TRUE(Eventually([&] { return StateOf(id) == JobState::kRunning; }));
  store_.SetFull(true);

  absl::StatusOr<uint64_t> refused = controller_->SubmitJob(NewJob());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(refused.status().message().find("database or disk is full"), std::string::npos)
      << refused.status();
  EXPECT_EQ(controller_->SnapshotJobs({}).size(), 1u) << "the refused job is not in the queue";

  CancelSpec spec;
  spec.jobs = {{id}};
  EXPECT_EQ(controller_->CancelJobs({1001, 1001}, spec).status().code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(StateOf(id), JobState::kRunning);
  JobUpdate comment;
  comment.job_id = id;
  comment.comment = "lost?";
  EXPECT_FALSE(controller_->UpdateJob({1001, 1001}, comment).ok());
  EXPECT_EQ(controller_->SnapshotJobs({{id}})[0].comment, "");
  // noded keeps a completion it could not deliver and sends it again.
  EXPECT_FALSE(controller_->JobComplete("n1", {id, true, 0, 0, ""}).ok());
  EXPECT_EQ(StateOf(id), JobState::kRunning);
  for (const std::string& event : nodes_.Events()) {
    EXPECT_EQ(event.rfind("terminate", 0), std::string::npos) << "dispatched unstored: " << event;
  }

  store_.SetFull(false);
  ASSERT_TRUE(controller_->JobComplete("n1", {id, true, 0, 0, ""}).ok());
  ASSERT_TRUE(Eventually([&] { return StateOf(id) == JobState::kCompleted; }));
  EXPECT_EQ(store_.Get(id).state, JobState::kCompleted);
  absl::StatusOr<uint64_t> next = controller_->SubmitJob(NewJob());
  ASSERT_TRUE(next.ok());
  EXPECT_GT(*next, id);
}

TEST_F(ControllerTest, SacctmgrChangesAreStoredWholeOrNotAtAllAndSurviveARestart) {
  Make();
  QosUpdate add;
  add.op = QosOp::kAdd;
  add.names = {"high", "low"};
  store_.SetFull(true);
  EXPECT_EQ(controller_->UpdateQos({0, 0}, add).status().code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(controller_->SnapshotQos({}).size(), 1u) << "only normal: nothing half-added";
  AccountsUpdate lab;
  lab.op = AccountsOp::kAddAccount;
  lab.names = {"lab"};
  lab.parent = "root";
  EXPECT_FALSE(controller_->UpdateAccounts({0, 0}, lab, {}).ok());
  EXPECT_EQ(controller_->SnapshotAccounts().accounts.size(), 1u) << "only root";
  store_.SetFull(false);

  // Users are refused by the core, with Slurm's text.
  EXPECT_EQ(controller_->UpdateQos({1001, 1001}, add).status().code(),
            absl::StatusCode::kPermissionDenied);
  ASSERT_TRUE(controller_->UpdateQos({0, 0}, add).ok());
  ASSERT_TRUE(controller_->UpdateAccounts({0, 0}, lab, {}).ok());
  controller_->Stop();
  controller_.reset();
  Make();
  EXPECT_EQ(controller_->SnapshotQos({}).size(), 3u);
  EXPECT_EQ(controller_->SnapshotAccounts().accounts.size(), 2u);
}

TEST_F(ControllerTest, AnEventIsDecidedWhileTheRowsOfEarlierOnesAreStored) {
  Make();
  store_.Gate(true);
  SubmitRequest held = NewJob();
  held.hold = true;
  absl::StatusOr<uint64_t> first;
  absl::StatusOr<uint64_t> second;
  std::thread a([&] { first = controller_->SubmitJob(held); });
  ASSERT_TRUE(Eventually([&] { return store_.Queued() == 1; }));
  std::thread b([&] { second = controller_->SubmitJob(held); });
  // The second submission is decided and queued before the first is stored.
  const bool both_queued = Eventually([&] { return store_.Queued() == 2; });
  EXPECT_TRUE(both_queued);
  EXPECT_EQ(controller_->SnapshotJobs({}).size(), 2u);
  store_.ReleaseQueued(true);
  if (!both_queued) store_.ReleaseQueued(true);
  a.join();
  b.join();
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_LT(*first, *second);
  EXPECT_EQ(store_.Get(*second).state, JobState::kPending);
  EXPECT_EQ(store_.Resumes(), 0);
}

TEST_F(ControllerTest, AStoreFailureRollsBackEveryEventDecidedOnTopOfIt) {
  Make();
  const uint64_t running = *controller_->SubmitJob(NewJob(1001, 2));
  // Its launch is stored too, so the only writes the gate queues are the two
  // events below (LaunchDone's row, queued after the submission, read as 2).
  ASSERT_TRUE(Eventually([&] { return store_.Get(running).progress.launched; }));
  store_.Gate(true);
  // A submission, then the cancellation of the running job decided on top of
  // it, both waiting for the store.
  absl::StatusOr<uint64_t> submitted;
  absl::StatusOr<std::vector<CancelOutcome>> cancelled;
  std::thread a([&] { submitted = controller_->SubmitJob(NewJob()); });
  ASSERT_TRUE(Eventually([&] { return store_.Queued() == 1; }));
  std::thread b([&] {
    CancelSpec spec;
    spec.jobs = {{running}};
    cancelled = controller_->CancelJobs({1001, 1001}, spec);
  });
  const bool both_queued = Eventually([&] { return store_.Queued() == 2; });
  EXPECT_TRUE(both_queued);
  store_.ReleaseQueued(false);
  if (!both_queued) store_.ReleaseQueued(false);
  a.join();
  b.join();
  EXPECT_EQ(submitted.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(cancelled.status().code(), absl::StatusCode::kResourceExhausted);
  // Neither remains, nothing of them was dispatched, and the store was resumed
  // once both were gone.
  EXPECT_EQ(controller_->SnapshotJobs({}).size(), 1u);
  EXPECT_EQ(StateOf(running), JobState::kRunning);
  for (const std::string& event : nodes_.Events()) {
    EXPECT_EQ(event.rfind("terminate", 0), std::string::npos) << "dispatched unstored: " << event;
  }
  EXPECT_GE(store_.Resumes(), 1);
  store_.Gate(false);
  absl::StatusOr<uint64_t> next = controller_->SubmitJob(NewJob());
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_EQ(store_.Get(*next).state, JobState::kPending);
}

TEST_F(ControllerTest, UnknownRunningJobOnANodeIsTerminated) {
  Make();
  NodeRegistration reg;
  reg.node_name = "n2";
  reg.cpus = 2;
  reg.real_memory_mb = 1000;
  absl::StatusOr<Controller::Registration> registration =
      controller_->RegisterNode(reg, {{999, false, 0, 0, ""}});
  ASSERT_TRUE(registration.ok());
  EXPECT_EQ(registration->jobs_to_terminate, std::vector<uint64_t>{999});
}

}  // namespace
}  // namespace skiff::ctld

namespace skiff::ctld {
namespace {

// Init and join (controller_join.cc): tokens, a node that joins, its storage.
class JoinControllerTest : public ControllerTest {
 protected:
  void SetUp() override {
    ControllerTest::SetUp();
    Controller::JoinSettings settings;
    settings.pin = std::string(64, 'a');
    settings.munge_key = "the-munge-key";
    settings.join_target = "head:6820";
    settings.token_admins = {0, 500};  // root and SlurmUser
    settings.slurm_user = "skiff";
    settings.slurm_user_uid = 500;
    join_ = settings;
  }

  // A config whose "all" partition is Nodes=ALL.
  static SkiffConfig WithAllPartition() {
    SkiffConfig config = TestConfig();
    PartitionConfig all;
    all.name = "all";
    all.all_nodes = true;
    all.nodes = {"n1", "n2"};
    config.partitions.push_back(all);
    return config;
  }

  static NodeConfig Node3() {
    NodeConfig node;
    node.name = "n3";
    node.cpus = 4;
    node.real_memory_mb = 3000;
    node.addr = "10.0.0.3";
    node.port = 7003;
    return node;
  }

  JoinToken Create(uid_t uid = 0, int64_t ttl = 3600) {
    absl::StatusOr<Controller::JoinTokenCreated> created =
        controller_->CreateJoinToken({uid, 0}, ttl);
    EXPECT_TRUE(created.ok()) << created.status();
    if (!created.ok()) return {};
    EXPECT_EQ(created->join_target, "head:6820");
    EXPECT_EQ(created->expires, clock_.Now() + ttl);
    return ParseJoinToken(created->token).value();
  }

  std::vector<std::string> PartitionNodes(const std::string& name) {
    std::vector<PartitionConfig> p = controller_->SnapshotPartitions({name});
    return p.empty() ? std::vector<std::string>{} : p[0].nodes;
  }
};

TEST_F(JoinControllerTest, ANodeWhoseSlurmUserHasAnotherUidIsRefusedAndTheTokenStaysUnused) {
  Make(WithAllPartition());
  const JoinToken token = Create();
  absl::StatusOr<Controller::JoinedNode> refused =
      controller_->JoinNode(token.id, token.secret, Node3(), 990);
  ASSERT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(refused.status().message(),
            "SlurmUser skiff has uid 990 on n3 but 500 on the controller (credentials carry "
            "uids): give it that uid there (usermod -u 500 skiff) and join again; the token is "
            "unused");
  EXPECT_TRUE(controller_->SnapshotNodes({"n3"}).empty());
  EXPECT_TRUE(controller_->JoinNode(token.id, token.secret, Node3(), 500).ok());
}

TEST_F(JoinControllerTest, JoinedNodeIsStoredWithItsTokenUsedAndSurvivesARestart) {
  Make(WithAllPartition());
  const JoinToken token = Create(500);
  EXPECT_EQ(token.pin, std::string(64, 'a'));
  absl::StatusOr<Controller::JoinedNode> joined =
      controller_->JoinNode(token.id, token.secret, Node3());
  ASSERT_TRUE(joined.ok()) << joined.status();
  EXPECT_EQ(joined->munge_key, "the-munge-key");
  EXPECT_EQ(joined->node_key.size(), static_cast<size_t>(kNodeKeyLength));
  EXPECT_EQ(PartitionNodes("all"), (std::vector<std::string>{"n1", "n2", "n3"}));
  EXPECT_EQ(PartitionNodes("debug"), (std::vector<std::string>{"n1", "n2"}));
  ASSERT_EQ(controller_->SnapshotNodes({"n3"}).size(), 1u);
  EXPECT_EQ(controller_->NodeAddress("n3"), "10.0.0.3:7003");
  // Stored: the node, and the token as used (never its secret).
  std::map<std::string, std::string> nodes = store_.LoadRecords("dynamic_node").value();
  EXPECT_EQ(nodes["n3"], "CPUs=4 RealMemory=3000 NodeAddr=10.0.0.3 Port=7003");
  StoredJoinToken stored =
      DecodeStoredJoinToken(token.id, store_.LoadRecords("join_token").value()[token.id]).value();
  EXPECT_TRUE(stored.used);
  EXPECT_EQ(stored.used_by, "n3");
  EXPECT_EQ(stored.created_by_uid, 500u);
  // And the node key's hash, never the key.
  EXPECT_EQ(store_.LoadRecords("node_key").value()["n3"], Sha256Hex(joined->node_key));
  // It registers like any node, and runs jobs in its partition.
  NodeRegistration reg;
  reg.node_name = "n3";
  reg.cpus = 4;
  reg.real_memory_mb = 3000;
  ASSERT_TRUE(controller_->RegisterNode(reg, {}).ok());
  EXPECT_EQ(controller_->SnapshotNodes({"n3"})[0].state, NodeBaseState::kIdle);

  // A new controller over the same store, skiff.conf unchanged.
  controller_->Stop();
  controller_.reset();
  Make(WithAllPartition());
  EXPECT_EQ(PartitionNodes("all"), (std::vector<std::string>{"n1", "n2", "n3"}));
  ASSERT_EQ(controller_->SnapshotNodes({"n3"}).size(), 1u);
  EXPECT_EQ(controller_->SnapshotNodes({"n3"})[0].config.cpus, 4);
  ASSERT_TRUE(controller_->RegisterNode(reg, {}).ok());
  std::vector<StoredJoinToken> tokens = controller_->ListJoinTokens({0, 0}).value();
  ASSERT_EQ(tokens.size(), 1u);
  EXPECT_EQ(JoinTokenStateText(tokens[0], clock_.Now()), "used by n3");
  // Its node key still fetches the munge key.
  EXPECT_EQ(controller_->FetchMungeKey("n3", joined->node_key).value(), "the-munge-key");
}

// skiff node remove: a joined node's key fetches the munge key, a reloaded key
// is what is handed out next, and a removed node's key fetches nothing, also
// after a restart.
TEST_F(JoinControllerTest, ANodeKeyFetchesTheMungeKeyUntilItsNodeIsRemoved) {
  const std::string key_path = absl::StrCat(getenv("TEST_TMPDIR"), "/ctld-munge.key");
  std::ofstream(key_path) << "the-munge-key";
  join_->munge_key_path = key_path;
  Make(WithAllPartition());
  const JoinToken t3 = Create();
  const std::string n3_key = controller_->JoinNode(t3.id, t3.secret, Node3()).value().node_key;
  NodeConfig node4 = Node3();
  node4.name = "n4";
  node4.addr = "10.0.0.4";
  const JoinToken t4 = Create();
  const std::string n4_key = controller_->JoinNode(t4.id, t4.secret, node4).value().node_key;
  EXPECT_NE(n3_key, n4_key);
  EXPECT_EQ(controller_->FetchMungeKey("n3", n3_key).value(), "the-munge-key");
  // Another node's key, a wrong key, a name no node has: refused alike.
  for (const auto& [name, key] : std::vector<std::pair<std::string, std::string>>{
           {"n3", n4_key}, {"n3", std::string(32, 'a')}, {"n9", n3_key}, {"n3", ""}}) {
    absl::StatusOr<std::string> refused = controller_->FetchMungeKey(name, key);
    EXPECT_EQ(refused.status().code(), absl::StatusCode::kPermissionDenied) << name;
  }
  // A new key: only root and SlurmUser have ctld read it; then it is handed out.
  std::ofstream(key_path) << "the-new-munge-key";
  EXPECT_EQ(controller_->ReloadMungeKey({1001, 0}).status().code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(controller_->FetchMungeKey("n4", n4_key).value(), "the-munge-key");
  EXPECT_EQ(controller_->ReloadMungeKey({500, 0}).value(), Sha256Hex("the-new-munge-key"));
  EXPECT_EQ(controller_->FetchMungeKey("n4", n4_key).value(), "the-new-munge-key");
  // n4 removed: its key fetches nothing, n3's still does, across a restart.
  ASSERT_TRUE(controller_->DeleteNodes({0, 0}, {"n4"}).ok());
  EXPECT_EQ(controller_->FetchMungeKey("n4", n4_key).status().message(),
            "node key is not valid for n4: the node was removed from the cluster (skiff node "
            "remove), or joined before node keys; join it again with a new token");
  EXPECT_EQ(store_.LoadRecords("node_key").value().count("n4"), 0u);
  controller_->Stop();
  controller_.reset();
  join_->munge_key = "the-new-munge-key";  // as ctld_setup reads it at start
  Make(WithAllPartition());
  EXPECT_EQ(controller_->FetchMungeKey("n4", n4_key).status().code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(controller_->FetchMungeKey("n3", n3_key).value(), "the-new-munge-key");
}

TEST_F(JoinControllerTest, RefusalsNameTheProblemAndChangeNothing) {
  Make(WithAllPartition());
  // Only root and SlurmUser make or list tokens.
  EXPECT_EQ(controller_->CreateJoinToken({1001, 0}, 60).status().code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(controller_->ListJoinTokens({1001, 0}).status().code(),
            absl::StatusCode::kPermissionDenied);
  const JoinToken token = Create();
  auto join = [&](const std::string& id, const std::string& secret, const std::string& name) {
    NodeConfig node = Node3();
    node.name = name;
    return controller_->JoinNode(id, secret, node).status();
  };
  EXPECT_EQ(join("zzzzzz", token.secret, "n3").message(), "join token is not valid");
  EXPECT_EQ(join(token.id, "wrong", "n3").message(), "join token is not valid");
  absl::Status taken = join(token.id, token.secret, "n1");
  EXPECT_EQ(taken.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(taken.message(), "node name n1 is already taken");
  EXPECT_EQ(join(token.id, token.secret, "n[1-2]").code(), absl::StatusCode::kInvalidArgument);
  // A store that cannot write: refused, nothing joined, the token still unused.
  store_.SetFull(true);
  EXPECT_EQ(join(token.id, token.secret, "n3").code(), absl::StatusCode::kResourceExhausted);
  store_.SetFull(false);
  EXPECT_TRUE(controller_->SnapshotNodes({"n3"}).empty());
  EXPECT_TRUE(store_.LoadRecords("dynamic_node").value().empty());
  // Now it joins, once.
  EXPECT_TRUE(join(token.id, token.secret, "n3").ok());
  EXPECT_EQ(join(token.id, token.secret, "n4").message(),
            "join token was already used (by node n3)");
  // A token past its expiry.
  const JoinToken short_lived = Create(0, 5);
  clock_.Advance(5);
  EXPECT_EQ(join(short_lived.id, short_lived.secret, "n5").message(), "join token has expired");
  EXPECT_TRUE(controller_->SnapshotNodes({"n5"}).empty());
  // A day past their expiry, tokens are forgotten when the next one is made.
  clock_.Advance(2 * 24 * 3600);
  Create();
  EXPECT_EQ(controller_->ListJoinTokens({0, 0}).value().size(), 1u);
}

TEST_F(JoinControllerTest, OneTokenJoinsOneNodeEvenWhenTwoRace) {
  Make(WithAllPartition());
  const JoinToken token = Create();
  std::atomic<int> joined{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      NodeConfig node = Node3();
      node.name = "r" + std::to_string(i);
      if (controller_->JoinNode(token.id, token.secret, node).ok()) ++joined;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(joined.load(), 1);
  EXPECT_EQ(store_.LoadRecords("dynamic_node").value().size(), 1u);
}

TEST_F(JoinControllerTest, WithoutJoinPortNoTokenIsMade) {
  join_.reset();
  Make();
  absl::Status s = controller_->CreateJoinToken({0, 0}, 60).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("join_port"), absl::string_view::npos);
}

}  // namespace
}  // namespace skiff::ctld
