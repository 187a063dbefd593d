// kill -9 of each daemon loses no accepted job.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/harness/fencing.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

// scriptd is ctld's only child.
pid_t ScriptdPid(const LocalCluster& cluster) {
  std::string children = ReadFile(
      absl::StrCat("/proc/", cluster.Pid("ctld"), "/task/", cluster.Pid("ctld"), "/children"));
  return atoi(children.c_str());
}

bool HasState(const LocalCluster& cluster, uint64_t id, const std::string& state) {
  return ShowJob(cluster, id).find("JobState=" + state + " ") != std::string::npos;
}

std::unique_ptr<LocalCluster> StartCluster(const std::string& extra_config) {
  LocalCluster::Options options;
  options.nodes = 4;
  options.extra_config = extra_config;
  auto cluster = LocalCluster::Start(options);
  EXPECT_TRUE(cluster.ok()) << cluster.status();
  return cluster.ok() ? std::move(*cluster) : nullptr;
}

TEST(CrashTest, KillingCtldLosesNoAcceptedJob) {
  auto cluster = StartCluster("");
  ASSERT_NE(cluster, nullptr);
  // 24 one-second jobs on 16 CPUs: some run, some pend when ctld dies.
  CommandResult submit = cluster->Run(
      "for i in $(seq 1 24); do sbatch -c 1 -o /dev/null --wrap='sleep 1' || exit 1; done");
  ASSERT_EQ(submit.exit_code, 0) << submit.err;
  const std::vector<uint64_t> ids = SubmittedJobIds(submit.out);
  ASSERT_EQ(ids.size(), 24u) << submit.out;

  const pid_t ctld = cluster->Pid("ctld");
  ASSERT_EQ(kill(ctld, SIGKILL), 0);
  ASSERT_TRUE(Eventually(30, [&] { return !Alive(ctld); }));
  CommandResult up = cluster->Up();
  ASSERT_EQ(up.exit_code, 0) << up.out << up.err;
  EXPECT_NE(up.out.find("started ctld"), std::string::npos);

  for (uint64_t id : ids) {
    EXPECT_TRUE(Eventually(60, [&] { return HasState(*cluster, id, "COMPLETED"); }))
        << "JobId=" << id << "\n"
        << ShowJob(*cluster, id);
  }
}

// An admin's drain and DOWN, with their reasons, who and when, outlive a ctld
// killed with SIGKILL (Slurm keeps them in its node_state file); a RESUME
// before the kill stays resumed.
TEST(CrashTest, NodeDrainsAndDownsSurviveACtldKill) {
  auto cluster = StartCluster("");
  ASSERT_NE(cluster, nullptr);
  ASSERT_EQ(cluster->Run("scontrol update NodeName=n1 State=DRAIN Reason='disk swap'").exit_code,
            0);
  ASSERT_EQ(cluster->Run("scontrol update NodeName=n2 State=DOWN Reason=rma").exit_code, 0);
  ASSERT_EQ(cluster->Run("scontrol update NodeName=n3 State=DRAIN Reason=x").exit_code, 0);
  ASSERT_EQ(cluster->Run("scontrol update NodeName=n3 State=RESUME").exit_code, 0);
  ASSERT_EQ(cluster->Run("scontrol update NodeName=n4 State=FAIL Reason=ecc").exit_code, 0);
  EXPECT_EQ(cluster->Run("sinfo -h -n n4 -o %t").out, "fail\n");
  const std::string before = cluster->Run("sinfo -R -h -o '%E|%U|%H|%N'").out;
  const pid_t ctld = cluster->Pid("ctld");
  ASSERT_EQ(kill(ctld, SIGKILL), 0);
  ASSERT_TRUE(Eventually(30, [&] { return !Alive(ctld); }));
  CommandResult up = cluster->Up();
  ASSERT_EQ(up.exit_code, 0) << up.out << up.err;
  EXPECT_TRUE(Eventually(30, [&] { return cluster->Run("sinfo -h -n n3 -o %t").out == "idle\n"; }))
      << cluster->Run("sinfo -N -l").out;
  EXPECT_EQ(cluster->Run("sinfo -R -h -o '%E|%U|%H|%N'").out, before);
  EXPECT_NE(before.find("disk swap|root(0)|"), std::string::npos) << before;
  EXPECT_NE(before.find("rma|root(0)|"), std::string::npos) << before;
  EXPECT_EQ(cluster->Run("sinfo -h -n n1 -o %t").out, "drain\n");
  EXPECT_EQ(cluster->Run("sinfo -h -n n2 -o %t").out, "down\n");
  EXPECT_EQ(cluster->Run("sinfo -h -n n4 -o %t").out, "fail\n");
  EXPECT_NE(cluster->Run("scontrol show node n4").out.find("State=IDLE+FAIL "), std::string::npos)
      << cluster->Run("scontrol show node n4").out;
}

// scriptd killed with SIGKILL during four prologs: each prolog (and the sleep it
// started in the background) dies with it instead of running on as an orphan, and
// each runs again exactly once under the new scriptd, which ctld started.
TEST(CrashTest, KillingScriptdKillsItsScriptsAndReRunsEachCutOffPrologOnce) {
  auto cluster = StartCluster("PrologSlurmctld=@DIR@/etc/slow_prolog.sh\n");
  ASSERT_NE(cluster, nullptr);
  const std::string marks = cluster->dir() + "/log/prolog_marks.txt";
  // Each prolog ends only once the test has killed scriptd (the release file):
  // on a loaded machine a fixed sleep could end before the kill. $PPID is the
  // scriptd that ran it, in the subshell too.
  const std::string release = cluster->dir() + "/run/release_prologs";
  std::ofstream(cluster->dir() + "/etc/slow_prolog.sh")
      << "#!/bin/sh\necho start $SLURM_JOB_ID $PPID >> " << marks << "\n(while [ ! -e " << release
      << " ]; do sleep 0.1; done; echo done $SLURM_JOB_ID $PPID >> " << marks << ") &\nwait\n";
  ASSERT_EQ(RunShell("chmod 755 " + cluster->dir() + "/etc/slow_prolog.sh").exit_code, 0);

  CommandResult submit =
      cluster->Run("for i in 1 2 3 4; do sbatch -o /dev/null --wrap=true || exit 1; done");
  const std::vector<uint64_t> ids = SubmittedJobIds(submit.out);
  ASSERT_EQ(ids.size(), 4u) << submit.out << submit.err;
  auto count = [](const std::string& text, const std::string& what) {
    int n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  ASSERT_TRUE(Eventually(20, [&] { return count(ReadFile(marks), "start ") == 4; }))
      << ReadFile(marks);
  const pid_t scriptd = ScriptdPid(*cluster);
  ASSERT_GT(scriptd, 0);
  ASSERT_EQ(kill(scriptd, SIGKILL), 0);
  // The new scriptd kills what is left of the cut-off prologs before it serves,
  // and so before it runs any of them again: once the four re-runs have
  // started, an orphan that survived would be free to finish. (Releasing them
  // as soon as the old scriptd was gone let an orphan finish first on a loaded
  // machine, before the new scriptd had even read its journal.)
  ASSERT_TRUE(Eventually(60, [&] { return count(ReadFile(marks), "start ") == 8; }))
      << ReadFile(marks);
  std::ofstream(release) << "go\n";

  for (uint64_t id : ids) {
    EXPECT_TRUE(Eventually(60, [&] { return HasState(*cluster, id, "COMPLETED"); }))
        << ShowJob(*cluster, id) << "\n"
        << ReadFile(marks);
  }
  // Every run of the prolog has ended, so an orphan of a cut-off one would
  // have written its mark by now.
  const std::string prolog = cluster->dir() + "/etc/slow_prolog.sh";
  EXPECT_TRUE(Eventually(60, [&] { return PidsWithCommandLine(prolog).empty(); }));
  const std::string text = ReadFile(marks);
  const pid_t new_scriptd = ScriptdPid(*cluster);
  EXPECT_GT(new_scriptd, 0);
  EXPECT_NE(new_scriptd, scriptd);
  for (uint64_t id : ids) {
    EXPECT_EQ(count(text, absl::StrCat("start ", id, " ")), 2) << "JobId=" << id << "\n" << text;
    EXPECT_EQ(count(text, absl::StrCat("done ", id, " ")), 1) << "JobId=" << id << "\n" << text;
    EXPECT_EQ(count(text, absl::StrCat("done ", id, " ", scriptd, "\n")), 0)
        << "JobId=" << id << ": the cut-off prolog ran on as an orphan\n"
        << text;
  }
}

TEST(CrashTest, KillingNodedMarksNodeDownAndFailsOrRequeuesItsJobs) {
  auto cluster = StartCluster("HeartbeatInterval=1\nSlurmdTimeout=5\n");
  ASSERT_NE(cluster, nullptr);
  // Occupy all four nodes with one job, so the batch host is n1.
  CommandResult submit = cluster->Run("sbatch -N 4 --no-requeue -o /dev/null --wrap='sleep 300'");
  const std::vector<uint64_t> ids = SubmittedJobIds(submit.out);
  ASSERT_EQ(ids.size(), 1u) << submit.out << submit.err;
  ASSERT_TRUE(Eventually(20, [&] { return HasState(*cluster, ids[0], "RUNNING"); }));

  ASSERT_EQ(kill(cluster->Pid("noded-n2"), SIGKILL), 0);
  EXPECT_TRUE(Eventually(30, [&] { return HasState(*cluster, ids[0], "NODE_FAIL"); }))
      << ShowJob(*cluster, ids[0]);
  CommandResult sinfo = cluster->Run("sinfo -N -h -p debug");
  EXPECT_NE(sinfo.out.find("n2             1    debug* down*"), std::string::npos) << sinfo.out;
}

// A launch that a dead noded cannot take (ctld does not know yet: SlurmdTimeout
// has not passed) is tried again until the node is back (issue 32 item 10):
// the job then runs there, and the node is never drained. A node that stays
// unreachable for SlurmdTimeout is drained (controller_test).
TEST(CrashTest, ALaunchADeadNodedCannotTakeIsTriedAgainUntilItIsBack) {
  auto cluster = StartCluster("SlurmdTimeout=300\nMessageTimeout=3\n");
  ASSERT_NE(cluster, nullptr);
  const pid_t noded = cluster->Pid("noded-n3");
  ASSERT_EQ(kill(noded, SIGKILL), 0);
  ASSERT_TRUE(Eventually(30, [&] { return !Alive(noded); }));

  CommandResult submit = cluster->Run("sbatch -w n3 -o /dev/null --wrap=true");
  const std::vector<uint64_t> ids = SubmittedJobIds(submit.out);
  ASSERT_EQ(ids.size(), 1u) << submit.out << submit.err;
  const std::string failed = absl::StrCat("JobId=", ids[0], " launch on NodeName=n3 failed");
  ASSERT_TRUE(Eventually(60, [&] {
    return cluster->Log("ctld.log").find(failed) != std::string::npos ||
           cluster->Run("scontrol show node n3").out.find("DRAIN") != std::string::npos;
  })) << cluster->Log("ctld.log");
  EXPECT_EQ(cluster->Run("scontrol show node n3").out.find("DRAIN"), std::string::npos)
      << cluster->Run("scontrol show node n3").out;
  EXPECT_EQ(ScontrolField(ShowJob(*cluster, ids[0]), "JobState"), "CONFIGURING")
      << ShowJob(*cluster, ids[0]);
  // Every other node still takes work.
  CommandResult other = cluster->Run("sbatch -x n3 -o /dev/null --wrap=true");
  const std::vector<uint64_t> others = SubmittedJobIds(other.out);
  ASSERT_EQ(others.size(), 1u) << other.out << other.err;
  EXPECT_TRUE(Eventually(60, [&] { return HasState(*cluster, others[0], "COMPLETED"); }));

  CommandResult up = cluster->Up();
  ASSERT_EQ(up.exit_code, 0) << up.out << up.err;
  EXPECT_TRUE(Eventually(60, [&] { return HasState(*cluster, ids[0], "COMPLETED"); }))
      << ShowJob(*cluster, ids[0]) << cluster->Log("ctld.log");
  EXPECT_EQ(ScontrolField(ShowJob(*cluster, ids[0]), "Restarts"), "0") << ShowJob(*cluster, ids[0]);
  EXPECT_EQ(cluster->Run("scontrol show node n3").out.find("DRAIN"), std::string::npos)
      << cluster->Run("scontrol show node n3").out;
  EXPECT_EQ(cluster->Log("ctld.log").find("batch job launch failure"), std::string::npos)
      << cluster->Log("ctld.log");
}

// The port `node`'s noded listens on, from skiff.conf (0 when not found).
int NodePort(const LocalCluster& cluster, const std::string& node) {
  std::smatch match;
  const std::string conf = ReadFile(cluster.conf_path());
  if (!std::regex_search(conf, match, std::regex("NodeName=" + node + " [^\n]*Port=([0-9]+)"))) {
    return 0;
  }
  return std::stoi(match[1]);
}

// Bytes that arrived on established TCP connections to local `port` and were
// not read yet (/proc/net/tcp's rx_queue).
long UnreadBytesOnPort(int port) {
  long total = 0;
  for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::istringstream lines(ReadFile(table));
    std::string line;
    std::getline(lines, line);  // the header
    while (std::getline(lines, line)) {
      std::istringstream fields(line);
      std::string slot, local, remote, state, queues;
      fields >> slot >> local >> remote >> state >> queues;
      const size_t colon = local.rfind(':');
      const size_t between = queues.find(':');
      if (state != "01" || colon == std::string::npos || between == std::string::npos) continue;
      if (std::stoi(local.substr(colon + 1), nullptr, 16) != port) continue;
      total += std::stol(queues.substr(between + 1), nullptr, 16);
    }
  }
  return total;
}

// The launch reaches noded, which is restarted before it answers (issue 32
// item 10: the node was drained although noded had registered again): ctld
// tries the launch again against the new noded, the job runs, and the node is
// not drained.
TEST(CrashTest, ALaunchCutOffByANodedRestartIsTriedAgainAndNothingIsDrained) {
  auto cluster = StartCluster("SlurmdTimeout=300\n");
  ASSERT_NE(cluster, nullptr);
  const int port = NodePort(*cluster, "n1");
  ASSERT_GT(port, 0) << ReadFile(cluster->conf_path());
  // ctld's connection to n1 is up: a first job ran there.
  CommandResult first = cluster->Run("sbatch -w n1 -o /dev/null --wrap=true");
  const std::vector<uint64_t> firsts = SubmittedJobIds(first.out);
  ASSERT_EQ(firsts.size(), 1u) << first.out << first.err;
  ASSERT_TRUE(Eventually(60, [&] { return HasState(*cluster, firsts[0], "COMPLETED"); }));

  // noded stopped: the launch arrives and waits, unread.
  const pid_t noded = cluster->Pid("noded-n1");
  ASSERT_EQ(kill(noded, SIGSTOP), 0);
  CommandResult submit = cluster->Run("sbatch -w n1 -o /dev/null --wrap=true");
  const std::vector<uint64_t> ids = SubmittedJobIds(submit.out);
  const bool submitted = ids.size() == 1;
  const bool arrived = submitted && Eventually(60, [&] { return UnreadBytesOnPort(port) > 0; });
  // Restarted (the stopped one killed, which resets ctld's connection).
  ASSERT_EQ(kill(noded, SIGKILL), 0);
  ASSERT_TRUE(submitted) << submit.out << submit.err;
  ASSERT_TRUE(arrived) << ShowJob(*cluster, ids[0]);
  ASSERT_TRUE(Eventually(30, [&] { return !Alive(noded); }));
  CommandResult up = cluster->Up();
  ASSERT_EQ(up.exit_code, 0) << up.out << up.err;

  EXPECT_TRUE(Eventually(60, [&] { return HasState(*cluster, ids[0], "COMPLETED"); }))
      << ShowJob(*cluster, ids[0]) << cluster->Log("ctld.log");
  EXPECT_EQ(ScontrolField(ShowJob(*cluster, ids[0]), "Restarts"), "0") << ShowJob(*cluster, ids[0]);
  EXPECT_EQ(cluster->Run("scontrol show node n1").out.find("DRAIN"), std::string::npos)
      << cluster->Run("scontrol show node n1").out << cluster->Log("ctld.log");
}

// Fencing: noded stopped past SlurmdTimeout. Its job's shepherd kills the job
// when the node's lease runs out, before ctld requeues the job (after
// SlurmdTimeout), so the requeued copy never runs beside the first; and once
// noded resumes, the killed run reports nothing that could end the new one.
TEST(CrashTest, AStoppedNodedsJobIsKilledBeforeItsRequeuedCopyStarts) {
  auto cluster = StartCluster("HeartbeatInterval=1\nSlurmdTimeout=6\n");
  ASSERT_NE(cluster, nullptr);
  const std::string marks = cluster->dir() + "/log/fence_marks.txt";
  const uint64_t id = SubmitTickingJob(*cluster, marks);
  ASSERT_TRUE(Eventually(20, [&] { return !ReadMarks(marks).empty(); }));
  const std::string first = ReadMarks(marks).front().node;
  const pid_t noded = cluster->Pid("noded-" + first);
  const int64_t stopped_at = time(nullptr);
  ASSERT_EQ(kill(noded, SIGSTOP), 0);
  ExpectTheCopiesNeverOverlapped(*cluster, id, marks);
  std::string second;
  for (const Mark& mark : ReadMarks(marks)) {
    if (mark.copy == 1) second = mark.node;
  }
  EXPECT_NE(second, first);
  // down* within SlurmdTimeout + 1 s of the stop, by ctld's own clock (the
  // reason's time; whole seconds, hence one more).
  EXPECT_EQ(cluster->Run("sinfo -h -n " + first + " -o %t").out, "down*\n");
  const std::string reason = cluster->Run("sinfo -R -h -n " + first + " -o '%E|%H'").out;
  struct tm tm = {};
  const size_t bar = reason.find('|');
  ASSERT_NE(bar, std::string::npos) << reason;
  ASSERT_NE(strptime(reason.c_str() + bar + 1, "%Y-%m-%dT%H:%M:%S", &tm), nullptr) << reason;
  tm.tm_isdst = -1;
  const int64_t down_at = mktime(&tm);
  std::cout << "down " << down_at - stopped_at << " s after SIGSTOP (SlurmdTimeout=6)\n";
  EXPECT_EQ(reason.substr(0, bar), "Not responding");
  EXPECT_LE(down_at - stopped_at, 6 + 1 + 1) << reason;

  ASSERT_EQ(kill(noded, SIGCONT), 0);
  // ReturnToService=1: back in service once it registers again.
  EXPECT_TRUE(Eventually(20, [&] {
    return cluster->Run("sinfo -h -n " + first + " -o %t").out == "idle\n";
  })) << cluster->Run("sinfo -N -l").out;
  const std::string shown = ShowJob(*cluster, id);
  EXPECT_NE(shown.find("JobState=RUNNING "), std::string::npos) << shown;
  EXPECT_NE(shown.find(" NodeList=" + second + "\n"), std::string::npos) << shown;
  // The first run stays dead: no mark of copy 0 after the requeued copy started,
  // while the requeued copy goes on ticking.
  EXPECT_TRUE(CopyTicked(marks, 1, 10)) << ReadFile(marks);
  EXPECT_TRUE(TheFirstCopyStayedDead(marks)) << ReadFile(marks);
  EXPECT_EQ(cluster->Run(absl::StrCat("scancel ", id)).exit_code, 0);
}

// What a cut link looks like from the node: ctld's heartbeat replies time out
// (here ctld is stopped; network_fault_test cuts a real link). Nothing renews the lease, the job is
// fenced, and when ctld comes back and requeues it, the copies still never overlap.
TEST(CrashTest, ATimedOutCtldFencesTheJobBeforeItsRequeue) {
  auto cluster = StartCluster("HeartbeatInterval=1\nSlurmdTimeout=6\n");
  ASSERT_NE(cluster, nullptr);
  const std::string marks = cluster->dir() + "/log/fence_marks.txt";
  const uint64_t id = SubmitTickingJob(*cluster, marks);
  ASSERT_TRUE(Eventually(20, [&] { return !ReadMarks(marks).empty(); }));
  const std::string first_node = ReadMarks(marks).front().node;
  const pid_t ctld = cluster->Pid("ctld");
  ASSERT_EQ(kill(ctld, SIGSTOP), 0);
  const auto stopped = std::chrono::steady_clock::now();
  // Stopped until the job was fenced (its 4 s lease ran out) and SlurmdTimeout
  // has passed.
  const std::string ended = absl::StrCat("JobId=", id, " ended: ");
  EXPECT_TRUE(Eventually(60, [&] {
    const std::string log = cluster->Log("noded-" + first_node + ".log");
    const size_t at = log.find(ended);
    return at != std::string::npos && log.find("fenced", at) != std::string::npos &&
           std::chrono::steady_clock::now() - stopped >= std::chrono::seconds(6 + 2);
  })) << cluster->Log("noded-" + first_node + ".log");
  ASSERT_EQ(kill(ctld, SIGCONT), 0);
  ExpectTheCopiesNeverOverlapped(*cluster, id, marks);
  EXPECT_EQ(cluster->Run(absl::StrCat("scancel ", id)).exit_code, 0);
}

// ctld down for longer than the lease: nobody can requeue, and noded, whose
// heartbeats are refused, keeps renewing the leases: the job runs to its end.
TEST(CrashTest, ACtldDownLongerThanTheLeaseFencesNothing) {
  auto cluster = StartCluster("HeartbeatInterval=1\nSlurmdTimeout=6\n");
  ASSERT_NE(cluster, nullptr);
  CommandResult submit = cluster->Run("sbatch -o /dev/null --wrap='sleep 12'");
  const std::vector<uint64_t> ids = SubmittedJobIds(submit.out);
  ASSERT_EQ(ids.size(), 1u) << submit.out << submit.err;
  ASSERT_TRUE(Eventually(20, [&] { return HasState(*cluster, ids[0], "RUNNING"); }));
  ASSERT_EQ(kill(cluster->Pid("ctld"), SIGKILL), 0);
  std::this_thread::sleep_for(std::chrono::seconds(7));  // the lease is 4 s
  CommandResult up = cluster->Up();
  ASSERT_EQ(up.exit_code, 0) << up.out << up.err;
  EXPECT_TRUE(Eventually(30, [&] { return HasState(*cluster, ids[0], "COMPLETED"); }))
      << ShowJob(*cluster, ids[0]);
  EXPECT_NE(ShowJob(*cluster, ids[0]).find("Restarts=0 "), std::string::npos)
      << ShowJob(*cluster, ids[0]) << cluster->Log("noded-n1.log") << cluster->Log("ctld.log");
}

TEST(CrashTest, RestartedNodedReattachesAndReportsTheExitCode) {
  auto cluster = StartCluster("");
  ASSERT_NE(cluster, nullptr);
  CommandResult submit = cluster->Run("sbatch -o /dev/null --wrap='sleep 3; exit 7'");
  const std::vector<uint64_t> ids = SubmittedJobIds(submit.out);
  ASSERT_EQ(ids.size(), 1u) << submit.out << submit.err;
  ASSERT_TRUE(Eventually(20, [&] { return HasState(*cluster, ids[0], "RUNNING"); }));
  const std::string shown = ShowJob(*cluster, ids[0]);
  std::smatch node;
  ASSERT_TRUE(std::regex_search(shown, node, std::regex(" NodeList=(n[0-9]+)"))) << shown;
  const pid_t noded = cluster->Pid("noded-" + node[1].str());
  ASSERT_EQ(kill(noded, SIGKILL), 0);
  ASSERT_TRUE(Eventually(30, [&] { return !Alive(noded); }));
  CommandResult up = cluster->Up();
  ASSERT_EQ(up.exit_code, 0) << up.out << up.err;
  EXPECT_TRUE(Eventually(30, [&] { return HasState(*cluster, ids[0], "FAILED"); }))
      << ShowJob(*cluster, ids[0]);
  EXPECT_NE(ShowJob(*cluster, ids[0]).find("ExitCode=7:0"), std::string::npos);
}

}  // namespace
}  // namespace skiff::testing
