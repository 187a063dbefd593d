// Init and join through the real daemons (issue 30 item 4; docs/decisions.md,
// "Init and join"): ctld with SlurmctldParameters=join_port; `skiff token
// create` works for root and is refused to a plain user; `skiff join` refuses
// a wrong token, a wrong certificate pin, an unreachable controller, an
// expired token, a taken node name and a used token, each with its own words
// and a non-zero exit; a good join writes the munge key and noded's settings
// under the test's root, a noded started with those settings (-Z, configless)
// registers and is idle in sinfo with this machine's CPUs, runs a job, and is
// still there after ctld restarts. `skiff init` writes a config once and
// refuses the second time.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <regex>
#include <string>

#include "absl/strings/str_cat.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

// The token in `skiff token create`'s output ("  skiff join HOST:PORT --token T").
std::string TokenIn(const std::string& out) {
  std::smatch m;
  return std::regex_search(out, m, std::regex("--token (\\S+)")) ? m[1].str() : "";
}

// The token's state in `skiff token list` ("valid", "expired", "used by n3").
std::string TokenState(const LocalCluster& cluster, const std::string& token) {
  const std::string id = token.substr(0, token.find('.'));
  CommandResult list = cluster.Run("skiff token list");
  std::smatch m;
  if (!std::regex_search(list.out, m, std::regex(id + " +\\S+ +\\S+ +([^\\n]+)"))) return "";
  return m[1].str();
}

bool IdleWithCpus(const LocalCluster& cluster, const std::string& node, long cpus) {
  CommandResult r = cluster.Run("sinfo -h -N -n " + node + " -o '%N %t %c'");
  return r.exit_code == 0 && r.out == absl::StrCat(node, " idle ", cpus, "\n");
}

TEST(JoinTest, NodeJoinsWithOneTimeTokenAndRefusalsAreClear) {
  const int join_port = FreePort();
  const int noded_port = FreePort();
  LocalCluster::Options options;
  options.nodes = 2;
  options.gpu_nodes = 0;
  options.extra_config = absl::StrCat("SlurmctldParameters=enable_configless,join_port=", join_port,
                                      ",join_munge_key=@DIR@/etc/munge/munge.key\n"
                                      "PartitionName=all Nodes=ALL MaxTime=1:00:00\n"
                                      "KillWait=2\n");
  auto started = LocalCluster::Start(options);
  ASSERT_TRUE(started.ok()) << started.status();
  LocalCluster& cluster = **started;
  const std::string dir = cluster.dir();
  const std::string target = absl::StrCat("127.0.0.1:", join_port);
  const std::string root = dir + "/n3root";
  auto join = [&](const std::string& token, const std::string& name, const std::string& at = "") {
    return cluster.Run(absl::StrCat("skiff join ", at.empty() ? target : at, " --token ", token,
                                    " -N ", name, " --port ", noded_port, " --root ", root,
                                    " --no-start --timeout 30"));
  };
  auto create = [&](const std::string& flags) {
    CommandResult r = cluster.Run("skiff token create " + flags);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return TokenIn(r.out);
  };

  // Tokens: root (SlurmUser here) makes them; a plain user may not.
  const std::string token = create("");
  ASSERT_FALSE(token.empty());
  EXPECT_EQ(TokenState(cluster, token), "valid");
  ASSERT_TRUE(cluster.EnsureUser("skiffjoin").ok());
  CommandResult as_user = cluster.RunAs("skiffjoin", "skiff token create");
  EXPECT_NE(as_user.exit_code, 0);
  EXPECT_NE(as_user.err.find("only root and SlurmUser may create join tokens"), std::string::npos)
      << as_user.err;
  EXPECT_TRUE(TokenIn(as_user.out).empty());

  const std::string id = token.substr(0, token.find('.'));
  const std::string pin = token.substr(token.rfind('.') + 1);
  // A wrong token (the controller's pin, a secret it never made).
  CommandResult wrong = join(absl::StrCat(id, ".aaaaaaaaaaaaaaaaaaaaaaaaaa.", pin), "n3");
  EXPECT_NE(wrong.exit_code, 0);
  EXPECT_EQ(wrong.err, "skiff: error: join token is not valid\n");
  // A token whose pin is not the controller's key: nothing is sent.
  CommandResult bad_pin =
      join(absl::StrCat(token.substr(0, token.rfind('.') + 1), std::string(64, '0')), "n3");
  EXPECT_NE(bad_pin.exit_code, 0);
  EXPECT_NE(bad_pin.err.find("certificate pin mismatch"), std::string::npos) << bad_pin.err;
  EXPECT_EQ(TokenState(cluster, token), "valid");
  // Nothing listens there.
  const int closed = FreePort();
  CommandResult unreachable = join(token, "n3", absl::StrCat("127.0.0.1:", closed));
  EXPECT_NE(unreachable.exit_code, 0);
  EXPECT_NE(unreachable.err.find(absl::StrCat("cannot reach the controller at 127.0.0.1:", closed)),
            std::string::npos)
      << unreachable.err;
  // An expired token: one second to live, then wait until ctld says it expired.
  const std::string short_lived = create("--ttl 1");
  ASSERT_FALSE(short_lived.empty());
  ASSERT_TRUE(Eventually(30, [&] { return TokenState(cluster, short_lived) == "expired"; }));
  CommandResult expired = join(short_lived, "n3");
  EXPECT_NE(expired.exit_code, 0);
  EXPECT_EQ(expired.err, "skiff: error: join token has expired\n");
  // A name skiff.conf already has: refused, and the token stays unused.
  CommandResult taken = join(token, "n1");
  EXPECT_NE(taken.exit_code, 0);
  EXPECT_EQ(taken.err, "skiff: error: node name n1 is already taken\n");
  EXPECT_EQ(TokenState(cluster, token), "valid");
  struct stat st;
  EXPECT_NE(stat((root + "/etc/munge/munge.key").c_str(), &st), 0)
      << "a refused join wrote the key";

  // The good join: the key and noded's settings under the test's root.
  CommandResult joined = join(token, "n3");
  ASSERT_EQ(joined.exit_code, 0) << joined.err;
  EXPECT_NE(joined.out.find("as node n3"), std::string::npos) << joined.out;
  EXPECT_EQ(TokenState(cluster, token), "used by n3");
  ASSERT_EQ(stat((root + "/etc/munge/munge.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0400u);
  EXPECT_EQ(ReadFile(root + "/etc/munge/munge.key"), ReadFile(dir + "/etc/munge/munge.key"));
  const std::string defaults = ReadFile(root + "/etc/default/skiff-noded");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(defaults, m, std::regex("NODED_OPTIONS=\"([^\"]*)\""))) << defaults;
  const std::string noded_options = m[1].str();
  EXPECT_NE(
      noded_options.find(absl::StrCat("--conf-server 127.0.0.1:", CtldPort(cluster.conf_path()))),
      std::string::npos)
      << noded_options;
  EXPECT_NE(noded_options.find("-N n3 -Z"), std::string::npos) << noded_options;
  // Used once: never again.
  CommandResult again = join(token, "n4");
  EXPECT_NE(again.exit_code, 0);
  EXPECT_EQ(again.err, "skiff: error: join token was already used (by node n3)\n");

  // noded with exactly those settings (as skiff-noded.service would start it):
  // no NodeName line, its hardware as found, idle in sinfo in the Nodes=ALL
  // partition only.
  CommandResult noded = cluster.Run(absl::StrCat(
      "setsid env SKIFF_MUNGE_SOCKET=", dir, "/run/munge/munge.socket ", dir, "/bin/noded ",
      noded_options, " </dev/null >>", dir, "/log/noded-n3.out 2>&1 &"));
  ASSERT_EQ(noded.exit_code, 0) << noded.err;
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  EXPECT_TRUE(Eventually(60, [&] { return IdleWithCpus(cluster, "n3", cpus); }))
      << cluster.Run("sinfo -N -l").out << cluster.Log("noded-n3.out");
  EXPECT_EQ(cluster.Run("sinfo -h -N -n n3 -o %P").out, "all\n");
  CommandResult submitted = cluster.Run(absl::StrCat(
      "cd /tmp && sbatch -p all -w n3 -o ", dir, "/n3.out --wrap 'echo ran on $SLURMD_NODENAME'"));
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
  EXPECT_TRUE(Eventually(60, [&] { return ReadFile(dir + "/n3.out") == "ran on n3\n"; }))
      << ReadFile(dir + "/n3.out");

  // scontrol reconfigure keeps it (skiff.conf does not name it).
  CommandResult reconfigured = cluster.Run("scontrol reconfigure");
  EXPECT_EQ(reconfigured.exit_code, 0) << reconfigured.err;
  EXPECT_EQ(cluster.Run("sinfo -h -N -n n3 -o %P").out, "all\n");

  // ctld restarts: the joined node is still defined, and back once it re-registers.
  const pid_t ctld = cluster.Pid("ctld");
  ASSERT_GT(ctld, 0);
  kill(ctld, SIGTERM);
  ASSERT_TRUE(Eventually(60, [&] { return !Alive(ctld); }));
  CommandResult up = cluster.Up();
  ASSERT_EQ(up.exit_code, 0) << up.err;
  EXPECT_TRUE(Eventually(90, [&] { return IdleWithCpus(cluster, "n3", cpus); }))
      << cluster.Run("sinfo -N -l").out;
  EXPECT_NE(cluster.Log("ctld.log").find("NodeName=n3 joined earlier"), std::string::npos);
  EXPECT_EQ(TokenState(cluster, token), "used by n3");
}

TEST(JoinTest, InitWritesTheHeadNodesConfigOnce) {
  char tmpl[] = "/tmp/skiff-init-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string root = tmpl;
  const std::string skiff = RunfilesRoot() + "/admin/skiff";
  const std::string init = absl::StrCat(skiff, " init --root ", root,
                                        " --no-start --slurm-user root --cluster-name lab "
                                        "--partition cpu --host head");
  CommandResult first = RunShell(init);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const std::string conf = ReadFile(root + "/etc/skiff/skiff.conf");
  EXPECT_NE(conf.find("ClusterName=lab\n"), std::string::npos) << conf;
  EXPECT_NE(conf.find("SlurmctldHost=head\n"), std::string::npos) << conf;
  EXPECT_NE(conf.find("SlurmctldParameters=enable_configless,join_port=6820\n"), std::string::npos);
  EXPECT_NE(conf.find("PartitionName=cpu Nodes=ALL Default=YES"), std::string::npos);
  struct stat st;
  ASSERT_EQ(stat((root + "/etc/munge/munge.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0400u);
  EXPECT_EQ(st.st_size, 1024);
  // ctld's own copy, for joining nodes.
  EXPECT_EQ(ReadFile(root + "/var/lib/skiff/munge.key"), ReadFile(root + "/etc/munge/munge.key"));
  CommandResult second = RunShell(init);
  EXPECT_NE(second.exit_code, 0);
  EXPECT_NE(second.err.find("skiff.conf exists: this host is already initialized"),
            std::string::npos)
      << second.err;
  EXPECT_EQ(ReadFile(root + "/etc/skiff/skiff.conf"), conf);
  RunShell("rm -rf " + root);
}

}  // namespace
}  // namespace skiff::testing
