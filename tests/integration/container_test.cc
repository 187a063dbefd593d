// Slurm's --container through the real daemons: an OCI bundle built here
// (a static busybox and `runc spec --rootless`), the oci.conf for runc from
// Slurm's containers guide copied unchanged, and jobs that run in it as their
// user: their output, their exit code, their GPUs, their memory limit (in
// cgroups where the host has them), srun steps, a bundle without config.json,
// and a cancelled container that leaves nothing behind.
// Runs as root: it creates a test user. Needs runc and busybox-static
// (./skiff setup installs both).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/shared_cluster.h"
#include "tests/harness/test_util.h"
#include "tests/integration/container_fixture.h"

namespace skiff::testing {
namespace {

constexpr char kAlice[] = "skiffalice";

class ContainerTest : public SharedClusterTest<ContainerTest> {
 protected:
  static void SetUpTestSuite() {
    if (getuid() != 0) return;
    LocalCluster::Options options = NodesWithGpus(1, 1);  // n1: 2 fake GPUs
    options.files = {{"etc/oci.conf", kSlurmRuncOciConf}};
    // In cgroups where the host has them, as a lab's nodes do: the container
    // must stay inside the job's.
    no_cgroups_ = LocalCluster::CgroupsUnavailable();
    options.cgroups = no_cgroups_.empty();
    StartCluster(options);
    if (HasFatalFailure()) return;
    absl::StatusOr<uid_t> uid = cluster_->EnsureUser(kAlice);
    ASSERT_TRUE(uid.ok()) << uid.status();
    uid_ = *uid;
    // A rootless runtime needs the user to be able to make a user namespace,
    // which a chroot (or a host with them turned off) does not allow.
    no_user_namespaces_ = UserNamespacesUnavailable(*cluster_, kAlice);
    ASSERT_TRUE(MakeRunUserDir(uid_));
    // The bundle: a static busybox as the whole root file system, and
    // runc's rootless config.json made by the user.
    bundle_ = absl::StrCat(cluster_->dir(), "/home/", kAlice, "/bundle");
    const CommandResult made = cluster_->RunAs(
        kAlice, absl::StrCat("set -e; mkdir -p ", bundle_, "/rootfs/bin; cd ", bundle_,
                             "; cp /bin/busybox rootfs/bin/; for c in sh ls id cat echo sleep "
                             "head tail yes; do ln -s busybox rootfs/bin/$c; done; "
                             "mkdir -p rootfs/proc rootfs/dev rootfs/sys rootfs/tmp; "
                             "runc spec --rootless"));
    ASSERT_EQ(made.exit_code, 0) << made.out << made.err;
  }
  void SetUp() override { SetUpAsRoot(); }

  // Submits `args` as alice; the job's id.
  std::string Submit(const std::string& args) {
    const std::string id = SubmitAs(*cluster_, kAlice, args);
    EXPECT_FALSE(id.empty()) << args;
    return id;
  }
  std::string Show(const std::string& id) { return ShowJob(*cluster_, id); }
  bool Done(const std::string& id) { return JobEnded(*cluster_, id); }
  std::string Home() { return absl::StrCat(cluster_->dir(), "/home/", kAlice); }

  static uid_t uid_;
  static std::string no_user_namespaces_;  // why containers cannot run here; "" = they can
  static std::string no_cgroups_;          // why jobs are not in cgroups here; "" = they are
  static std::string bundle_;
};

uid_t ContainerTest::uid_ = 0;
std::string ContainerTest::bundle_;
std::string ContainerTest::no_user_namespaces_;
std::string ContainerTest::no_cgroups_;

// For the tests that start a container.
#define SKIP_WITHOUT_USER_NAMESPACES() \
  if (!no_user_namespaces_.empty()) GTEST_SKIP() << no_user_namespaces_

TEST_F(ContainerTest, TheBatchScriptRunsInTheBundleAsItsUser) {
  SKIP_WITHOUT_USER_NAMESPACES();
  const std::string id = Submit(absl::StrCat(
      "--container=", bundle_, " -o c.out --wrap 'ls /bin | head -3; cat /proc/self/uid_map'"));
  ASSERT_TRUE(Eventually(60, [&] { return Done(id); })) << Show(id);
  EXPECT_TRUE(absl::StrContains(Show(id), "JobState=COMPLETED")) << Show(id);
  const std::string out_path = Home() + "/c.out";
  const std::string out = ReadFile(out_path);
  // Only the bundle's root file system, and the user mapped to root in it.
  EXPECT_TRUE(absl::StartsWith(out, "busybox\ncat\necho\n")) << out;
  EXPECT_TRUE(absl::StrContains(out, absl::StrCat(" ", uid_, " "))) << out;
  struct stat st {};
  ASSERT_EQ(stat(out_path.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, uid_);
}

TEST_F(ContainerTest, TheContainersExitCodeIsTheJobs) {
  SKIP_WITHOUT_USER_NAMESPACES();
  const std::string id =
      Submit(absl::StrCat("--container=", bundle_, " -o /dev/null --wrap 'exit 3'"));
  ASSERT_TRUE(Eventually(60, [&] { return Done(id); })) << Show(id);
  EXPECT_TRUE(absl::StrContains(Show(id), "ExitCode=3:0")) << Show(id);
}

// Without oci.conf, the node's own default runtime: runc where cgroups are
// hybrid or v1 (crun refuses those) or crun is missing, crun on a v2-only
// host that has it (container_support.h, HostDefaultOciConfig).
TEST_F(ContainerTest, WithoutOciConfTheNodesDefaultRuntimeRunsTheBundle) {
  SKIP_WITHOUT_USER_NAMESPACES();
  LocalCluster::Options options;
  options.nodes = 1;
  absl::StatusOr<std::unique_ptr<LocalCluster>> plain = LocalCluster::Start(options);
  ASSERT_TRUE(plain.ok()) << plain.status();
  ASSERT_TRUE((*plain)->EnsureUser(kAlice).ok());
  ASSERT_TRUE(ReadFile((*plain)->dir() + "/etc/oci.conf").empty()) << "no oci.conf";
  const std::string out = Home() + "/default-runtime.out";
  const std::string id =
      SubmitAs(**plain, kAlice,
               absl::StrCat("--container=", bundle_, " -o ", out, " --wrap 'ls /bin | head -1'"));
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(Eventually(60, [&] { return JobEnded(**plain, id); })) << ShowJob(**plain, id);
  EXPECT_EQ(ScontrolField(ShowJob(**plain, id), "JobState"), "COMPLETED") << ShowJob(**plain, id);
  EXPECT_EQ(ReadFile(out), "busybox\n");
}

TEST_F(ContainerTest, AJobSeesOnlyItsOwnGpu) {
  SKIP_WITHOUT_USER_NAMESPACES();
  const std::string id = Submit(
      absl::StrCat("--container=", bundle_, " --gres=gpu:1 -o g.out --wrap 'ls /dev | grep nv'"));
  ASSERT_TRUE(Eventually(60, [&] { return Done(id); })) << Show(id);
  // One of the node's two, bound in under /dev; the other is not there.
  const std::string out = ReadFile(Home() + "/g.out");
  EXPECT_TRUE(out == "nvidia0\n" || out == "nvidia1\n") << out << Show(id);
}

// As in Slurm, a step does not inherit the job's container: srun asks again.
TEST_F(ContainerTest, SrunStepsRunInTheBundleTheBatchShellOnTheHost) {
  SKIP_WITHOUT_USER_NAMESPACES();
  const std::string script = Home() + "/steps.sh";
  {
    std::ofstream out(script);
    out << "#!/bin/sh\n"
        << "test -e /etc/debian_version && echo host\n"  // not in the bundle
        << "srun -n2 --container=" << bundle_ << " sh -c 'echo $SLURM_PROCID $(ls /bin | head -1)'"
        << " | sort\n";
  }
  ASSERT_EQ(chown(script.c_str(), uid_, static_cast<gid_t>(-1)), 0);
  const std::string id = Submit("-n2 -o s.out steps.sh");
  ASSERT_TRUE(Eventually(60, [&] { return Done(id); })) << Show(id);
  EXPECT_EQ(ReadFile(Home() + "/s.out"), "host\n0 busybox\n1 busybox\n") << Show(id);
  // The step's container directories went with it.
  EXPECT_TRUE(Eventually(30, [&] {
    return cluster_
        ->Run(
            absl::StrCat("ls -d ", cluster_->dir(), "/state/noded/*/oci-job", id, "-* 2>/dev/null"))
        .out.empty();
  }));
}

// salloc --container: as in Slurm (without use_interactive_step), salloc's
// command runs where salloc does; the job records its container, and steps
// name their own.
TEST_F(ContainerTest, SallocWithAContainerRunsItsCommandAndItsSteps) {
  SKIP_WITHOUT_USER_NAMESPACES();
  const CommandResult r = cluster_->RunAs(
      kAlice, absl::StrCat("salloc -Q --container=", bundle_,
                           " sh -c 'scontrol show job $SLURM_JOB_ID | grep -o \"Container=[^ ]*\"; "
                           "srun --container=",
                           bundle_, " ls /bin/busybox'"));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  // (No pipe into head: srun ends a step whose output nobody reads.)
  EXPECT_EQ(r.out, absl::StrCat("Container=", bundle_, "\n/bin/busybox\n")) << r.err;
}

TEST_F(ContainerTest, ABundleWithoutConfigJsonFailsTheJobSayingSo) {
  const std::string empty = Home() + "/empty-bundle";
  ASSERT_EQ(cluster_->RunAs(kAlice, "mkdir -p " + empty).exit_code, 0);
  const std::string id = Submit(absl::StrCat("--container=", empty, " -o /dev/null --wrap true"));
  ASSERT_TRUE(Eventually(60, [&] { return Done(id); })) << Show(id);
  const std::string shown = Show(id);
  EXPECT_TRUE(absl::StrContains(shown, "JobState=FAILED")) << shown;
  // scontrol's Reason=, spaces as underscores.
  EXPECT_TRUE(absl::StrContains(shown, absl::StrCat("Reason=container:_cannot_read_", empty,
                                                    "/config.json:_No_such_file_or_directory")))
      << shown;
}

// The container's processes count against the job's memory: over it, the job
// ends OUT_OF_MEMORY as any other would.
TEST_F(ContainerTest, AContainerOverTheJobsMemoryEndsOutOfMemory) {
  SKIP_WITHOUT_USER_NAMESPACES();
  if (!no_cgroups_.empty()) GTEST_SKIP() << "no writable cgroup hierarchy: " << no_cgroups_;
  // tail -c keeps the last 300 MiB of a pipe in memory: far over --mem=50
  // (busybox takes plain byte counts; /dev/zero is a fake GPU of this node).
  const std::string id = Submit(absl::StrCat(
      "--container=", bundle_,
      " --mem=50 -o oom.out --wrap 'yes | head -c 314572800 | tail -c 314572800 >/dev/null'"));
  ASSERT_TRUE(Eventually(60, [&] {
    return absl::StrContains(Show(id), "JobState=OUT_OF_MEMORY") || Done(id);
  })) << Show(id);
  EXPECT_TRUE(absl::StrContains(Show(id), "JobState=OUT_OF_MEMORY"))
      << Show(id) << ReadFile(Home() + "/oom.out");
}

TEST_F(ContainerTest, ACancelledContainerLeavesNothingBehind) {
  SKIP_WITHOUT_USER_NAMESPACES();
  const std::string id =
      Submit(absl::StrCat("--container=", bundle_, " -o /dev/null --wrap 'sleep 313'"));
  const std::string name = absl::StrCat("n1.", kAlice, ".", id, ".4294967291.0");
  const std::string state = absl::StrCat("/run/user/", uid_, "/", name);
  ASSERT_TRUE(Eventually(60, [&] { return access(state.c_str(), F_OK) == 0; })) << Show(id);
  ASSERT_TRUE(Eventually(30, [&] { return !PidsWithCommandLine("sleep 313").empty(); }));
  ASSERT_EQ(cluster_->Run("scancel " + id).exit_code, 0);
  ASSERT_TRUE(Eventually(60, [&] { return Done(id); })) << Show(id);
  EXPECT_TRUE(PidsWithCommandLine("sleep 313").empty());
  // The runtime forgot it (RunTimeDelete), and the generated bundle is gone.
  EXPECT_TRUE(Eventually(30, [&] { return access(state.c_str(), F_OK) != 0; }));
  EXPECT_NE(cluster_
                ->Run(absl::StrCat("runuser -u ", kAlice, " -- runc --root=/run/user/", uid_,
                                   " state ", name))
                .exit_code,
            0);
}

// A node whose oci.conf names a runtime it does not have registers drained,
// saying so in sinfo -R, rather than failing each container job sent to it.
TEST(ContainerRuntimeTest, AMissingRuntimeDrainsTheNodeWithTheReason) {
  if (getuid() != 0) GTEST_SKIP() << "needs root to start a cluster with noded as root";
  LocalCluster::Options options;
  options.nodes = 1;
  options.gpu_nodes = 0;
  options.files = {{"etc/oci.conf",
                    "RunTimeRun=\"no-such-runtime run --bundle %b %n.%u.%j.%s.%t\"\n"
                    "RunTimeKill=\"no-such-runtime kill %n.%u.%j.%s.%t\"\n"
                    "RunTimeDelete=\"no-such-runtime delete %n.%u.%j.%s.%t\"\n"}};
  auto cluster = LocalCluster::Start(options);
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  std::string reasons;
  EXPECT_TRUE(Eventually(30, [&] {
    reasons = (*cluster)->Run("sinfo -R -h -o '%N|%E'").out;
    return absl::StrContains(reasons, "n1|");
  })) << reasons;
  EXPECT_TRUE(absl::StrContains(
      reasons, "oci.conf's RunTimeRun runs 'no-such-runtime', which is not installed on this node"))
      << reasons;
}

}  // namespace
}  // namespace skiff::testing
