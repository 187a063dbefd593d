// A local cluster comes up through `skiff up`, every node registers, `up` on a
// partly running cluster starts only what is missing, and `down` leaves nothing.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include "tests/harness/local_cluster.h"
#include "tests/harness/shared_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

// Waits up to `seconds` for `predicate`.
class ClusterUpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    LocalCluster::Options options;
    options.nodes = 4;
    options.burst_buffers = true;  // as `skiff up` does by default
    StartLocalCluster(options, &cluster_);
  }

  std::unique_ptr<LocalCluster> cluster_;
};

TEST_F(ClusterUpTest, AllNodesRegisterAndShowIdleInDefaultPartition) {
  CommandResult sinfo = cluster_->Run("sinfo");
  ASSERT_EQ(sinfo.exit_code, 0) << sinfo.err;
  EXPECT_EQ(sinfo.out,
            "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"
            "debug*       up 1-00:00:00      4   idle n[1-4]\n"
            "gpu          up 1-00:00:00      2   idle n[3-4]\n");
}

// `skiff up` configures burst_buffer/lua with the example script's two pools:
// a user's job stages a file in, works on it in its buffer, and stages it out.
TEST_F(ClusterUpTest, BurstBuffersWorkOutOfTheBox) {
  if (getuid() != 0) GTEST_SKIP() << "needs root to create a test user";
  ASSERT_TRUE(cluster_->EnsureUser("skiffbb").ok());
  const std::string home = cluster_->dir() + "/home/skiffbb";
  CommandResult pools = cluster_->Run("scontrol show burst");
  EXPECT_NE(pools.out.find("PoolName[0]=fast "), std::string::npos) << pools.out << pools.err;
  EXPECT_NE(pools.out.find("PoolName[1]=bulk "), std::string::npos) << pools.out;
  std::ofstream(home + "/in.txt") << "input data\n";
  const std::string job_dir = cluster_->dir() + "/bb/job_%j";  // BB_JOB_DIR, made by setup
  std::ofstream(home + "/bb.sh") << "#!/bin/sh\n"
                                 << "#BB_LUA pool=fast capacity=1G\n"
                                 << "#BB_LUA stage_in source=" << home
                                 << "/in.txt destination=" << job_dir << "/in.txt\n"
                                 << "#BB_LUA stage_out source=" << job_dir
                                 << "/out.txt destination=" << home << "/out.txt\n"
                                 << "tr a-z A-Z < $BB_JOB_DIR/in.txt > $BB_JOB_DIR/out.txt\n";
  ASSERT_EQ(RunShell("chown skiffbb " + home + "/in.txt " + home + "/bb.sh").exit_code, 0);
  CommandResult submit = cluster_->RunAs("skiffbb", "sbatch --wait -o /dev/null bb.sh");
  EXPECT_EQ(submit.exit_code, 0) << submit.out << submit.err;
  EXPECT_TRUE(Eventually(30, [&] { return ReadFile(home + "/out.txt") == "INPUT DATA\n"; }))
      << ReadFile(home + "/out.txt");
}

TEST_F(ClusterUpTest, ScriptdIsForkedByCtldAndAnswers) {
  const std::string log = cluster_->Log("ctld.log");
  const pid_t ctld = cluster_->Pid("ctld");
  EXPECT_NE(log.find("scriptd ready: pid"), std::string::npos) << log;
  EXPECT_NE(log.find("(parent " + std::to_string(ctld) + ")"), std::string::npos) << log;
}

// ctld runs without glibc's per-thread caches (ctld/malloc_tuning.h: they kept
// purged jobs' pages resident); scriptd, and so the scripts it runs, get the
// environment as ctld was given it.
TEST_F(ClusterUpTest, CtldRunsWithoutThreadCachesAndScriptdInheritsNoTunable) {
  auto environ_of = [](pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  };
  const std::string ctld_env = environ_of(cluster_->Pid("ctld"));
  EXPECT_NE(ctld_env.find("glibc.malloc.tcache_count=0"), std::string::npos);
  // Re-executed through /proc/self/exe, it still goes by its name (pgrep ctld).
  std::ifstream comm("/proc/" + std::to_string(cluster_->Pid("ctld")) + "/comm");
  std::string name;
  std::getline(comm, name);
  EXPECT_EQ(name, "ctld");
  const std::string log = cluster_->Log("ctld.log");
  const size_t at = log.find("scriptd ready: pid ");
  ASSERT_NE(at, std::string::npos) << log;
  const pid_t scriptd = atoi(log.c_str() + at + strlen("scriptd ready: pid "));
  ASSERT_GT(scriptd, 0);
  const std::string scriptd_env = environ_of(scriptd);
  EXPECT_FALSE(scriptd_env.empty());
  EXPECT_EQ(scriptd_env.find("tcache_count"), std::string::npos);
  EXPECT_EQ(scriptd_env.find("SKIFF_CTLD_GLIBC_TUNABLES_BEFORE"), std::string::npos);
  EXPECT_EQ(scriptd_env.find("SKIFF_CTLD_NAME_BEFORE"), std::string::npos);
}

TEST_F(ClusterUpTest, UpRestartsOnlyTheKilledDaemon) {
  const pid_t ctld = cluster_->Pid("ctld");
  const pid_t n1 = cluster_->Pid("noded-n1");
  const pid_t n2 = cluster_->Pid("noded-n2");
  ASSERT_TRUE(Alive(n2));
  ASSERT_EQ(kill(n2, SIGKILL), 0);
  ASSERT_TRUE(Eventually(30, [&] { return !Alive(n2) || getpgid(n2) < 0; }));

  CommandResult up = cluster_->Up();
  ASSERT_EQ(up.exit_code, 0) << up.out << up.err;
  EXPECT_NE(up.out.find("started noded n2"), std::string::npos) << up.out;
  EXPECT_EQ(up.out.find("started ctld"), std::string::npos) << up.out;
  EXPECT_EQ(up.out.find("started noded n1"), std::string::npos) << up.out;
  EXPECT_EQ(cluster_->Pid("ctld"), ctld);
  EXPECT_EQ(cluster_->Pid("noded-n1"), n1);
  EXPECT_NE(cluster_->Pid("noded-n2"), n2);

  CommandResult sinfo = cluster_->Run("sinfo -N -h -p debug");
  ASSERT_EQ(sinfo.exit_code, 0) << sinfo.err;
  EXPECT_NE(sinfo.out.find("n2             1    debug* idle"), std::string::npos) << sinfo.out;
}

TEST_F(ClusterUpTest, DownLeavesNoProcessBehind) {
  const pid_t ctld = cluster_->Pid("ctld");
  const pid_t munged = cluster_->Pid("munge/munged");
  ASSERT_TRUE(Alive(ctld));
  ASSERT_TRUE(Alive(munged));
  CommandResult down = cluster_->Down();
  ASSERT_EQ(down.exit_code, 0) << down.err;
  // Every process whose executable is in the cluster's bin/ (ctld, scriptd, noded),
  // and munged started for it, must be gone.
  CommandResult left = RunShell(
      "for p in /proc/[0-9]*; do e=$(readlink $p/exe 2>/dev/null) || continue; "
      "case $e in " +
      cluster_->dir() + "/bin/*) echo ${p#/proc/} $e;; esac; done");
  EXPECT_EQ(left.out, "");
  EXPECT_FALSE(Alive(ctld));
  EXPECT_FALSE(Alive(munged));
}

TEST_F(ClusterUpTest, ScriptdExitsWhenCtldIsKilled) {
  const pid_t ctld = cluster_->Pid("ctld");
  // scriptd is ctld's only child.
  CommandResult child = RunShell("cat /proc/" + std::to_string(ctld) + "/task/*/children");
  ASSERT_EQ(child.exit_code, 0);
  const pid_t scriptd = atoi(child.out.c_str());
  ASSERT_GT(scriptd, 0) << child.out;
  ASSERT_EQ(kill(ctld, SIGKILL), 0);
  EXPECT_TRUE(Eventually(30,
                         [&] {
                           CommandResult state = RunShell("cat /proc/" + std::to_string(scriptd) +
                                                          "/stat 2>/dev/null");
                           return state.out.empty();
                         }))
      << "scriptd " << scriptd << " outlived ctld";
}

}  // namespace
}  // namespace skiff::testing
