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
//
// Issue 47: the token is never on a command line another user can read
// (/proc/PID/cmdline): `skiff join` takes it on standard input, from a file or
// from SKIFF_JOIN_TOKEN, and refuses it as an argument (item 7); idle
// connections to the join port leave ctld serving and joins going on, and a
// join request's node name and token id are checked before they are logged
// (item 8).
#include <arpa/inet.h>
#include <fcntl.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/join/tls.h"
#include "proto/join.grpc.pb.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

// The token in `skiff token create`'s output: ID.SECRET.PIN wherever it is.
std::string TokenIn(const std::string& out) {
  std::smatch m;
  return std::regex_search(out, m, std::regex("[a-z2-7]{6}\\.[a-z2-7]{26}\\.[0-9a-f]{64}"))
             ? m[0].str()
             : "";
}

// The command `skiff token create` prints to run on the node ("skiff join ...").
std::string JoinLineIn(const std::string& out) {
  std::smatch m;
  return std::regex_search(out, m, std::regex("(^|\\n) *(skiff join [^\\n]*)")) ? m[2].str() : "";
}

// Writes `text` to `path`, mode `mode`, owned by root (the test).
void WriteSecretFile(const std::string& path, const std::string& text, mode_t mode = 0600) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0) << path;
  ASSERT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  ASSERT_EQ(fchmod(fd, mode), 0);
  close(fd);
}

// A cluster whose ctld takes joining nodes on `join_port`.
absl::StatusOr<std::unique_ptr<LocalCluster>> StartJoinCluster(int join_port) {
  LocalCluster::Options options;
  options.nodes = 2;
  options.gpu_nodes = 0;
  options.extra_config = absl::StrCat("SlurmctldParameters=enable_configless,join_port=", join_port,
                                      ",join_munge_key=@DIR@/etc/munge/munge.key\n"
                                      "PartitionName=all Nodes=ALL MaxTime=1:00:00\n"
                                      "KillWait=2\n");
  return LocalCluster::Start(options);
}

// A TCP listener on 127.0.0.1 that accepts and never answers: a join aimed at
// it waits there (for its --timeout), long enough to look at its process.
class SilentListener {
 public:
  SilentListener() {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    if (bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
        listen(fd_, 16) == 0 &&
        getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
      port_ = ntohs(address.sin_port);
    }
  }
  ~SilentListener() {
    for (int fd : accepted_) close(fd);
    close(fd_);
  }
  int port() const { return port_; }
  // Whether a connection came within `seconds` (it is kept open, unanswered).
  bool Accepted(int seconds) {
    struct pollfd ready = {fd_, POLLIN, 0};
    if (poll(&ready, 1, seconds * 1000) <= 0) return false;
    const int fd = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) return false;
    accepted_.push_back(fd);
    return true;
  }

 private:
  int fd_ = -1;
  int port_ = -1;
  std::vector<int> accepted_;
};

// A child process holding `count` idle TCP connections to 127.0.0.1:`port`
// (opened as fast as they go, never written to) until killed.
pid_t StartFlood(int port, int count) {
  const pid_t child = fork();
  if (child == 0) {
    struct rlimit files = {static_cast<rlim_t>(count + 64), static_cast<rlim_t>(count + 64)};
    setrlimit(RLIMIT_NOFILE, &files);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
    for (int i = 0; i < count; ++i) {
      const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
      if (fd < 0) break;
      connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    }
    pause();
    _exit(0);
  }
  return child;
}

void StopFlood(pid_t child) {
  if (child <= 0) return;
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
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
  // The token on standard input, from a file only root reads (as pasted).
  auto join_with = [&](const std::string& token, const std::string& name, const std::string& at,
                       const std::string& how) {
    WriteSecretFile(dir + "/join-token", token + "\n");
    // SlurmUser is the cluster's: whoever runs the test.
    return cluster.Run(absl::StrCat("skiff join ", at.empty() ? target : at, " -N ", name,
                                    " --port ", noded_port, " --root ", root,
                                    " --no-start --timeout 30 --slurm-user $(id -un) ", how));
  };
  auto join = [&](const std::string& token, const std::string& name, const std::string& at = "") {
    return join_with(token, name, at, absl::StrCat("<", dir, "/join-token"));
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
  // SlurmUser with another uid on the node (nobody's): ctld's calls would be
  // refused there, so the join is, naming both uids; the token stays unused.
  WriteSecretFile(dir + "/join-token", token + "\n");
  CommandResult other_uid = cluster.Run(
      absl::StrCat("skiff join ", target, " -N n3 --port ", noded_port, " --root ", root,
                   " --no-start --timeout 30 --slurm-user nobody <", dir, "/join-token"));
  EXPECT_NE(other_uid.exit_code, 0);
  EXPECT_NE(
      other_uid.err.find(absl::StrCat("has uid 65534 on n3 but ", getuid(), " on the controller")),
      std::string::npos)
      << other_uid.err;
  EXPECT_EQ(TokenState(cluster, token), "valid");
  // A user the node does not have: refused before anything is sent.
  CommandResult no_user = cluster.Run(absl::StrCat("skiff join ", target, " -N n3 --root ", root,
                                                   " --no-start --slurm-user no-such-skiff-user <",
                                                   dir, "/join-token"));
  EXPECT_NE(no_user.err.find("SlurmUser no-such-skiff-user does not exist here"), std::string::npos)
      << no_user.err;
  struct stat st;
  EXPECT_NE(stat((root + "/etc/munge/munge.key").c_str(), &st), 0)
      << "a refused join wrote the key";

  // The token as an argument: refused, naming the ways to give it (issue 47).
  CommandResult as_argument = join_with(token, "n3", "", "--token " + token);
  EXPECT_NE(as_argument.exit_code, 0);
  EXPECT_NE(as_argument.err.find("skiff: error: --token takes no token: on the command line every "
                                 "user of this machine can read it"),
            std::string::npos)
      << as_argument.err;
  // From a file others may read: refused, naming it.
  WriteSecretFile(dir + "/open-token", token + "\n", 0644);
  CommandResult open_file =
      join_with(token, "n3", "", absl::StrCat("--token-file ", dir, "/open-token"));
  EXPECT_NE(open_file.exit_code, 0);
  EXPECT_NE(open_file.err.find(absl::StrCat("skiff: error: --token-file ", dir,
                                            "/open-token may be read or replaced by other users")),
            std::string::npos)
      << open_file.err;
  // SKIFF_JOIN_TOKEN is read (a wrong secret here: refused by ctld).
  CommandResult from_env = cluster.Run(absl::StrCat(
      "SKIFF_JOIN_TOKEN=", id, ".bbbbbbbbbbbbbbbbbbbbbbbbbb.", pin, " skiff join ", target,
      " -N n3 --root ", root, " --no-start --timeout 30 --slurm-user $(id -un) </dev/null"));
  EXPECT_EQ(from_env.err, "skiff: error: join token is not valid\n");
  EXPECT_EQ(TokenState(cluster, token), "valid");

  // The good join, the token in root's file: the key and noded's settings
  // under the test's root.
  WriteSecretFile(dir + "/good-token", token + "\n");
  CommandResult joined =
      join_with(token, "n3", "", absl::StrCat("--token-file ", dir, "/good-token"));
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

  // scontrol delete NodeName= (issue 49's DELETE node, issue 50's skiff node
  // remove): refused for a user,
  // for a node with a job, for skiff.conf's nodes and for no node; then the
  // joined node, stopped, leaves the cluster for good.
  CommandResult busy_job =
      cluster.Run("cd /tmp && sbatch --parsable -p all -w n3 -o /dev/null --wrap 'sleep 300'");
  ASSERT_EQ(busy_job.exit_code, 0) << busy_job.err;
  const std::string busy_id(absl::StripAsciiWhitespace(busy_job.out));
  ASSERT_TRUE(Eventually(
      60, [&] { return cluster.Run("squeue -h -o %T -j " + busy_id).out == "RUNNING\n"; }));
  CommandResult user_delete = cluster.RunAs("skiffjoin", "scontrol delete NodeName=n3");
  EXPECT_EQ(user_delete.exit_code, 1);
  EXPECT_EQ(user_delete.err, "delete_node NodeName=n3: Access/permission denied\n");
  CommandResult while_busy = cluster.Run("scontrol delete NodeName=n3");
  EXPECT_EQ(while_busy.exit_code, 1);
  EXPECT_EQ(while_busy.err, "delete_node NodeName=n3: Requested nodes are busy\n");
  EXPECT_EQ(cluster.Run("scontrol delete nodename n9").err,
            "delete_node nodename: Invalid node name specified\n");
  EXPECT_NE(cluster.Run("scontrol delete NodeName=n1").err.find("n1 is defined in skiff.conf"),
            std::string::npos);
  cluster.Run("scancel " + busy_id);
  ASSERT_TRUE(Eventually(60, [&] {
    return cluster.Run("sinfo -h -N -n n3 -o %T").out == "idle\n";
  })) << cluster.Run("sinfo -N -l").out;
  // This cluster's n3 only (other runs of this test have one too); "^" keeps
  // the shell running pkill, whose command line holds the pattern, out.
  cluster.Run(absl::StrCat("pkill -f -- '^", dir, "/bin/noded .*-N n3 -Z'"));
  // skiff node remove: the same deletion, as the admin's tool words it.
  EXPECT_NE(cluster.Run("skiff node remove n1").err.find("n1 is defined in skiff.conf"),
            std::string::npos);
  // --keep-key: the munge key stays (JoinTest.ARemovedNodesMungeKeyIsRefused...
  // replaces it).
  ASSERT_TRUE(Eventually(60, [&] {
    return cluster.Run("skiff node remove --keep-key n3").exit_code == 0;
  })) << cluster.Run("skiff node remove --keep-key n3").err;
  EXPECT_EQ(cluster.Run("sinfo -h -N -n n3 -o %N").out, "");
  EXPECT_EQ(cluster.Run("sinfo -h -N -o %N | sort -u").out, "n1\nn2\n");
  CommandResult shown = cluster.Run("scontrol show node n3");
  EXPECT_NE(shown.exit_code, 0) << shown.out;
  // Kept across a restart: the node's record is gone from ctld's state.
  const pid_t ctld_again = cluster.Pid("ctld");
  kill(ctld_again, SIGTERM);
  ASSERT_TRUE(Eventually(60, [&] { return !Alive(ctld_again); }));
  ASSERT_EQ(cluster.Up().exit_code, 0);
  ASSERT_TRUE(Eventually(60, [&] { return cluster.Run("sinfo -h -N -o %N").exit_code == 0; }));
  EXPECT_EQ(cluster.Run("sinfo -h -N -o %N | sort -u").out, "n1\nn2\n");
}

// Issue 50 item 6: `skiff node remove` takes a joined node out cleanly. Every
// machine shares one munge key, and the key forges any uid, so the removal
// replaces it: ctld hands the new key only to joined nodes that prove
// themselves with the node key their join gave them, which the removed node's
// went with it. Two nodes join, each with a munged of its own on the key its
// join installed (as on its own machine); n4 is removed; the head's munged
// restarts on the new key; n4's old key makes credentials ctld refuses, and
// n4 cannot fetch the new one; n3's noded fetches it by itself when ctld
// refuses its credential, and once its munged restarted on it (as
// `systemctl restart munge` would) n3 is back and runs a job.
TEST(JoinTest, ARemovedNodesMungeKeyIsRefusedAndTheOtherNodesFetchTheNewOne) {
  const int join_port = FreePort();
  auto started = StartJoinCluster(join_port);
  ASSERT_TRUE(started.ok()) << started.status();
  LocalCluster& cluster = **started;
  const std::string dir = cluster.dir();
  const std::string target = absl::StrCat("127.0.0.1:", join_port);
  const std::string head_key = dir + "/etc/munge/munge.key";
  // A joined node: its own root, token, munged and noded.
  struct Joined {
    std::string name, root, socket;
  };
  auto start_munged = [&](const Joined& node) {
    return cluster.Run(absl::StrCat(
        "mkdir -p ", node.root, "/run/munge ", node.root, "/state ", node.root,
        "/log && chmod 755 ", node.root, " ", node.root, "/run ", node.root,
        "/run/munge && munged --force --socket=", node.socket, " --key-file=", node.root,
        "/etc/munge/munge.key --pid-file=", node.root,
        "/run/munge/munged.pid --log-file=", node.root, "/log/munged.log --seed-file=", node.root,
        "/state/munged.seed --num-threads=2"));
  };
  auto stop_munged = [&](const Joined& node) {
    const std::string pid =
        std::string(absl::StripAsciiWhitespace(ReadFile(node.root + "/run/munge/munged.pid")));
    cluster.Run("kill " + pid);
    return Eventually(30, [&] { return !Alive(atoi(pid.c_str())); });
  };
  auto join = [&](const std::string& name) {
    Joined node{name, dir + "/" + name + "root", dir + "/" + name + "root/run/munge/munge.socket"};
    CommandResult created = cluster.Run("skiff token create");
    EXPECT_EQ(created.exit_code, 0) << created.err;
    WriteSecretFile(dir + "/token-" + name, TokenIn(created.out) + "\n");
    CommandResult joined = cluster.Run(absl::StrCat(
        "skiff join ", target, " -N ", name, " --port ", FreePort(), " --root ", node.root,
        " --no-start --timeout 30 --slurm-user $(id -un) --token-file ", dir, "/token-", name));
    EXPECT_EQ(joined.exit_code, 0) << joined.err;
    EXPECT_NE(joined.out.find(node.root + "/etc/skiff/node.key"), std::string::npos) << joined.out;
    struct stat st;
    EXPECT_EQ(stat((node.root + "/etc/skiff/node.key").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    EXPECT_EQ(start_munged(node).exit_code, 0) << ReadFile(node.root + "/log/munged.log");
    std::smatch m;
    const std::string defaults = ReadFile(node.root + "/etc/default/skiff-noded");
    EXPECT_TRUE(std::regex_search(defaults, m, std::regex("NODED_OPTIONS=\"([^\"]*)\"")));
    EXPECT_NE(m[1].str().find("--node-key " + node.root + "/etc/skiff/node.key"), std::string::npos)
        << defaults;
    CommandResult noded = cluster.Run(
        absl::StrCat("setsid env SKIFF_MUNGE_SOCKET=", node.socket, " ", dir, "/bin/noded ",
                     m[1].str(), " </dev/null >>", dir, "/log/noded-", name, ".out 2>&1 &"));
    EXPECT_EQ(noded.exit_code, 0) << noded.err;
    return node;
  };
  const Joined n3 = join("n3");
  const Joined n4 = join("n4");
  auto idle = [&](const std::string& name) {
    return cluster.Run("sinfo -h -N -n " + name + " -o %t").out == "idle\n";
  };
  ASSERT_TRUE(Eventually(60, [&] { return idle("n3") && idle("n4"); }))
      << cluster.Run("sinfo -N -l").out << cluster.Log("noded-n3.out")
      << cluster.Log("noded-n4.out");
  const std::string old_key = ReadFile(head_key);
  EXPECT_EQ(ReadFile(n4.root + "/etc/munge/munge.key"), old_key);

  // n4 retires: its noded stops, then the admin removes it. The key is
  // replaced (munged restarted by hand here: --no-start).
  cluster.Run(absl::StrCat("pkill -f -- '^", dir, "/bin/noded .*-N n4 -Z'"));
  CommandResult removed = cluster.Run("skiff node remove n4 --no-start --munge-key " + head_key);
  ASSERT_EQ(removed.exit_code, 0) << removed.err;
  EXPECT_NE(removed.out.find("Removed n4 from the cluster."), std::string::npos) << removed.out;
  EXPECT_NE(removed.out.find("Made a new munge key: " + head_key), std::string::npos)
      << removed.out;
  EXPECT_NE(removed.out.find("A node removed from the cluster cannot."), std::string::npos);
  EXPECT_NE(removed.out.find("Nodes skiff.conf defines (n1,n2) did not join"), std::string::npos)
      << removed.out;
  const std::string new_key = ReadFile(head_key);
  ASSERT_EQ(new_key.size(), 1024u);
  EXPECT_NE(new_key, old_key);
  const pid_t head_munged = cluster.Pid("munge/munged");
  ASSERT_GT(head_munged, 0);
  kill(head_munged, SIGTERM);
  ASSERT_TRUE(Eventually(30, [&] { return !Alive(head_munged); }));
  ASSERT_EQ(cluster.Up().exit_code, 0);
  ASSERT_TRUE(Eventually(30, [&] { return cluster.Run("sinfo -h -o %P").exit_code == 0; }));

  // The removed machine: credentials from its munged (the old key) are
  // refused, and its node key fetches nothing.
  // (The commands take munged's socket from AuthInfo: a copy of skiff.conf
  // naming n4's.)
  auto conf_for = [&](const Joined& node) {
    const std::string conf = absl::StrCat(dir, "/", node.name, ".conf");
    cluster.Run(absl::StrCat("sed 's|^AuthInfo=.*|AuthInfo=socket=", node.socket, "|' ",
                             cluster.conf_path(), " >", conf));
    return conf;
  };
  CommandResult from_n4 = cluster.Run("SKIFF_CONF=" + conf_for(n4) + " sinfo -h");
  EXPECT_NE(from_n4.exit_code, 0) << from_n4.out;
  EXPECT_NE(from_n4.err.find("credential"), std::string::npos) << from_n4.err;
  CommandResult fetch_n4 =
      cluster.Run("skiff key fetch --node-key " + n4.root + "/etc/skiff/node.key");
  EXPECT_NE(fetch_n4.exit_code, 0);
  EXPECT_NE(fetch_n4.err.find("node key is not valid for n4"), std::string::npos) << fetch_n4.err;
  EXPECT_EQ(ReadFile(n4.root + "/etc/munge/munge.key"), old_key);

  // n3: ctld refuses its old credential, so its noded fetches the new key.
  EXPECT_TRUE(Eventually(90, [&] { return ReadFile(n3.root + "/etc/munge/munge.key") == new_key; }))
      << cluster.Log("noded-n3.log");
  EXPECT_NE(cluster.Log("noded-n3.log").find("installed the cluster's new munge key"),
            std::string::npos)
      << cluster.Log("noded-n3.log");
  EXPECT_NE(cluster.Log("ctld.log").find("NodeName=n3 fetched the munge key"), std::string::npos);
  // Its munged restarted on it (systemctl restart munge on a real node).
  ASSERT_TRUE(stop_munged(n3));
  ASSERT_EQ(start_munged(n3).exit_code, 0) << ReadFile(n3.root + "/log/munged.log");
  EXPECT_TRUE(Eventually(90, [&] { return idle("n3"); })) << cluster.Run("sinfo -N -l").out;
  EXPECT_EQ(cluster.Run("SKIFF_CONF=" + conf_for(n3) + " sinfo -h -N -n n3 -o %N").out, "n3\n");
  CommandResult submitted = cluster.Run(absl::StrCat(
      "cd /tmp && sbatch -p all -w n3 -o ", dir, "/n3.out --wrap 'echo ran on $SLURMD_NODENAME'"));
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
  EXPECT_TRUE(Eventually(60, [&] { return ReadFile(dir + "/n3.out") == "ran on n3\n"; }))
      << ReadFile(dir + "/n3.out");
  // By hand, `skiff key fetch` says the key is current.
  CommandResult fetch_n3 =
      cluster.Run("skiff key fetch --node-key " + n3.root + "/etc/skiff/node.key");
  EXPECT_EQ(fetch_n3.exit_code, 0) << fetch_n3.err;
  EXPECT_NE(fetch_n3.out.find("is the cluster's"), std::string::npos) << fetch_n3.out;
  // Only root and SlurmUser may replace the key.
  ASSERT_TRUE(cluster.EnsureUser("skiffjoin").ok());
  CommandResult as_user =
      cluster.RunAs("skiffjoin", "skiff key rotate --no-start --munge-key " + dir + "/not-the-key");
  EXPECT_NE(as_user.exit_code, 0);
  EXPECT_EQ(ReadFile(head_key), new_key);
  cluster.Run(absl::StrCat("pkill -f -- '^", dir, "/bin/noded .*-N n3 -Z'"));
  stop_munged(n3);
  stop_munged(n4);
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

// Issue 47 item 7: a token on the command line is anyone's (/proc/PID/cmdline
// is world-readable), and whoever joins first with it gets the munge key. The
// command `skiff token create` prints carries no token; run as printed, with
// the token pasted on its standard input, another user reading every command
// line on the machine while the join waits finds no trace of it.
TEST(JoinTest, TheTokenIsOnNoCommandLineAnotherUserCanRead) {
  if (getuid() != 0) GTEST_SKIP() << "needs root to create a second user";
  const int join_port = FreePort();
  auto started = StartJoinCluster(join_port);
  ASSERT_TRUE(started.ok()) << started.status();
  LocalCluster& cluster = **started;
  const std::string dir = cluster.dir();
  constexpr char kWatcher[] = "skiffwatch";
  ASSERT_TRUE(cluster.EnsureUser(kWatcher).ok());

  CommandResult created = cluster.Run("skiff token create");
  ASSERT_EQ(created.exit_code, 0) << created.err;
  const std::string token = TokenIn(created.out);
  ASSERT_FALSE(token.empty()) << created.out;
  const std::string secret = token.substr(7, 26);
  std::string command = JoinLineIn(created.out);
  ASSERT_FALSE(command.empty()) << created.out;
  EXPECT_EQ(command.find(secret), std::string::npos)
      << "the join command printed carries the token: " << command;

  // The printed command toward a controller that never answers, so that it
  // waits; the token on its standard input, from a file only root reads.
  SilentListener silent;
  ASSERT_GT(silent.port(), 0);
  const std::string target = absl::StrCat("127.0.0.1:", join_port);
  ASSERT_NE(command.find(target), std::string::npos) << command;
  command.replace(command.find(target), target.size(), absl::StrCat("127.0.0.1:", silent.port()));
  WriteSecretFile(dir + "/token", token + "\n");
  CommandResult launched = cluster.Run(absl::StrCat("setsid ", command, " -N n7 --root ", dir,
                                                    "/n7root --no-start --timeout 60 <", dir,
                                                    "/token >", dir, "/join.out 2>&1 &"));
  ASSERT_EQ(launched.exit_code, 0) << launched.err;
  // It has its token and is connecting: now it waits for an answer.
  ASSERT_TRUE(silent.Accepted(60)) << ReadFile(dir + "/join.out");
  const std::vector<pid_t> joins =
      PidsWithCommandLine(absl::StrCat("join 127.0.0.1:", silent.port()));
  ASSERT_FALSE(joins.empty());

  // The other user: the join's own command line, then every command line on
  // the machine, searched for the secret (given to grep in a file, so that
  // grep's own command line does not carry it).
  const std::string pattern = absl::StrCat(dir, "/home/", kWatcher, "/secret");
  WriteSecretFile(pattern, secret + "\n");
  ASSERT_EQ(RunShell(absl::StrCat("chown ", kWatcher, " ", pattern)).exit_code, 0);
  bool seen_join = false;  // the other user does see the join's command line
  for (pid_t pid : joins) {
    CommandResult seen =
        cluster.RunAs(kWatcher, absl::StrCat("tr '\\0' ' ' </proc/", pid, "/cmdline"));
    seen_join = seen_join || seen.out.find("skiff join") != std::string::npos;
    EXPECT_EQ(seen.out.find(secret), std::string::npos) << "another user read: " << seen.out;
  }
  EXPECT_TRUE(seen_join);
  CommandResult scan = cluster.RunAs(
      kWatcher, absl::StrCat("grep -l -a -F -f ", pattern, " /proc/[0-9]*/cmdline 2>/dev/null"));
  EXPECT_EQ(scan.out, "") << "command lines carrying the token's secret";
  for (pid_t pid : joins) kill(pid, SIGTERM);
}

// Issue 47 item 8: the join port was gRPC's own listener, with no cap: idle
// connections there took ctld's descriptors, and with them the main port
// (sinfo, sbatch) and the join port itself. Behind the main port's guard, a
// flood of them costs ctld a few descriptors, and a join gets through it.
TEST(JoinTest, IdleConnectionsToTheJoinPortLeaveCtldServingAndJoinsGoingOn) {
  const int join_port = FreePort();
  auto started = StartJoinCluster(join_port);
  ASSERT_TRUE(started.ok()) << started.status();
  LocalCluster& cluster = **started;
  const std::string dir = cluster.dir();
  const std::string token = TokenIn(cluster.Run("skiff token create").out);
  ASSERT_FALSE(token.empty());
  WriteSecretFile(dir + "/token", token + "\n");

  // ctld's descriptors capped below the flood's size, so that an unguarded
  // listener runs out of them.
  const pid_t ctld = cluster.Pid("ctld");
  ASSERT_GT(ctld, 0);
  ASSERT_EQ(RunShell(absl::StrCat("prlimit --nofile=512:512 --pid ", ctld)).exit_code, 0);
  constexpr int kFlood = 700;
  const pid_t flood = StartFlood(join_port, kFlood);
  ASSERT_GT(flood, 0);
  EXPECT_TRUE(Eventually(60, [&] { return OpenDescriptors(flood) >= kFlood; }));

  CommandResult listed = cluster.Run("sinfo -h -N -o '%N %t'");
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_NE(listed.out.find("n1 idle\n"), std::string::npos) << listed.out << listed.err;
  EXPECT_NE(listed.out.find("n2 idle\n"), std::string::npos) << listed.out << listed.err;
  CommandResult submitted = cluster.Run("sbatch -o /dev/null --wrap=true");
  std::vector<uint64_t> ids = SubmittedJobIds(submitted.out);
  EXPECT_EQ(ids.size(), 1u) << submitted.out << submitted.err;
  for (uint64_t id : ids) {
    EXPECT_TRUE(Eventually(60, [&] {
      return ScontrolField(cluster.Run(absl::StrCat("scontrol show job ", id)).out, "JobState") ==
             "COMPLETED";
    })) << cluster.Run(absl::StrCat("scontrol show job ", id)).out;
  }
  CommandResult joined = cluster.Run(
      absl::StrCat("skiff join 127.0.0.1:", join_port, " -N n5 --root ", dir,
                   "/n5root --no-start --timeout 60 --slurm-user $(id -un) <", dir, "/token"));
  EXPECT_EQ(joined.exit_code, 0) << joined.err;
  EXPECT_NE(joined.out.find("as node n5"), std::string::npos) << joined.out << joined.err;
  std::cout << "ctld held " << OpenDescriptors(ctld) << " descriptors with " << kFlood
            << " idle connections on its join port\n";
  StopFlood(flood);
}

// Issue 47 item 8: a join request's node name and token id were logged before
// they were checked: a 60 KB name with newlines wrote lines of its own into
// ctld's log. Now both are refused first, and what is logged of them is
// escaped and short.
TEST(JoinTest, AJoinsNodeNameAndTokenIdAreCheckedBeforeTheyAreLogged) {
  const int join_port = FreePort();
  auto started = StartJoinCluster(join_port);
  ASSERT_TRUE(started.ok()) << started.status();
  LocalCluster& cluster = **started;
  absl::StatusOr<std::string> cert = FetchPeerCertificate("127.0.0.1", join_port, 30);
  ASSERT_TRUE(cert.ok()) << cert.status();
  grpc::SslCredentialsOptions tls;
  tls.pem_root_certs = *cert;
  grpc::ChannelArguments args;
  args.SetSslTargetNameOverride(kJoinTlsName);
  auto stub = v1::Join::NewStub(grpc::CreateCustomChannel(absl::StrCat("127.0.0.1:", join_port),
                                                          grpc::SslCredentials(tls), args));
  auto join = [&](const std::string& token_id, const std::string& node_name) {
    v1::JoinRequest request;
    request.set_token_id(token_id);
    request.set_token_secret("aaaaaaaaaaaaaaaaaaaaaaaaaa");
    request.set_node_name(node_name);
    request.set_cpus(1);
    request.set_real_memory_mb(100);
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    v1::JoinReply reply;
    return stub->Join(&context, request, &reply);
  };
  const std::string forged = "[ctld] [info] NodeName=evil joined with token abcdef";
  auto refusals = [&] {
    const std::string log = cluster.Log("ctld.log");
    size_t count = 0;
    for (size_t at = log.find("join refused"); at != std::string::npos;
         at = log.find("join refused", at + 1)) {
      ++count;
    }
    return count;
  };

  grpc::Status long_name =
      join("abcdef", absl::StrCat(std::string(60000, 'x'), "\n", forged, "\n"));
  EXPECT_EQ(long_name.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
      << long_name.error_message().substr(0, 200);
  EXPECT_NE(long_name.error_message().find("node name"), std::string::npos)
      << long_name.error_message().substr(0, 200);
  EXPECT_LT(long_name.error_message().size(), 400u);
  EXPECT_TRUE(Eventually(30, [&] { return refusals() >= 1; })) << cluster.Log("ctld.log");

  grpc::Status bad_id = join(absl::StrCat("abcdef\n", forged), "n9");
  EXPECT_EQ(bad_id.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << bad_id.error_message();
  EXPECT_NE(bad_id.error_message().find("token id"), std::string::npos) << bad_id.error_message();
  EXPECT_TRUE(Eventually(30, [&] { return refusals() >= 2; })) << cluster.Log("ctld.log");

  const std::string log = cluster.Log("ctld.log");
  EXPECT_EQ(log.find("\n" + forged), std::string::npos) << "a forged line in ctld.log";
  EXPECT_EQ(log.find(std::string(200, 'x')), std::string::npos) << "the whole name in ctld.log";
  // What is logged of them: escaped and cut short.
  EXPECT_NE(log.find(absl::StrCat("join refused: node name '", std::string(64, 'x'), "... (",
                                  60000 + forged.size() + 2, " bytes)' is not valid")),
            std::string::npos)
      << log;
  EXPECT_NE(
      log.find(absl::StrCat("join refused: join token id 'abcdef\\n", forged, "' is malformed")),
      std::string::npos)
      << log;
}

}  // namespace
}  // namespace skiff::testing
