// A standby controller over etcd (issue 53), on `./skiff up --ha`: three etcd
// members and two ctlds on loopback. kill -9 of the serving ctld during a
// flood of submissions loses no acknowledged job and runs none twice; a
// standby serves within seconds; etcd losing a member changes nothing; a
// hung controller, once it wakes, stops rather than serve beside the new one;
// scontrol takeover hands over on purpose. Each case prints its counts.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/auth/munge_authenticator.h"
#include "common/config/config_loader.h"
#include "common/rpc/auth_metadata.h"
#include "common/rpc/controller_epoch.h"
#include "ctld/replication/etcd_member.h"
#include "proto/noded.grpc.pb.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/test_util.h"
#include "tests/integration/restd_client.h"

namespace skiff::testing {
namespace {

std::unique_ptr<LocalCluster> StartHaCluster(bool restd) {
  LocalCluster::Options options;
  options.nodes = 2;
  options.gpu_nodes = 0;
  options.ha = true;
  options.restd = restd;
  options.burst_buffers = true;  // pools "fast" (8 GiB) and "bulk", as ./skiff up makes them
  auto cluster = LocalCluster::Start(options);
  EXPECT_TRUE(cluster.ok()) << cluster.status();
  return cluster.ok() ? std::move(*cluster) : nullptr;
}

std::string Serving(const LocalCluster& cluster) {
  const std::string out = cluster.Run("scontrol ping").out;
  const size_t at = out.find("Serving: ");
  return at == std::string::npos ? "" : out.substr(at + 9, out.find('\n', at) - at - 9);
}

double Now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// "ID TIME" lines (the flood's acknowledgements): id -> when sbatch returned.
std::map<uint64_t, double> Acknowledged(const std::string& path) {
  std::map<uint64_t, double> acked;
  std::istringstream lines(ReadFile(path));
  uint64_t id = 0;
  double at = 0;
  while (lines >> id >> at) acked[id] = at;
  return acked;
}

// How many times each job id was written to `path` by the job itself.
std::map<uint64_t, int> Runs(const std::string& path) {
  std::map<uint64_t, int> runs;
  std::istringstream lines(ReadFile(path));
  uint64_t id = 0;
  while (lines >> id) ++runs[id];
  return runs;
}

bool QueueEmpty(const LocalCluster& cluster) {
  CommandResult r = cluster.Run("squeue -h");
  return r.exit_code == 0 && r.out.empty();
}

class HaTakeoverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (access(ctld::replication::kEtcdBinary, X_OK) != 0) {
      GTEST_SKIP() << "needs Debian's etcd-server";
    }
    // restd for the second test's ping: it finds the serving controller too.
    cluster_ =
        StartHaCluster(std::string(::testing::UnitTest::GetInstance()->current_test_info()->name())
                           .find("Takeover") != std::string::npos);
    ASSERT_NE(cluster_, nullptr);
    ASSERT_TRUE(Eventually(30, [&] { return Serving(*cluster_) == "localhost"; }))
        << cluster_->Run("scontrol ping").out;
  }
  std::unique_ptr<LocalCluster> cluster_;
};

TEST_F(HaTakeoverTest, KillNineOfTheServingCtldDuringAFloodLosesNoAcknowledgedJob) {
  const std::string dir = cluster_->dir();
  // 150 submissions, one after another; each job writes its id once.
  const std::string flood = absl::StrCat(
      "(for i in $(seq 1 150); do id=$(sbatch --parsable -o /dev/null --wrap='echo "
      "$SLURM_JOB_ID >> ",
      dir, "/ran') && echo \"$id $(date +%s.%N)\" >> ", dir, "/acked; done; touch ", dir,
      "/flood.done) >/dev/null 2>", dir, "/flood.err &");
  ASSERT_EQ(cluster_->Run(flood).exit_code, 0);
  ASSERT_TRUE(Eventually(60, [&] { return Acknowledged(dir + "/acked").size() >= 30; }));
  const pid_t primary = cluster_->Pid("ctld");
  const double killed_at = Now();
  ASSERT_EQ(kill(primary, SIGKILL), 0);
  ASSERT_TRUE(Eventually(120, [&] { return access((dir + "/flood.done").c_str(), F_OK) == 0; }));
  EXPECT_EQ(Serving(*cluster_), "standby") << cluster_->Run("scontrol ping").out;
  ASSERT_TRUE(Eventually(120, [&] { return QueueEmpty(*cluster_); }))
      << cluster_->Run("squeue").out;

  const std::map<uint64_t, double> acked = Acknowledged(dir + "/acked");
  const std::map<uint64_t, int> runs = Runs(dir + "/ran");
  CommandResult sacct = cluster_->Run("sacct -X -n -P -a -o JobID,State");
  std::set<uint64_t> found;
  std::istringstream rows(sacct.out);
  for (std::string row; std::getline(rows, row);) {
    uint64_t id = 0;
    if (absl::SimpleAtoi(row.substr(0, row.find('|')), &id)) found.insert(id);
  }
  int lost = 0;
  int twice = 0;
  int not_run = 0;
  for (const auto& [id, at] : acked) {
    if (found.count(id) == 0) ++lost;
    auto run = runs.find(id);
    if (run == runs.end()) ++not_run;
    if (run != runs.end() && run->second > 1) ++twice;
  }
  // The outage: the longest wait between two acknowledgements around the kill.
  double outage = 0;
  double previous = 0;
  for (const auto& [id, at] : acked) {
    if (previous != 0 && at > killed_at - 1) outage = std::max(outage, at - previous);
    previous = at;
  }
  printf(
      "kill -9 of the serving ctld during 150 submissions: %zu acknowledged, %zu found after "
      "takeover, %d lost, %d run twice, %d not run; longest gap between acknowledgements "
      "%.2f s\n",
      acked.size(), acked.size() - lost, lost, twice, not_run, outage);
  EXPECT_EQ(lost, 0) << sacct.out;
  EXPECT_EQ(twice, 0);
  EXPECT_EQ(not_run, 0) << ReadFile(dir + "/flood.err");
  EXPECT_GE(acked.size(), 140u) << ReadFile(dir + "/flood.err");
  // The outage is printed, not checked: a loaded machine only makes it longer
  // (bench figures are the note's; the target is under 10 s).

  // etcd loses a member: the other two are a quorum, and nothing changes.
  const pid_t member = cluster_->Pid("etcd-m3");
  ASSERT_GT(member, 0);
  ASSERT_EQ(kill(member, SIGKILL), 0);
  CommandResult more =
      cluster_->Run("for i in $(seq 1 20); do sbatch -o /dev/null --wrap=true || exit 1; done");
  ASSERT_EQ(more.exit_code, 0) << more.err;
  EXPECT_EQ(SubmittedJobIds(more.out).size(), 20u);
  ASSERT_TRUE(Eventually(60, [&] { return QueueEmpty(*cluster_); }));

  // The old primary started again stands by and copies the log.
  ASSERT_EQ(cluster_->Up().exit_code, 0);
  ASSERT_TRUE(Eventually(30, [&] {
    return cluster_->Log("ctld.log").find("standing by: standby serves") != std::string::npos;
  })) << cluster_->Log("ctld.log");
  EXPECT_NE(cluster_->Run("scontrol ping").out.find("Slurmctld(primary) at localhost is UP"),
            std::string::npos);
  EXPECT_EQ(Serving(*cluster_), "standby");
}

// The epoch a controller's log says it led with ("" when it never led).
std::string EpochIn(const std::string& log, const std::string& name) {
  const std::string mark = absl::StrCat("etcd: ", name, " leads (epoch ");
  const size_t at = log.find(mark);
  if (at == std::string::npos) return "";
  const size_t from = at + mark.size();
  return log.substr(from, log.find(')', from) - from);
}

// The first node's answer to a TerminateJob for a job it does not have, sent
// as a controller of `epoch` would send it.
grpc::Status TerminateAsControllerOf(LocalCluster& cluster, const std::string& epoch) {
  absl::StatusOr<LoadedConfig> config = LoadConfig(cluster.conf_path());
  if (!config.ok()) return grpc::Status(grpc::StatusCode::INTERNAL, "no config");
  const NodeConfig& node = config->skiff.nodes.front();
  auto stub = v1::Noded::NewStub(grpc::CreateChannel(absl::StrCat(node.addr, ":", node.port),
                                                     grpc::InsecureChannelCredentials()));
  MungeAuthenticator auth(config->skiff.auth_socket);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  if (!AttachCredential(auth, &context).ok()) {
    return grpc::Status(grpc::StatusCode::INTERNAL, "no credential");
  }
  context.AddMetadata(kControllerEpochMetadataKey, epoch);
  v1::TerminateJobRequest request;
  request.set_job_id(999999);
  v1::TerminateJobReply reply;
  return stub->TerminateJob(&context, request, &reply);
}

// Burst-buffer jobs across a kill -9 of the serving ctld: each is set up,
// runs once and gives its space back, whichever controller did which part.
TEST_F(HaTakeoverTest, BurstBufferJobsAcrossAKillNineLeakNoSpace) {
  // As a user: the example burst_buffer.lua allocates no buffers for root.
  ASSERT_TRUE(cluster_->EnsureUser("skiffbb").ok());
  const std::string dir = cluster_->dir() + "/home/skiffbb";
  std::ofstream(dir + "/bbjob.sh") << "#!/bin/bash\n#BB_LUA pool=fast capacity=1G\necho "
                                      "$SLURM_JOB_ID >> "
                                   << dir << "/bb-ran\nsleep 2\n";
  std::vector<uint64_t> ids;
  for (int i = 0; i < 6; ++i) {
    CommandResult r = cluster_->RunAs("skiffbb", "sbatch --parsable -o /dev/null bbjob.sh");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ids.push_back(std::stoull(r.out));
  }
  // Some allocated, staged or running when the controller dies.
  ASSERT_TRUE(Eventually(60, [&] {
    return cluster_->Run("scontrol show burst").out.find("Allocated Buffers:") != std::string::npos;
  })) << cluster_->Run("scontrol show burst").out;
  ASSERT_EQ(kill(cluster_->Pid("ctld"), SIGKILL), 0);
  ASSERT_TRUE(Eventually(120, [&] { return QueueEmpty(*cluster_); }))
      << cluster_->Run("squeue").out;
  EXPECT_EQ(Serving(*cluster_), "standby");
  const std::map<uint64_t, int> runs = Runs(dir + "/bb-ran");
  for (uint64_t id : ids) {
    auto run = runs.find(id);
    EXPECT_TRUE(run != runs.end() && run->second == 1) << "JobId=" << id;
    EXPECT_EQ(cluster_->Run(absl::StrCat("sacct -X -n -P -j ", id, " -o State")).out, "COMPLETED\n")
        << "JobId=" << id;
  }
  // Every buffer released: the pools as they started.
  const std::string burst = cluster_->Run("scontrol show burst").out;
  EXPECT_NE(burst.find("PoolName[0]=fast Granularity=1MiB TotalSpace=8GiB FreeSpace=8GiB "
                       "UsedSpace=0"),
            std::string::npos)
      << burst;
  EXPECT_EQ(burst.find("Allocated Buffers:"), std::string::npos) << burst;
}

TEST_F(HaTakeoverTest, AHungCtldStopsOnWakingAndTakeoverHandsOverOnPurpose) {
  // The serving ctld hangs (SIGSTOP): its lease lapses and the standby serves.
  const pid_t primary = cluster_->Pid("ctld");
  ASSERT_EQ(kill(primary, SIGSTOP), 0);
  const double stopped_at = Now();
  ASSERT_TRUE(Eventually(30, [&] {
    return cluster_->Log("ctld-standby.log").find("etcd: standby leads") != std::string::npos;
  }));
  const double led_at = Now();
  // Woken, it finds its lease gone and stops, serving nothing meanwhile.
  ASSERT_EQ(kill(primary, SIGCONT), 0);
  ASSERT_TRUE(Eventually(30, [&] { return !Alive(primary); }));
  EXPECT_NE(cluster_->Log("ctld.log").find("no longer leads"), std::string::npos)
      << cluster_->Log("ctld.log");
  printf("a hung serving ctld: the standby led %.2f s after it stopped answering\n",
         led_at - stopped_at);
  // On n1, the node the fence is tried on below: the launch carries the
  // standby's epoch there (another node may not have heard from it yet).
  CommandResult job = cluster_->Run("sbatch -w n1 -o /dev/null --wrap=true");
  ASSERT_EQ(job.exit_code, 0) << job.err;
  EXPECT_EQ(Serving(*cluster_), "standby");
  ASSERT_TRUE(Eventually(60, [&] { return QueueEmpty(*cluster_); }));

  // The fence: n1 now holds the standby's epoch, and refuses a call of the
  // deposed controller's, had it sent one on waking.
  const std::string deposed = EpochIn(cluster_->Log("ctld.log"), "localhost");
  const std::string serving = EpochIn(cluster_->Log("ctld-standby.log"), "standby");
  ASSERT_FALSE(deposed.empty()) << cluster_->Log("ctld.log");
  ASSERT_FALSE(serving.empty()) << cluster_->Log("ctld-standby.log");
  const grpc::Status stale = TerminateAsControllerOf(*cluster_, deposed);
  EXPECT_EQ(stale.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << stale.error_message();
  EXPECT_NE(stale.error_message().find("a deposed controller's call"), std::string::npos)
      << stale.error_message();
  const grpc::Status current = TerminateAsControllerOf(*cluster_, serving);
  EXPECT_EQ(current.error_code(), grpc::StatusCode::NOT_FOUND) << current.error_message();

  // Back as a standby, then scontrol takeover hands the cluster to it.
  ASSERT_EQ(cluster_->Up().exit_code, 0);
  ASSERT_TRUE(Eventually(30, [&] {
    return cluster_->Run("scontrol ping").out.find("Slurmctld(primary) at localhost is UP") !=
           std::string::npos;
  }));
  CommandResult takeover = cluster_->Run("scontrol takeover");
  ASSERT_EQ(takeover.exit_code, 0) << takeover.err;
  ASSERT_TRUE(Eventually(30, [&] { return Serving(*cluster_) == "localhost"; }))
      << cluster_->Run("scontrol ping").out;
  CommandResult bad = cluster_->Run("scontrol takeover 2");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.err, "takeover: invalid backup controller index (2)\n");
  ASSERT_EQ(cluster_->Run("sbatch -o /dev/null --wrap=true").exit_code, 0);
  ASSERT_TRUE(Eventually(60, [&] { return QueueEmpty(*cluster_); }));

  // restd's ping lists both controllers, as slurmrestd's does.
  const HttpAnswer ping = Curl(*cluster_, "",
                               absl::StrCat("--unix-socket ", cluster_->dir(),
                                            "/run/restd.sock http://localhost/slurm/v0.0.42/ping"));
  ASSERT_EQ(ping.status, 200) << ping.body.dump();
  ASSERT_EQ(ping.body["pings"].size(), 2u) << ping.body.dump();
  EXPECT_EQ(ping.body["pings"][0]["hostname"], "localhost");
  EXPECT_EQ(ping.body["pings"][0]["mode"], "primary");
  EXPECT_EQ(ping.body["pings"][1]["hostname"], "standby");
  EXPECT_EQ(ping.body["pings"][1]["mode"], "backup");
  EXPECT_EQ(ping.body["pings"][1]["pinged"], "UP");
}

// A cluster that ran without etcd gains a standby (`skiff up --ha` on it,
// stopped): the controller writes its whole database to etcd first, so the
// standby, serving after a kill -9, has every job from before.
TEST(HaUpgradeTest, AClusterThatRanWithoutEtcdGainsAStandbyWithItsHistory) {
  if (access(ctld::replication::kEtcdBinary, X_OK) != 0) {
    GTEST_SKIP() << "needs Debian's etcd-server";
  }
  LocalCluster::Options options;
  options.nodes = 2;
  options.gpu_nodes = 0;
  auto started = LocalCluster::Start(options);
  ASSERT_TRUE(started.ok()) << started.status();
  LocalCluster& cluster = **started;
  CommandResult before = cluster.Run(
      "for i in 1 2 3; do sbatch -o /dev/null --wrap=true || exit 1; done; "
      "sbatch --hold -J kept -o /dev/null --wrap=true");
  ASSERT_EQ(before.exit_code, 0) << before.err;
  const std::vector<uint64_t> ids = SubmittedJobIds(before.out);
  ASSERT_EQ(ids.size(), 4u);
  ASSERT_TRUE(Eventually(60, [&] { return cluster.Run("squeue -h -t R,CG,CF").out.empty(); }));
  ASSERT_EQ(cluster.Down().exit_code, 0);

  cluster.set_ha(true);
  CommandResult up = cluster.Up();
  ASSERT_EQ(up.exit_code, 0) << up.out << up.err;
  EXPECT_NE(up.out.find("added a standby controller over etcd"), std::string::npos) << up.out;
  ASSERT_TRUE(Eventually(30, [&] {
    return cluster.Log("ctld-standby.log").find("standing by: localhost serves") !=
           std::string::npos;
  }));
  EXPECT_NE(cluster.Log("ctld.log").find("the log starts with this database's state"),
            std::string::npos);
  const pid_t primary = cluster.Pid("ctld");
  ASSERT_EQ(kill(primary, SIGKILL), 0);
  ASSERT_TRUE(Eventually(30, [&] { return Serving(cluster) == "standby"; }))
      << cluster.Run("scontrol ping").out;
  CommandResult sacct = cluster.Run("sacct -X -n -P -a -o JobID,JobName,State");
  for (uint64_t id : ids) {
    EXPECT_NE(sacct.out.find(absl::StrCat(id, "|")), std::string::npos) << id << "\n" << sacct.out;
  }
  EXPECT_NE(sacct.out.find(absl::StrCat(ids[3], "|kept|PENDING")), std::string::npos) << sacct.out;
  // The next job id follows the history's.
  CommandResult next = cluster.Run("sbatch --parsable -o /dev/null --wrap=true");
  ASSERT_EQ(next.exit_code, 0) << next.err;
  EXPECT_EQ(next.out, absl::StrCat(ids[3] + 1, "\n"));
  ASSERT_EQ(cluster.Run(absl::StrCat("scancel ", ids[3])).exit_code, 0);
}

}  // namespace
}  // namespace skiff::testing
