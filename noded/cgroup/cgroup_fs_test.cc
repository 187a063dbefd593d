// Against the host's real cgroup hierarchy, under skiff/fs_test_<pid>; skips
// itself where no writable v1 or v2 hierarchy is mounted at /sys/fs/cgroup.
#include "noded/cgroup/cgroup_fs.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace skiff::noded {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr char kMount[] = "/sys/fs/cgroup";

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class CgroupFsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<CgroupVersion> version = DetectCgroupVersion(kMount, "autodetect");
    if (!version.ok()) GTEST_SKIP() << "no cgroup hierarchy: " << version.status().message();
    if (geteuid() != 0) GTEST_SKIP() << "cgroups need root";
    version_ = *version;
    settings_.enabled = true;
    settings_.constrain_ram = true;
    settings_.constrain_cores = true;
    settings_.constrain_devices = version_ == CgroupVersion::kV1;
    cgroups_ = MakeCgroups(version_, kMount, NeededControllers(version_, kMount, settings_));
    node_rel_ = absl::StrCat("skiff/fs_test_", getpid());
    if (absl::Status s = cgroups_->PrepareNode(node_rel_); !s.ok()) {
      cgroups_.reset();
      GTEST_SKIP() << "cgroup hierarchy not writable: " << s.message();
    }
    job_rel_ = node_rel_ + "/job_1";
  }

  void TearDown() override {
    if (!cgroups_) return;
    (void)cgroups_->KillAll(job_rel_);
    for (int i = 0; i < 200 && !cgroups_->Pids(job_rel_).empty(); ++i) usleep(10000);
    (void)cgroups_->Remove(job_rel_);
    for (const std::string& c : cgroups_->controllers()) {
      const std::string base =
          version_ == CgroupVersion::kV1 ? absl::StrCat(kMount, "/", c) : std::string(kMount);
      rmdir(absl::StrCat(base, "/", node_rel_).c_str());
      if (version_ == CgroupVersion::kV2) break;
    }
  }

  // Forks a child that joins the job's cgroup and execs `sh -c script`.
  pid_t StartInJob(const std::string& script) {
    std::vector<std::string> files = cgroups_->ProcsFiles(job_rel_);
    const pid_t pid = fork();
    if (pid == 0) {
      for (const std::string& f : files) {
        if (WritePidAsyncSignalSafe(f.c_str(), getpid()) != 0) _exit(90);
      }
      execl("/bin/sh", "sh", "-c", script.c_str(), static_cast<char*>(nullptr));
      _exit(91);
    }
    return pid;
  }

  CgroupVersion version_ = CgroupVersion::kNone;
  CgroupSettings settings_;
  std::unique_ptr<Cgroups> cgroups_;
  std::string node_rel_;
  std::string job_rel_;
};

TEST_F(CgroupFsTest, JoinedProcessIsListedAndKilledWithItsEscapedChildren) {
  ASSERT_TRUE(cgroups_->CreateJob(job_rel_, {}).ok());
  // The child leaves its session and double-forks: a process group kill misses it.
  const pid_t pid = StartInJob("setsid sh -c 'sleep 300 & sleep 300' & sleep 300");
  for (int i = 0; i < 200 && cgroups_->Pids(job_rel_).size() < 4; ++i) usleep(10000);
  EXPECT_THAT(cgroups_->Pids(job_rel_), Contains(pid));
  EXPECT_GE(cgroups_->Pids(job_rel_).size(), 4u);
  ASSERT_TRUE(cgroups_->KillAll(job_rel_).ok());
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  for (int i = 0; i < 200 && !cgroups_->Pids(job_rel_).empty(); ++i) usleep(10000);
  EXPECT_THAT(cgroups_->Pids(job_rel_), IsEmpty());
  EXPECT_TRUE(cgroups_->Remove(job_rel_).ok());
  EXPECT_TRUE(cgroups_->Remove(job_rel_).ok()) << "removing twice is fine";
}

TEST_F(CgroupFsTest, CreateRefusesACgroupThatStillHoldsProcesses) {
  ASSERT_TRUE(cgroups_->CreateJob(job_rel_, {}).ok());
  const pid_t pid = StartInJob("sleep 300");
  for (int i = 0; i < 200 && cgroups_->Pids(job_rel_).empty(); ++i) usleep(10000);
  absl::Status again = cgroups_->CreateJob(job_rel_, {});
  EXPECT_EQ(again.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(again.message()), HasSubstr("already holds processes"));
  ASSERT_TRUE(cgroups_->KillAll(job_rel_).ok());
  waitpid(pid, nullptr, 0);
}

TEST_F(CgroupFsTest, LimitsAreWritten) {
  JobCgroupLimits limits;
  limits.ram_bytes = 64ull << 20;
  const std::vector<int> node_cpus = cgroups_->NodeCpus(node_rel_);
  ASSERT_FALSE(node_cpus.empty());
  limits.cpus = {node_cpus.front()};
  ASSERT_TRUE(cgroups_->CreateJob(job_rel_, limits).ok());
  const std::string mem_file =
      version_ == CgroupVersion::kV1
          ? absl::StrCat(kMount, "/memory/", job_rel_, "/memory.limit_in_bytes")
          : absl::StrCat(kMount, "/", job_rel_, "/memory.max");
  EXPECT_EQ(Slurp(mem_file), absl::StrCat(64ull << 20, "\n"));
  const pid_t pid = StartInJob("grep Cpus_allowed_list /proc/self/status > /dev/null; exit 0");
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  const std::string cpus_file = version_ == CgroupVersion::kV1
                                    ? absl::StrCat(kMount, "/cpuset/", job_rel_, "/cpuset.cpus")
                                    : absl::StrCat(kMount, "/", job_rel_, "/cpuset.cpus");
  EXPECT_EQ(Slurp(cpus_file), absl::StrCat(node_cpus.front(), "\n"));
}

TEST_F(CgroupFsTest, OomKillIsCounted) {
  JobCgroupLimits limits;
  limits.ram_bytes = 32ull << 20;
  limits.ram_swap_bytes = 32ull << 20;
  ASSERT_TRUE(cgroups_->CreateJob(job_rel_, limits).ok());
  EXPECT_EQ(cgroups_->OomKills(job_rel_), 0u);
  const pid_t pid = StartInJob("head -c 200M /dev/zero | tail -c 200M > /dev/null");
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_GE(cgroups_->OomKills(job_rel_), 1u);
}

TEST_F(CgroupFsTest, DeniedDeviceCannotBeOpened) {
  if (version_ != CgroupVersion::kV1) GTEST_SKIP() << "devices are v1 only here";
  JobCgroupLimits limits;
  limits.denied_devices = {{'c', 1, 7}};  // /dev/full
  ASSERT_TRUE(cgroups_->CreateJob(job_rel_, limits).ok());
  const pid_t pid = StartInJob(
      "(exec 3>/dev/null) || exit 3; (exec 4</dev/zero) || exit 4; "
      "(exec 5>/dev/full) 2>/dev/null && exit 5; exit 0");
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(DetectCgroupVersion, NamesWhatIsMissing) {
  absl::StatusOr<CgroupVersion> none = DetectCgroupVersion("/nonexistent", "autodetect");
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(std::string(none.status().message()), HasSubstr("/nonexistent"));
  absl::StatusOr<CgroupVersion> v2 = DetectCgroupVersion("/nonexistent", "cgroup/v2");
  ASSERT_FALSE(v2.ok());
  EXPECT_THAT(std::string(v2.status().message()), HasSubstr("CgroupPlugin=cgroup/v2"));
}

TEST(CgroupsV2, RefusesConstrainDevicesWithoutALoadableBpfProgram) {
  if (geteuid() == 0) GTEST_SKIP() << "root can load the device program (CgroupV2Test uses it)";
  std::unique_ptr<Cgroups> v2 = MakeCgroups(CgroupVersion::kV2, "/nonexistent", {"devices"});
  absl::Status s = v2->PrepareNode("skiff/x");
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(s.message()), HasSubstr("eBPF"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("BPF_PROG_LOAD"));
}

// The v2 backend where a v2 hierarchy is mounted: /sys/fs/cgroup itself, or
// /sys/fs/cgroup/unified beside v1 controllers (a hybrid host, without v2
// controllers: process tracking, cgroup.kill and the device program still work).
class CgroupV2Test : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "cgroups need root";
    for (const char* mount : {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"}) {
      if (access(absl::StrCat(mount, "/cgroup.controllers").c_str(), F_OK) == 0) {
        mount_ = mount;
        break;
      }
    }
    if (mount_.empty()) GTEST_SKIP() << "no cgroup v2 hierarchy mounted";
    CgroupSettings settings;
    settings.constrain_devices = true;
    cgroups_ = MakeCgroups(CgroupVersion::kV2, mount_,
                           NeededControllers(CgroupVersion::kV2, mount_, settings));
    node_rel_ = absl::StrCat("skiff/fs_test_v2_", getpid());
    if (absl::Status s = cgroups_->PrepareNode(node_rel_); !s.ok()) {
      cgroups_.reset();
      GTEST_SKIP() << "cgroup v2 hierarchy not usable: " << s.message();
    }
    job_rel_ = node_rel_ + "/job_1";
  }

  void TearDown() override {
    if (!cgroups_) return;
    (void)cgroups_->KillAll(job_rel_);
    for (int i = 0; i < 200 && !cgroups_->Pids(job_rel_).empty(); ++i) usleep(10000);
    (void)cgroups_->Remove(job_rel_);
    rmdir(absl::StrCat(mount_, "/", node_rel_).c_str());
  }

  pid_t StartInJob(const std::string& script) {
    std::vector<std::string> files = cgroups_->ProcsFiles(job_rel_);
    const pid_t pid = fork();
    if (pid == 0) {
      for (const std::string& f : files) {
        if (WritePidAsyncSignalSafe(f.c_str(), getpid()) != 0) _exit(90);
      }
      execl("/bin/sh", "sh", "-c", script.c_str(), static_cast<char*>(nullptr));
      _exit(91);
    }
    return pid;
  }

  std::string mount_;
  std::unique_ptr<Cgroups> cgroups_;
  std::string node_rel_;
  std::string job_rel_;
};

TEST_F(CgroupV2Test, DeviceProgramDeniesOnlyTheListedDevices) {
  JobCgroupLimits limits;
  limits.denied_devices = {{'c', 1, 7}};  // /dev/full
  ASSERT_TRUE(cgroups_->CreateJob(job_rel_, limits).ok());
  const pid_t pid = StartInJob(
      "(exec 3>/dev/null) || exit 3; (exec 4</dev/zero) || exit 4; "
      "(exec 5>/dev/full) 2>/dev/null && exit 5; exit 0");
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  // Reused for another job: the new program replaces the old one.
  ASSERT_TRUE(cgroups_->CreateJob(job_rel_, {}).ok());
  const pid_t again = StartInJob("(exec 5>/dev/full) || exit 5; exit 0");
  ASSERT_EQ(waitpid(again, &status, 0), again);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST_F(CgroupV2Test, KillReachesProcessesOutsideTheSession) {
  ASSERT_TRUE(cgroups_->CreateJob(job_rel_, {}).ok());
  const pid_t pid = StartInJob("setsid sh -c 'sleep 300 & sleep 300' & sleep 300");
  for (int i = 0; i < 200 && cgroups_->Pids(job_rel_).size() < 4; ++i) usleep(10000);
  EXPECT_GE(cgroups_->Pids(job_rel_).size(), 4u);
  ASSERT_TRUE(cgroups_->KillAll(job_rel_).ok());
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  for (int i = 0; i < 200 && !cgroups_->Pids(job_rel_).empty(); ++i) usleep(10000);
  EXPECT_THAT(cgroups_->Pids(job_rel_), IsEmpty());
  EXPECT_TRUE(cgroups_->Remove(job_rel_).ok());
}

TEST(WritePidAsyncSignalSafe, WritesDecimal) {
  char path[] = "/tmp/cgroup_fs_test_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  EXPECT_EQ(WritePidAsyncSignalSafe(path, 40213), 0);
  EXPECT_EQ(Slurp(path), "40213");
  unlink(path);
  EXPECT_NE(WritePidAsyncSignalSafe("/nonexistent/x", 1), 0);
}

}  // namespace
}  // namespace skiff::noded
