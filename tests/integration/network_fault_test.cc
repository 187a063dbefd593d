// A node cut off by the network, for real: its noded runs in a network
// namespace of its own, reached through a veth pair on a private /30 that the
// test creates and removes (nothing leaves the machine). Cutting the link is
// what a pulled cable or a dead switch port does: ctld's calls and the node's
// heartbeats stop getting through, while both daemons keep running.
#include <gtest/gtest.h>
#include <unistd.h>

#include <ctime>
#include <iostream>
#include <string>

#include "absl/strings/str_cat.h"
#include "tests/harness/fencing.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

// A network namespace with one end of a veth pair in it; the other end stays
// here. Removed (with everything in it) when destroyed.
class IsolatedLink {
 public:
  IsolatedLink() {
    const int tag = static_cast<int>(getpid() % 100000);
    ns_ = absl::StrCat("skiffnf", tag);
    host_if_ = absl::StrCat("sknf", tag, "h");
    node_if_ = absl::StrCat("sknf", tag, "n");
    const std::string net = absl::StrCat("10.231.", tag % 250 + 1, ".");
    host_addr_ = net + "1";
    node_addr_ = net + "2";
    const CommandResult made = RunShell(absl::StrCat(
        "set -e; ip netns add ", ns_, "; ip link add ", host_if_, " type veth peer name ", node_if_,
        "; ip link set ", node_if_, " netns ", ns_, "; ip addr add ", host_addr_, "/30 dev ",
        host_if_, "; ip link set ", host_if_, " up; ", InNamespace("ip addr add "), node_addr_,
        "/30 dev ", node_if_, "; ", InNamespace("ip link set "), node_if_, " up; ",
        InNamespace("ip link set lo up")));
    if (made.exit_code != 0) error_ = made.out + made.err;
  }
  ~IsolatedLink() {
    RunShell(
        absl::StrCat("ip link del ", host_if_, " 2>/dev/null; ip netns del ", ns_, " 2>/dev/null"));
  }

  // Why the link could not be made (no `ip`, not root, no netns): "" when made.
  const std::string& error() const { return error_; }
  const std::string& host_addr() const { return host_addr_; }
  const std::string& node_addr() const { return node_addr_; }

  // nsenter switches the network namespace only (`ip netns exec` also remounts
  // /sys, which fails where / is not a mount point, as in a chroot).
  std::string Enter() const { return absl::StrCat("nsenter --net=/run/netns/", ns_); }
  std::string InNamespace(const std::string& command) const {
    return absl::StrCat(Enter(), " ", command);
  }
  bool Cut() const {
    return RunShell(InNamespace("ip link set " + node_if_ + " down")).exit_code == 0;
  }
  bool Restore() const {
    return RunShell(InNamespace("ip link set " + node_if_ + " up")).exit_code == 0;
  }

 private:
  std::string ns_, host_if_, node_if_, host_addr_, node_addr_, error_;
};

std::string NodeState(const LocalCluster& cluster, const std::string& node) {
  return cluster.Run("sinfo -h -n " + node + " -o %t").out;
}

// The node whose link is cut goes down* within SlurmdTimeout (and a second of
// ctld's clock), its job is requeued and runs on the other node, never beside
// its first run (which the cut-off node's lease kills); when the link is back
// the node returns (ReturnToService=1) and the first run stays dead.
TEST(NetworkFaultTest, ACutLinkDownsTheNodeRequeuesItsJobAndTheNodeReturns) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root for ip netns";
  IsolatedLink link;
  // As the cgroup tests do where cgroups are missing: say why, and skip.
  if (!link.error().empty())
    GTEST_SKIP() << "ip netns cannot make a private link: " << link.error();

  LocalCluster::Options options;
  options.nodes = 2;
  options.gpu_nodes = 0;
  // ctld listens on this side's address of the link, which every daemon and
  // command here can reach, and n2's noded, in the namespace, too.
  options.extra_config =
      absl::StrCat("HeartbeatInterval=1\nSlurmdTimeout=6\nSlurmctldAddr=", link.host_addr(), "\n");
  options.environment = {{"SKIFF_NODE_ADDR_n2", link.node_addr()},
                         {"SKIFF_NODED_PREFIX_n2", link.Enter()}};
  auto started = LocalCluster::Start(options);
  ASSERT_TRUE(started.ok()) << started.status();
  const std::unique_ptr<LocalCluster>& cluster = *started;
  ASSERT_EQ(NodeState(*cluster, "n2"), "idle\n") << cluster->Run("sinfo -N -l").out;

  // The job's first run on n2 (n1 drained until it runs).
  ASSERT_EQ(cluster->Run("scontrol update NodeName=n1 State=DRAIN Reason=later").exit_code, 0);
  const std::string marks = cluster->dir() + "/log/network_marks.txt";
  const uint64_t id = SubmitTickingJob(*cluster, marks);
  ASSERT_TRUE(Eventually(20, [&] { return !ReadMarks(marks).empty(); })) << ShowJob(*cluster, id);
  ASSERT_EQ(ReadMarks(marks).front().node, "n2");
  ASSERT_EQ(cluster->Run("scontrol update NodeName=n1 State=RESUME").exit_code, 0);

  const int64_t cut_at = time(nullptr);
  ASSERT_TRUE(link.Cut());
  // How soon, by ctld's own clock, is checked below.
  EXPECT_TRUE(Eventually(60, [&] { return NodeState(*cluster, "n2") == "down*\n"; }))
      << cluster->Run("sinfo -N -l").out;
  const std::string reason = cluster->Run("sinfo -R -h -n n2 -o '%E|%H'").out;
  struct tm tm = {};
  const size_t bar = reason.find('|');
  ASSERT_NE(bar, std::string::npos) << reason;
  ASSERT_NE(strptime(reason.c_str() + bar + 1, "%Y-%m-%dT%H:%M:%S", &tm), nullptr) << reason;
  tm.tm_isdst = -1;
  std::cout << "down " << mktime(&tm) - cut_at << " s after the cut (SlurmdTimeout=6)\n";
  EXPECT_EQ(reason.substr(0, bar), "Not responding");
  EXPECT_LE(mktime(&tm) - cut_at, 6 + 1 + 1) << reason;
  ExpectTheCopiesNeverOverlapped(*cluster, id, marks);
  EXPECT_EQ(ReadMarks(marks).back().node, "n1") << ReadFile(marks);

  ASSERT_TRUE(link.Restore());
  EXPECT_TRUE(Eventually(30, [&] { return NodeState(*cluster, "n2") == "idle\n"; }))
      << cluster->Run("sinfo -N -l").out << cluster->Log("noded-n2.log");
  const std::string shown = ShowJob(*cluster, id);
  EXPECT_NE(shown.find("JobState=RUNNING "), std::string::npos) << shown;
  EXPECT_NE(shown.find(" NodeList=n1\n"), std::string::npos) << shown;
  EXPECT_TRUE(CopyTicked(marks, 1, 10)) << ReadFile(marks);
  EXPECT_TRUE(TheFirstCopyStayedDead(marks)) << ReadFile(marks);
  EXPECT_EQ(cluster->Run(absl::StrCat("scancel ", id)).exit_code, 0);
}

}  // namespace
}  // namespace skiff::testing
