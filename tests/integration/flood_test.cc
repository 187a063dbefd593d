// Connection floods without credentials (issue 10, item 1): processes holding
// thousands of idle TCP connections to ctld or a noded, with the daemon short of
// file descriptors. The daemon keeps serving its nodes and users while the flood
// goes on, answers within 5 s once it ends, and no job fails.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/config/config_loader.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/shared_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

using Clock = std::chrono::steady_clock;

// `processes` children, each holding `per_process` idle connections to
// 127.0.0.1:`port` (opened as fast as they go, never written to) until killed.
std::vector<pid_t> StartFlood(int port, int processes, int per_process) {
  std::vector<pid_t> children;
  for (int p = 0; p < processes; ++p) {
    const pid_t child = fork();
    if (child == 0) {
      struct rlimit files = {static_cast<rlim_t>(per_process + 64),
                             static_cast<rlim_t>(per_process + 64)};
      setrlimit(RLIMIT_NOFILE, &files);
      sockaddr_in addr{};
      addr.sin_family = AF_INET;
      addr.sin_port = htons(static_cast<uint16_t>(port));
      inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
      for (int i = 0; i < per_process; ++i) {
        const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
        if (fd < 0) break;
        connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
      }
      pause();
      _exit(0);
    }
    if (child > 0) children.push_back(child);
  }
  return children;
}

// Waits (up to 60 s) until every child of the flood has opened its connections.
bool FloodOpen(const std::vector<pid_t>& children, int per_process) {
  return Eventually(60, [&] {
    for (pid_t child : children) {
      if (OpenDescriptors(child) < per_process) return false;
    }
    return true;
  });
}

void StopFlood(const std::vector<pid_t>& children) {
  for (pid_t child : children) kill(child, SIGKILL);
  for (pid_t child : children) waitpid(child, nullptr, 0);
}

// Seconds `command` took, or a large number when it failed.
double Timed(LocalCluster& cluster, const std::string& command, std::string* out = nullptr) {
  const auto start = Clock::now();
  CommandResult r = cluster.Run(command);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (out != nullptr) *out = r.out + r.err;
  return r.exit_code == 0 ? seconds : 1e9;
}

class FloodTest : public ::testing::Test {
 protected:
  void SetUp() override {
    LocalCluster::Options options = NodesWithoutGpus(2);
    options.extra_config = "HeartbeatInterval=1\nSlurmdTimeout=10\n";
    StartLocalCluster(options, &cluster_);
    if (HasFatalFailure()) return;
    auto config = LoadConfig(cluster_->conf_path());
    ASSERT_TRUE(config.ok()) << config.status();
    ctld_port_ = static_cast<int>(config->skiff.ctld_port);
    for (const NodeConfig& node : config->skiff.nodes) {
      if (node.name == "n1") n1_port_ = node.port != 0 ? node.port : config->skiff.slurmd_port;
    }
  }

  // The daemon's descriptors are capped low, so that the flood exhausts them.
  void CapFiles(pid_t pid, int files) {
    ASSERT_EQ(
        RunShell(absl::StrCat("prlimit --nofile=", files, ":", files, " --pid ", pid)).exit_code,
        0);
  }

  std::unique_ptr<LocalCluster> cluster_;
  int ctld_port_ = 0;
  int n1_port_ = 0;
};

TEST_F(FloodTest, CtldServesNodesAndUsersThroughAFloodAndAnswersAtOnceAfterIt) {
  CapFiles(cluster_->Pid("ctld"), 512);
  std::vector<pid_t> flood = StartFlood(ctld_port_, 21, 1000);
  EXPECT_TRUE(FloodOpen(flood, 1000));
  // During the flood: a user's command and a job get through, nodes stay up.
  std::string out;
  const double during = Timed(*cluster_, "sinfo -h", &out);
  EXPECT_LT(during, 5.0) << out;
  // A user may have to try again: when the flood has ctld out of descriptors,
  // the listener takes the next connection in its backlog and closes it (so
  // that it does not sit there), and that one may be sbatch's. It must get
  // through within a few tries, during the flood.
  CommandResult submit;
  std::vector<uint64_t> ids;
  for (int attempt = 1; attempt <= 3 && ids.empty(); ++attempt) {
    submit = cluster_->Run("sbatch -o /dev/null --wrap='sleep 2'");
    ids = SubmittedJobIds(submit.out);
    if (ids.empty())
      std::cout << "sbatch attempt " << attempt << " during the flood: " << submit.err;
  }
  if (ids.empty()) StopFlood(flood);
  ASSERT_EQ(ids.size(), 1u) << submit.out << submit.err;
  // The job starts while the flood goes on.
  EXPECT_TRUE(Eventually(60, [&] {
    const std::string state =
        ScontrolField(cluster_->Run(absl::StrCat("scontrol show job ", ids[0])).out, "JobState");
    return state == "RUNNING" || state == "COMPLETING" || state == "COMPLETED";
  }));
  StopFlood(flood);

  const double after = Timed(*cluster_, "sinfo -h -N", &out);
  EXPECT_LT(after, 5.0) << out;
  std::cout << "flood of 21 x 1000 connections on ctld (512 fds): sinfo took " << during
            << " s during it, " << after << " s after it\n";
  EXPECT_EQ(out.find("down"), std::string::npos) << out;
  EXPECT_TRUE(Eventually(30,
                         [&] {
                           return cluster_->Run(absl::StrCat("scontrol show job ", ids[0]))
                                      .out.find("JobState=COMPLETED ") != std::string::npos;
                         }))
      << cluster_->Run(absl::StrCat("scontrol show job ", ids[0])).out << cluster_->Log("ctld.log");
}

TEST_F(FloodTest, ANodedTakesJobsThroughAFloodAndAfterIt) {
  CapFiles(cluster_->Pid("noded-n1"), 256);
  std::vector<pid_t> flood = StartFlood(n1_port_, 8, 1000);
  EXPECT_TRUE(FloodOpen(flood, 1000));
  std::vector<uint64_t> ids;
  for (int i = 0; i < 4; ++i) {
    CommandResult submit = cluster_->Run("sbatch -w n1 -o /dev/null --wrap=true");
    std::vector<uint64_t> one = SubmittedJobIds(submit.out);
    EXPECT_EQ(one.size(), 1u) << submit.out << submit.err;
    ids.insert(ids.end(), one.begin(), one.end());
  }
  // They start while the flood goes on.
  for (uint64_t id : ids) {
    EXPECT_TRUE(Eventually(60, [&] {
      const std::string state =
          ScontrolField(cluster_->Run(absl::StrCat("scontrol show job ", id)).out, "JobState");
      return state == "RUNNING" || state == "COMPLETING" || state == "COMPLETED";
    })) << cluster_->Run(absl::StrCat("scontrol show job ", id)).out;
  }
  StopFlood(flood);
  for (int i = 0; i < 4; ++i) {
    CommandResult submit = cluster_->Run("sbatch -w n1 -o /dev/null --wrap=true");
    std::vector<uint64_t> one = SubmittedJobIds(submit.out);
    ASSERT_EQ(one.size(), 1u) << submit.out << submit.err;
    ids.push_back(one[0]);
  }
  for (uint64_t id : ids) {
    EXPECT_TRUE(Eventually(30,
                           [&] {
                             return cluster_->Run(absl::StrCat("scontrol show job ", id))
                                        .out.find("JobState=COMPLETED ") != std::string::npos;
                           }))
        << cluster_->Run(absl::StrCat("scontrol show job ", id)).out
        << cluster_->Log("noded-n1.log");
  }
}

}  // namespace
}  // namespace skiff::testing
