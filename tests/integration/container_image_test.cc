// pyxis-style images (--container-image) through the real daemons. The images
// are built here, offline: a static busybox packed as an OCI image layout by
// umoci (and copied to a docker-archive tar by skopeo). Jobs written for pyxis
// run unchanged, as their user, with their mounts and GPUs; two users share
// the node's cache and cannot change it; the cache evicts when full; a named
// container keeps its files across a job's steps; bad input fails the job
// with a reason; scancel leaves no process, mount or directory behind. Issue
// 47: a user can neither change the cache through their container, nor read
// another's container or image, nor make root follow a link, read a FIFO or
// unpack past the cache's size, nor outlive their container; each attempt
// ends with the node healthy.
// Runs as root: it creates test users. Needs runc, skopeo, umoci,
// docker-registry and busybox-static (./skiff setup installs them).
#include <arpa/inet.h>
#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/shared_cluster.h"
#include "tests/harness/test_util.h"
#include "tests/integration/container_fixture.h"

namespace skiff::testing {
namespace {

constexpr char kAlice[] = "skiffalice";
constexpr char kBob[] = "skiffbob";

class ContainerImageTest : public SharedClusterTest<ContainerImageTest> {
 protected:
  static void SetUpTestSuite() {
    if (getuid() != 0) return;
    // The lab's registry mirror: Debian's docker-registry on a free local
    // port, plain HTTP, started before the cluster that is told of it.
    registry_dir_ = MakeTempDir();
    const int port = FreePort();
    ASSERT_GT(port, 0);
    registry_ = absl::StrCat("127.0.0.1:", port);
    WriteFile(registry_dir_ + "/config.yml",
              absl::StrCat("version: 0.1\nstorage:\n  filesystem:\n    rootdirectory: ",
                           registry_dir_, "/data\nhttp:\n  addr: ", registry_, "\n"));
    ASSERT_EQ(
        system(absl::StrCat("sh -c 'echo $$ > ", registry_dir_, "/pid; exec docker-registry serve ",
                            registry_dir_, "/config.yml' > ", registry_dir_, "/log 2>&1 &")
                   .c_str()),
        0);
    LocalCluster::Options options = NodesWithGpus(1, 1);  // n1: 2 fake GPUs
    // Slurm's runc example with a state directory of its own: container_test
    // may run beside this test with the same user, node and job ids.
    options.files = {
        {"etc/oci.conf",
         absl::StrReplaceAll(kSlurmRuncOciConf, {{"/run/user/%U/", "/run/user/%U/images/"}})}};
    // The fake NVIDIA driver (its NVML), where noded's loader finds it, in a
    // directory everyone can read, as /usr/lib is.
    const std::string driver = registry_dir_ + "/driver";
    chmod(registry_dir_.c_str(), 0755);
    ASSERT_EQ(system(absl::StrCat("mkdir -p ", driver, " && cp ", RunfilesRoot(),
                                  "/tests/fake_nvml/libnvidia-ml.so.1 ", driver,
                                  " && chmod -R a+rX ", driver)
                         .c_str()),
              0);
    options.environment = {{"LD_LIBRARY_PATH", driver}};
    // In cgroups where the host has them: the container stays in the job's.
    no_cgroups_ = LocalCluster::CgroupsUnavailable();
    options.cgroups = no_cgroups_.empty();
    // Room for one of the test's images (about 2 MB each), not two.
    options.extra_config = absl::StrCat(
        "ContainerImageCacheSize=3M\nContainerRegistryMirror=http://", registry_, "\n");
    StartCluster(options);
    if (HasFatalFailure()) return;
    for (const char* user : {kAlice, kBob}) {
      absl::StatusOr<uid_t> uid = cluster_->EnsureUser(user);
      ASSERT_TRUE(uid.ok()) << uid.status();
      ASSERT_TRUE(MakeRunUserDir(*uid));
    }
    no_user_namespaces_ = UserNamespacesUnavailable(*cluster_, kAlice);
    // Two images: busybox, and busybox with a marker file (another id).
    images_ = absl::StrCat(cluster_->dir(), "/images");
    const CommandResult made = cluster_->Run(absl::StrCat(
        "set -e; mkdir -p ", images_, "/root/bin; cd ", images_,
        "; cp /bin/busybox root/bin/; for c in sh ls id cat echo sleep touch stat wc grep head "
        "tail yes; do "
        "ln -s busybox root/bin/$c; done; mkdir -p root/tmp root/etc; chmod 1777 root/tmp;"
        " umoci init --layout busybox; umoci new --image busybox:latest;"
        " umoci insert --image busybox:latest root /;"
        " umoci config --image busybox:latest --config.env PATH=/bin --config.env "
        "IMAGE_VAR=fromimage"
        " --config.workingdir /;"
        " cp -r busybox second; echo second > marker;"
        " umoci insert --image second:latest marker /etc/marker;"
        " skopeo copy --quiet oci:busybox:latest docker-archive:busybox.tar:busybox:latest;"
        " chmod -R a+rX ",
        images_));
    ASSERT_EQ(made.exit_code, 0) << made.out << made.err;
    // The second image in the mirror, as lab/tools:v2.
    ASSERT_TRUE(Eventually(30, [&] {
      return cluster_
                 ->Run(absl::StrCat("skopeo copy --quiet --dest-tls-verify=false oci:", images_,
                                    "/second:latest docker://", registry_, "/lab/tools:v2"))
                 .exit_code == 0;
    })) << ReadFile(registry_dir_ + "/log");
  }
  static void TearDownTestSuite() {
    SharedClusterTest::TearDownTestSuite();
    const std::string pid = ReadFile(registry_dir_ + "/pid");
    if (!pid.empty()) kill(atoi(pid.c_str()), SIGKILL);
    if (!registry_dir_.empty()) system(("rm -rf " + registry_dir_).c_str());
  }
  static std::string MakeTempDir() {
    char dir[] = "/tmp/skiff-registry-XXXXXX";
    return mkdtemp(dir) != nullptr ? dir : "";
  }
  static void WriteFile(const std::string& path, const std::string& text) {
    std::ofstream(path) << text;
  }
  void SetUp() override {
    if (getuid() != 0) GTEST_SKIP() << "needs root to create test users";
    ASSERT_NE(cluster_, nullptr);
    if (!no_user_namespaces_.empty()) GTEST_SKIP() << no_user_namespaces_;
  }

  std::string Submit(const std::string& user, const std::string& args) {
    const std::string id = SubmitAs(*cluster_, user, args);
    EXPECT_FALSE(id.empty()) << args;
    return id;
  }
  std::string Show(const std::string& id) { return ShowJob(*cluster_, id); }
  bool Done(const std::string& id) { return JobEnded(*cluster_, id); }
  // Waits for the job's end; its output file (in the user's home).
  std::string RunToEnd(const std::string& user, const std::string& id, const std::string& out) {
    EXPECT_TRUE(Eventually(90, [&] { return Done(id); })) << Show(id);
    return ReadFile(absl::StrCat(Home(user), "/", out));
  }
  std::string Home(const std::string& user) {
    return absl::StrCat(cluster_->dir(), "/home/", user);
  }
  std::string Cache() { return absl::StrCat(cluster_->dir(), "/state/noded/n1/images"); }
  std::string Containers() { return absl::StrCat(cluster_->dir(), "/state/noded/n1/containers"); }
  std::vector<std::string> CacheEntries() {
    const CommandResult r = cluster_->Run("ls " + Cache());
    std::vector<std::string> entries;
    for (absl::string_view line : absl::StrSplit(r.out, '\n', absl::SkipEmpty())) {
      if (line.size() == 64) entries.emplace_back(line);
    }
    return entries;
  }
  // The batch script's container of job `id`.
  std::string Bundle(const std::string& id) {
    return absl::StrCat(Containers(), "/job", id, "/batch");
  }
  // Where the batch script's container of job `id` pins its mount namespace
  // (container_namespace.h), and `command` run as root in that namespace.
  std::string Pin(const std::string& id) {
    return absl::StrCat(Containers(), "/namespaces/job", id, ".batch");
  }
  CommandResult InContainerNamespace(const std::string& id, const std::string& command) {
    return cluster_->Run(absl::StrCat("nsenter --mount=", Pin(id), " ", command));
  }
  // The root of the container a process runs in, as the host reaches it.
  static std::string RootOf(pid_t pid) { return absl::StrCat("/proc/", pid, "/root"); }
  // The batch script's image stage (the user's) of job `id`.
  std::string Stage(const std::string& id) {
    return absl::StrCat(Containers(), "/job", id, "/stage-4294967291");
  }
  // The sha256 hex of `what` ("config" or the first of "layers") in the OCI
  // layout `layout`'s image, read from its JSON as umoci writes it.
  static std::string LayoutDigest(const std::string& layout, const std::string& what) {
    auto digest_after = [](const std::string& json, const std::string& key) -> std::string {
      const size_t at = json.find(absl::StrCat("\"", key, "\""));
      if (at == std::string::npos) return "";
      const size_t digest = json.find("\"digest\":\"sha256:", at);
      return digest == std::string::npos ? "" : json.substr(digest + 17, 64);
    };
    const std::string manifest = digest_after(ReadFile(layout + "/index.json"), "manifests");
    const std::string text = ReadFile(absl::StrCat(layout, "/blobs/sha256/", manifest));
    return digest_after(text, what);
  }
  // Runs `body` in a child process as `user` (the test's stand-in for a
  // process of theirs on the node). Returns its pid; the caller ends it.
  pid_t ForkAs(const std::string& user, const std::function<void()>& body) {
    const uid_t uid = *cluster_->EnsureUser(user);
    const pid_t pid = fork();
    if (pid == 0) {
      if (setgroups(0, nullptr) != 0 || setgid(uid) != 0 || setuid(uid) != 0) _exit(2);
      body();
      _exit(0);
    }
    return pid;
  }
  static void EndChild(pid_t pid) {
    if (pid <= 0) return;
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
  // The registry mirror paused (SIGSTOP) or resumed: a user's skopeo that
  // reads through it waits meanwhile, which leaves the test time to act as
  // the user on their stage.
  void PauseRegistry(bool pause) {
    const std::string pid = ReadFile(registry_dir_ + "/pid");
    ASSERT_FALSE(pid.empty());
    ASSERT_EQ(kill(atoi(pid.c_str()), pause ? SIGSTOP : SIGCONT), 0);
  }
  // Submits alice's job of the mirror's lab/tools:v2 with the registry
  // paused, waits until her skopeo reads it, runs `as_alice` in her stage,
  // resumes the registry. Returns the job's id.
  std::string SubmitWhileReading(const std::string& out, const std::string& as_alice) {
    PauseRegistry(true);
    const std::string id = Submit(
        kAlice, absl::StrCat("--container-image=lab/tools:v2 -o ", out, " --wrap 'echo ran'"));
    // Her skopeo (the code before issue 47 had its shell create stage/config first).
    const bool reading = Eventually(60, [&] {
      return access((Stage(id) + "/config").c_str(), F_OK) == 0 ||
             !PidsWithCommandLine("skopeo inspect").empty();
    });
    EXPECT_TRUE(reading) << Show(id);
    EXPECT_EQ(cluster_->RunAs(kAlice, absl::StrCat("cd ", Stage(id), " && ", as_alice)).exit_code,
              0);
    PauseRegistry(false);
    return id;
  }
  bool Healthy() {
    const std::string id = Submit(kBob, absl::StrCat("--container-image=", images_,
                                                     "/busybox -o healthy.out --wrap 'id -u'"));
    return RunToEnd(kBob, id, "healthy.out") == absl::StrCat(*cluster_->EnsureUser(kBob), "\n");
  }
  // Mounts under the node's containers directory, as the kernel lists them.
  std::string ContainerMounts() {
    std::string found;
    for (absl::string_view line : absl::StrSplit(ReadFile("/proc/self/mountinfo"), '\n')) {
      if (absl::StrContains(line, Containers())) absl::StrAppend(&found, line, "\n");
    }
    return found;
  }

  static std::string images_;
  static std::string no_user_namespaces_;
  static std::string no_cgroups_;    // why jobs are not in cgroups here; "" = they are
  static std::string registry_;      // HOST:PORT
  static std::string registry_dir_;  // its config, data, log and pid
};

std::string ContainerImageTest::registry_;
std::string ContainerImageTest::no_cgroups_;
std::string ContainerImageTest::registry_dir_;
std::string ContainerImageTest::images_;
std::string ContainerImageTest::no_user_namespaces_;

// A job script written for pyxis, unchanged: the image and a read-only mount
// from #SBATCH lines. It runs as its user (not root: no --container-remap-root),
// in its working directory, with the image's environment under its own.
TEST_F(ContainerImageTest, APyxisJobScriptRunsUnchangedAsItsUser) {
  const std::string data = absl::StrCat(Home(kAlice), "/dataset");
  ASSERT_EQ(
      cluster_->RunAs(kAlice, "mkdir -p " + data + " && echo 42 > " + data + "/in.txt").exit_code,
      0);
  const std::string script = absl::StrCat(Home(kAlice), "/pyxis.sh");
  ASSERT_EQ(cluster_
                ->RunAs(kAlice, absl::StrCat("cat > ", script, " <<'EOF'\n#!/bin/sh\n",
                                             "#SBATCH --container-image=", images_, "/busybox\n",
                                             "#SBATCH --container-mounts=", data, ":/data:ro\n",
                                             "#SBATCH -o pyxis.out\n",
                                             "id -u; pwd; cat /data/in.txt; echo $IMAGE_VAR\n"
                                             "echo written > result.txt\n"
                                             "touch /data/nope 2>/dev/null || echo read-only\n"
                                             "ls /.skiff\nEOF"))
                .exit_code,
            0);
  const uid_t uid = *cluster_->EnsureUser(kAlice);
  const std::string id = Submit(kAlice, script);
  const std::string out = RunToEnd(kAlice, id, "pyxis.out");
  EXPECT_TRUE(absl::StrContains(Show(id), "JobState=COMPLETED")) << Show(id) << out;
  EXPECT_EQ(out,
            absl::StrCat(uid, "\n", Home(kAlice), "\n42\nfromimage\nread-only\ncontainer-user\n"));
  struct stat st {};
  ASSERT_EQ(stat(absl::StrCat(Home(kAlice), "/result.txt").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, uid);  // written as the user, on the host
}

TEST_F(ContainerImageTest, RemapRootMakesTheUserRootInsideOnly) {
  const std::string id =
      Submit(kAlice, absl::StrCat("--container-image=", images_,
                                  "/busybox --container-remap-root -o remap.out --wrap 'id -u; "
                                  "echo x > /bin/mine && echo wrote-own-root'"));
  EXPECT_EQ(RunToEnd(kAlice, id, "remap.out"), "0\nwrote-own-root\n") << Show(id);
}

// A docker-archive tar is an image too, with the OCI layout's files (its
// config, converted by skopeo, makes it an entry of its own; 3M holds one);
// the cache holds it root's, and no user can change it.
TEST_F(ContainerImageTest, TwoUsersShareOneCachedImageAndCannotWriteIt) {
  const std::string a = Submit(kAlice, absl::StrCat("--container-image=", images_,
                                                    "/busybox -o share.out --wrap "
                                                    "'echo alice > /etc/written && rm /bin/ls "
                                                    "&& echo done'"));
  EXPECT_EQ(RunToEnd(kAlice, a, "share.out"), "done\n") << Show(a);
  const std::string b =
      Submit(kBob, absl::StrCat("--container-image=", images_,
                                "/busybox.tar -o share.out --wrap "
                                "'cat /etc/written; ls /bin/ls; wc -c < /bin/busybox'"));
  const std::string bob_out = RunToEnd(kBob, b, "share.out");
  EXPECT_TRUE(absl::StrContains(Show(b), "JobState=COMPLETED")) << Show(b) << bob_out;
  // bob sees the image as built: alice's write and removal stayed in her
  // container's own layer.
  struct stat busybox {};
  ASSERT_EQ(stat("/bin/busybox", &busybox), 0);
  EXPECT_EQ(bob_out, absl::StrCat("cat: can't open '/etc/written': No such file or directory\n",
                                  "/bin/ls\n", busybox.st_size, "\n"));
  const std::vector<std::string> entries = CacheEntries();
  ASSERT_EQ(entries.size(), 1u) << cluster_->Run("ls -la " + Cache()).out;
  const std::string cached = absl::StrCat(Cache(), "/", entries[0], "/rootfs/bin/busybox");
  struct stat st {};
  ASSERT_EQ(stat(cached.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 0u);
  EXPECT_EQ(st.st_mode & 022, 0u);
  EXPECT_EQ(st.st_size, busybox.st_size);
  EXPECT_NE(access(absl::StrCat(Cache(), "/", entries[0], "/rootfs/etc/written").c_str(), F_OK), 0);
  EXPECT_NE(cluster_->RunAs(kBob, absl::StrCat("sh -c 'echo bob >> ", cached, "'")).exit_code, 0);
}

TEST_F(ContainerImageTest, TheCacheEvictsTheLeastRecentlyUsedImageWhenFull) {
  const std::string first = Submit(
      kAlice, absl::StrCat("--container-image=", images_, "/busybox -o /dev/null --wrap true"));
  RunToEnd(kAlice, first, "none");
  ASSERT_EQ(CacheEntries().size(), 1u);
  const std::string kept = CacheEntries()[0];
  const std::string second = Submit(
      kAlice,
      absl::StrCat("--container-image=", images_, "/second -o evict.out --wrap 'cat /etc/marker'"));
  EXPECT_EQ(RunToEnd(kAlice, second, "evict.out"), "second\n") << Show(second);
  const std::vector<std::string> entries = CacheEntries();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_NE(entries[0], kept);  // 3M holds one image: the older went
}

// A registry reference goes through the node's mirror (nothing is pulled
// from the internet); one the mirror does not have fails the job.
TEST_F(ContainerImageTest, ARegistryImageComesThroughTheNodesMirror) {
  const std::string id =
      Submit(kAlice, "--container-image=lab/tools:v2 -o registry.out --wrap 'cat /etc/marker'");
  EXPECT_EQ(RunToEnd(kAlice, id, "registry.out"), "second\n") << Show(id);
  const std::string missing =
      Submit(kAlice, "--container-image=lab/nosuch -o registry2.out --wrap 'echo ran'");
  EXPECT_EQ(RunToEnd(kAlice, missing, "registry2.out"), "");
  EXPECT_TRUE(absl::StrContains(Show(missing), "Reason=container:_cannot_read_image_lab/nosuch"))
      << Show(missing);
}

// One GPU of the node's two: its device file and the host's driver library,
// nothing of the other GPU; a job without GPUs gets neither.
TEST_F(ContainerImageTest, AJobSeesOnlyItsOwnGpuAndTheHostsDriver) {
  const std::string id =
      Submit(kAlice, absl::StrCat("--container-image=", images_,
                                  "/busybox --gres=gpu:1 -o gpu.out --wrap 'ls /dev | grep nvidia; "
                                  "ls /usr/local/nvidia/lib64; echo $LD_LIBRARY_PATH "
                                  "$CUDA_VISIBLE_DEVICES'"));
  const std::string out = RunToEnd(kAlice, id, "gpu.out");
  EXPECT_TRUE(out == "nvidia0\nlibnvidia-ml.so.1\n/usr/local/nvidia/lib64 0\n" ||
              out == "nvidia1\nlibnvidia-ml.so.1\n/usr/local/nvidia/lib64 0\n")
      << out << Show(id);
  const std::string none =
      Submit(kAlice, absl::StrCat("--container-image=", images_,
                                  "/busybox -o nogpu.out --wrap 'ls /dev | grep -c nvidia; "
                                  "ls /usr/local/nvidia 2>&1 | grep -c lib64'"));
  EXPECT_EQ(RunToEnd(kAlice, none, "nogpu.out"), "0\n0\n") << Show(none);
}

// --container-name: the first step makes the container from the image, the
// next finds the file it wrote; all of it goes when the job ends.
TEST_F(ContainerImageTest, ANamedContainerKeepsItsFilesAcrossSteps) {
  const std::string id = Submit(
      kAlice, absl::StrCat("-o named.out --wrap 'srun --container-image=", images_,
                           "/busybox --container-name=work sh -c \"echo kept > /tmp/state\"; "
                           "srun --container-name=work cat /tmp/state; cat /tmp/state 2>&1 "
                           "| grep -c kept'"));
  EXPECT_EQ(RunToEnd(kAlice, id, "named.out"), "kept\n0\n") << Show(id);
  EXPECT_TRUE(Eventually(30, [&] { return ContainerMounts().empty(); })) << ContainerMounts();
  EXPECT_TRUE(Eventually(
      30, [&] { return access(absl::StrCat(Containers(), "/job", id).c_str(), F_OK) != 0; }));
}

// The container's processes count in the job's cgroup: over --mem, the job
// ends OUT_OF_MEMORY (tail -c holds 300 MiB of a pipe in memory).
TEST_F(ContainerImageTest, AContainerOverTheJobsMemoryEndsOutOfMemory) {
  if (!no_cgroups_.empty()) GTEST_SKIP() << "no writable cgroup hierarchy: " << no_cgroups_;
  const std::string id =
      Submit(kAlice, absl::StrCat("--container-image=", images_,
                                  "/busybox --mem=50 -o oom.out --wrap "
                                  "'yes | head -c 314572800 | tail -c 314572800 >/dev/null'"));
  ASSERT_TRUE(Eventually(90, [&] {
    return absl::StrContains(Show(id), "JobState=OUT_OF_MEMORY") || Done(id);
  })) << Show(id);
  EXPECT_TRUE(absl::StrContains(Show(id), "JobState=OUT_OF_MEMORY"))
      << Show(id) << ReadFile(Home(kAlice) + "/oom.out");
  EXPECT_TRUE(Eventually(30, [&] { return ContainerMounts().empty(); })) << ContainerMounts();
}

TEST_F(ContainerImageTest, BadInputFailsTheJobWithTheReason) {
  const std::string unknown = Submit(
      kAlice, absl::StrCat("--container-image=", images_, "/nosuch -o bad.out --wrap 'echo ran'"));
  EXPECT_EQ(RunToEnd(kAlice, unknown, "bad.out"), "");
  EXPECT_TRUE(absl::StrContains(Show(unknown), "Reason=container:_cannot_read_image"))
      << Show(unknown);

  // A mount of a path alice cannot read (root's, 0700).
  const std::string secret = absl::StrCat(cluster_->dir(), "/secret");
  ASSERT_EQ(cluster_->Run("mkdir -p " + secret + " && chmod 700 " + secret).exit_code, 0);
  const std::string mount = Submit(
      kAlice, absl::StrCat("--container-image=", images_, "/busybox --container-mounts=", secret,
                           ":/s -o bad2.out --wrap 'echo ran'"));
  EXPECT_EQ(RunToEnd(kAlice, mount, "bad2.out"), "");
  EXPECT_TRUE(absl::StrContains(Show(mount), "--container-mounts:_cannot_read_" + secret))
      << Show(mount);

  // An image path alice cannot read is no image to her, even if root could.
  const std::string hidden = absl::StrCat(secret, "/img");
  ASSERT_EQ(cluster_->Run(absl::StrCat("cp -r ", images_, "/busybox ", hidden)).exit_code, 0);
  const std::string private_image =
      Submit(kAlice, absl::StrCat("--container-image=", hidden, " -o bad3.out --wrap 'echo ran'"));
  EXPECT_EQ(RunToEnd(kAlice, private_image, "bad3.out"), "");
  EXPECT_TRUE(absl::StrContains(Show(private_image), "Reason=container:_cannot_read_image"))
      << Show(private_image);
}

TEST_F(ContainerImageTest, ACancelledImageJobLeavesNoProcessMountOrDirectory) {
  const std::string id = Submit(kAlice, absl::StrCat("--container-image=", images_,
                                                     "/busybox -o /dev/null --wrap 'sleep 301'"));
  ASSERT_TRUE(Eventually(60, [&] { return !PidsWithCommandLine("sleep 301").empty(); }))
      << Show(id);
  EXPECT_FALSE(ContainerMounts().empty());
  ASSERT_EQ(cluster_->Run("scancel " + id).exit_code, 0);
  ASSERT_TRUE(Eventually(60, [&] { return Done(id); })) << Show(id);
  EXPECT_TRUE(Eventually(30, [&] { return PidsWithCommandLine("sleep 301").empty(); }));
  EXPECT_TRUE(Eventually(30, [&] { return ContainerMounts().empty(); })) << ContainerMounts();
  EXPECT_TRUE(Eventually(
      30, [&] { return access(absl::StrCat(Containers(), "/job", id).c_str(), F_OK) != 0; }));
}

// Issue 47, item 1. The cache's root, mapped to the user for their
// container, is read-only and out of their reach: they cannot replace a file
// that every later container of the image runs, nor plant a set-uid one.
TEST_F(ContainerImageTest, AUserCannotChangeTheCachedImageThroughTheirContainer) {
  const std::string id = Submit(kAlice, absl::StrCat("--container-image=", images_,
                                                     "/busybox -o /dev/null --wrap 'sleep 311'"));
  ASSERT_TRUE(Eventually(60, [&] { return !PidsWithCommandLine("sleep 311").empty(); }))
      << Show(id);
  // Where the mapped cache is mounted (under the container's directory).
  const std::string bundle = Bundle(id);
  const CommandResult attempt = cluster_->RunAs(
      kAlice, absl::StrCat("for d in ", bundle, "/lower ", bundle,
                           "/private/lower; do rm -f $d/bin/id 2>&1; printf '#!/bin/sh\\necho "
                           "replaced\\n' > $d/bin/id && chmod 4755 $d/bin/id && echo WROTE $d; "
                           "done 2>&1"));
  EXPECT_FALSE(absl::StrContains(attempt.out, "WROTE")) << attempt.out;
  // The mapped cache and the container's root are mounted in the container's
  // own namespace and nowhere else: the host's table lists no overlay and no
  // mapping of the cache (only the pin of the namespace), and the bundle's
  // directories are empty there.
  const std::string host_mounts = ContainerMounts();
  EXPECT_FALSE(absl::StrContains(host_mounts, " - overlay ")) << host_mounts;
  EXPECT_FALSE(absl::StrContains(host_mounts, "/rootfs")) << host_mounts;
  EXPECT_FALSE(absl::StrContains(host_mounts, "/private/lower")) << host_mounts;
  EXPECT_TRUE(absl::StrContains(host_mounts, " - nsfs ")) << host_mounts;
  EXPECT_EQ(cluster_->Run(absl::StrCat("ls -A ", bundle, "/rootfs ", bundle, "/private/lower")).out,
            absl::StrCat(bundle, "/private/lower:\n\n", bundle, "/rootfs:\n"));
  const std::string inside = InContainerNamespace(id, "cat /proc/self/mountinfo").out;
  EXPECT_TRUE(absl::StrContains(inside, absl::StrCat(" ", bundle, "/rootfs "))) << inside;
  EXPECT_TRUE(absl::StrContains(inside, absl::StrCat(" ", bundle, "/private/lower ro,"))) << inside;
  ASSERT_EQ(cluster_->Run("scancel " + id).exit_code, 0);
  ASSERT_TRUE(Eventually(60, [&] { return Done(id); })) << Show(id);
  // bob's container of the same image runs the image's id.
  const std::string b = Submit(kBob, absl::StrCat("--container-image=", images_,
                                                  "/busybox -o change.out --wrap '/bin/id -u'"));
  EXPECT_EQ(RunToEnd(kBob, b, "change.out"), absl::StrCat(*cluster_->EnsureUser(kBob), "\n"))
      << Show(b);
  for (const std::string& entry : CacheEntries()) {
    struct stat st {};
    ASSERT_EQ(lstat(absl::StrCat(Cache(), "/", entry, "/rootfs/bin/id").c_str(), &st), 0);
    EXPECT_TRUE(S_ISLNK(st.st_mode)) << entry;
  }
}

// Issue 47, item 6. A running container's files are its user's alone, and
// the cache is root's: bob reads neither alice's container nor the images.
TEST_F(ContainerImageTest, AnotherUserCannotReadARunningContainerOrTheCache) {
  const std::string id =
      Submit(kAlice, absl::StrCat("--container-image=", images_,
                                  "/busybox -o /dev/null --wrap 'echo secret > /tmp/mine; "
                                  "sleep 312'"));
  ASSERT_TRUE(Eventually(60, [&] { return !PidsWithCommandLine("sleep 312").empty(); }))
      << Show(id);
  const std::string bundle = Bundle(id);
  const std::string root = RootOf(PidsWithCommandLine("sleep 312")[0]);
  const CommandResult bob =
      cluster_->RunAs(kBob, absl::StrCat("cat ", root, "/tmp/mine ", bundle, "/rootfs/tmp/mine ",
                                         bundle, "/upper/tmp/mine ", Cache(),
                                         "/*/image-config.json; ls ", Cache(), " 2>&1"));
  EXPECT_FALSE(absl::StrContains(bob.out, "secret")) << bob.out;
  EXPECT_FALSE(absl::StrContains(bob.out, "architecture")) << bob.out;  // an image config
  for (const std::string& entry : CacheEntries()) {
    EXPECT_EQ(cluster_->RunAs(kBob, absl::StrCat("ls ", Cache(), "/", entry)).exit_code == 0,
              false);
  }
  struct stat st {};
  ASSERT_EQ(stat(Cache().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 077, 0u);
  // alice herself still reads her own container, through her process.
  EXPECT_EQ(cluster_->RunAs(kAlice, absl::StrCat("cat ", root, "/tmp/mine")).out, "secret\n");
  ASSERT_EQ(cluster_->Run("scancel " + id).exit_code, 0);
  ASSERT_TRUE(Eventually(60, [&] { return Done(id); })) << Show(id);
}

// Issue 47, item 6. A cache hit needs proof that the user could read the
// whole image: bob, holding only the config blob of alice's private image
// (a leaked, or guessed, one), gets nothing of it from the cache.
TEST_F(ContainerImageTest, OnlyTheConfigOfAPrivateImageDoesNotGetItFromTheCache) {
  // alice's private image: busybox with a secret, readable by her alone.
  const std::string priv = absl::StrCat(Home(kAlice), "/private");
  ASSERT_EQ(
      cluster_
          ->RunAs(kAlice, absl::StrCat("rm -rf ", priv, " && cp -r ", images_, "/busybox ", priv,
                                       " && echo topsecret > s && umoci insert "
                                       "--rootless --image ",
                                       priv, ":latest s /etc/secret && chmod -R go-rwx ", priv))
          .exit_code,
      0);
  const std::string a = Submit(
      kAlice, absl::StrCat("--container-image=", priv, " -o private.out --wrap 'cat /etc/secret'"));
  ASSERT_EQ(RunToEnd(kAlice, a, "private.out"), "topsecret\n") << Show(a);
  // bob's layout: the public busybox with alice's config blob in its place.
  const std::string config_hex = LayoutDigest(priv, "config");
  const std::string fake = absl::StrCat(Home(kBob), "/fake");
  const std::string pub = absl::StrCat(images_, "/busybox");
  const std::string old_hex = LayoutDigest(pub, "config");
  ASSERT_EQ(config_hex.size(), 64u);
  ASSERT_EQ(cluster_
                ->Run(absl::StrCat("rm -rf ", fake, " && cp -r ", pub, " ", fake, " && cp ", priv,
                                   "/blobs/sha256/", config_hex, " ", fake, "/blobs/sha256/"))
                .exit_code,
            0);
  const std::string manifest_hex =
      ReadFile(fake + "/index.json").substr(ReadFile(fake + "/index.json").find("sha256:") + 7, 64);
  std::string manifest = ReadFile(absl::StrCat(fake, "/blobs/sha256/", manifest_hex));
  const std::string old_size =
      absl::StrCat("\"size\":", ReadFile(absl::StrCat(pub, "/blobs/sha256/", old_hex)).size());
  const std::string new_size =
      absl::StrCat("\"size\":", ReadFile(absl::StrCat(fake, "/blobs/sha256/", config_hex)).size());
  manifest = absl::StrReplaceAll(manifest, {{old_hex, config_hex}});
  const size_t size_at = manifest.find(old_size);
  ASSERT_NE(size_at, std::string::npos) << manifest;
  manifest.replace(size_at, old_size.size(), new_size);
  WriteFile(fake + "/manifest", manifest);
  ASSERT_EQ(cluster_
                ->Run(absl::StrCat("cd ", fake,
                                   " && h=$(sha256sum manifest | cut -c1-64) && mv "
                                   "manifest blobs/sha256/$h && sed -i \"s/",
                                   manifest_hex, "/$h/; s/\\\"size\\\":[0-9]*/\\\"size\\\":",
                                   manifest.size(), "/\" index.json && chown -R ", kBob, " ", fake))
                .exit_code,
            0);
  const std::string b = Submit(
      kBob, absl::StrCat("--container-image=", fake, " -o fake.out --wrap 'cat /etc/secret'"));
  const std::string bob_out = RunToEnd(kBob, b, "fake.out");
  EXPECT_FALSE(absl::StrContains(bob_out, "topsecret")) << bob_out;
  EXPECT_TRUE(absl::StrContains(Show(b), "Reason=container:")) << Show(b);
  EXPECT_TRUE(Healthy());
}

// Issue 47, item 2. Removing a container, root never follows a link the user
// swaps in for a directory of theirs: root's files elsewhere stay.
TEST_F(ContainerImageTest, RemovingAContainerNeverFollowsALinkTheUserSwapsIn) {
  // Root's files outside, at <canary>/d/f<N>: the names under alice's p/.
  const std::string canary = absl::StrCat(cluster_->dir(), "/canary");
  constexpr int kFiles = 2000;
  ASSERT_EQ(mkdir(canary.c_str(), 0755), 0);
  ASSERT_EQ(mkdir((canary + "/d").c_str(), 0755), 0);
  for (int i = 0; i < kFiles; ++i) WriteFile(absl::StrCat(canary, "/d/f", i), "root's\n");
  const std::string id = Submit(kAlice, absl::StrCat("--container-image=", images_,
                                                     "/busybox -o /dev/null --wrap 'sleep 313'"));
  ASSERT_TRUE(Eventually(60, [&] { return !PidsWithCommandLine("sleep 313").empty(); }))
      << Show(id);
  const std::string upper = Bundle(id) + "/upper";
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  // alice's process: p/d/f<N> in her container's layer, d read-only (she
  // cannot empty it as it is); then p swapped for a link to root's directory
  // now and then, until p is gone. A walk that already entered p by a
  // descriptor but removes by path would remove root's files.
  const pid_t swapper = ForkAs(kAlice, [&] {
    const std::string p = upper + "/p";
    const std::string q = upper + "/q";
    if (mkdir(p.c_str(), 0755) != 0 || mkdir((p + "/d").c_str(), 0755) != 0) _exit(3);
    for (int i = 0; i < kFiles; ++i) {
      close(open(absl::StrCat(p, "/d/f", i).c_str(), O_CREAT | O_WRONLY, 0644));
    }
    chmod((p + "/d").c_str(), 0555);
    ssize_t ignored = write(ready[1], "r", 1);
    (void)ignored;
    for (;;) {
      // Mostly the directory (so that a walk meets it as one), briefly the link.
      for (volatile int spin = 0; spin < 50000; ++spin) {
      }
      if (rename(p.c_str(), q.c_str()) != 0) {
        if (access(q.c_str(), F_OK) != 0) _exit(0);  // removed
        continue;
      }
      symlink(canary.c_str(), p.c_str());
      for (volatile int spin = 0; spin < 3000; ++spin) {
      }
      unlink(p.c_str());
      rename(q.c_str(), p.c_str());
    }
  });
  close(ready[1]);
  char byte = 0;
  ASSERT_EQ(read(ready[0], &byte, 1), 1);
  close(ready[0]);
  ASSERT_EQ(cluster_->Run("scancel " + id).exit_code, 0);
  ASSERT_TRUE(Eventually(60, [&] { return Done(id); })) << Show(id);
  // Until the removal is over: alice's process ends once p is gone.
  Eventually(60, [&] {
    return waitpid(swapper, nullptr, WNOHANG) == swapper || access(Bundle(id).c_str(), F_OK) != 0;
  });
  EndChild(swapper);
  int left = 0;
  for (int i = 0; i < kFiles; ++i) {
    left += access(absl::StrCat(canary, "/d/f", i).c_str(), F_OK) == 0;
  }
  EXPECT_EQ(left, kFiles) << "root removed " << kFiles - left << " of its own files";
  EXPECT_TRUE(Healthy());
}

// Issue 47, item 3. The image config the user's skopeo writes into their
// stage is theirs to swap: for a link to a FIFO no one writes, or a FIFO, root
// (which read it, following links, blocking) stayed pinned past scancel. Root
// now reads nothing of the stage but through CopyUserLayout's descriptors, so
// the swap changes nothing: the job runs.
TEST_F(ContainerImageTest, ALinkOrFifoSwappedForTheImagesConfigPinsNothing) {
  const std::string pin = absl::StrCat(Home(kAlice), "/pin");
  for (const std::string& swap :
       {absl::StrCat("ln -s ", pin, " config"), std::string("mkfifo config")}) {
    ASSERT_EQ(cluster_->RunAs(kAlice, "rm -f pin pinned.out && mkfifo pin").exit_code, 0);
    const std::string id = SubmitWhileReading("pinned.out", "rm -f config && " + swap);
    const bool ended = Eventually(60, [&] { return Done(id); });
    // Whoever still waits on a FIFO is let go, so the node recovers either way.
    for (const std::string& fifo : {pin, Stage(id) + "/config"}) {
      const int fd = open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
      if (fd >= 0) close(fd);
    }
    EXPECT_TRUE(ended) << swap << ": " << Show(id);
    EXPECT_TRUE(absl::StrContains(Show(id), "JobState=COMPLETED")) << swap << ": " << Show(id);
    EXPECT_EQ(ReadFile(Home(kAlice) + "/pinned.out"), "ran\n") << swap;
    if (!ended) cluster_->Run("scancel " + id);
  }
  EXPECT_TRUE(Healthy());
}

// Issue 47, item 5. Root copies the user's staged image only through
// descriptors: a blob planted in the stage as a link (here to a FIFO), which
// her skopeo then takes for the blob, is refused with a clear reason.
TEST_F(ContainerImageTest, RootRefusesALinkPlantedInTheUsersStage) {
  // lab/tools:v2 is the second image, whose first layer is busybox's.
  const std::string layer = LayoutDigest(images_ + "/busybox", "layers");
  ASSERT_EQ(layer.size(), 64u);
  const std::string pin = absl::StrCat(Home(kAlice), "/pin5");
  ASSERT_EQ(cluster_->RunAs(kAlice, "rm -f pin5 && mkfifo pin5").exit_code, 0);
  // Not in the cache: the image is copied.
  cluster_->Run(absl::StrCat("rm -rf ", Cache(), "/*"));
  const std::string id = SubmitWhileReading(
      "planted.out",
      absl::StrCat("mkdir -p layout/blobs/sha256 && ln -s ", pin, " layout/blobs/sha256/", layer));
  const bool ended = Eventually(60, [&] { return Done(id); });
  const int fd = open(pin.c_str(), O_WRONLY | O_NONBLOCK);
  if (fd >= 0) close(fd);
  EXPECT_TRUE(ended) << Show(id);
  EXPECT_TRUE(absl::StrContains(Show(id), "Reason=container:_the_image's_copy_in_")) << Show(id);
  EXPECT_TRUE(absl::StrContains(
      Show(id), absl::StrCat("blobs/sha256/", layer, "_is_a_link,_not_a_regular_file")))
      << Show(id);
  EXPECT_EQ(ReadFile(Home(kAlice) + "/planted.out"), "");
  if (!ended) cluster_->Run("scancel " + id);
  EXPECT_TRUE(Healthy());
}

// Issue 47, item 4. An image whose small layer unpacks to far more than the
// cache holds (64 MiB of zeros, compressed to about 64 KiB) is stopped while
// it unpacks, not measured after it has filled the disk.
TEST_F(ContainerImageTest, AnImageThatUnpacksPastTheCacheIsStoppedWhileUnpacking) {
  const std::string bomb = absl::StrCat(Home(kAlice), "/bomb");
  ASSERT_EQ(
      cluster_
          ->RunAs(kAlice, absl::StrCat("rm -rf ", bomb, " && cp -r ", images_, "/busybox ", bomb,
                                       " && head -c 67108864 /dev/zero > zeros && "
                                       "umoci insert --rootless --image ",
                                       bomb, ":latest zeros /zeros && rm zeros"))
          .exit_code,
      0);
  const std::string id =
      Submit(kAlice, absl::StrCat("--container-image=", bomb, " -o bomb.out --wrap 'echo ran'"));
  EXPECT_EQ(RunToEnd(kAlice, id, "bomb.out"), "");
  EXPECT_TRUE(absl::StrContains(Show(id), "stopped_unpacking_it")) << Show(id);
  EXPECT_TRUE(Healthy());
}

// Issue 47: a user cannot outlive their container. alice's job leaves two
// processes behind that escape its shell (one in a session of its own, one
// double-forked), ignore SIGTERM, SIGHUP and SIGINT and hold the image's
// mounted root: their working directory in it and its /bin/busybox open. Once
// the job ends, none of them is left, nor a mount or the job's container
// directory, and bob's next container of the image runs.
TEST_F(ContainerImageTest, AProcessThatEscapesItsJobDoesNotOutliveTheContainer) {
  const std::string id =
      Submit(kAlice,
             absl::StrCat(
                 "--container-image=", images_,
                 "/busybox -o /dev/null --wrap '"
                 "busybox setsid sh -c \"trap \\\"\\\" TERM HUP INT; cd /etc; exec 3</bin/busybox; "
                 "exec sleep 321\" </dev/null >/dev/null 2>&1 & "
                 "( ( trap \"\" TERM HUP INT; cd /bin; exec 3</bin/busybox; exec sleep 323 ) "
                 "</dev/null >/dev/null 2>&1 & ); "
                 "while [ ! -e /tmp/go ]; do sleep 1; done'"));
  const uid_t alice = *cluster_->EnsureUser(kAlice);
  const std::string job_dir = absl::StrCat(Containers(), "/job", id);
  ASSERT_TRUE(Eventually(60, [&] {
    return PidsWithCommandLine("sleep 321").size() == 1 &&
           PidsWithCommandLine("sleep 323").size() == 1;
  })) << Show(id);
  // The container's root, as the node sees it (in the container's own mount
  // namespace, and through the processes in it).
  const std::string go = RootOf(PidsWithCommandLine("sleep 321")[0]) + "/tmp/go";
  struct stat rootfs {};
  ASSERT_EQ(stat(RootOf(PidsWithCommandLine("sleep 321")[0]).c_str(), &rootfs), 0);
  auto identity = [](const std::string& path) {
    struct stat st {};
    return stat(path.c_str(), &st) == 0 ? absl::StrCat(st.st_dev, " ", st.st_ino, "\n") : "";
  };
  auto identity_inside = [&](const std::string& path) {
    return InContainerNamespace(id, absl::StrCat("stat -L -c '%d %i' ", path)).out;
  };
  // Both run in the container, holding its root: cwd and descriptor 3 in it.
  for (const auto& [marker, cwd] : std::vector<std::pair<std::string, std::string>>{
           {"sleep 321", "/etc"}, {"sleep 323", "/bin"}}) {
    const std::string proc = absl::StrCat("/proc/", PidsWithCommandLine(marker)[0]);
    EXPECT_EQ(identity(proc + "/root"), identity_inside(Bundle(id) + "/rootfs")) << marker;
    EXPECT_EQ(identity(proc + "/cwd"), identity_inside(Bundle(id) + "/rootfs" + cwd)) << marker;
    EXPECT_EQ(identity(proc + "/fd/3"), identity_inside(Bundle(id) + "/rootfs/bin/busybox"))
        << marker;
  }
  // alice's processes in this container, or the escapees wherever they are
  // (container_test may run other jobs of alice's beside this one).
  auto left_behind = [&] {
    std::string found;
    for (const char* marker : {"sleep 321", "sleep 323"}) {
      for (pid_t pid : PidsWithCommandLine(marker)) absl::StrAppend(&found, marker, ": ", pid, " ");
    }
    for (pid_t pid : PidsWithCommandLine("")) {
      struct stat owner {};
      struct stat root {};
      const std::string proc = absl::StrCat("/proc/", pid);
      if (stat(proc.c_str(), &owner) == 0 && owner.st_uid == alice &&
          stat((proc + "/root").c_str(), &root) == 0 && root.st_dev == rootfs.st_dev &&
          root.st_ino == rootfs.st_ino) {
        absl::StrAppend(&found, "in the container: ", pid, " ");
      }
    }
    return found;
  };
  EXPECT_FALSE(ContainerMounts().empty());
  // The job's shell ends by itself; the escapees do not.
  ASSERT_EQ(cluster_->RunAs(kAlice, "touch " + go).exit_code, 0);
  ASSERT_TRUE(Eventually(60, [&] { return Done(id); })) << Show(id);
  EXPECT_TRUE(Eventually(30, [&] { return left_behind().empty(); })) << left_behind();
  EXPECT_TRUE(Eventually(30, [&] { return ContainerMounts().empty(); })) << ContainerMounts();
  EXPECT_TRUE(Eventually(30, [&] { return access(job_dir.c_str(), F_OK) != 0; }))
      << cluster_->Run("ls -laR " + job_dir).out;
  EXPECT_TRUE(Healthy());
}

}  // namespace
}  // namespace skiff::testing
