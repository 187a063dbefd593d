// Configless nodes and login hosts through the real daemons (issue 30 item 3):
// n2's noded is started with only ctld's address (--conf-server, no skiff.conf
// of its own; SKIFF_NODED_CONFIGLESS_n2=1 in ./skiff), registers with the gres
// of the fetched gres.conf's File= lines and runs a job; `scontrol reconfigure`
// after an edit puts the new copy in its cache and n2 restarts in place to
// apply it (once no step runs there); with ctld killed, a restarted
// n2 starts from its cache and comes back once ctld is up; and sinfo with no
// SKIFF_CONF finds ctld through SKIFF_CONF_SERVER.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <regex>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

size_t Occurrences(const std::string& text, const std::string& what) {
  size_t count = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
  return count;
}

bool NodeResponding(const LocalCluster& cluster, const std::string& node) {
  CommandResult r = cluster.Run("sinfo -h -N -n " + node + " -o '%N %t'");
  return r.exit_code == 0 && r.out.find(node + " idle\n") != std::string::npos;
}

TEST(ConfiglessTest, NodeAndCommandsRunOnTheControllersConfig) {
  LocalCluster::Options options;
  options.nodes = 2;
  options.gpu_nodes = 1;  // n2: 2 GPUs from gres.conf's File= lines
  options.extra_config = "SlurmctldParameters=enable_configless\nKillWait=2\n";
  options.environment["SKIFF_NODED_CONFIGLESS_n2"] = "1";
  auto started = LocalCluster::Start(options);
  ASSERT_TRUE(started.ok()) << started.status();
  LocalCluster& cluster = **started;
  const std::string dir = cluster.dir();
  const std::string cache = dir + "/state/conf-cache/n2";
  const std::string port = CtldPort(cluster.conf_path());
  ASSERT_FALSE(port.empty());

  // n2 read no skiff.conf of its own: its command line has no -f, and its
  // copy is ctld's.
  const std::string cmdline = ReadFile(absl::StrCat("/proc/", cluster.Pid("noded-n2"), "/cmdline"));
  EXPECT_NE(cmdline.find("--conf-server"), std::string::npos);
  EXPECT_EQ(cmdline.find(cluster.conf_path()), std::string::npos);
  EXPECT_EQ(ReadFile(cache + "/skiff.conf"), ReadFile(cluster.conf_path()));
  EXPECT_EQ(ReadFile(cache + "/gres.conf"), ReadFile(dir + "/etc/gres.conf"));
  EXPECT_NE(cluster.Log("noded-n2.log").find("configless: fetched"), std::string::npos)
      << cluster.Log("noded-n2.log");

  // Registered, with its GPUs from the fetched gres.conf, and runs a job.
  ASSERT_TRUE(Eventually(60, [&] { return NodeResponding(cluster, "n2"); }));
  CommandResult node = cluster.Run("scontrol show node n2");
  EXPECT_NE(node.out.find("Gres=gpu:2"), std::string::npos) << node.out;
  CommandResult submitted =
      cluster.Run(absl::StrCat("cd /tmp && sbatch --parsable -w n2 --gres=gpu:1 -o ", dir,
                               "/job.out --wrap 'echo ran on $SLURMD_NODENAME with $SKIFF_CONF'"));
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
  // The job's commands read the node's cached copy, not the path the job was
  // submitted with (a file on the submit host, which a node need not have).
  const std::string expected = absl::StrCat("ran on n2 with ", cache, "/skiff.conf\n");
  EXPECT_TRUE(Eventually(60, [&] { return ReadFile(dir + "/job.out") == expected; }))
      << ReadFile(dir + "/job.out");

  // scontrol reconfigure with an edited file: n2 fetches the new copy when
  // the next heartbeat answer carries the new hash.
  {
    std::ofstream gres(dir + "/etc/gres.conf", std::ios::app);
    gres << "# edited for configless_test\n";
  }
  CommandResult reconfigured = cluster.Run("scontrol reconfigure");
  ASSERT_EQ(reconfigured.exit_code, 0) << reconfigured.err;
  EXPECT_TRUE(Eventually(60, [&] {
    return ReadFile(cache + "/gres.conf").find("# edited for configless_test") != std::string::npos;
  })) << cluster.Log("noded-n2.log");
  // ... and applies it without anyone restarting it: it restarts in place
  // (the same pid), and is back.
  const pid_t noded_before = cluster.Pid("noded-n2");
  auto restarts = [&] { return Occurrences(cluster.Log("noded-n2.log"), "restarting in place"); };
  EXPECT_TRUE(Eventually(60, [&] { return restarts() == 1; })) << cluster.Log("noded-n2.log");
  EXPECT_TRUE(Eventually(60, [&] { return NodeResponding(cluster, "n2"); }));
  EXPECT_EQ(cluster.Pid("noded-n2"), noded_before);

  // Not while a step's tasks run on it (the restart would cut srun's stream):
  // n2 waits for the step to end, then restarts with the new skiff.conf (its
  // health check, logged at start); the job and its step run to their end.
  CommandResult busy =
      cluster.Run(absl::StrCat("cd /tmp && sbatch --parsable -w n2 -o ", dir,
                               "/step.out --wrap 'srun sleep 20 && echo step done'"));
  ASSERT_EQ(busy.exit_code, 0) << busy.err;
  const std::string busy_id(absl::StripAsciiWhitespace(busy.out));
  ASSERT_TRUE(Eventually(60, [&] {
    return cluster.Run("squeue -h -s -j " + busy_id + " -o %i").out.find(busy_id + ".0") !=
           std::string::npos;
  }));
  {
    std::ofstream conf(cluster.conf_path(), std::ios::app);
    conf << "HealthCheckProgram=/bin/true\nHealthCheckInterval=3600\n";
  }
  reconfigured = cluster.Run("scontrol reconfigure");
  ASSERT_EQ(reconfigured.exit_code, 0) << reconfigured.err;
  EXPECT_TRUE(Eventually(60, [&] {
    return cluster.Log("noded-n2.log").find("waiting for 1 running step(s)") != std::string::npos;
  })) << cluster.Log("noded-n2.log");
  EXPECT_TRUE(Eventually(90, [&] { return restarts() == 2; })) << cluster.Log("noded-n2.log");
  EXPECT_EQ(ReadFile(dir + "/step.out"), "step done\n");
  EXPECT_TRUE(Eventually(60, [&] {
    return cluster.Log("noded-n2.log").find("HealthCheckProgram /bin/true every 3600 s") !=
           std::string::npos;
  })) << cluster.Log("noded-n2.log");
  EXPECT_EQ(cluster.Pid("noded-n2"), noded_before);
  EXPECT_TRUE(Eventually(60, [&] {
    return cluster.Run("sacct -n -X -P -j " + busy_id + " -o State,ExitCode").out ==
           "COMPLETED|0:0\n";
  })) << cluster.Run("sacct -n -X -P -j " + busy_id + " -o State,ExitCode").out;

  // ctld down: a restarted n2 starts from its cache, and is back once ctld is.
  pid_t ctld = cluster.Pid("ctld");
  pid_t noded = cluster.Pid("noded-n2");
  ASSERT_GT(ctld, 0);
  ASSERT_GT(noded, 0);
  kill(ctld, SIGKILL);
  kill(noded, SIGTERM);
  ASSERT_TRUE(Eventually(60, [&] { return !Alive(ctld) && !Alive(noded); }));
  CommandResult restarted =
      cluster.Run(absl::StrCat("setsid env SKIFF_MUNGE_SOCKET=", dir, "/run/munge/munge.socket ",
                               dir, "/bin/noded --conf-server 127.0.0.1:", port, " --conf-cache ",
                               dir, "/state/conf-cache/%n -N n2 </dev/null >>", dir,
                               "/log/noded-n2.out 2>&1 & echo $! >", dir, "/run/noded-n2.pid"));
  ASSERT_EQ(restarted.exit_code, 0) << restarted.err;
  EXPECT_TRUE(Eventually(60, [&] {
    return cluster.Log("noded-n2.log").find("starting from the cached copy") != std::string::npos;
  })) << cluster.Log("noded-n2.out");
  ASSERT_TRUE(Alive(cluster.Pid("noded-n2"))) << cluster.Log("noded-n2.out");
  CommandResult up = cluster.Up();  // starts ctld, and nothing that runs
  ASSERT_EQ(up.exit_code, 0) << up.err;
  EXPECT_TRUE(Eventually(90, [&] { return NodeResponding(cluster, "n2"); }))
      << cluster.Run("sinfo -N").out;

  // A login host: no SKIFF_CONF, no /etc/skiff/skiff.conf, only ctld's address.
  struct stat st;
  if (stat("/etc/skiff/skiff.conf", &st) == 0) {
    GTEST_SKIP() << "/etc/skiff/skiff.conf exists: commands would read it";
  }
  CommandResult sinfo = cluster.Run(absl::StrCat(
      "env -u SKIFF_CONF SKIFF_CONF_SERVER=127.0.0.1:", port, " SKIFF_MUNGE_SOCKET=", dir,
      "/run/munge/munge.socket sinfo -h -N -p debug -o '%N %t'"));
  EXPECT_EQ(sinfo.exit_code, 0) << sinfo.err;
  EXPECT_EQ(sinfo.out, "n1 idle\nn2 idle\n");
  // Nothing says where ctld is: a clear error, not /etc/skiff's NotFound alone.
  CommandResult lost = cluster.Run("env -u SKIFF_CONF -u SKIFF_CONF_SERVER sinfo -h");
  EXPECT_NE(lost.exit_code, 0);
  EXPECT_NE(lost.err.find("SKIFF_CONF_SERVER"), std::string::npos) << lost.err;
}

}  // namespace
}  // namespace skiff::testing
