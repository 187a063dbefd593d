// squeue against the real daemons, compared with expected files made from one
// fixed scenario (tests/golden/squeue/*.txt), and squeue's answers to malformed
// command lines (Slurm 22.05's exact texts and exit codes, src/squeue/opts.c).
//
// The scenario, on 4 nodes of 4 CPUs where n3 and n4 have 2 fake GPUs: n1-n2
// run an exclusive two-node job, n3 a small job and a 2-GPU job, n4 a 2-GPU job
// in account "lab" with QOS "high"; pending are a three-node job waiting for
// resources, jobs behind it, a dependent job, an array, a held job, another
// user's job with QOS "low", a GPU job whose partition's nodes are held for the
// waiting job, and a job asking for drained n1.
//
// Outputs are compared after one documented substitution (Normalize): ISO
// date-times become YYYY-MM-DDTHH:MM:SS, the date line of -l/-i becomes DATE, and elapsed
// times M:SS (under 10 minutes) become 0:00; nothing else varies between runs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/shared_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

std::string Normalize(std::string text) {
  text = std::regex_replace(text, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)"),
                            "YYYY-MM-DDTHH:MM:SS");
  text = std::regex_replace(
      text, std::regex(R"((^|\n)[A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9]\d \d\d:\d\d:\d\d \d{4}(\n))"),
      "$1DATE$2");
  // Elapsed times are under 10 minutes ("0:07"); every time limit is 10
  // minutes or more ("15:00"), so they stay.
  text = std::regex_replace(text, std::regex(R"((^|[ \n|])\d:\d\d(?=$|[ \n|]))"), "$010:00");
  return text;
}

std::string Transcript(const std::string& args, const CommandResult& r) {
  std::string text = absl::StrCat("$ squeue ", args, "\n", r.out);
  if (!r.err.empty()) absl::StrAppend(&text, "[stderr]\n", r.err);
  absl::StrAppend(&text, "[exit ", r.exit_code, "]\n");
  return Normalize(text);
}

class SqueueGoldenTest : public SharedClusterTest<SqueueGoldenTest> {
 protected:
  static void SetUpTestSuite() {
    if (getuid() != 0) return;
    StartCluster(NodesWithGpus(4, 2));
    if (HasFatalFailure()) return;
    ASSERT_TRUE(cluster_->EnsureUser("skiffalice").ok());
    for (const char* qos : {"high", "low"}) {
      CommandResult r = cluster_->Run(absl::StrCat("sacctmgr -i add qos ", qos));
      ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    }
    // Running: jobs 1-4.
    Submit("root", "-J wide -N 2 --exclusive -t 10");
    Submit("root", "-J small -n 1 -t 10");
    Submit("root", "-J gpubb -p gpu --gres=gpu:2 -t 10");
    Submit("root", "-J gpu2 -p gpu --gres=gpu:2 -A lab -q high -t 10");
    ASSERT_TRUE(Eventually(30, [] {
      return cluster_->Run("squeue -h -t R -o %i").out == "1\n2\n3\n4\n" ||
             cluster_->Run("squeue -h -t R -S i -o %i").out == "1\n2\n3\n4\n";
    })) << cluster_->Run("squeue").out;
    CommandResult drain = cluster_->Run("scontrol update NodeName=n1 State=DRAIN Reason=golden");
    ASSERT_EQ(drain.exit_code, 0) << drain.out << drain.err;
    // Pending: jobs 5-14 (the array takes 8, 9 and 10).
    Submit("root", "-J waiting -N 3 --exclusive -t 30");
    Submit("root", "-J waiting2 -n 4 -t 15");
    Submit("root", "-J dep -d afterok:1 -t 15");
    Submit("root", "-J arr --array=1-3 -n 4 -t 15");
    Submit("root", "-J helduser --hold -t 15");
    Submit("skiffalice", "-J lowqos -q low -A physics -n 4 -t 15");
    Submit("root", "-J gpuwait -p gpu --gres=gpu:1 -t 15");
    Submit("root", "-J reqdown -w n1 -t 15");
    // Settled once every pending job has its reason and the plan its estimates.
    ASSERT_TRUE(Eventually(30, [] {
      const std::string reasons = cluster_->Run("squeue -h -t PD -o '%r'").out;
      const std::string start = cluster_->Run("squeue -h --start -o '%S %Y'").out;
      return reasons.find("None") == std::string::npos &&
             std::count(start.begin(), start.end(), '\n') >= 6 &&
             start.find("N/A") != std::string::npos;
    })) << cluster_->Run("squeue --start").out;
  }

  void SetUp() override { SetUpAsRoot(); }

  static void Submit(const std::string& user, const std::string& args) {
    const std::string command = absl::StrCat("sbatch ", args, " --wrap='sleep 900'");
    CommandResult r = user == "root" ? cluster_->Run(command) : cluster_->RunAs(user, command);
    ASSERT_EQ(r.exit_code, 0) << command << ": " << r.out << r.err;
  }

  static CommandResult Squeue(const std::string& args) { return cluster_->Run("squeue " + args); }

  // Compares with tests/golden/squeue/<name>.txt; with $SKIFF_UPDATE_GOLDEN set
  // to that directory, writes it instead.
  static void ExpectGolden(const std::string& name, const std::string& args) {
    const std::string actual = Transcript(args, Squeue(args));
    if (const char* update = getenv("SKIFF_UPDATE_GOLDEN"); update != nullptr) {
      std::ofstream(absl::StrCat(update, "/", name, ".txt")) << actual;
      return;
    }
    const std::string path = RunfilesRoot() + "/tests/golden/squeue/" + name + ".txt";
    EXPECT_EQ(actual, ReadFile(path)) << "squeue " << args << " (" << path << ")";
  }
};

TEST_F(SqueueGoldenTest, OutputsMatchTheExpectedFiles) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"default", ""},
      {"long", "-l"},
      {"fmt_i_j_T_R", "-o '%i %j %T %R'"},
      {"states_pd_widths", "-t PD -o '%.8i %.10j %.8T %.20R'"},
      {"start", "--start"},
      {"start_all_fields", "--start -o '%i %j %r %Y'"},
      {"array_r", "-r -j 8"},
      {"array_task", "-j 8_2"},
      {"user_alice", "-u skiffalice"},
      {"account_lab", "-A LAB,physics"},
      {"qos_high", "-q high"},
      {"nodelist_n3", "-w n3"},
      {"nodelist_range", "--nodelist='n[1,4]'"},
      {"sort_name", "-S j -o '%i %j'"},
      {"sort_reverse_id", "-S -i -h -o '%i %t'"},
      {"sort_user_then_id", "-S u,-i -o '%.6i %u'"},
      {"licenses", "-L matlab"},
      {"steps", "-s"},
      {"steps_noheader", "-s -h"},
      {"partition_gpu_all", "-p gpu -t all -o '%i %P %T'"},
      {"format_long_names", "-O 'jobid:.6,name:10,statecompact:4,reasonlist'"},
      {"format_bad_field", "-o '%i %! %j'"},
      {"format_long_bad_name", "-O 'jobid,bogus:5|,name'"},
      {"nodes_and_times", "-t R -o '%.3N|%.4M|%.4l|%C|%D'"},
      {"states_unknown_to_skiff", "-t SUSPENDED,BF"},
      {"reservation", "-R maint"},
      {"usage", "--usage"},
      {"help", "--help"},
      {"bad_user", "-u nosuchuser"},
  };
  for (const auto& [name, args] : cases) ExpectGolden(name, args);
}

TEST_F(SqueueGoldenTest, StartGivesEveryPlaceableJobAnEstimateAndNodes) {
  // -r: every array task on its own line. The job asking for drained n1
  // (ReqNodeNotAvail) and the dependent and held jobs cannot be placed.
  CommandResult r = Squeue("-h -r --start -o '%i|%S|%Y|%r'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int estimated = 0;
  for (absl::string_view line : absl::StrSplit(r.out, '\n', absl::SkipEmpty())) {
    std::vector<std::string> f = absl::StrSplit(line, '|');
    ASSERT_EQ(f.size(), 4u) << line;
    const bool placeable =
        f[3] == "Resources" || f[3] == "Priority" || f[3].rfind("Nodes required for job", 0) == 0;
    if (placeable) {
      EXPECT_NE(f[1], "N/A") << line;
      EXPECT_NE(f[2], "(null)") << line;
      ++estimated;
    }
  }
  EXPECT_EQ(estimated, 7) << r.out;  // 5, 6, 8_1-8_3, 12, 13
}

TEST_F(SqueueGoldenTest, JsonHasSlurmsEnvelopeAndV0038Jobs) {
  CommandResult r = Squeue("--json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(
      r.out.rfind("{\n  \"meta\": {\n    \"plugin\": {\n      \"type\": \"openapi/v0.0.38\"", 0),
      0u)
      << r.out.substr(0, 200);
  EXPECT_NE(r.out.find("\"errors\": [],\n  \"jobs\": [\n    {\n      \"account\": "),
            std::string::npos);
  EXPECT_NE(r.out.find("\"job_state\": \"PENDING\""), std::string::npos);
  EXPECT_NE(r.out.find("\"job_resources\": {"), std::string::npos);
  // Filters apply (Slurm 22.05 ignores them; see docs/json.md).
  CommandResult one = Squeue("--json -u skiffalice");
  EXPECT_NE(one.out.find("\"user_name\": \"skiffalice\""), std::string::npos);
  EXPECT_EQ(one.out.find("\"user_name\": \"root\""), std::string::npos);
  CommandResult valid = cluster_->Run("squeue --json | python3 -m json.tool >/dev/null");
  EXPECT_EQ(valid.exit_code, 0) << valid.err;
}

TEST_F(SqueueGoldenTest, VerboseListsOptionsAndIterateRepeatsWithADate) {
  CommandResult v = Squeue("-v -u skiffalice -h -o %i");
  ASSERT_EQ(v.exit_code, 0) << v.err;
  EXPECT_EQ(v.out.rfind("-----------------------------\nall         = false\n", 0), 0u) << v.out;
  EXPECT_NE(v.out.find("\nusers       = skiffalice\n"), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("last_update_time="), std::string::npos) << v.out;
  CommandResult it = cluster_->Run("timeout -s INT 2.5 squeue -i 1 -o %i -t R");
  const std::string out = Normalize(it.out);
  EXPECT_EQ(out.rfind("DATE\nJOBID\n", 0), 0u) << it.out;
  EXPECT_GE(std::count(out.begin(), out.end(), 'D'), 2) << it.out;  // two passes at least
}

TEST_F(SqueueGoldenTest, EnvironmentDefaultsApplyWhereTheCommandLineIsSilent) {
  CommandResult r = cluster_->Run("SQUEUE_FORMAT='%i %j' SQUEUE_SORT=-i squeue -t R");
  EXPECT_EQ(r.out, "JOBID NAME\n4 gpu2\n3 gpubb\n2 small\n1 wide\n") << r.err;
  r = cluster_->Run("SQUEUE_FORMAT='%i %j' SQUEUE_SORT=-i squeue -t R -S i -o %j");
  EXPECT_EQ(r.out, "NAME\nwide\nsmall\ngpubb\ngpu2\n") << r.err;
  r = cluster_->Run("SQUEUE_FORMAT='%i' squeue -l -h -t R -u nobody");
  EXPECT_EQ(r.out, "");
  r = cluster_->Run("SQUEUE_STATES=R SQUEUE_PARTITION=gpu SQUEUE_FORMAT2='jobid:4' squeue");
  EXPECT_EQ(r.out, "JOBI\n3   \n4   \n") << r.err;
  r = cluster_->Run("SQUEUE_USERS=skiffalice squeue -h -o %j");
  EXPECT_EQ(r.out, "lowqos\n") << r.err;
}

// squeue's one-line (or Slurm's two-line) answer to malformed command lines.
TEST_F(SqueueGoldenTest, MalformedOptionsGetSlurmsTextAndExitCode) {
  const std::string kTry = "Try \"squeue --help\" for more information\n";
  const std::string kStates =
      "squeue: error: Valid job states include: PENDING,RUNNING,SUSPENDED,COMPLETED,CANCELLED,"
      "FAILED,TIMEOUT,NODE_FAIL,PREEMPTED,BOOT_FAIL,DEADLINE,OUT_OF_MEMORY,COMPLETING,"
      "CONFIGURING,RESIZING,RESV_DEL_HOLD,REQUEUED,REQUEUE_FED,REQUEUE_HOLD,REVOKED,SIGNALING,"
      "SPECIAL_EXIT,STAGE_OUT,STOPPED\n\n";
  struct Case {
    std::string args;
    std::string err;
    int exit_code;
  };
  const std::vector<Case> cases = {
      {"--foo", "squeue: unrecognized option '--foo'\n" + kTry, 1},
      {"-z", "squeue: invalid option -- 'z'\n" + kTry, 1},
      {"-lz", "squeue: invalid option -- 'z'\n" + kTry, 1},
      {"-o", "squeue: option requires an argument -- 'o'\n" + kTry, 1},
      {"-p", "squeue: option requires an argument -- 'p'\n" + kTry, 1},
      {"--format", "squeue: option '--format' requires an argument\n" + kTry, 1},
      {"--sort", "squeue: option '--sort' requires an argument\n" + kTry, 1},
      {"--long=1", "squeue: option '--long' doesn't allow an argument\n" + kTry, 1},
      {"--json=yes", "squeue: option '--json' doesn't allow an argument\n" + kTry, 1},
      {"--start=now", "squeue: option '--start' doesn't allow an argument\n" + kTry, 1},
      {"-i abc", "squeue: error: --iterate=abc\n\n", 1},
      {"-i 0", "squeue: error: --iterate=0\n\n", 1},
      {"--iterate=-5", "squeue: error: --iterate=-5\n\n", 1},
      {"-t foo", "squeue: error: Invalid job state specified: foo\n" + kStates, 1},
      {"-t PD,xx", "squeue: error: Invalid job state specified: xx\n" + kStates, 1},
      {"-S foo", "squeue: error: Invalid sort specification: o\n", 1},
      {"-S P,q", "squeue: error: Invalid sort specification: q\n", 1},
      {"--sort=a", "squeue: error: Invalid sort specification: a\n", 1},
      {"-o %i -O jobid", "squeue: error: -O (--Format) is incompatible with -o (--format)\n", 1},
      {"-O jobid -o %i", "squeue: error: -o (--format) is incompatible with -O (--Format)\n", 1},
      {"-l -o %i",
       "squeue: fatal: Options -o(--format) and -l(--long) are mutually exclusive. Please remove "
       "one and retry.\n",
       1},
      {"-j abc", "squeue: error: Invalid job id: abc\n", 1},
      {"--jobs=0", "squeue: error: Invalid job id: 0\n", 1},
      {"-s 12", "squeue: error: Invalid job_step id: 12.??\n", 1},
      {"--steps=x.1", "squeue: error: Invalid job_step id: x.1\n", 1},
      {"-j -s", "squeue: error: Incompatible options --jobs and --steps\n", 1},
      {"extra", "squeue: error: Unrecognized option: extra\n", 1},
      {"-w n9", "squeue: error: Invalid node name n9\n", 1},
      {"-w 'n[1-'", "squeue: error: 'n[1-' invalid entry for --nodelist\n", 1},
      {"-M other",
       "squeue: error: Skiff has no multi-cluster support: -M/--clusters takes only this cluster "
       "(skiff-local)\n",
       1},
      {"--yaml", "squeue: error: --yaml is not supported by Skiff; use --json\n", 1},
      {"-j 99999", "slurm_load_jobs error: Invalid job id specified\n", 1},
      {"-O bogus", "squeue: error: Invalid job format specification: bogus\n", 0},
      {"-o '%i %!'", "squeue: error: Invalid job format specification: !\n", 0},
      {"-u nosuchuser", "squeue: error: Invalid user: nosuchuser\n\n", 0},
  };
  for (const Case& c : cases) {
    CommandResult r = Squeue(c.args);
    EXPECT_EQ(r.err, c.err) << "squeue " << c.args;
    EXPECT_EQ(r.exit_code, c.exit_code) << "squeue " << c.args;
  }
}

}  // namespace
}  // namespace skiff::testing
