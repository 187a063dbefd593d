// Jobs confined by cgroups (ProctrackType=proctrack/cgroup, TaskPlugin=task/cgroup,
// cgroup.conf) through the real daemons: memory (OUT_OF_MEMORY and Slurm's
// line), cores (Cpus_allowed_list), GPU devices (EPERM on the others), and
// scancel reaching processes that left the job's session. The confined tests
// skip themselves where the host has no writable cgroup hierarchy; the fallback
// tests run everywhere.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <regex>
#include <string>

#include "absl/strings/str_cat.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/shared_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

uint64_t JobIdFrom(const CommandResult& result) {
  std::smatch match;
  static const std::regex kSubmitted("Submitted batch job ([0-9]+)");
  if (!std::regex_search(result.out, match, kSubmitted)) return 0;
  return std::stoull(match[1]);
}

std::string WaitForState(const LocalCluster& cluster, uint64_t id, const std::string& state,
                         int seconds = 60) {
  std::string last;
  Eventually(seconds, [&] {
    last = cluster.Run(absl::StrCat("scontrol show job ", id)).out;
    return last.find("JobState=" + state + " ") != std::string::npos;
  });
  return last;
}

// "Cpus_allowed_list:\t0-1,3" -> 3.
int CountCpus(const std::string& list) {
  int count = 0;
  std::regex range("([0-9]+)(-([0-9]+))?");
  for (auto it = std::sregex_iterator(list.begin(), list.end(), range);
       it != std::sregex_iterator(); ++it) {
    const int first = std::stoi((*it)[1]);
    const int last = (*it)[3].matched ? std::stoi((*it)[3]) : first;
    count += last - first + 1;
  }
  return count;
}

// Gone, or a zombie nobody reaped yet (it runs no more).
bool Gone(pid_t pid) {
  const std::string stat = ReadFile(absl::StrCat("/proc/", pid, "/stat"));
  if (stat.empty()) return true;
  const size_t paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] == 'Z';
}

bool CgroupExists(const std::string& node, uint64_t id) {
  const std::string rel = absl::StrCat("skiff/", node, "/job_", id);
  struct stat st;
  return stat(absl::StrCat("/sys/fs/cgroup/freezer/", rel).c_str(), &st) == 0 ||
         (stat("/sys/fs/cgroup/cgroup.controllers", &st) == 0 &&
          stat(absl::StrCat("/sys/fs/cgroup/", rel).c_str(), &st) == 0);
}

class CgroupTest : public SharedClusterTest<CgroupTest> {
 protected:
  static void SetUpTestSuite() {
    unavailable_ = new std::string(LocalCluster::CgroupsUnavailable());
    if (!unavailable_->empty()) return;
    LocalCluster::Options options;
    options.nodes = 4;  // n3, n4: 2 fake GPUs each
    options.cgroups = true;
    options.extra_config = "KillWait=2\n";
    StartCluster(options);
  }

  static void TearDownTestSuite() {
    SharedClusterTest::TearDownTestSuite();
    delete unavailable_;
    unavailable_ = nullptr;
  }

  void SetUp() override {
    if (!unavailable_->empty()) GTEST_SKIP() << "no writable cgroup hierarchy: " << *unavailable_;
    SharedClusterTest::SetUp();
  }

  std::string Out(const std::string& name) const { return cluster_->dir() + "/" + name; }

  static std::string* unavailable_;
};

std::string* CgroupTest::unavailable_ = nullptr;

TEST_F(CgroupTest, NodedSaysItUsesCgroups) {
  EXPECT_NE(cluster_->Log("noded-n1.log").find("cgroups: v"), std::string::npos)
      << cluster_->Log("noded-n1.log");
}

TEST_F(CgroupTest, AJobOverItsMemoryEndsOutOfMemoryWithSlurmsLine) {
  // tail -c keeps the last 300 MiB of a pipe in memory: far over --mem=50.
  CommandResult submit = cluster_->Run(
      absl::StrCat("sbatch -w n1 --mem=50 -o ", Out("oom-%j.out"),
                   " --wrap='head -c 300M /dev/zero | tail -c 300M >/dev/null; echo after'"));
  const uint64_t id = JobIdFrom(submit);
  ASSERT_GT(id, 0u) << submit.out << submit.err;
  const std::string shown = WaitForState(*cluster_, id, "OUT_OF_MEMORY");
  EXPECT_NE(shown.find("JobState=OUT_OF_MEMORY"), std::string::npos) << shown;
  const std::string output = ReadFile(Out(absl::StrCat("oom-", id, ".out")));
  EXPECT_NE(output.find(absl::StrCat("slurmstepd: error: Detected 1 oom_kill event in StepId=", id,
                                     ".batch. Some of the step tasks have been OOM Killed.\n")),
            std::string::npos)
      << output;
  EXPECT_FALSE(CgroupExists("n1", id));
}

TEST_F(CgroupTest, AJobWithinItsMemoryCompletes) {
  CommandResult submit =
      cluster_->Run(absl::StrCat("sbatch -w n1 --mem=200 -o /dev/null --wrap='head -c 20M "
                                 "/dev/zero | tail -c 20M >/dev/null'"));
  const uint64_t id = JobIdFrom(submit);
  ASSERT_GT(id, 0u) << submit.out << submit.err;
  const std::string shown = WaitForState(*cluster_, id, "COMPLETED");
  EXPECT_NE(shown.find("JobState=COMPLETED"), std::string::npos) << shown;
}

TEST_F(CgroupTest, CpusAllowedListHasTheJobsCpuCountAndJobsDoNotShare) {
  const int host_cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  const std::string script =
      "--wrap='grep Cpus_allowed_list /proc/self/status; echo cpus=$SLURM_CPUS_ON_NODE; "
      "sleep 30'";
  const uint64_t first = JobIdFrom(
      cluster_->Run(absl::StrCat("sbatch -w n2 -c 1 -o ", Out("cpu-%j.out"), " ", script)));
  const uint64_t second = JobIdFrom(
      cluster_->Run(absl::StrCat("sbatch -w n2 -c 1 -o ", Out("cpu-%j.out"), " ", script)));
  ASSERT_GT(first, 0u);
  ASSERT_GT(second, 0u);
  std::string a, b;
  ASSERT_TRUE(Eventually(60,
                         [&] {
                           a = ReadFile(Out(absl::StrCat("cpu-", first, ".out")));
                           b = ReadFile(Out(absl::StrCat("cpu-", second, ".out")));
                           return a.find("cpus=") != std::string::npos &&
                                  b.find("cpus=") != std::string::npos;
                         }))
      << a << b;
  std::smatch ma, mb;
  ASSERT_TRUE(std::regex_search(a, ma, std::regex("Cpus_allowed_list:\\s*(\\S+)"))) << a;
  ASSERT_TRUE(std::regex_search(b, mb, std::regex("Cpus_allowed_list:\\s*(\\S+)"))) << b;
  EXPECT_EQ(CountCpus(ma[1]), 1) << a;
  EXPECT_EQ(CountCpus(mb[1]), 1) << b;
  EXPECT_NE(a.find("cpus=1\n"), std::string::npos) << a;
  if (host_cpus >= 2) {
    EXPECT_NE(ma[1], mb[1]) << "two 1-CPU jobs of one node share a core";
  }
  cluster_->Run(absl::StrCat("scancel ", first, " ", second));

  // A 2-CPU job: its whole allocation (the host has at least that many cores
  // in CI; logical ids wrap around fewer).
  const uint64_t wide = JobIdFrom(
      cluster_->Run(absl::StrCat("sbatch -w n1 -c 2 -o ", Out("cpu-%j.out"),
                                 " --wrap='grep Cpus_allowed_list /proc/self/status; nproc'")));
  ASSERT_GT(wide, 0u);
  WaitForState(*cluster_, wide, "COMPLETED");
  const std::string w = ReadFile(Out(absl::StrCat("cpu-", wide, ".out")));
  std::smatch mw;
  ASSERT_TRUE(std::regex_search(w, mw, std::regex("Cpus_allowed_list:\\s*(\\S+)"))) << w;
  EXPECT_EQ(CountCpus(mw[1]), std::min(2, host_cpus)) << w;
  EXPECT_NE(w.find(absl::StrCat("\n", std::min(2, host_cpus), "\n")), std::string::npos)
      << "nproc (sched_getaffinity) agrees: " << w;
}

TEST_F(CgroupTest, AJobOpensItsGpuAndGetsEpermOnTheOther) {
  const std::string gpus = cluster_->dir() + "/dev/n3";
  CommandResult submit = cluster_->Run(absl::StrCat(
      "sbatch -p gpu -w n3 --gres=gpu:1 -o ", Out("gpu-%j.out"),
      " --wrap='echo gpus=$CUDA_VISIBLE_DEVICES; for i in 0 1; do "
      "if (exec 3<",
      gpus, "/nvidia$i) 2>/dev/null; then echo nvidia$i=open; else (exec 3<", gpus,
      "/nvidia$i) 2>&1 | sed \"s/^/nvidia$i=/\"; fi; done; (exec 3>/dev/null) && echo null=open'"));
  const uint64_t id = JobIdFrom(submit);
  ASSERT_GT(id, 0u) << submit.out << submit.err;
  EXPECT_NE(WaitForState(*cluster_, id, "COMPLETED").find("JobState=COMPLETED"), std::string::npos);
  const std::string output = ReadFile(Out(absl::StrCat("gpu-", id, ".out")));
  std::smatch m;
  ASSERT_TRUE(std::regex_search(output, m, std::regex("gpus=([01])\n"))) << output;
  const std::string mine = m[1];
  const std::string other = mine == "0" ? "1" : "0";
  EXPECT_NE(output.find("nvidia" + mine + "=open\n"), std::string::npos) << output;
  EXPECT_NE(output.find("nvidia" + other + "="), std::string::npos) << output;
  EXPECT_NE(output.find("Operation not permitted"), std::string::npos) << output;
  EXPECT_EQ(output.find("nvidia" + other + "=open"), std::string::npos) << output;
  EXPECT_NE(output.find("null=open\n"), std::string::npos) << output;
}

TEST_F(CgroupTest, ScancelLeavesNoProcessOfTheJobEvenOutsideItsSession) {
  const std::string pid_file = Out("escaped.pid");
  // setsid + a background child that outlives its parent: a double fork into a
  // new session, out of the job's process group.
  CommandResult submit = cluster_->Run(
      absl::StrCat("sbatch -w n2 -o /dev/null --wrap='setsid bash -c \"sleep 1000 & echo \\$! > ",
                   pid_file, "\"; sleep 1000'"));
  const uint64_t id = JobIdFrom(submit);
  ASSERT_GT(id, 0u) << submit.out << submit.err;
  pid_t escaped = 0;
  ASSERT_TRUE(Eventually(60, [&] {
    escaped = static_cast<pid_t>(atoi(ReadFile(pid_file).c_str()));
    return escaped > 0;
  }));
  ASSERT_FALSE(Gone(escaped));
  EXPECT_TRUE(CgroupExists("n2", id));
  ASSERT_EQ(cluster_->Run(absl::StrCat("scancel ", id)).exit_code, 0);
  WaitForState(*cluster_, id, "CANCELLED");
  EXPECT_TRUE(Eventually(20, [&] { return Gone(escaped); })) << "pid " << escaped << " survived";
  EXPECT_TRUE(Eventually(20, [&] { return !CgroupExists("n2", id); }));
}

// The batch script's end ends the job: what it left behind, in or out of its
// session, is killed and the cgroup removed.
TEST_F(CgroupTest, TheScriptsEndKillsWhatItLeftBehind) {
  const std::string pid_file = Out("left.pid");
  CommandResult submit = cluster_->Run(
      absl::StrCat("sbatch -w n1 -o /dev/null --wrap='setsid bash -c \"sleep 1000 & echo \\$! > ",
                   pid_file, "\"; sleep 1'"));
  const uint64_t id = JobIdFrom(submit);
  ASSERT_GT(id, 0u) << submit.out << submit.err;
  // Failed once under stress -c 2 without saying how the job ended: say it.
  const std::string shown = WaitForState(*cluster_, id, "COMPLETED");
  ASSERT_NE(shown.find("JobState=COMPLETED "), std::string::npos)
      << shown << cluster_->Log("noded-n1.log");
  const pid_t left = static_cast<pid_t>(atoi(ReadFile(pid_file).c_str()));
  ASSERT_GT(left, 0);
  EXPECT_TRUE(Eventually(20, [&] { return Gone(left); })) << "pid " << left << " survived";
  EXPECT_TRUE(Eventually(20, [&] { return !CgroupExists("n1", id); }));
}

// A restarted noded re-adopts a running job with its CPUs (kept in the job's
// spec file): a new job does not get them, and scancel still reaches the whole
// cgroup of the re-adopted one.
TEST_F(CgroupTest, ARestartedNodedKeepsARunningJobsCpusAndCgroup) {
  const uint64_t first = JobIdFrom(cluster_->Run(
      absl::StrCat("sbatch -w n4 -c 1 -o ", Out("keep-%j.out"),
                   " --wrap='grep Cpus_allowed_list /proc/self/status; sleep 1000'")));
  ASSERT_GT(first, 0u);
  std::string a;
  ASSERT_TRUE(Eventually(60, [&] {
    a = ReadFile(Out(absl::StrCat("keep-", first, ".out")));
    return a.find("Cpus_allowed_list") != std::string::npos;
  }));
  const pid_t noded = cluster_->Pid("noded-n4");
  ASSERT_EQ(kill(noded, SIGKILL), 0);
  ASSERT_TRUE(Eventually(30, [&] { return !Alive(noded); }));
  CommandResult up = cluster_->Up();
  ASSERT_EQ(up.exit_code, 0) << up.out << up.err;
  ASSERT_TRUE(Eventually(30, [&] {
    return cluster_->Log("noded-n4.log").find(absl::StrCat("JobId=", first, " re-adopted")) !=
           std::string::npos;
  })) << cluster_->Log("noded-n4.log");

  const uint64_t second =
      JobIdFrom(cluster_->Run(absl::StrCat("sbatch -w n4 -c 1 -o ", Out("keep-%j.out"),
                                           " --wrap='grep Cpus_allowed_list /proc/self/status'")));
  ASSERT_GT(second, 0u);
  WaitForState(*cluster_, second, "COMPLETED");
  const std::string b = ReadFile(Out(absl::StrCat("keep-", second, ".out")));
  if (sysconf(_SC_NPROCESSORS_ONLN) >= 2) {
    EXPECT_NE(a, b) << "the new job got the re-adopted job's CPU";
  }
  ASSERT_EQ(cluster_->Run(absl::StrCat("scancel ", first)).exit_code, 0);
  EXPECT_NE(WaitForState(*cluster_, first, "CANCELLED").find("JobState=CANCELLED"),
            std::string::npos);
  EXPECT_TRUE(Eventually(20, [&] { return !CgroupExists("n4", first); }));
}

// The cgroup v2 backend end to end, on a hybrid host (v1 controllers plus an
// empty v2 hierarchy at /sys/fs/cgroup/unified, as this project's CI machine):
// tracking, cgroup.kill and the eBPF device program need no v2 controller.
TEST(CgroupV2HybridTest, DevicesAndKillThroughTheUnifiedHierarchy) {
  constexpr char kUnified[] = "/sys/fs/cgroup/unified";
  struct stat st;
  if (getuid() != 0) GTEST_SKIP() << "cgroups need root";
  if (stat(absl::StrCat(kUnified, "/cgroup.controllers").c_str(), &st) != 0) {
    GTEST_SKIP() << "no hybrid v2 hierarchy at " << kUnified;
  }
  LocalCluster::Options options;
  options.nodes = 1;
  options.gpu_nodes = 1;
  options.cgroups = true;
  options.extra_config = "KillWait=2\n";
  options.files["etc/cgroup.conf"] = absl::StrCat(
      "CgroupPlugin=cgroup/v2\nCgroupMountpoint=", kUnified, "\nConstrainDevices=yes\n");
  auto started = LocalCluster::Start(options);
  ASSERT_TRUE(started.ok()) << started.status();
  LocalCluster& cluster = **started;
  ASSERT_NE(cluster.Log("noded-n1.log").find("cgroups: v2"), std::string::npos)
      << cluster.Log("noded-n1.log");

  const std::string gpus = cluster.dir() + "/dev/n1";
  const uint64_t gpu_job = JobIdFrom(cluster.Run(
      absl::StrCat("sbatch -p gpu --gres=gpu:1 -o ", cluster.dir(), "/gpu-%j.out",
                   " --wrap='echo gpus=$CUDA_VISIBLE_DEVICES; for i in 0 1; do (exec 3<", gpus,
                   "/nvidia$i) && echo nvidia$i=open; done; true'")));
  ASSERT_GT(gpu_job, 0u);
  EXPECT_NE(WaitForState(cluster, gpu_job, "COMPLETED").find("JobState=COMPLETED"),
            std::string::npos);
  const std::string output = ReadFile(absl::StrCat(cluster.dir(), "/gpu-", gpu_job, ".out"));
  std::smatch m;
  ASSERT_TRUE(std::regex_search(output, m, std::regex("gpus=([01])\n"))) << output;
  const std::string other = m[1] == "0" ? "1" : "0";
  EXPECT_NE(output.find(absl::StrCat("nvidia", std::string(m[1]), "=open")), std::string::npos)
      << output;
  EXPECT_EQ(output.find("nvidia" + other + "=open"), std::string::npos) << output;
  EXPECT_NE(output.find("Operation not permitted"), std::string::npos) << output;

  const std::string pid_file = cluster.dir() + "/escaped.pid";
  const uint64_t id = JobIdFrom(cluster.Run(
      absl::StrCat("sbatch -o /dev/null --wrap='setsid bash -c \"sleep 1000 & echo \\$! > ",
                   pid_file, "\"; sleep 1000'")));
  ASSERT_GT(id, 0u);
  pid_t escaped = 0;
  ASSERT_TRUE(Eventually(60, [&] {
    escaped = static_cast<pid_t>(atoi(ReadFile(pid_file).c_str()));
    return escaped > 0;
  }));
  const std::string job_cgroup = absl::StrCat(kUnified, "/skiff/n1/job_", id);
  EXPECT_EQ(stat(job_cgroup.c_str(), &st), 0);
  ASSERT_EQ(cluster.Run(absl::StrCat("scancel ", id)).exit_code, 0);
  WaitForState(cluster, id, "CANCELLED");
  EXPECT_TRUE(Eventually(20, [&] { return Gone(escaped); })) << "pid " << escaped << " survived";
  EXPECT_TRUE(Eventually(20, [&] { return stat(job_cgroup.c_str(), &st) != 0; }));
  cluster.Down();
  rmdir(absl::StrCat(kUnified, "/skiff/n1").c_str());
}

// ------------------------------------------------------------------ fallback

TEST(CgroupFallbackTest, WithoutProctrackCgroupJobsRunAndNodedSaysSo) {
  LocalCluster::Options options;
  options.nodes = 1;
  options.gpu_nodes = 0;
  auto cluster = LocalCluster::Start(options);
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  CommandResult submit = (*cluster)->Run("sbatch -o /dev/null --mem=50 --wrap=true");
  const uint64_t id = JobIdFrom(submit);
  ASSERT_GT(id, 0u) << submit.out << submit.err;
  EXPECT_NE(WaitForState(**cluster, id, "COMPLETED").find("JobState=COMPLETED"), std::string::npos);
  const std::string log = (*cluster)->Log("noded-n1.log");
  EXPECT_NE(log.find("cgroups not used: ProctrackType=proctrack/pgid"), std::string::npos) << log;
}

// Tracking alone (ProctrackType=proctrack/cgroup, no Constrain*) asks for no
// limits: without a hierarchy jobs run tracked by process group.
TEST(CgroupFallbackTest, AMissingHierarchyWithoutConstraintsFallsBackToProcessGroups) {
  LocalCluster::Options options;
  options.nodes = 1;
  options.gpu_nodes = 0;
  options.cgroups = true;
  options.files["etc/cgroup.conf"] = "CgroupMountpoint=/nonexistent\n";
  auto cluster = LocalCluster::Start(options);
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  CommandResult submit = (*cluster)->Run("sbatch -o /dev/null --mem=50 --wrap=true");
  const uint64_t id = JobIdFrom(submit);
  ASSERT_GT(id, 0u) << submit.out << submit.err;
  EXPECT_NE(WaitForState(**cluster, id, "COMPLETED").find("JobState=COMPLETED"), std::string::npos);
  const std::string log = (*cluster)->Log("noded-n1.log");
  EXPECT_NE(log.find("cgroups unavailable: no cgroup hierarchy at CgroupMountpoint=/nonexistent"),
            std::string::npos)
      << log;
  EXPECT_EQ(log.find("registers drained"), std::string::npos) << log;
}

// Constrain*=yes that cannot be had: the node registers drained with the
// reason (as Slurm drains on a failed plugin), so no job runs there unconfined.
TEST(CgroupFallbackTest, AMissingHierarchyWithConstraintsDrainsTheNodeSayingWhy) {
  LocalCluster::Options options;
  options.nodes = 1;
  options.gpu_nodes = 0;
  options.cgroups = true;
  options.files["etc/cgroup.conf"] = "CgroupMountpoint=/nonexistent\nConstrainRAMSpace=yes\n";
  auto cluster = LocalCluster::Start(options);
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  const std::string reason =
      "cgroups unavailable (ConstrainRAMSpace=yes): no cgroup hierarchy at "
      "CgroupMountpoint=/nonexistent";
  std::string node;
  EXPECT_TRUE(Eventually(30, [&] {
    node = (*cluster)->Run("scontrol show node n1").out;
    return node.find("Reason=" + reason) != std::string::npos;
  })) << node;
  EXPECT_NE(node.find("State=IDLE+DRAIN "), std::string::npos) << node;
  const CommandResult reasons = (*cluster)->Run("sinfo -R -h -o '%E|%N'");
  EXPECT_EQ(reasons.out.rfind(reason, 0), 0u) << reasons.out << reasons.err;
  EXPECT_NE(reasons.out.find("|n1"), std::string::npos) << reasons.out;
  const std::string log = (*cluster)->Log("noded-n1.log");
  EXPECT_NE(log.find("so this node registers drained"), std::string::npos) << log;
}

}  // namespace
}  // namespace skiff::testing
