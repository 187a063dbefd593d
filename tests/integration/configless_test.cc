// Configless nodes and login hosts through the real daemons (issue 30 item 3):
// n2's noded is started with only ctld's address (--conf-server, no skiff.conf
// of its own; SKIFF_NODED_CONFIGLESS_n2=1 in ./skiff), registers with the gres
// of the fetched gres.conf's File= lines and runs a job; `scontrol reconfigure`
// after an edit puts the new copy in its cache and n2 restarts in place to
// apply it (once no step runs there); with ctld killed, a restarted
// n2 starts from its cache and comes back once ctld is up; and sinfo with no
// SKIFF_CONF finds ctld through SKIFF_CONF_SERVER. A list of addresses
// (Slurm's `--conf-server a,b`, SLURM_CONF_SERVER): one that refuses, or a
// standby controller, is passed over for the one that serves; a node told
// only the head finds the standby that took over through its fetched copy.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/free_port.h"
#include "ctld/replication/etcd_member.h"
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

// A login host's sinfo: no SKIFF_CONF, only SKIFF_CONF_SERVER=`servers`.
CommandResult SinfoFrom(const LocalCluster& cluster, const std::string& servers) {
  return cluster.Run(absl::StrCat("env -u SKIFF_CONF SKIFF_CONF_SERVER=", servers,
                                  " SKIFF_MUNGE_SOCKET=", cluster.dir(),
                                  "/run/munge/munge.socket sinfo -h -N -o '%N %t'"));
}

bool ReadsItsOwnConfig() {
  struct stat st;
  return stat("/etc/skiff/skiff.conf", &st) == 0;
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

// Slurm's list: the first address refuses (nothing listens there), the
// second is ctld. A command and a node that has no cached copy to go on still
// get the configuration, from the second.
TEST(ConfiglessTest, AnAddressThatRefusesIsPassedOver) {
  if (ReadsItsOwnConfig()) GTEST_SKIP() << "/etc/skiff/skiff.conf exists: commands would read it";
  LocalCluster::Options options;
  options.nodes = 1;
  options.gpu_nodes = 0;
  options.extra_config = "SlurmctldParameters=enable_configless\n";
  options.environment["SKIFF_NODED_CONFIGLESS_n1"] = "1";
  auto started = LocalCluster::Start(options);
  ASSERT_TRUE(started.ok()) << started.status();
  LocalCluster& cluster = **started;
  const std::string dir = cluster.dir();
  const std::string port = CtldPort(cluster.conf_path());
  ASSERT_FALSE(port.empty());
  RefusingLoopbackPort refusing;
  ASSERT_NE(refusing.port(), 0);
  const std::string list = absl::StrCat("127.0.0.1:", refusing.port(), ",127.0.0.1:", port);

  CommandResult sinfo = SinfoFrom(cluster, list);
  EXPECT_EQ(sinfo.exit_code, 0) << sinfo.err;
  EXPECT_EQ(sinfo.out, "n1 idle\n");
  // A bad entry is refused, naming the variable and the entry.
  CommandResult bad = SinfoFrom(cluster, absl::StrCat("127.0.0.1:", port, ",,ctl"));
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find(absl::StrCat("SKIFF_CONF_SERVER: --conf-server '127.0.0.1:", port,
                                      ",,ctl': entry 2 is empty")),
            std::string::npos)
      << bad.err;

  // n1 again, its cache gone and the refusing address first.
  const pid_t noded = cluster.Pid("noded-n1");
  ASSERT_GT(noded, 0);
  kill(noded, SIGTERM);
  ASSERT_TRUE(Eventually(60, [&] { return !Alive(noded); }));
  std::filesystem::remove_all(dir + "/state/conf-cache/n1");
  const std::string fetched_line =
      absl::StrCat("config file(s) from 127.0.0.1:", port, " into ", dir, "/state/conf-cache/n1");
  const size_t fetched_before = Occurrences(cluster.Log("noded-n1.log"), fetched_line);
  const size_t started_before = Occurrences(cluster.Log("noded-n1.log"), "noded started");
  CommandResult restarted =
      cluster.Run(absl::StrCat("setsid env SKIFF_MUNGE_SOCKET=", dir, "/run/munge/munge.socket ",
                               dir, "/bin/noded --conf-server ", list, " --conf-cache ", dir,
                               "/state/conf-cache/%n -N n1 </dev/null >>", dir,
                               "/log/noded-n1.out 2>&1 & echo $! >", dir, "/run/noded-n1.pid"));
  ASSERT_EQ(restarted.exit_code, 0) << restarted.err;
  EXPECT_TRUE(Eventually(60, [&] {
    return Occurrences(cluster.Log("noded-n1.log"), "noded started") > started_before;
  })) << cluster.Log("noded-n1.out");
  EXPECT_EQ(Occurrences(cluster.Log("noded-n1.log"), fetched_line), fetched_before + 1)
      << cluster.Log("noded-n1.log");
  EXPECT_EQ(ReadFile(dir + "/state/conf-cache/n1/skiff.conf"), ReadFile(cluster.conf_path()));
}

std::string Serving(const LocalCluster& cluster) {
  const std::string out = cluster.Run("scontrol ping").out;
  const size_t at = out.find("Serving: ");
  return at == std::string::npos ? "" : out.substr(at + 9, out.find('\n', at) - at - 9);
}

// A standby controller over etcd (`./skiff up --ha`: SlurmctldHost=standby at
// 127.0.0.2): named first, it is passed over for the serving one. Once the
// head is killed and the standby serves, node n1 (told only the head:
// --conf-server 127.0.0.1:PORT) fetches `scontrol reconfigure`'s files from
// the standby its fetched skiff.conf names, and starts again with them.
TEST(ConfiglessTest, AStandbyIsPassedOverAndServesOnceItTakesOver) {
  if (access(ctld::replication::kEtcdBinary, X_OK) != 0) {
    GTEST_SKIP() << "needs Debian's etcd-server";
  }
  if (ReadsItsOwnConfig()) GTEST_SKIP() << "/etc/skiff/skiff.conf exists: commands would read it";
  LocalCluster::Options options;
  options.nodes = 1;
  options.gpu_nodes = 0;
  options.ha = true;
  options.extra_config = "SlurmctldParameters=enable_configless\n";
  options.environment["SKIFF_NODED_CONFIGLESS_n1"] = "1";
  auto started = LocalCluster::Start(options);
  ASSERT_TRUE(started.ok()) << started.status();
  LocalCluster& cluster = **started;
  const std::string dir = cluster.dir();
  const std::string port = CtldPort(cluster.conf_path());
  ASSERT_FALSE(port.empty());
  ASSERT_TRUE(Eventually(30, [&] { return Serving(cluster) == "localhost"; }))
      << cluster.Run("scontrol ping").out;
  const std::string head = absl::StrCat("127.0.0.1:", port);
  const std::string standby = absl::StrCat("127.0.0.2:", port);

  CommandResult sinfo = SinfoFrom(cluster, absl::StrCat(standby, ",", head));
  EXPECT_EQ(sinfo.exit_code, 0) << sinfo.err;
  EXPECT_EQ(sinfo.out, "n1 idle\n");
  // Alone, the standby says what it is.
  CommandResult alone = SinfoFrom(cluster, standby);
  EXPECT_NE(alone.exit_code, 0);
  EXPECT_NE(alone.err.find(absl::StrCat("configuration from ", standby,
                                        ": standby controller: standby stands by")),
            std::string::npos)
      << alone.err;

  // The head goes; the standby serves.
  const pid_t primary = cluster.Pid("ctld");
  ASSERT_GT(primary, 0);
  ASSERT_EQ(kill(primary, SIGKILL), 0);
  ASSERT_TRUE(Eventually(60, [&] { return Serving(cluster) == "standby"; }))
      << cluster.Run("scontrol ping").out;
  {
    std::ofstream conf(cluster.conf_path(), std::ios::app);
    conf << "# edited while the head is down\n";
  }
  CommandResult reconfigured = cluster.Run("scontrol reconfigure");
  ASSERT_EQ(reconfigured.exit_code, 0) << reconfigured.err;
  const std::string cache = dir + "/state/conf-cache/n1";
  EXPECT_TRUE(Eventually(60, [&] {
    return ReadFile(cache + "/skiff.conf").find("# edited while the head is down") !=
           std::string::npos;
  })) << cluster.Log("noded-n1.log");
  // Fetched from the standby, then again at the restart in place that
  // applies it: noded's start with the head still down.
  const std::regex at_start(
      absl::StrCat("configless: fetched \\d+ config file\\(s\\) from 127\\.0\\.0\\.2:", port,
                   " into \\S+ \\(hash [0-9a-f]+\\)\n"));
  EXPECT_TRUE(Eventually(60, [&] {
    const std::string log = cluster.Log("noded-n1.log");
    return std::regex_search(log, at_start);
  })) << cluster.Log("noded-n1.log");
  EXPECT_NE(cluster.Log("noded-n1.log")
                .find(absl::StrCat("config file(s) from ", standby, " into ", cache, " (hash ")),
            std::string::npos);
  EXPECT_TRUE(Eventually(60, [&] { return NodeResponding(cluster, "n1"); }))
      << cluster.Run("sinfo -N").out;
}

}  // namespace
}  // namespace skiff::testing
