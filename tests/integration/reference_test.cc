// Replays Slurm 22.05's reference outputs (tests/reference/slurm-22.05, issue 31)
// against Skiff: one cluster of the reference's shape (n1-n4 with 2 CPUs, gpu:2
// on n3-n4, burst_buffer/lua with pools fast and bulk, QOS normal/high/low, users
// root and alice in account research) goes through the same timeline as the
// reference run: idle commands, environment jobs, three jobs watched through
// their states, submissions good and bad, then a busy queue that is inspected,
// changed, cancelled and accounted. Each file's command runs at its point in the
// timeline, as the file's user, with the reference's job ids and dates rewritten
// to the local ones; both outputs are normalized (tests/reference/reference_file.h)
// and compared byte for byte.
//
// Every file must match or be named in a row of docs/compatibility.md, so the
// test fails when a matching output regresses or a new difference appears without
// its reason. With $SKIFF_REFERENCE_OUT set to a directory (or under bazel, in
// the test's undeclared outputs), each differing file's normalized reference,
// local output and diff are written there.
#include <dirent.h>
#include <gtest/gtest.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/shared_cluster.h"
#include "tests/harness/test_util.h"
#include "tests/reference/reference_file.h"

namespace skiff::testing {
namespace {

using reference::Normalize;
using reference::ParseReference;
using reference::ReferenceFile;
using reference::Side;

constexpr unsigned long kFirstJobId = 15373;  // the reference run's first job

// The reference run's job ids that its commands name, by the job's name here.
const std::map<std::string, std::string> kReferenceIds = {
    {"15389", "toobig"},   {"15391", "wide"},     {"15392", "gpubb"},     {"15395", "waiting"},
    {"15396", "waiting2"}, {"15397", "helduser"}, {"15398", "heldadmin"}, {"15399", "dep"},
    {"15400", "arr"},      {"15401", "bbwait"}};

std::string ReferenceDir() { return RunfilesRoot() + "/tests/reference/slurm-22.05"; }

std::vector<std::string> ReferenceNames() {
  std::vector<std::string> names;
  DIR* dir = opendir(ReferenceDir().c_str());
  if (dir == nullptr) return names;
  while (dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (absl::EndsWith(name, ".txt")) names.push_back(name.substr(0, name.size() - 4));
  }
  closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

std::string IsoTime(time_t when) {
  char text[32];
  struct tm local;
  localtime_r(&when, &local);
  strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &local);
  return text;
}

std::string Transcript(const std::string& command, const std::string& output, int exit_code) {
  std::string text = absl::StrCat("$ ", command, "\n", output);
  if (exit_code >= 0) absl::StrAppend(&text, "[exit ", exit_code, "]\n");
  return text;
}

class ReferenceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (getuid() != 0) GTEST_SKIP() << "needs root to create the user alice";
    LocalCluster::Options options;
    options.nodes = 4;
    options.cpus = 2;
    options.gpu_nodes = 2;
    options.burst_buffers = true;
    // The reference's configured values; MinJobAge keeps finished jobs for
    // `scontrol show job` after scancel, as the reference run could.
    options.extra_config = absl::StrCat(
        "ClusterName=lab\nFirstJobId=", kFirstJobId,
        "\nDefMemPerCPU=100\nAccountingStorageEnforce=associations,limits,qos\nKillWait=5\n"
        "MaxArraySize=100001\nMaxJobCount=200000\nMessageTimeout=30\nMinJobAge=10\n"
        "PriorityType=priority/basic\nReturnToService=2\nSelectTypeParameters=CR_Core_Memory\n"
        "SlurmctldTimeout=60\nSlurmdTimeout=120\nSlurmctldDebug=error\nSlurmdDebug=error\n"
        "JobAcctGatherFrequency=30\n"
        "SchedulerParameters=batch_sched_delay=0,bf_interval=1,sched_interval=1,bf_continue,"
        "default_queue_depth=1000,partition_job_depth=1000\n");
    options.files = {{"etc/burst_buffer.conf",
                      "Directive=BB_LUA\nFlags=DisablePersistent\nStageInTimeout=120\n"
                      "StageOutTimeout=120\nOtherTimeout=120\nPollInterval=1\n"}};
    // The reference cluster had no TRESBillingWeights (billing = CPUs).
    options.environment = {{"SKIFF_REAL_MEMORY", "4821"}, {"SKIFF_TRES_BILLING_WEIGHTS", ""}};
    StartLocalCluster(options, &cluster_);
    if (HasFatalFailure()) return;
    auto uid = cluster_->EnsureUser("alice");
    ASSERT_TRUE(uid.ok()) << uid.status();
    start_ = time(nullptr) - 1;

    char host[256] = {};
    gethostname(host, sizeof host - 1);
    const std::string gid = RunShell("id -g alice").out;
    slurm_ = {"/srv/slurm", "vm", "slurm-wlm", {"22.05.8"}, "1001", "1001", kFirstJobId};
    // Skiff reports its own version, and Slurm's where it names the protocol it speaks.
    local_ = {cluster_->dir(),
              host,
              "skiff",
              {Version(), "22.05.8"},
              std::to_string(*uid),
              gid.substr(0, gid.find('\n')),
              kFirstJobId};

    for (const char* command :
         {"sacctmgr -i add qos high,low", "sacctmgr -i modify qos high set Priority=1000",
          "sacctmgr -i modify qos low set Priority=10",
          "sacctmgr -i modify qos high set MaxTRESPerUser=cpu=4",
          "sacctmgr -i modify qos low set MaxJobsPerUser=2", "sacctmgr -i add account research",
          "sacctmgr -i add user root account=research qos=normal,low,high defaultqos=normal",
          "sacctmgr -i modify user root set defaultaccount=research",
          "sacctmgr -i add user alice account=research qos=normal,low defaultqos=normal"}) {
      CommandResult r = cluster_->Run(command);
      ASSERT_EQ(r.exit_code, 0) << command << ": " << r.out << r.err;
    }
    // Work directories as in the reference (paths under its /srv/slurm).
    CommandResult dirs = RunShell(absl::StrCat(
        "mkdir -p ", cluster_->dir(), "/jobs/root-golden ", cluster_->dir(), "/jobs/alice/golden ",
        cluster_->dir(), "/bb/data ", cluster_->dir(), "/bb/out && chown alice: ", cluster_->dir(),
        "/jobs/alice/golden ", cluster_->dir(), "/bb/out && echo data > ", cluster_->dir(),
        "/bb/data/input.dat && chmod 777 ", cluster_->dir(), "/bb/out"));
    ASSERT_EQ(dirs.exit_code, 0) << dirs.err;
  }

  std::string Version() {
    std::string version = cluster_->Run("scontrol --version").out;
    version = version.substr(version.find(' ') + 1);
    while (!version.empty() && version.back() == '\n') version.pop_back();
    return version;
  }

  std::string WorkDir(const std::string& user) const {
    return user == "root" ? cluster_->dir() + "/jobs/root-golden"
                          : cluster_->dir() + "/jobs/" + user + "/golden";
  }

  // `command` as `user` in that user's work directory, stderr with stdout.
  CommandResult As(const std::string& user, const std::string& command) const {
    const std::string line = absl::StrCat("cd ", WorkDir(user), " && ", command, " 2>&1");
    return user == "root" ? cluster_->Run(line) : cluster_->RunAs(user, line);
  }

  void WriteScript(const std::string& user, const std::string& name, const std::string& text) {
    const std::string path = WorkDir(user) + "/" + name;
    std::ofstream(path) << absl::StrReplaceAll(text, {{"@DIR@", cluster_->dir()}});
    RunShell(absl::StrCat("chmod 755 ", path, " && chown ", user, ": ", path));
  }

  // sbatch ARGS as `user`; the new job's id ("" when refused), remembered by name.
  std::string Submit(const std::string& user, const std::string& name, const std::string& args) {
    CommandResult r = As(user, "sbatch --parsable " + args);
    std::string id = r.out.substr(0, r.out.find_first_not_of("0123456789_"));
    EXPECT_FALSE(id.empty()) << "sbatch " << args << ": " << r.out;
    if (!id.empty()) ids_[name] = id;
    return id;
  }

  std::string State(const std::string& id) {
    return ScontrolField(cluster_->Run("scontrol show job " + id).out, "JobState");
  }

  bool Finished(const std::string& id) {
    const std::string state = State(id);
    return state == "COMPLETED" || state == "FAILED" || state == "CANCELLED" || state.empty();
  }

  // The reference command with its job ids and dates made local.
  std::string LocalCommand(std::string command) const {
    for (const auto& [reference_id, name] : kReferenceIds) {
      auto local = ids_.find(name);
      // A job Skiff refused at submit: an id that no job has.
      const std::string id = local == ids_.end() ? "999998" : local->second;
      command = std::regex_replace(command, std::regex("\\b" + reference_id + "\\b"), id);
    }
    return std::regex_replace(command, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)"),
                              IsoTime(start_));
  }

  ReferenceFile Reference(const std::string& name) const {
    return ParseReference(ReadFile(ReferenceDir() + "/" + name + ".txt"));
  }

  void Compare(const std::string& name, const std::string& expected, const std::string& actual) {
    const std::string want = Normalize(expected, slurm_);
    const std::string got = Normalize(actual, local_);
    results_[name] = want == got ? "" : reference::LineDiff(want, got);
    if (want == got) return;
    const char* out = getenv("SKIFF_REFERENCE_OUT");
    if (out == nullptr) out = getenv("TEST_UNDECLARED_OUTPUTS_DIR");
    if (out == nullptr) return;
    std::ofstream(absl::StrCat(out, "/", name, ".expected")) << want;
    std::ofstream(absl::StrCat(out, "/", name, ".actual")) << got;
    std::ofstream(absl::StrCat(out, "/", name, ".diff")) << results_[name];
  }

  // Runs the file's command (as its user) and compares output and exit code.
  void Replay(const std::string& name) {
    const ReferenceFile file = Reference(name);
    const std::string command = LocalCommand(file.command);
    const CommandResult r = As(file.user, command);
    Compare(name, Transcript(file.command, file.output, file.exit_code),
            Transcript(command, r.out, r.exit_code));
  }

  // A job_env_* file: the job's output (its sorted environment).
  void CompareJobOutput(const std::string& name, const std::string& user, const std::string& path) {
    const ReferenceFile file = Reference(name);
    Compare(name, Transcript(file.command, file.output, -1),
            Transcript(file.command, ReadFile(WorkDir(user) + "/" + path), -1));
  }

  // Polls `scontrol show job` until the job is gone or finished and settled,
  // recording each change of the fields the transitions file shows.
  void WatchTransitions(const std::string& name, const std::string& id, bool burst_buffer) {
    std::vector<std::string> seen;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
    while (std::chrono::steady_clock::now() < deadline) {
      const std::string show = cluster_->Run("scontrol show job " + id).out;
      const std::string state = ScontrolField(show, "JobState");
      if (state.empty()) break;
      std::string line = absl::StrCat(
          "JobState=", state,
          " Reason=", absl::StrReplaceAll(ScontrolField(show, "Reason"), {{" ", "_"}}));
      if (burst_buffer)
        absl::StrAppend(&line, " BurstBufferState=", ScontrolField(show, "BurstBufferState"));
      if (seen.empty() || seen.back() != line) seen.push_back(line);
      if (burst_buffer && absl::StrContains(line, "BurstBufferState=staging-in") &&
          stagein_.empty()) {
        stagein_ = cluster_->Run("scontrol show burst 2>&1").out;
      }
      const bool done = state == "COMPLETED" || state == "FAILED" || state == "CANCELLED";
      if (done && (!burst_buffer || absl::StrContains(line, "BurstBufferState=complete"))) break;
      if (done && burst_buffer && seen.size() > 1 &&
          std::chrono::steady_clock::now() + std::chrono::seconds(60) > deadline) {
        break;
      }
    }
    const std::vector<std::string> want =
        reference::StateSequence(ReadFile(ReferenceDir() + "/" + name + ".txt"));
    Compare(name, absl::StrJoin(want, "\n") + "\n", absl::StrJoin(seen, "\n") + "\n");
  }

  std::unique_ptr<LocalCluster> cluster_;
  time_t start_ = 0;
  Side slurm_, local_;
  std::map<std::string, std::string> ids_;      // job name -> local id
  std::map<std::string, std::string> results_;  // file -> diff ("" when it matches)
  std::string stagein_;                         // `scontrol show burst` during stage-in
};

TEST_F(ReferenceTest, EveryOutputMatchesOrIsADocumentedDifference) {
  // 1. The idle cluster.
  for (const char* name :
       {"sinfo_idle", "sinfo_N_l_idle", "squeue_empty", "scontrol_show_partition",
        "scontrol_show_burst_idle", "scontrol_show_bbstat", "scontrol_show_bbstat_args",
        "scontrol_show_config_full", "scontrol_show_config_head50", "scontrol_version",
        "sacctmgr_show_assoc", "sacctmgr_show_qos", "scancel_nonexistent",
        "scontrol_hold_nonexistent", "scontrol_show_job_nonexistent"}) {
    Replay(name);
  }

  // 2. Jobs that print their environment (env_job.sh: env | sort | grep).
  const std::string env_job = "#!/bin/bash\nenv | sort | grep -E 'SLURM|CUDA|GPU'\n";
  WriteScript("root", "env_job.sh", env_job);
  WriteScript("alice", "env_bb.sh",
              "#!/bin/bash\n#BB_LUA pool=fast capacity=1G\n"
              "#BB_LUA stage_in source=@DIR@/bb/data/input.dat destination=/tmp/skiff_ref_in\n"
              "env | sort | grep -E 'SLURM|CUDA|GPU|BB_'\n");
  // Slurm's one pass placed these four together (its jobs start a second or so
  // after submission, Skiff's at once): held, then released in one command, so
  // that Skiff's pass too sees them side by side and packs them as cons_tres did.
  const std::string gpu1 = Submit("root", "gpu1", "--hold -p gpu --gres=gpu:1 env_job.sh");
  const std::string gpu2 = Submit("root", "gpu2env", "--hold -p gpu --gres=gpu:2 -n2 env_job.sh");
  const std::string plain = Submit("root", "plain", "--hold env_job.sh");
  const std::string array = Submit("root", "array", "--hold --array=1-2 env_job.sh");
  cluster_->Run(absl::StrCat("scontrol release ", gpu1, ",", gpu2, ",", plain, ",", array));
  const std::string bb = Submit("alice", "envbb", "-p gpu --gres=gpu:1 env_bb.sh");
  for (const std::string& id : {gpu1, gpu2, plain, array + "_1", array + "_2", bb}) {
    EXPECT_TRUE(Eventually(60, [&] { return Finished(id); })) << id << ": " << State(id);
  }
  CompareJobOutput("job_env_gres_gpu1", "root", "slurm-" + gpu1 + ".out");
  CompareJobOutput("job_env_gres_gpu2", "root", "slurm-" + gpu2 + ".out");
  CompareJobOutput("job_env_plain", "root", "slurm-" + plain + ".out");
  CompareJobOutput("job_env_array_task2", "root", "slurm-" + array + "_2.out");
  CompareJobOutput("job_env_gres_bb", "alice", "slurm-" + bb + ".out");

  // 3. Jobs watched through their states.
  WatchTransitions("transitions_plain_job", Submit("root", "trans_plain", "--wrap='sleep 2'"),
                   false);
  WatchTransitions("transitions_failed_job", Submit("root", "trans_failed", "--wrap='exit 3'"),
                   false);
  WriteScript("alice", "bb_trans.sh",
              "#!/bin/bash\n#BB_LUA pool=fast capacity=1G stage_delay=2\n"
              "#BB_LUA stage_in source=@DIR@/bb/data/input.dat destination=/tmp/skiff_ref_in\n"
              "#BB_LUA stage_out source=/tmp/skiff_ref_in destination=@DIR@/bb/out/trans.dat\n"
              "sleep 2\n");
  WatchTransitions("transitions_burst_buffer_job", Submit("alice", "bb_trans", "bb_trans.sh"),
                   true);
  Compare("scontrol_show_burst_stagein",
          ReadFile(ReferenceDir() + "/scontrol_show_burst_stagein.txt"), stagein_);

  // 4. Submissions, good and bad.
  WriteScript("alice", "toobig.sh", "#!/bin/bash\n#BB_LUA pool=fast capacity=100G\ntrue\n");
  WriteScript("alice", "badpool.sh", "#!/bin/bash\n#BB_LUA pool=nosuchpool capacity=1G\ntrue\n");
  WriteScript("alice", "nopool.sh", "#!/bin/bash\n#BB_LUA capacity=1G\ntrue\n");
  WriteScript("alice", "badstage.sh",
              "#!/bin/bash\n#BB_LUA stage_in source=/nonexistent/file destination=/tmp/x\ntrue\n");
  for (const std::string& name : ReferenceNames()) {
    if (absl::StartsWith(name, "sbatch_")) Replay(name);
  }
  Replay("scontrol_show_job_bb_too_big");

  // 5. A busy queue: four running jobs, nine pending for as many reasons.
  WriteScript("alice", "gpubb.sh",
              "#!/bin/bash\n#BB_LUA pool=bulk capacity=2G\n"
              "#BB_LUA stage_in source=@DIR@/bb/data/input.dat destination=/tmp/skiff_ref_gpubb\n"
              "#BB_LUA stage_out source=/tmp/skiff_ref_gpubb destination=@DIR@/bb/out/gpubb.dat\n"
              "sleep 300\n");
  const std::string quiet = "-o /dev/null --wrap='sleep 300'";
  Submit("root", "wide", "-J wide -N 2 -n 4 " + quiet);
  Submit("alice", "gpubb", "-J gpubb -p gpu --gres=gpu:1 -t 30 -o /dev/null gpubb.sh");
  // In the reference gpubb had n3 before gpu2 came; here its stage-in delays its
  // start, so gpu2 waits for it to have its node.
  EXPECT_TRUE(Eventually(60, [&] { return State(ids_["gpubb"]) == "RUNNING"; }));
  Submit("root", "gpu2", "-J gpu2 -p gpu --gres=gpu:2 -n 2 " + quiet);
  Submit("root", "small", "-J small " + quiet);
  ASSERT_TRUE(Eventually(60, [&] {
    for (const char* name : {"wide", "gpubb", "gpu2", "small"}) {
      if (State(ids_[name]) != "RUNNING") return false;
    }
    return true;
  })) << cluster_->Run("squeue").out;
  Submit("root", "waiting", "-J waiting -n 2 " + quiet);
  Submit("root", "waiting2", "-J waiting2 " + quiet);
  Submit("root", "helduser", "-J helduser --hold " + quiet);
  Submit("root", "heldadmin", "-J heldadmin " + quiet);
  EXPECT_EQ(cluster_->Run("scontrol hold " + ids_["heldadmin"]).exit_code, 0);
  Submit("root", "dep", "-J dep -d afterok:" + ids_["wide"] + " " + quiet);
  Submit("root", "arr", "-J arr --array=1-5 " + quiet);
  Submit("alice", "bbwait", "-J bbwait " + quiet);
  Submit("alice", "lowqos", "-J lowqos --qos=low " + quiet);
  Submit("root", "gpuwait", "-J gpuwait -p gpu --gres=gpu:1 " + quiet);
  EXPECT_TRUE(Eventually(30, [&] {
    const std::string reasons = cluster_->Run("squeue -h -t PD -o %r").out;
    return !reasons.empty() && !absl::StrContains(reasons, "None");
  })) << cluster_->Run("squeue").out;
  // ... and backfill has planned the jobs that wait for resources or their
  // turn (StartTime=, SchedNodeList=), as in the reference, where it had run.
  EXPECT_TRUE(Eventually(30, [&] {
    for (const char* name : {"waiting", "waiting2", "arr", "bbwait"}) {
      const std::string show = cluster_->Run("scontrol show job " + ids_[name]).out;
      if (!absl::StrContains(show, "SchedNodeList=")) return false;
    }
    return true;
  })) << cluster_->Run("squeue --start").out;
  for (const char* name : {"squeue_busy",
                           "squeue_fmt_i_j_T_R",
                           "squeue_states_pd",
                           "squeue_user_anchoruser",
                           "squeue_r_array",
                           "sinfo_busy",
                           "sinfo_N_l_busy",
                           "scontrol_show_node",
                           "scontrol_show_node_n3",
                           "scontrol_show_partition_busy",
                           "scontrol_show_burst_busy",
                           "scontrol_show_bbstat_busy",
                           "scontrol_show_job_running_multinode",
                           "scontrol_show_job_running_gres_bb",
                           "scontrol_show_job_pending_resources",
                           "scontrol_show_job_dependency",
                           "scontrol_show_job_held_admin",
                           "scontrol_show_job_held_user",
                           "scontrol_show_job_array_pending",
                           "scontrol_show_job_bb_pending",
                           "scancel_other_users_job",
                           "scancel_other_users_job_verbose",
                           "scontrol_update_other_users_job",
                           "scontrol_update_timelimit",
                           "scancel_own_job",
                           "scontrol_show_job_after_scancel",
                           "scontrol_release_user_hold",
                           "squeue_after_changes"}) {
    Replay(name);
  }

  // 6. Everything cancelled, then accounted.
  EXPECT_EQ(cluster_->Run("scancel -u root; scancel -u alice").exit_code, 0);
  EXPECT_TRUE(Eventually(60, [&] { return cluster_->Run("squeue -h").out.empty(); }))
      << cluster_->Run("squeue").out;
  for (const char* name : {"squeue_after_cancel", "sacct_default", "sacct_parsable",
                           "sacct_states_cancelled_pending", "sacct_steps_of_gpubb"}) {
    Replay(name);
  }

  // Every reference file: matched, or a documented difference.
  const std::string compatibility = ReadFile(RunfilesRoot() + "/docs/compatibility.md");
  std::set<std::string> documented;
  std::istringstream rows(compatibility);
  for (std::string row; std::getline(rows, row);) {
    if (!absl::StartsWith(row, "|")) continue;
    for (const std::string& name : ReferenceNames()) {
      if (absl::StrContains(row, name + ".txt")) documented.insert(name);
    }
  }
  int matched = 0, differing = 0, explained = 0;
  for (const std::string& name : ReferenceNames()) {
    auto result = results_.find(name);
    if (result != results_.end() && result->second.empty()) {
      ++matched;
      // The table stays true: a fixed difference leaves it with the fix.
      EXPECT_EQ(documented.count(name), 0u)
          << name << ".txt matches Skiff's output now: remove it from docs/compatibility.md";
      continue;
    }
    ++differing;
    if (documented.count(name) != 0) {
      ++explained;
      continue;
    }
    ADD_FAILURE() << name << ".txt differs from Skiff's output and docs/compatibility.md "
                  << "does not name it:\n"
                  << (result == results_.end() ? "(not replayed)\n" : result->second);
  }
  std::cout << "reference outputs: " << matched << " of " << ReferenceNames().size() << " match, "
            << explained << " documented differences\n";
  EXPECT_EQ(matched + differing, static_cast<int>(ReferenceNames().size()));
}

}  // namespace
}  // namespace skiff::testing
