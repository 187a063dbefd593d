// The agent against a fake ctld (a NodeService on loopback) and fake jobs.
#include "noded/node_agent.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/free_port.h"

namespace skiff::noded {
namespace {

using std::chrono::milliseconds;

class FakeAuthenticator : public Authenticator {
 public:
  absl::StatusOr<std::string> CreateCredential() override { return std::string("cred"); }
  absl::StatusOr<Identity> VerifyCredential(const std::string&) override { return Identity{}; }
};

class FakeCtld final : public v1::NodeService::Service {
 public:
  grpc::Status Register(grpc::ServerContext*, const v1::RegisterRequest* request,
                        v1::RegisterReply* reply) override {
    std::lock_guard<std::mutex> lock(mu);
    registrations.push_back(*request);
    reply->set_heartbeat_interval(heartbeat_interval);
    reply->set_controller_epoch(controller_epoch);
    for (uint64_t id : terminate_on_register) reply->add_jobs_to_terminate(id);
    return grpc::Status::OK;
  }
  grpc::Status Heartbeat(grpc::ServerContext*, const v1::HeartbeatRequest*,
                         v1::HeartbeatReply* reply) override {
    std::lock_guard<std::mutex> lock(mu);
    ++heartbeats;
    reply->set_registered(heartbeat_says_registered);
    return grpc::Status::OK;
  }
  grpc::Status JobComplete(grpc::ServerContext*, const v1::JobCompleteRequest* request,
                           v1::JobCompleteReply*) override {
    std::lock_guard<std::mutex> lock(mu);
    completions.push_back(*request);
    if (failures_left > 0) {
      --failures_left;
      return grpc::Status(failure_code, "not now");
    }
    return grpc::Status::OK;
  }

  std::mutex mu;
  // What it answers.
  int64_t heartbeat_interval = 100;
  bool heartbeat_says_registered = true;
  std::vector<uint64_t> terminate_on_register;
  std::string controller_epoch;
  int failures_left = 0;
  grpc::StatusCode failure_code = grpc::StatusCode::UNIMPLEMENTED;
  // What it saw.
  std::vector<v1::RegisterRequest> registrations;
  std::vector<v1::JobCompleteRequest> completions;
  int heartbeats = 0;
};

class FakeJobs : public JobReportSource {
 public:
  std::vector<JobReport> Jobs() override {
    std::lock_guard<std::mutex> lock(mu);
    return jobs;
  }
  std::vector<JobReport> FinishedJobs() override {
    std::lock_guard<std::mutex> lock(mu);
    std::vector<JobReport> out;
    for (const JobReport& j : jobs) {
      if (j.finished) out.push_back(j);
    }
    return out;
  }
  void Acknowledge(uint64_t job_id) override {
    std::lock_guard<std::mutex> lock(mu);
    acknowledged.push_back(job_id);
    Erase(job_id);
  }
  void Abandon(uint64_t job_id) override {
    std::lock_guard<std::mutex> lock(mu);
    abandoned.push_back(job_id);
    Erase(job_id);
  }
  void Add(JobReport report) {
    std::lock_guard<std::mutex> lock(mu);
    jobs.push_back(std::move(report));
  }

  std::mutex mu;
  std::vector<JobReport> jobs;
  std::vector<uint64_t> acknowledged;
  std::vector<uint64_t> abandoned;

 private:
  void Erase(uint64_t job_id) {
    jobs.erase(std::remove_if(jobs.begin(), jobs.end(),
                              [&](const JobReport& j) { return j.job_id == job_id; }),
               jobs.end());
  }
};

JobReport Running(uint64_t id) { return JobReport{id, false, {}}; }
JobReport Finished(uint64_t id, int exit_code, int signal, std::string failure = "") {
  return JobReport{id, true, JobResult{exit_code, signal, std::move(failure)}};
}

template <typename Pred>
bool WaitUntil(Pred pred, milliseconds timeout = milliseconds(5000)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(milliseconds(10));
  }
  return pred();
}

class NodeAgentTest : public testing::Test {
 protected:
  void SetUp() override {
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(&ctld_);
    server_ = builder.BuildAndStart();
    ASSERT_TRUE(server_ != nullptr);
    target_ = absl::StrCat("127.0.0.1:", port);
  }

  void TearDown() override {
    if (agent_) agent_->Stop();
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  }

  // `before`: controllers listed ahead of the test's (SlurmctldHost order).
  void StartAgent(std::vector<std::string> before = {}, ControllerFence* fence = nullptr) {
    v1::RegisterRequest hardware;
    hardware.set_node_name("tn1");
    hardware.set_cpus(4);
    before.push_back(target_);
    agent_ = std::make_unique<NodeAgent>(before, hardware, jobs_, auth_, *spdlog::default_logger());
    agent_->SetControllerFence(fence);
    agent_->Start();
  }

  size_t Registrations() {
    std::lock_guard<std::mutex> lock(ctld_.mu);
    return ctld_.registrations.size();
  }
  std::vector<uint64_t> Acknowledged() {
    std::lock_guard<std::mutex> lock(jobs_.mu);
    return jobs_.acknowledged;
  }

  FakeCtld ctld_;
  FakeJobs jobs_;
  FakeAuthenticator auth_;
  std::unique_ptr<grpc::Server> server_;
  std::string target_;
  std::unique_ptr<NodeAgent> agent_;
};

TEST_F(NodeAgentTest, RegistrationCarriesTheHardwareAndEveryKnownJob) {
  jobs_.Add(Running(1));
  jobs_.Add(Finished(2, 3, 0));
  jobs_.Add(Finished(3, 1, 0, "cannot chdir to work_dir /x"));
  ctld_.failures_left = 1000;  // keep the finished ones unacknowledged
  StartAgent();
  ASSERT_TRUE(WaitUntil([&] { return Registrations() >= 1; }));
  std::lock_guard<std::mutex> lock(ctld_.mu);
  const v1::RegisterRequest& r = ctld_.registrations[0];
  EXPECT_EQ(r.node_name(), "tn1");
  EXPECT_EQ(r.cpus(), 4);
  ASSERT_EQ(r.jobs_size(), 3);
  EXPECT_EQ(r.jobs(0).job_id(), 1u);
  EXPECT_FALSE(r.jobs(0).finished());
  EXPECT_EQ(r.jobs(1).job_id(), 2u);
  EXPECT_TRUE(r.jobs(1).finished());
  EXPECT_EQ(r.jobs(1).exit_code(), 3);
  EXPECT_EQ(r.jobs(2).failure(), "cannot chdir to work_dir /x");
}

// Issue 53: the first controller is down (nothing listens on its port), so
// the node registers with the next one and reports its jobs there.
TEST_F(NodeAgentTest, ANodeRegistersWithTheNextControllerWhenTheFirstIsDown) {
  jobs_.Add(Finished(7, 0, 0));
  StartAgent({absl::StrCat("127.0.0.1:", FreeLoopbackPort())});
  ASSERT_TRUE(WaitUntil([&] { return Registrations() >= 1; }, milliseconds(20000)));
  ASSERT_TRUE(WaitUntil([&] { return Acknowledged().size() == 1; }, milliseconds(20000)));
}

// Issue 53: a controller deposed while it hung still answers a registration
// (its lease gone, it has not yet noticed). The node, which has seen the
// serving controller's later epoch, acts on none of that answer (the job it
// would terminate runs on) and registers with the next controller.
TEST_F(NodeAgentTest, ADeposedControllersRegistrationIsNotActedOn) {
  FakeCtld deposed;
  deposed.controller_epoch = "a1.5";
  deposed.terminate_on_register = {4};
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&deposed);
  std::unique_ptr<grpc::Server> deposed_server = builder.BuildAndStart();
  ASSERT_NE(deposed_server, nullptr);
  ctld_.controller_epoch = "a1.9";
  ControllerFence fence;
  ASSERT_TRUE(fence.Admit("a1.9").ok());  // the node heard from the new controller
  jobs_.Add(Running(4));
  StartAgent({absl::StrCat("127.0.0.1:", port)}, &fence);
  ASSERT_TRUE(WaitUntil([&] { return Registrations() >= 1; }, milliseconds(20000)));
  {
    std::lock_guard<std::mutex> lock(deposed.mu);
    EXPECT_EQ(deposed.registrations.size(), 1u);
  }
  {
    std::lock_guard<std::mutex> lock(jobs_.mu);
    EXPECT_TRUE(jobs_.abandoned.empty());
  }
  EXPECT_EQ(fence.Highest(), "a1.9");
  agent_->Stop();
  deposed_server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
}

TEST_F(NodeAgentTest, FinishedJobIsResentUntilCtldAcceptsItThenAcknowledged) {
  jobs_.Add(Finished(7, 0, 9));
  ctld_.failures_left = 2;  // ctld without JobComplete yet: UNIMPLEMENTED
  StartAgent();
  ASSERT_TRUE(WaitUntil([&] { return !Acknowledged().empty(); }));
  EXPECT_EQ(Acknowledged(), std::vector<uint64_t>{7});
  std::lock_guard<std::mutex> lock(ctld_.mu);
  ASSERT_EQ(ctld_.completions.size(), 3u);
  for (const v1::JobCompleteRequest& c : ctld_.completions) {
    EXPECT_EQ(c.node_name(), "tn1");
    EXPECT_EQ(c.report().job_id(), 7u);
    EXPECT_TRUE(c.report().finished());
    EXPECT_EQ(c.report().exit_signal(), 9);
  }
  EXPECT_EQ(ctld_.registrations.size(), 1u);  // UNIMPLEMENTED is retried, not re-registered
}

TEST_F(NodeAgentTest, JobIsNotAcknowledgedWhileCtldRefusesIt) {
  jobs_.Add(Finished(8, 1, 0));
  ctld_.failures_left = 1000;
  StartAgent();
  ASSERT_TRUE(WaitUntil([&] {
    std::lock_guard<std::mutex> lock(ctld_.mu);
    return ctld_.completions.size() >= 3;
  }));
  EXPECT_TRUE(Acknowledged().empty());
}

TEST_F(NodeAgentTest, HeartbeatsGoOnWhileReportsAreRetried) {
  ctld_.heartbeat_interval = 1;
  jobs_.Add(Finished(8, 1, 0));
  ctld_.failures_left = 1000;
  StartAgent();
  ASSERT_TRUE(WaitUntil([&] {
    std::lock_guard<std::mutex> lock(ctld_.mu);
    return ctld_.heartbeats >= 2;
  }));
  EXPECT_EQ(Registrations(), 1u);
}

TEST_F(NodeAgentTest, AJobThatFinishesLaterIsSentAtOnceOnWake) {
  StartAgent();
  ASSERT_TRUE(WaitUntil([&] { return Registrations() >= 1; }));
  jobs_.Add(Finished(9, 2, 0));
  agent_->Wake();
  // Heartbeats are 100 s apart here: only Wake() can have sent it.
  ASSERT_TRUE(WaitUntil([&] { return !Acknowledged().empty(); }, milliseconds(2000)));
  EXPECT_EQ(Acknowledged(), std::vector<uint64_t>{9});
}

TEST_F(NodeAgentTest, JobsCtldNoLongerWantsAreAbandoned) {
  jobs_.Add(Running(4));
  jobs_.Add(Running(5));
  ctld_.terminate_on_register = {4};
  StartAgent();
  ASSERT_TRUE(WaitUntil([&] {
    std::lock_guard<std::mutex> lock(jobs_.mu);
    return !jobs_.abandoned.empty();
  }));
  std::lock_guard<std::mutex> lock(jobs_.mu);
  EXPECT_EQ(jobs_.abandoned, std::vector<uint64_t>{4});
}

TEST_F(NodeAgentTest, RegistrationIsRebuiltWithTheCurrentJobs) {
  ctld_.heartbeat_interval = 1;
  ctld_.heartbeat_says_registered = false;  // a restarted ctld
  jobs_.Add(Running(1));
  StartAgent();
  ASSERT_TRUE(WaitUntil([&] { return Registrations() >= 1; }));
  jobs_.Add(Running(2));
  ASSERT_TRUE(WaitUntil([&] { return Registrations() >= 2; }));
  std::lock_guard<std::mutex> lock(ctld_.mu);
  EXPECT_EQ(ctld_.registrations[0].jobs_size(), 1);
  const v1::RegisterRequest& again = ctld_.registrations.back();
  ASSERT_EQ(again.jobs_size(), 2);
  EXPECT_EQ(again.jobs(1).job_id(), 2u);
  EXPECT_EQ(again.cpus(), 4);
}

TEST_F(NodeAgentTest, NotFoundFromJobCompleteMakesTheAgentRegisterAgain) {
  jobs_.Add(Finished(6, 0, 0));
  ctld_.failures_left = 1;
  ctld_.failure_code = grpc::StatusCode::NOT_FOUND;
  StartAgent();
  ASSERT_TRUE(WaitUntil([&] { return !Acknowledged().empty(); }));
  EXPECT_GE(Registrations(), 2u);
}

}  // namespace
}  // namespace skiff::noded
