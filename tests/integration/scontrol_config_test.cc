// Configuration at run time through the real daemons: scontrol update
// PartitionName=... followed by sinfo, scontrol and the scheduler, and kept
// across a kill -9 of ctld; scontrol reconfigure with jobs running and
// pending (a changed partition, a new one, changed burst-buffer pools), a
// broken skiff.conf refused with file:line while the old configuration keeps
// working; and users who are not operators refused.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/shared_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

std::string Trim(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
}

class ScontrolConfigTest : public ::testing::Test {
 protected:
  void StartCluster(bool burst_buffers, const std::string& extra_config = "") {
    LocalCluster::Options options = NodesWithoutGpus(2);
    options.extra_config = "KillWait=2\nMinJobAge=600\n" + extra_config;
    if (burst_buffers) {
      options.extra_config += "BurstBufferType=burst_buffer/lua\n";
      std::string lua = ReadFile(RunfilesRoot() + "/lua/burst_buffer.lua");
      ASSERT_FALSE(lua.empty());
      options.files["etc/burst_buffer.lua"] =
          absl::StrReplaceAll(lua, {{"\"/tmp/skiff-bb\"", "\"@DIR@/bb\""}});
      options.files["etc/burst_buffer.conf"] = "Flags=DisablePersistent\nPollInterval=1\n";
      options.files["bb/.keep"] = "";
    }
    StartLocalCluster(options, &cluster_);
  }

  std::string Submit(const std::string& args) {
    CommandResult r = cluster_->Run("cd /tmp && sbatch --parsable -o /dev/null " + args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return Trim(r.out);
  }
  std::string JobField(const std::string& id, const std::string& key) {
    return ScontrolField(cluster_->Run("scontrol show job " + id).out, key);
  }
  std::string PartitionField(const std::string& name, const std::string& key) {
    return ScontrolField(cluster_->Run("scontrol show partition " + name).out, key);
  }
  void KillAndRestartCtld() {
    const pid_t ctld = cluster_->Pid("ctld");
    ASSERT_EQ(kill(ctld, SIGKILL), 0);
    ASSERT_TRUE(Eventually(30, [&] { return !Alive(ctld); }));
    CommandResult up = cluster_->Up();
    ASSERT_EQ(up.exit_code, 0) << up.out << up.err;
  }

  std::unique_ptr<LocalCluster> cluster_;
};

TEST_F(ScontrolConfigTest, PartitionUpdatesReachSchedulingAndSurviveACtldKill) {
  StartCluster(false);
  ASSERT_NE(cluster_, nullptr);
  CommandResult r = cluster_->Run("scontrol update PartitionName=debug MaxTime=10");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(PartitionField("debug", "MaxTime"), "00:10:00");
  EXPECT_EQ(Trim(cluster_->Run("sinfo -h -o %l -p debug").out), "10:00");
  r = cluster_->Run("cd /tmp && sbatch -t 20 --wrap true");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("Requested time limit is invalid"), std::string::npos) << r.err;

  // DOWN: accepted, not started; UP again: it runs.
  ASSERT_EQ(cluster_->Run("scontrol update PartitionName=debug State=DOWN").exit_code, 0);
  EXPECT_EQ(PartitionField("debug", "State"), "DOWN");
  const std::string id = Submit("-t 1 --wrap true");
  ASSERT_FALSE(id.empty());
  // The scheduler's pass gives the reason; the job stays pending.
  EXPECT_TRUE(Eventually(60, [&] { return JobField(id, "Reason") == "PartitionDown"; }))
      << cluster_->Run("scontrol show job " + id).out;
  EXPECT_EQ(JobField(id, "JobState"), "PENDING");
  ASSERT_EQ(cluster_->Run("scontrol update PartitionName=debug State=UP").exit_code, 0);
  EXPECT_TRUE(Eventually(30, [&] { return JobField(id, "JobState") == "COMPLETED"; }))
      << cluster_->Run("scontrol show job " + id).out;

  // --json before or after the subcommand: Slurm's v0.0.38 documents.
  r = cluster_->Run("scontrol show job " + id + " --json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\n  \"jobs\": ["), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"job_id\": " + id + ","), std::string::npos) << r.out;
  r = cluster_->Run("scontrol --json show partition debug");
  EXPECT_NE(r.out.find("\n  \"partitions\": ["), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"name\": \"debug\""), std::string::npos) << r.out;
  r = cluster_->Run("scontrol --json show node n1");
  EXPECT_NE(r.out.find("\n  \"nodes\": ["), std::string::npos) << r.out;

  // DRAIN refuses new submissions.
  ASSERT_EQ(cluster_->Run("scontrol update PartitionName=debug State=DRAIN").exit_code, 0);
  r = cluster_->Run("cd /tmp && sbatch -t 1 --wrap true");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("Required partition not available (inactive or drain)"), std::string::npos)
      << r.err;
  ASSERT_EQ(cluster_->Run("scontrol update PartitionName=debug State=UP").exit_code, 0);

  // Nodes: the partition shrinks to n1, and jobs go only there.
  ASSERT_EQ(cluster_->Run("scontrol update PartitionName=debug Nodes=n1").exit_code, 0);
  EXPECT_EQ(PartitionField("debug", "Nodes"), "n1");
  EXPECT_EQ(Trim(cluster_->Run("sinfo -h -o %N -p debug").out), "n1");
  const std::string on_n1 = Submit("-t 1 --wrap true");
  EXPECT_TRUE(Eventually(30, [&] { return JobField(on_n1, "JobState") == "COMPLETED"; }));
  EXPECT_EQ(JobField(on_n1, "NodeList"), "n1");

  // Bad values and names, with Slurm's words.
  r = cluster_->Run("scontrol update PartitionName=debug State=sideways");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "scontrol: error: Invalid input: State=sideways\n"
            "scontrol: error: Acceptable State values are UP, DOWN, DRAIN and INACTIVE\n");
  r = cluster_->Run("scontrol update PartitionName=nope State=UP");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "slurm_update error: Invalid partition name specified\n");

  // Stored: the changes survive kill -9 of ctld.
  KillAndRestartCtld();
  EXPECT_TRUE(Eventually(30, [&] { return PartitionField("debug", "MaxTime") == "00:10:00"; }));
  EXPECT_EQ(PartitionField("debug", "Nodes"), "n1");
  EXPECT_EQ(PartitionField("debug", "State"), "UP");
}

// A cluster-wide DefMemPerCPU shows under its own name (not DefMemPerNode),
// and the burst-buffer pools (fast 8 GiB + bulk 64 GiB) count in every
// partition's TRES, as in Slurm's scontrol_show_partition.txt.
TEST_F(ScontrolConfigTest, ConfigShowsDefMemPerCpuAndPartitionsCountThePools) {
  StartCluster(true, "DefMemPerCPU=100\n");
  ASSERT_NE(cluster_, nullptr);
  const std::string config = cluster_->Run("scontrol show config").out;
  EXPECT_TRUE(absl::StrContains(config, "\nDefMemPerCPU            = 100\n")) << config;
  EXPECT_FALSE(absl::StrContains(config, "DefMemPerNode")) << config;
  EXPECT_TRUE(absl::StrContains(config, "\nMaxMemPerNode           = UNLIMITED\n")) << config;
  EXPECT_TRUE(Eventually(
      30, [&] { return absl::StrContains(PartitionField("debug", "TRES"), ",billing="); }));
  EXPECT_TRUE(absl::EndsWith(PartitionField("debug", "TRES"), ",bb/lua=72G"))
      << PartitionField("debug", "TRES");
}

TEST_F(ScontrolConfigTest, ReconfigureKeepsEveryJobAndAppliesPartitionsAndPools) {
  StartCluster(true);
  ASSERT_NE(cluster_, nullptr);
  const std::string cpus = Trim(cluster_->Run("sinfo -h -o %c -n n1").out);
  ASSERT_FALSE(cpus.empty());
  // Two jobs fill both nodes; a third waits.
  const std::string a = Submit("-c " + cpus + " -t 2 --wrap 'sleep 25'");
  const std::string b = Submit("-c " + cpus + " -t 2 --wrap 'sleep 25'");
  const std::string c = Submit("-c " + cpus + " -t 2 --wrap 'sleep 1'");
  ASSERT_TRUE(Eventually(30, [&] {
    return JobField(a, "JobState") == "RUNNING" && JobField(b, "JobState") == "RUNNING";
  }));
  EXPECT_EQ(JobField(c, "JobState"), "PENDING");

  const std::string conf = cluster_->conf_path();
  const std::string original = ReadFile(conf);
  std::string changed = absl::StrReplaceAll(
      original, {{"PartitionName=debug Nodes=n[1-2] Default=YES MaxTime=1-00:00:00",
                  "PartitionName=debug Nodes=n[1-2] Default=YES MaxTime=12:00:00"}});
  ASSERT_NE(changed, original);
  changed += "PartitionName=extra Nodes=n2 MaxTime=30\n";
  WriteFile(conf, changed);
  const std::string lua_path = cluster_->dir() + "/etc/burst_buffer.lua";
  const std::string lua = ReadFile(lua_path);
  WriteFile(lua_path, absl::StrReplaceAll(
                          lua, {{"\"quantity\": 8192, \"granularity\": 1048576, \"free\": 8192",
                                 "\"quantity\": 4096, \"granularity\": 1048576, \"free\": 4096"}}));

  CommandResult r = cluster_->Run("scontrol reconfigure");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(PartitionField("debug", "MaxTime"), "12:00:00");
  EXPECT_EQ(PartitionField("extra", "Nodes"), "n2");
  EXPECT_TRUE(Eventually(30, [&] {
    return cluster_->Run("scontrol show burst")
               .out.find(
                   "PoolName[0]=fast Granularity=1MiB "
                   "TotalSpace=4GiB") != std::string::npos;
  })) << cluster_->Run("scontrol show burst").out;
  EXPECT_EQ(JobField(a, "JobState"), "RUNNING");
  EXPECT_EQ(JobField(b, "JobState"), "RUNNING");

  // A skiff.conf that does not parse: every client reads it too, so scontrol
  // itself reports the file and line.
  WriteFile(conf, changed + "MaxJobCount=lots\n");
  r = cluster_->Run("scontrol reconfigure");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("skiff.conf:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("MaxJobCount"), std::string::npos) << r.err;
  WriteFile(conf, changed);
  // A burst_buffer.lua that does not load: ctld refuses with the file and
  // line, and the old configuration keeps working.
  WriteFile(lua_path, "function slurm_bb_pools(\n");
  r = cluster_->Run("scontrol reconfigure");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("slurm_reconfigure error: burst_buffer/lua: " + lua_path), std::string::npos)
      << r.err;
  WriteFile(lua_path, lua);
  EXPECT_EQ(PartitionField("extra", "Nodes"), "n2");
  const std::string d = Submit("-p extra -t 1 --wrap true");
  EXPECT_FALSE(d.empty());

  // Nothing lost: every job ends as it would have.
  for (const std::string& id : {a, b, c, d}) {
    EXPECT_TRUE(Eventually(60, [&] { return JobField(id, "JobState") == "COMPLETED"; }))
        << cluster_->Run("scontrol show job " + id).out;
  }
}

TEST_F(ScontrolConfigTest, OnlyOperatorsChangeTheConfiguration) {
  if (getuid() != 0) GTEST_SKIP() << "needs root to create a test user";
  StartCluster(false);
  ASSERT_NE(cluster_, nullptr);
  ASSERT_TRUE(cluster_->EnsureUser("skiffalice").ok());
  CommandResult r = cluster_->RunAs("skiffalice", "scontrol update PartitionName=debug State=DOWN");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "slurm_update error: Access/permission denied\n");
  r = cluster_->RunAs("skiffalice", "scontrol reconfigure");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "slurm_reconfigure error: Access/permission denied\n");
  EXPECT_EQ(PartitionField("debug", "State"), "UP");
}

}  // namespace
}  // namespace skiff::testing
