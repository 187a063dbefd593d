// sbcast through the real daemons: the job's step manager writes each node's
// copy as the job's user and forwards the file to the job's other nodes.
//
// The nodes of a local cluster share one filesystem, so to see three copies
// each noded runs in its own mount namespace where SCRATCH (a directory of
// this test) is that node's own directory NODES/nK: a file sbcast writes to
// SCRATCH/f on node nK is NODES/nK/f here. Where namespaces cannot be made,
// the multi-node test is skipped (the others need none).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/shared_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

constexpr char kUser[] = "sbcastu";
constexpr char kOther[] = "sbcasto";
constexpr int kNodes = 3;

std::string Trim(const std::string& s) { return std::string(absl::StripAsciiWhitespace(s)); }

class SbcastTest : public SharedClusterTest<SbcastTest> {
 protected:
  static void SetUpTestSuite() {
    char tmpl[] = "/tmp/sbcast_ns_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    base_ = new std::string(tmpl);
    const std::string wrap = *base_ + "/wrap.sh";
    // Run as PREFIX before noded: a private mount namespace in which SCRATCH
    // is this node's own directory.
    CommandResult made = RunShell(absl::StrCat(
        "cd ", *base_, " && mkdir -p scratch nodes/n1 nodes/n2 nodes/n3 && chmod 0755 . && ",
        "printf '%s\\n' 'node=$1; shift' 'mount --bind ", *base_, "/nodes/$node ", *base_,
        "/scratch || exit 1' 'exec \"$@\"' > wrap.sh"));
    ASSERT_EQ(made.exit_code, 0) << made.err;
    namespaces_ =
        geteuid() == 0 &&
        RunShell(absl::StrCat("unshare --mount --propagation private /bin/sh ", wrap, " n1 true"))
                .exit_code == 0;
    LocalCluster::Options options = NodesWithoutGpus(kNodes, 2);
    if (namespaces_) {
      for (int n = 1; n <= kNodes; ++n) {
        options.environment[absl::StrCat("SKIFF_NODED_PREFIX_n", n)] =
            absl::StrCat("unshare --mount --propagation private /bin/sh ", wrap, " n", n);
      }
    }
    StartCluster(options);
    if (HasFatalFailure() || geteuid() != 0) return;
    auto uid = cluster_->EnsureUser(kUser);
    ASSERT_TRUE(uid.ok()) << uid.status();
    uid_ = *uid;
    ASSERT_TRUE(cluster_->EnsureUser(kOther).ok());
    // The user's directory on every node.
    ASSERT_EQ(RunShell(absl::StrCat("chown ", kUser, ": ", *base_, "/nodes/*")).exit_code, 0);
    // The file to send: 300 kB, mode 0750, its mtime long ago (for -p).
    const std::string src = Src();
    ASSERT_EQ(
        RunShell(absl::StrCat("head -c 300000 /dev/urandom > ", src, " && chown ", kUser, ": ", src,
                              " && chmod 0750 ", src, " && touch -d @1500000000 ", src))
            .exit_code,
        0);
    // A directory only root may write in.
    ASSERT_EQ(RunShell(absl::StrCat("mkdir -m 0755 ", cluster_->dir(), "/closed")).exit_code, 0);
  }
  static void TearDownTestSuite() {
    SharedClusterTest::TearDownTestSuite();
    if (base_ != nullptr) RunShell(absl::StrCat("rm -rf ", *base_));
    delete base_;
    base_ = nullptr;
  }
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root for users and namespaces";
  }

  static std::string Src() { return cluster_->dir() + "/bcast_src"; }
  static std::string Md5(const std::string& path) {
    return Trim(RunShell(absl::StrCat("md5sum < ", path, " | cut -c1-32")).out);
  }
  static std::string Home(const std::string& user) {
    return absl::StrCat(cluster_->dir(), "/home/", user);
  }

  // A one-node job of kUser's that runs until cancelled; its id once running.
  uint64_t RunningJob() {
    CommandResult r =
        cluster_->RunAs(kUser, "sbatch --parsable -N1 -o /dev/null --wrap 'exec sleep 600'");
    uint64_t id = 0;
    EXPECT_TRUE(absl::SimpleAtoi(Trim(r.out), &id)) << r.out << r.err;
    EXPECT_TRUE(Eventually(60, [&] {
      return Trim(cluster_->Run(absl::StrCat("squeue -h -j ", id, " -o %T")).out) == "RUNNING";
    }));
    return id;
  }
  std::string NodeOf(uint64_t id) {
    return Trim(cluster_->Run(absl::StrCat("squeue -h -j ", id, " -o %N")).out);
  }
  static std::string Mode(const std::string& path) {
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) return "missing";
    char octal[8];
    snprintf(octal, sizeof(octal), "%o", static_cast<unsigned>(st.st_mode & 07777));
    return octal;
  }
  static uid_t Owner(const std::string& path) {
    struct stat st {};
    return stat(path.c_str(), &st) == 0 ? st.st_uid : static_cast<uid_t>(-1);
  }

  static std::string* base_;
  static bool namespaces_;
  static uid_t uid_;
};

std::string* SbcastTest::base_ = nullptr;
bool SbcastTest::namespaces_ = false;
uid_t SbcastTest::uid_ = 0;

// The Slurm example: a batch script sbcasts a file and runs it on every node.
// Each node's copy holds the file's bytes, has its mode and is the user's;
// again without -f it is refused on every node; -f replaces it; -p keeps the
// source's mtime.
TEST_F(SbcastTest, ABatchScriptCopiesAFileToEveryNodeOfItsJob) {
  if (!namespaces_) GTEST_SKIP() << "cannot give each noded its own mount namespace";
  const std::string scratch = *base_ + "/scratch";
  const std::string src2 = Home(kUser) + "/second";
  ASSERT_EQ(cluster_->RunAs(kUser, "echo 'second version' > second && chmod 0644 second").exit_code,
            0);
  const std::string out = Home(kUser) + "/multi.out";
  const std::string script = absl::StrCat(
      "#!/bin/bash\n"
      "S=",
      scratch, "\n", "sbcast -s 64k ", Src(), " $S/prog; echo \"first=$?\"\n",
      "srun -N3 -n3 bash -c 'echo \"copy $SLURMD_NODENAME $(stat -c \"%a %U %s\" ", scratch,
      "/prog) $(md5sum < ", scratch, "/prog | cut -c1-32)\"'\n", "sbcast ", Src(),
      " $S/prog; echo \"again=$?\"\n", "sbcast -f ", src2, " $S/prog; echo \"forced=$?\"\n",
      "srun -N3 -n3 bash -c 'echo \"forced $SLURMD_NODENAME $(cat ", scratch, "/prog)\"'\n",
      "sbcast --preserve ", Src(), " $S/kept; echo \"preserved=$?\"\n",
      "srun -N3 -n3 bash -c 'echo \"kept $SLURMD_NODENAME $(stat -c \"%Y %a\" ", scratch,
      "/kept)\"'\n");
  ASSERT_EQ(
      cluster_->RunAs(kUser, absl::StrCat("cat > multi.sh <<'EOS'\n", script, "EOS")).exit_code, 0);
  const CommandResult r =
      cluster_->RunAs(kUser, absl::StrCat("sbatch --wait -N3 -o ", out, " multi.sh"));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string text = ReadFile(out);
  const std::vector<std::string> lines = absl::StrSplit(text, '\n', absl::SkipEmpty());
  auto has = [&](const std::string& line) {
    return std::find(lines.begin(), lines.end(), line) != lines.end();
  };
  EXPECT_TRUE(has("first=0")) << text;
  const std::string md5 = Md5(Src());
  ASSERT_EQ(md5.size(), 32u);
  for (int n = 1; n <= kNodes; ++n) {
    const std::string node = absl::StrCat("n", n);
    EXPECT_TRUE(has(absl::StrCat("copy ", node, " 750 ", kUser, " 300000 ", md5))) << text;
    EXPECT_TRUE(has(absl::StrCat("sbcast: error: REQUEST_FILE_BCAST(", node, "): File exists")))
        << text;
    EXPECT_TRUE(has(absl::StrCat("forced ", node, " second version"))) << text;
    EXPECT_TRUE(has(absl::StrCat("kept ", node, " 1500000000 750"))) << text;
    // And as this side sees the node's directory.
    const std::string copy = absl::StrCat(*base_, "/nodes/", node, "/prog");
    EXPECT_EQ(ReadFile(copy), "second version\n") << copy;
    EXPECT_EQ(Owner(copy), uid_) << copy;
    EXPECT_EQ(Mode(copy), "644") << copy;
  }
  EXPECT_TRUE(has("again=17")) << text;  // EEXIST, as Slurm's sbcast ends
  EXPECT_TRUE(has("forced=0")) << text;
  EXPECT_TRUE(has("preserved=0")) << text;
}

TEST_F(SbcastTest, WritesAsTheJobsUserWhereTheyMayWriteOnly) {
  const uint64_t id = RunningJob();
  ASSERT_NE(id, 0u);
  const std::string node = NodeOf(id);
  // A relative destination is in sbcast's current directory (the user's home).
  CommandResult r = cluster_->RunAs(kUser, absl::StrCat("sbcast -j ", id, " ", Src(), " rel.bin"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const std::string rel = Home(kUser) + "/rel.bin";
  EXPECT_EQ(Md5(rel), Md5(Src()));
  EXPECT_EQ(Owner(rel), uid_);
  EXPECT_EQ(Mode(rel), "750");

  // Again, without -f: Slurm's message, EEXIST's exit code, the file unchanged.
  r = cluster_->RunAs(kUser, absl::StrCat("sbcast -j ", id, " /etc/hostname rel.bin"));
  EXPECT_EQ(r.exit_code, 17);
  EXPECT_EQ(r.err, absl::StrCat("sbcast: error: REQUEST_FILE_BCAST(", node, "): File exists\n"));
  EXPECT_EQ(Md5(rel), Md5(Src()));

  // A directory the user cannot write: refused as the user would be.
  const std::string closed = cluster_->dir() + "/closed/x";
  r = cluster_->RunAs(kUser, absl::StrCat("sbcast -j ", id, " ", Src(), " ", closed));
  EXPECT_EQ(r.exit_code, 13);
  EXPECT_EQ(r.err,
            absl::StrCat("sbcast: error: REQUEST_FILE_BCAST(", node, "): Permission denied\n"));
  EXPECT_EQ(Mode(closed), "missing");

  // Root may broadcast into the job; the copy is still the job's user's.
  const std::string by_root = Home(kUser) + "/by_root";
  r = cluster_->Run(absl::StrCat("sbcast -j ", id, " ", Src(), " ", by_root));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Owner(by_root), uid_);
  // Root cannot use it to write where the user cannot.
  r = cluster_->Run(absl::StrCat("sbcast -j ", id, " ", Src(), " ", closed));
  EXPECT_EQ(r.exit_code, 13) << r.err;
  EXPECT_EQ(Mode(closed), "missing");

  // -C (gRPC's gzip on the wire) and -f: the same bytes.
  r = cluster_->RunAs(kUser, absl::StrCat("sbcast -C -f -j ", id, " ", Src(), " rel.bin"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Md5(rel), Md5(Src()));

  // --send-libs: the program's libraries (none excluded) in DEST_libs.
  r = cluster_->RunAs(kUser,
                      absl::StrCat("sbcast --send-libs --exclude=NONE -j ", id, " /bin/true tru"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string libs = Home(kUser) + "/tru_libs";
  EXPECT_EQ(Mode(libs), "700");
  EXPECT_EQ(Owner(libs), uid_);
  const std::string ldd = RunShell("ldd /bin/true").out;
  ASSERT_TRUE(absl::StrContains(ldd, "libc.so.6")) << ldd;
  EXPECT_EQ(Md5(libs + "/libc.so.6"), Md5(Trim(RunShell("readlink -f $(ldd /bin/true | "
                                                        "awk '/libc.so.6/ {print $3}')")
                                                   .out)));
  cluster_->Run(absl::StrCat("scancel ", id));
}

TEST_F(SbcastTest, AnotherUsersJobIsRefused) {
  const uint64_t id = RunningJob();
  ASSERT_NE(id, 0u);
  const std::string target = Home(kOther) + "/stolen";
  // A file they may read (the source is kUser's, 0750).
  CommandResult r =
      cluster_->RunAs(kOther, absl::StrCat("sbcast -j ", id, " /etc/hostname ", target));
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.err,
            absl::StrCat("sbcast: error: Slurm job ", id, " lookup error: Invalid user id\n"));
  // The same through the job's environment, as if from inside it.
  r = cluster_->RunAs(kOther, absl::StrCat("SLURM_JOB_ID=", id, " sbcast /etc/hostname ", target));
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_TRUE(absl::StrContains(r.err, "Invalid user id")) << r.err;
  EXPECT_EQ(Mode(target), "missing");
  // The job's own user may.
  r = cluster_->RunAs(kUser, absl::StrCat("sbcast -j ", id, " ", Src(), " mine"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  cluster_->Run(absl::StrCat("scancel ", id));
  // An ended job has no nodes to copy to.
  ASSERT_TRUE(Eventually(60, [&] {
    return Trim(cluster_->Run(absl::StrCat("squeue -h -j ", id, " -o %T")).out).empty();
  }));
  r = cluster_->RunAs(kUser, absl::StrCat("sbcast -f -j ", id, " ", Src(), " mine"));
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.err, absl::StrCat("sbcast: error: Slurm job ", id,
                                " lookup error: Job/step already completing or completed\n"));
}

TEST_F(SbcastTest, SlurmsMessagesForWhatCannotStart) {
  // No job: from outside any job, without -j.
  CommandResult r =
      cluster_->RunAs(kUser, absl::StrCat("env -u SLURM_JOB_ID sbcast ", Src(), " x"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "sbcast: error: Need a job id to run this command.  Run from within a Slurm job or use "
            "the --jobid option.\n");
  r = cluster_->RunAs(kUser, "sbcast -j 1 /no/such/file x");
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.err, "sbcast: error: Can't open `/no/such/file`: No such file or directory\n");
  r = cluster_->RunAs(kUser, absl::StrCat("sbcast -j 987654 ", Src(), " x"));
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.err, "sbcast: error: Slurm job 987654 lookup error: Invalid job id specified\n");
  r = cluster_->RunAs(kUser, absl::StrCat("sbcast -j 5 ", Src(), " /tmp/"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "sbcast: error: Target filename cannot be a directory.\n");
  r = cluster_->RunAs(kUser, "sbcast only_one");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "Need two file names, have 1 names\nTry \"sbcast --help\" for more information\n");
}

// Issue 47, item 15: `sbcast -f` onto a FIFO opened it for writing and waited
// for a reader, holding a noded thread (and the job's step manager) for as
// long as none came. Now a destination that is not a regular file (a FIFO, a
// device) or is a symbolic link is refused at once, with the reason, and the
// node goes on copying.
TEST_F(SbcastTest, AFifoOrALinkDestinationIsRefusedAtOnce) {
  const uint64_t id = RunningJob();
  ASSERT_NE(id, 0u);
  const std::string node = NodeOf(id);
  const std::string fifo = Home(kUser) + "/fifo";
  const std::string link = Home(kUser) + "/link";
  ASSERT_EQ(
      cluster_->RunAs(kUser, "rm -f fifo link && mkfifo fifo && ln -s rel.bin link").exit_code, 0);
  CommandResult r =
      cluster_->RunAs(kUser, absl::StrCat("timeout 30 sbcast -f -j ", id, " ", Src(), " ", fifo));
  if (r.exit_code == 124) {
    // The old noded waits on the FIFO: let it go before failing.
    RunShell(absl::StrCat("timeout 5 cat ", fifo, " > /dev/null"));
  }
  EXPECT_EQ(r.exit_code, 22) << r.err;  // EINVAL
  EXPECT_EQ(r.err, absl::StrCat("sbcast: error: REQUEST_FILE_BCAST(", node, "): `", fifo,
                                "` is not a regular file\n"));
  r = cluster_->RunAs(kUser, absl::StrCat("timeout 30 sbcast -f -j ", id, " ", Src(), " ", link));
  EXPECT_EQ(r.exit_code, 40) << r.err;  // ELOOP
  EXPECT_EQ(r.err, absl::StrCat("sbcast: error: REQUEST_FILE_BCAST(", node, "): `", link,
                                "` is a symbolic link\n"));
  // The node still copies.
  r = cluster_->RunAs(kUser,
                      absl::StrCat("timeout 30 sbcast -f -j ", id, " ", Src(), " after.bin"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Md5(Home(kUser) + "/after.bin"), Md5(Src()));
  cluster_->Run(absl::StrCat("scancel ", id));
}

}  // namespace
}  // namespace skiff::testing
