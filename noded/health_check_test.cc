#include "noded/health_check.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "spdlog/sinks/null_sink.h"

namespace skiff::noded {
namespace {

using ::testing::HasSubstr;

HealthCheckResult Passed() {
  HealthCheckResult r;
  r.passed = true;
  return r;
}

HealthCheckResult Failed(const std::string& output, int code = 1) {
  HealthCheckResult r;
  r.output = output;
  r.exit_code = code;
  return r;
}

HealthNodeView Node(bool drain = false, const std::string& reason = "",
                    const std::string& state = "IDLE") {
  return HealthNodeView{state, drain, reason};
}

TEST(HealthDrainReason, IsTheFirstLineOfOutputOrHowItFailed) {
  EXPECT_EQ(HealthDrainReason(Failed("\n  disk /scratch full \nmore\n")), "disk /scratch full");
  EXPECT_EQ(HealthDrainReason(Failed("", 3)), "HealthCheckProgram failed with exit code 3");
  HealthCheckResult slow = Failed("");
  slow.timed_out = true;
  EXPECT_THAT(HealthDrainReason(slow), HasSubstr("timing out"));
  EXPECT_EQ(HealthDrainReason(Failed(std::string(500, 'x'))).size(), 200u);
}

TEST(DecideHealthAction, AFailingCheckDrainsWithItsOutput) {
  std::string own;
  HealthAction a = DecideHealthAction(Failed("gpu0 lost\n"), Node(), &own);
  EXPECT_EQ(a.kind, HealthAction::kDrain);
  EXPECT_EQ(a.reason, "gpu0 lost");
  EXPECT_EQ(own, "gpu0 lost");
  // Still failing, still drained for it: nothing more.
  EXPECT_EQ(DecideHealthAction(Failed("gpu0 lost\n"), Node(true, "gpu0 lost"), &own).kind,
            HealthAction::kNone);
}

TEST(DecideHealthAction, APassingCheckUndrainsOnlyItsOwnDrain) {
  std::string own = "gpu0 lost";
  EXPECT_EQ(DecideHealthAction(Passed(), Node(true, "gpu0 lost"), &own).kind,
            HealthAction::kUndrain);
  EXPECT_EQ(own, "");
  EXPECT_EQ(DecideHealthAction(Passed(), Node(true, "gpu0 lost"), &own).kind, HealthAction::kNone)
      << "never undrains a drain it did not set";
}

TEST(DecideHealthAction, AnAdminsDrainStays) {
  std::string own;
  EXPECT_EQ(DecideHealthAction(Passed(), Node(true, "maintenance"), &own).kind,
            HealthAction::kNone);
  EXPECT_EQ(DecideHealthAction(Failed("bad"), Node(true, "maintenance"), &own).kind,
            HealthAction::kNone)
      << "nor is the admin's reason overwritten";
  // The check drained, then an admin drained again with their own reason.
  own = "bad";
  EXPECT_EQ(DecideHealthAction(Passed(), Node(true, "maintenance"), &own).kind,
            HealthAction::kNone);
  EXPECT_EQ(own, "");
}

TEST(DecideHealthAction, ADrainAnAdminLiftedIsSetAgainWhileStillFailing) {
  std::string own = "bad";
  HealthAction a = DecideHealthAction(Failed("bad"), Node(false), &own);
  EXPECT_EQ(a.kind, HealthAction::kDrain);
}

TEST(NodeStateMatches, FollowsHealthCheckNodeState) {
  EXPECT_TRUE(NodeStateMatches("ANY", Node(false, "", "ALLOCATED")));
  EXPECT_TRUE(NodeStateMatches("", Node()));
  EXPECT_TRUE(NodeStateMatches("IDLE", Node()));
  EXPECT_FALSE(NodeStateMatches("IDLE", Node(false, "", "MIXED")));
  EXPECT_TRUE(NodeStateMatches("idle,mixed", Node(false, "", "MIXED")));
  EXPECT_TRUE(NodeStateMatches("ALLOC", Node(false, "", "ALLOCATED")));
  EXPECT_FALSE(NodeStateMatches("NONDRAINED_IDLE", Node(true, "x")));
  EXPECT_TRUE(NodeStateMatches("CYCLE", Node(false, "", "MIXED")));
}

std::string Script(const std::string& body) {
  char path[] = "/tmp/health_check_test_XXXXXX";
  const int fd = mkstemp(path);
  close(fd);
  std::ofstream(path) << "#!/bin/sh\n" << body;
  chmod(path, 0755);
  return path;
}

TEST(RunHealthCheckProgram, CapturesOutputAndExitCode) {
  const std::string ok = Script("echo fine\nexit 0\n");
  HealthCheckResult r = RunHealthCheckProgram(ok, std::chrono::seconds(10));
  EXPECT_TRUE(r.passed);
  EXPECT_EQ(r.output, "fine\n");
  const std::string bad = Script("echo 'disk full' >&2\nexit 4\n");
  r = RunHealthCheckProgram(bad, std::chrono::seconds(10));
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_EQ(r.output, "disk full\n");
  unlink(ok.c_str());
  unlink(bad.c_str());
}

TEST(RunHealthCheckProgram, KillsAProgramThatHangs) {
  const std::string slow = Script("sleep 30 &\nsleep 30\n");
  const auto start = std::chrono::steady_clock::now();
  HealthCheckResult r = RunHealthCheckProgram(slow, std::chrono::milliseconds(300));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_FALSE(r.passed);
  EXPECT_TRUE(r.timed_out);
  unlink(slow.c_str());
}

TEST(RunHealthCheckProgram, AMissingProgramFails) {
  HealthCheckResult r = RunHealthCheckProgram("/nonexistent/check", std::chrono::seconds(5));
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_THAT(r.output, HasSubstr("cannot execute"));
}

class FakeControl : public NodeControl {
 public:
  absl::StatusOr<HealthNodeView> GetNode() override { return node; }
  absl::Status Drain(const std::string& reason) override {
    node.drain = true;
    node.reason = reason;
    ++drains;
    return absl::OkStatus();
  }
  absl::Status Undrain() override {
    node.drain = false;
    node.reason.clear();
    ++undrains;
    return absl::OkStatus();
  }
  HealthNodeView node = Node();
  int drains = 0;
  int undrains = 0;
};

TEST(HealthChecker, DrainsThenUndrainsItsOwnButNotAnAdmins) {
  const std::string flag = Script("");
  unlink(flag.c_str());
  const std::string check =
      Script("if [ -e " + flag + " ]; then echo 'scratch full'; exit 1; fi\n");
  auto logger =
      std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::null_sink_mt>());
  FakeControl control;
  HealthCheckOptions options;
  options.program = check;
  HealthChecker checker(options, control, *logger);
  checker.RunOnce();
  EXPECT_EQ(control.drains, 0);
  std::ofstream(flag) << "";
  checker.RunOnce();
  EXPECT_TRUE(control.node.drain);
  EXPECT_EQ(control.node.reason, "scratch full");
  unlink(flag.c_str());
  checker.RunOnce();
  EXPECT_FALSE(control.node.drain);
  EXPECT_EQ(control.undrains, 1);
  control.node.drain = true;
  control.node.reason = "admin: new cables";
  checker.RunOnce();
  EXPECT_TRUE(control.node.drain);
  EXPECT_EQ(control.node.reason, "admin: new cables");
  unlink(check.c_str());
}

}  // namespace
}  // namespace skiff::noded
