// strigger through the real daemons (issue 31): a node-down trigger runs its
// program in scriptd as the trigger's owner with the node's name; a job's fini
// trigger runs when the job ends and is then gone; --time with a negative
// offset runs before the time limit; --get lists, --clear removes; users need
// SlurmctldParameters=allow_user_triggers to set, may not clear or use what is
// another's; triggers survive a ctld crash and still fire after it.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/shared_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

constexpr char kAlice[] = "strigalice";
constexpr char kBob[] = "strigbob";

// A cluster per suite; `extra` goes into skiff.conf.
LocalCluster::Options ClusterOptions(const std::string& extra) {
  LocalCluster::Options options = NodesWithoutGpus(3, 2);
  options.extra_config = extra;
  return options;
}

// Writes a trigger program at `path` that records its uid and arguments in
// `path`.out (written whole, then renamed), owned by `owner` with `mode`.
void WriteProgram(const std::string& path, const std::string& owner, const std::string& mode) {
  {
    std::ofstream out(path);
    out << "#!/bin/bash\necho \"$(id -u) $*\" > " << path << ".tmp && mv " << path << ".tmp "
        << path << ".out\n";
  }
  const CommandResult r =
      RunShell(absl::StrCat("chown ", owner, ": ", path, " && chmod ", mode, " ", path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

// The --get table's rows (header dropped).
std::vector<std::string> Rows(const std::string& table) {
  std::vector<std::string> rows;
  for (absl::string_view line : absl::StrSplit(table, '\n', absl::SkipEmpty())) {
    if (!absl::StartsWith(line, "TRIG_ID")) rows.emplace_back(line);
  }
  return rows;
}

// ---------------------------------------------------------------- users may set

class StriggerTest : public SharedClusterTest<StriggerTest> {
 protected:
  static void SetUpTestSuite() {
    StartCluster(ClusterOptions("SlurmctldParameters=allow_user_triggers\n"));
    if (cluster_ == nullptr) return;
    for (const char* user : {kAlice, kBob}) {
      absl::StatusOr<uid_t> uid = cluster_->EnsureUser(user);
      ASSERT_TRUE(uid.ok()) << uid.status();
      (user == kAlice ? alice_uid_ : bob_uid_) = *uid;
    }
  }
  static std::string Home(const std::string& user) {
    return absl::StrCat(cluster_->dir(), "/home/", user);
  }
  static std::string JobState(uint64_t id) {
    return ScontrolField(cluster_->Run(absl::StrCat("scontrol show job ", id)).out, "JobState");
  }
  // A batch job of alice's that runs until `gate` (a file in her home) exists.
  static uint64_t SubmitGated(const std::string& gate, const std::string& extra = "") {
    const CommandResult r = cluster_->RunAs(
        kAlice, absl::StrCat("sbatch ", extra, " -o /dev/null --wrap 'while [ ! -e ", gate,
                             " ]; do sleep 0.2; done'"));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const std::vector<uint64_t> ids = SubmittedJobIds(r.out);
    return ids.empty() ? 0 : ids.front();
  }

  static uid_t alice_uid_;
  static uid_t bob_uid_;
};

uid_t StriggerTest::alice_uid_ = 0;
uid_t StriggerTest::bob_uid_ = 0;

TEST_F(StriggerTest, NodeDownRunsTheProgramAsItsOwnerWithTheNodeName) {
  const std::string program = Home(kAlice) + "/down.sh";
  WriteProgram(program, kAlice, "755");
  CommandResult r = cluster_->RunAs(kAlice, "strigger --set --node=n2 --down -p " + program);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = cluster_->RunAs(kBob, "strigger --get --down -N");  // anyone may look
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(Rows(r.out).size(), 1u) << r.out;
  EXPECT_TRUE(absl::StrContains(r.out, absl::StrCat(" node ")) &&
              absl::StrContains(r.out, absl::StrCat("n2 down ")) &&
              absl::StrContains(r.out, kAlice) && absl::StrContains(r.out, program))
      << r.out;

  r = cluster_->Run("scontrol update nodename=n2 state=down reason=t");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(Eventually(30, [&] { return !ReadFile(program + ".out").empty(); }))
      << cluster_->Log("ctld.log");
  EXPECT_EQ(ReadFile(program + ".out"), absl::StrCat(alice_uid_, " n2\n"));
  // One-shot: gone once it ran.
  EXPECT_EQ(cluster_->Run("strigger --get --down -N").out, "");
  ASSERT_EQ(cluster_->Run("scontrol update nodename=n2 state=resume").exit_code, 0);
  ASSERT_TRUE(Eventually(30, [&] {
    return ScontrolField(cluster_->Run("scontrol show node n2").out, "State") == "IDLE";
  }));
}

TEST_F(StriggerTest, JobFiniRunsWhenTheJobEndsAndIsThenGone) {
  const std::string program = Home(kAlice) + "/fini.sh";
  WriteProgram(program, kAlice, "755");
  const std::string gate = Home(kAlice) + "/fini.gate";
  const uint64_t id = SubmitGated(gate);
  ASSERT_NE(id, 0u);
  CommandResult r =
      cluster_->RunAs(kAlice, absl::StrCat("strigger --set --jobid=", id, " --fini -p ", program));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = cluster_->Run(absl::StrCat("strigger --get -N -j ", id));
  ASSERT_EQ(Rows(r.out).size(), 1u) << r.out;
  EXPECT_TRUE(absl::StrContains(r.out, absl::StrCat(" job ")) &&
              absl::StrContains(r.out, absl::StrCat(id, " fini ")))
      << r.out;
  EXPECT_TRUE(ReadFile(program + ".out").empty());  // not before the job ends
  ASSERT_EQ(RunShell("touch " + gate).exit_code, 0);
  ASSERT_TRUE(Eventually(60, [&] { return !ReadFile(program + ".out").empty(); }))
      << JobState(id) << cluster_->Log("ctld.log");
  EXPECT_EQ(ReadFile(program + ".out"), absl::StrCat(alice_uid_, " ", id, "\n"));
  EXPECT_TRUE(absl::StrContains("COMPLETED", JobState(id))) << JobState(id);
  EXPECT_EQ(cluster_->Run(absl::StrCat("strigger --get -N -j ", id)).out, "");
  // A finished job takes no new trigger: Slurm's error.
  r = cluster_->RunAs(kAlice, absl::StrCat("strigger --set --jobid=", id, " --fini -p ", program));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "slurm_set_trigger: Job/step already completing or completed\n");
}

TEST_F(StriggerTest, TimeWithANegativeOffsetRunsBeforeTheTimeLimit) {
  const std::string program = Home(kAlice) + "/time.sh";
  WriteProgram(program, kAlice, "755");
  const std::string gate = Home(kAlice) + "/time.gate";
  const uint64_t id = SubmitGated(gate, "-t 1");  // a minute
  ASSERT_NE(id, 0u);
  // Runs once 50 s or less are left: about 10 s into the run.
  CommandResult r = cluster_->RunAs(
      kAlice, absl::StrCat("strigger --set --jobid=", id, " --time --offset=-50 -p ", program));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = cluster_->Run(absl::StrCat("strigger --get -N -t -j ", id));
  EXPECT_TRUE(absl::StrContains(r.out, "time ") && absl::StrContains(r.out, " -50 ")) << r.out;
  ASSERT_TRUE(Eventually(55, [&] { return !ReadFile(program + ".out").empty(); }))
      << JobState(id) << cluster_->Log("ctld.log");
  EXPECT_EQ(JobState(id), "RUNNING");  // before its limit
  EXPECT_EQ(ReadFile(program + ".out"), absl::StrCat(alice_uid_, " ", id, "\n"));
  EXPECT_EQ(cluster_->Run(absl::StrCat("strigger --get -N -j ", id)).out, "");
  ASSERT_EQ(RunShell("touch " + gate).exit_code, 0);
}

TEST_F(StriggerTest, OthersMayNotClearOrRunWhatIsNotTheirs) {
  const std::string program = Home(kAlice) + "/private.sh";
  WriteProgram(program, kAlice, "700");
  CommandResult r = cluster_->RunAs(kAlice, "strigger --set --node=n3 --drained -p " + program);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = cluster_->Run("strigger --get -N --drained");
  ASSERT_EQ(Rows(r.out).size(), 1u) << r.out;
  const std::string id(absl::StripLeadingAsciiWhitespace(r.out.substr(0, r.out.find(" n"))));
  ASSERT_FALSE(id.empty());

  // Bob may not clear it, by id or by user; -Q keeps quiet about it.
  r = cluster_->RunAs(kBob, "strigger --clear --id=" + id);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "slurm_clear_trigger: Access/permission denied\n");
  r = cluster_->RunAs(kBob, absl::StrCat("strigger --clear -Q --user=", kAlice));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(Rows(cluster_->Run("strigger --get --drained").out).size(), 1u);
  // Nor set a trigger that would run alice's program, which he may not execute.
  r = cluster_->RunAs(kBob, "strigger --set --node=n1 --drained -p " + program);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "slurm_set_trigger: Access/permission denied\n");
  // Slurm's other refusals.
  r = cluster_->RunAs(kAlice, "strigger --set --node=n3 --drained -p " + program);
  EXPECT_EQ(r.err, "slurm_set_trigger: Duplicate event trigger\n");
  r = cluster_->RunAs(kAlice, "strigger --set --node=n9 --down -p " + program);
  EXPECT_EQ(r.err, "slurm_set_trigger: Invalid node name specified\n");
  r = cluster_->RunAs(kAlice, "strigger --set --jobid=999999 --fini -p " + program);
  EXPECT_EQ(r.err, "slurm_set_trigger: Invalid job id specified\n");
  r = cluster_->RunAs(kAlice, "strigger --set --primary_slurmctld_failure -p " + program);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(absl::StrContains(r.err, "--primary_slurmctld_failure")) << r.err;
  r = cluster_->RunAs(kAlice, "strigger --set --down -p relative.sh");
  EXPECT_EQ(r.err, "strigger: error: The --program value must start with \"/\"\n");

  // Alice clears her own.
  r = cluster_->RunAs(kAlice, "strigger --clear --id=" + id);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(cluster_->Run("strigger --get --drained").out, "");
  r = cluster_->RunAs(kAlice, "strigger --clear --id=" + id);
  EXPECT_EQ(r.err, "slurm_clear_trigger: No such process\n");
}

// ---------------------------------------------------------------- Slurm's defaults

class StriggerDefaultsTest : public SharedClusterTest<StriggerDefaultsTest> {
 protected:
  static void SetUpTestSuite() {
    StartCluster(ClusterOptions(""));
    if (cluster_ != nullptr) ASSERT_TRUE(cluster_->EnsureUser(kAlice).ok());
  }
};

TEST_F(StriggerDefaultsTest, OnlySlurmUserSetsAndTriggersSurviveACtldCrash) {
  const std::string program = cluster_->dir() + "/root_down.sh";
  WriteProgram(program, "root", "755");
  // Without allow_user_triggers a user may not set any.
  CommandResult r = cluster_->RunAs(kAlice, "strigger --set --node --down -p " + program);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "slurm_set_trigger: Access/permission denied\n");

  ASSERT_EQ(cluster_->Run("strigger --set --node=n1 --down -p " + program).exit_code, 0);
  r = cluster_->Run("strigger --set --node --idle --offset=30000 --flags=perm -p " + program);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string before = cluster_->Run("strigger --get").out;
  ASSERT_EQ(Rows(before).size(), 2u) << before;
  EXPECT_TRUE(absl::StrContains(before, "PERM")) << before;

  // Acknowledged means stored: a SIGKILL loses none of them.
  ASSERT_EQ(kill(cluster_->Pid("ctld"), SIGKILL), 0);
  ASSERT_EQ(cluster_->Up().exit_code, 0);
  std::string after;
  ASSERT_TRUE(Eventually(30, [&] {
    CommandResult got = cluster_->Run("strigger --get");
    after = got.out;
    return got.exit_code == 0;
  }));
  EXPECT_EQ(after, before);

  // And the recovered trigger still fires.
  ASSERT_TRUE(Eventually(30, [&] {
    return ScontrolField(cluster_->Run("scontrol show node n1").out, "State") == "IDLE";
  }));
  ASSERT_EQ(cluster_->Run("scontrol update nodename=n1 state=down reason=t").exit_code, 0);
  ASSERT_TRUE(Eventually(30, [&] { return !ReadFile(program + ".out").empty(); }))
      << cluster_->Log("ctld.log");
  EXPECT_EQ(ReadFile(program + ".out"), "0 n1\n");
  EXPECT_EQ(Rows(cluster_->Run("strigger --get").out).size(), 1u);  // the PERM idle one
  ASSERT_EQ(cluster_->Run("scontrol update nodename=n1 state=resume").exit_code, 0);
  ASSERT_EQ(cluster_->Run("strigger --clear --user=root").exit_code, 0);
  EXPECT_EQ(cluster_->Run("strigger --get").out, "");
}

}  // namespace
}  // namespace skiff::testing
