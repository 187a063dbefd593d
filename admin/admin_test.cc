#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include "admin/init_command.h"
#include "admin/join_command.h"
#include "admin/node_key.h"
#include "admin/token_commands.h"
#include "common/config/config.h"

namespace skiff::cli {
namespace {

absl::StatusOr<std::string> NoInclude(const std::string& path) { return absl::NotFoundError(path); }

TEST(AdminTest, HostPortTakesNamesAddressesAndDefaults) {
  EXPECT_EQ(ParseHostPort("head", 6820)->host, "head");
  EXPECT_EQ(ParseHostPort("head", 6820)->port, 6820);
  EXPECT_EQ(ParseHostPort("10.0.0.1:7000", 6820)->host, "10.0.0.1");
  EXPECT_EQ(ParseHostPort("10.0.0.1:7000", 6820)->port, 7000);
  EXPECT_EQ(ParseHostPort("[fd00::1]:7000", 6820)->host, "fd00::1");
  EXPECT_EQ(ParseHostPort("[fd00::1]", 6820)->port, 6820);
  EXPECT_EQ(FormatHostPort("fd00::1", 7000), "[fd00::1]:7000");
  EXPECT_EQ(FormatHostPort("head", 7000), "head:7000");
  for (const char* bad : {"", ":7000", "head:", "head:x", "head:0", "head:70000", "fd00::1",
                          "[fd00::1", "[fd00::1]x"}) {
    absl::StatusOr<HostPort> parsed = ParseHostPort(bad, 6820);
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
}

TEST(AdminTest, NodedDefaultsCarryTheConfServerAndDynamicFlag) {
  NodedDefaults d;
  d.cluster_name = "lab";
  d.node_name = "n3";
  d.conf_server = "head:6817";
  d.port = 7001;
  d.conf_cache = "/tmp/x/cache";
  const std::string text = NodedDefaultsText(d);
  EXPECT_NE(text.find("# Written by `skiff join`"), std::string::npos);
  EXPECT_EQ(NodedOptionsOf(text),
            "--conf-server head:6817 -N n3 -Z --port 7001 --conf-cache /tmp/x/cache");
  d.port = 0;
  d.conf_cache.clear();
  EXPECT_EQ(NodedOptionsOf(NodedDefaultsText(d)), "--conf-server head:6817 -N n3 -Z");
  d.node_key = "/etc/skiff/node.key";
  EXPECT_EQ(NodedOptionsOf(NodedDefaultsText(d)),
            "--conf-server head:6817 -N n3 -Z --node-key /etc/skiff/node.key");
}

// What `skiff join` writes for node n3.
NodeKeyFile SampleNodeKeyFile() {
  NodeKeyFile file;
  file.controller = "head:6820";
  file.pin = std::string(64, 'c');
  file.node_name = "n3";
  file.node_key = std::string(32, 'k');
  file.munge_key = "/etc/munge/munge.key";
  return file;
}

TEST(AdminTest, NodeKeyFileReadsBackWhatJoinWrote) {
  NodeKeyFile file = SampleNodeKeyFile();
  file.munge_restart = {"/usr/bin/systemctl", "restart", "munge"};
  const std::string text = FormatNodeKeyFile(file);
  EXPECT_NE(text.find("# Written by `skiff join`"), std::string::npos);
  absl::StatusOr<NodeKeyFile> back = ParseNodeKeyFile(text, "/etc/skiff/node.key");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->controller, "head:6820");
  EXPECT_EQ(back->pin, file.pin);
  EXPECT_EQ(back->node_name, "n3");
  EXPECT_EQ(back->node_key, file.node_key);
  EXPECT_EQ(back->munge_key, "/etc/munge/munge.key");
  EXPECT_EQ(back->munge_restart, file.munge_restart);
  // --no-start: no restart command.
  file.munge_restart.clear();
  EXPECT_TRUE(ParseNodeKeyFile(FormatNodeKeyFile(file), "f")->munge_restart.empty());
  // A missing key, an unknown one, a line without '=': named.
  EXPECT_EQ(
      ParseNodeKeyFile("controller=h:1\npin=p\nnode=n\nmunge_key=/k\n", "F").status().message(),
      "F: no node_key= (join again)");
  EXPECT_EQ(ParseNodeKeyFile("colour=red\n", "F").status().message(),
            "F line 1: unknown key 'colour'");
  EXPECT_EQ(ParseNodeKeyFile("# a comment\n\njunk\n", "F").status().message(),
            "F line 3: not KEY=VALUE");
}

TEST(AdminTest, PinMismatchSaysSoAndThatNothingWasSent) {
  EXPECT_TRUE(CheckPin(std::string(64, 'a'), std::string(64, 'a'), "head:6820").ok());
  absl::Status s = CheckPin(std::string(64, 'a'), std::string(64, 'b'), "head:6820");
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("certificate pin mismatch"), absl::string_view::npos);
  EXPECT_NE(s.message().find("head:6820"), absl::string_view::npos);
  EXPECT_NE(s.message().find("nothing was sent"), absl::string_view::npos);
}

TEST(AdminTest, InitWritesAConfigTheParserTakes) {
  InitOptions o;
  o.cluster_name = "lab";
  o.host = "head";
  o.addr = "10.0.0.1";
  o.partitions = {"cpu", "gpu"};
  o.slurm_user = "skiff";
  o.root = "/tmp/r";
  absl::StatusOr<std::string> text = InitConfigText(o, "2025-01-01 10:00");
  ASSERT_TRUE(text.ok()) << text.status();
  absl::StatusOr<SkiffConfig> config = ParseSkiffConfig(*text, "skiff.conf", NoInclude);
  ASSERT_TRUE(config.ok()) << config.status() << "\n" << *text;
  EXPECT_TRUE(config->warnings.empty()) << config->warnings.front();
  EXPECT_EQ(config->cluster_name, "lab");
  EXPECT_EQ(config->ctld_host, "head");
  EXPECT_EQ(config->ctld_addr, "10.0.0.1");
  EXPECT_EQ(config->slurm_user, "skiff");
  EXPECT_EQ(config->state_save_location, "/tmp/r/var/lib/skiff");
  EXPECT_EQ(config->slurmctld_parameters.join_port, 6820);
  EXPECT_TRUE(config->slurmctld_parameters.enable_configless);
  EXPECT_TRUE(config->nodes.empty());
  ASSERT_EQ(config->partitions.size(), 2u);
  EXPECT_TRUE(config->partitions[0].all_nodes);
  EXPECT_TRUE(config->partitions[0].is_default);
  EXPECT_TRUE(config->partitions[1].all_nodes);
  EXPECT_FALSE(config->partitions[1].is_default);
  // Fair share counts GPU time from the start.
  EXPECT_EQ(config->partitions[0].tres_billing_weights, "CPU=1.0,GRES/gpu=8.0");
  EXPECT_EQ(config->partitions[1].tres_billing_weights, "CPU=1.0,GRES/gpu=8.0");
}

TEST(AdminTest, InitRefusesBadNamesAndPorts) {
  InitOptions o;
  o.host = "head";
  o.cluster_name = "my lab";
  EXPECT_EQ(InitConfigText(o, "d").status().code(), absl::StatusCode::kInvalidArgument);
  o.cluster_name = "lab";
  o.partitions = {"a,b"};
  EXPECT_EQ(InitConfigText(o, "d").status().code(), absl::StatusCode::kInvalidArgument);
  o.partitions = {};
  o.join_port = o.ctld_port;
  EXPECT_EQ(InitConfigText(o, "d").status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(AdminTest, CreatedTokenPrintsTheJoinCommand) {
  v1::CreateJoinTokenReply reply;
  reply.set_token("abcdef.ghijklmnopqrstuvwxyz234567." + std::string(64, 'a'));
  reply.set_join_target("head:6820");
  reply.set_expires(1000 + 3600);
  const std::string text = FormatCreatedToken(reply, 1000);
  // The command, and the token on a line of its own: never the two together.
  EXPECT_NE(text.find("\n  skiff join head:6820\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n    " + reply.token() + "\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("--token "), std::string::npos) << text;
  EXPECT_NE(text.find("(60m)"), std::string::npos) << text;

  // A SlurmUser other than the packages' skiff is named, so that the node
  // checks that user's uid.
  reply.set_slurm_user("root");
  EXPECT_NE(FormatCreatedToken(reply, 1000).find("\n  skiff join head:6820 --slurm-user root\n"),
            std::string::npos);
  reply.set_slurm_user("skiff");
  EXPECT_NE(FormatCreatedToken(reply, 1000).find("\n  skiff join head:6820\n"), std::string::npos);
}

// Issue 47 item 7: the join token from standard input, a file or the
// environment; as --token's value it is refused.
class ReadJoinTokenTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/skiff-admin-test-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
  }
  void TearDown() override { system(("rm -rf " + dir_).c_str()); }

  // A pipe whose read end holds `text` (closed for writing).
  int Stdin(const std::string& text) {
    int fds[2];
    EXPECT_EQ(pipe(fds), 0);
    EXPECT_EQ(write(fds[1], text.data(), text.size()), static_cast<ssize_t>(text.size()));
    close(fds[1]);
    return fds[0];
  }
  std::string File(const std::string& name, const std::string& text, mode_t mode) {
    const std::string path = dir_ + "/" + name;
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    EXPECT_GE(fd, 0);
    EXPECT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
    fchmod(fd, mode);
    close(fd);
    return path;
  }

  std::string dir_;
  const std::string token_ = "abcdef.ghijklmnopqrstuvwxyz234567." + std::string(64, 'a');
};

TEST_F(ReadJoinTokenTest, FromStandardInputWhenNothingElseIsGiven) {
  EXPECT_EQ(ReadJoinToken({}, Stdin(token_ + "\nmore\n")).value(), token_);
  JoinTokenSource dash;
  dash.arg = "-";
  EXPECT_EQ(ReadJoinToken(dash, Stdin("  " + token_)).value(), token_);
  JoinTokenSource file_dash;
  file_dash.file = "-";
  EXPECT_EQ(ReadJoinToken(file_dash, Stdin(token_ + "\n")).value(), token_);
  absl::Status empty = ReadJoinToken({}, Stdin("")).status();
  EXPECT_EQ(empty.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(empty.message().find("no join token"), absl::string_view::npos) << empty;
  EXPECT_EQ(ReadJoinToken({}, Stdin(std::string(5000, 'a'))).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(ReadJoinTokenTest, FromTheEnvironmentUnlessAFlagSaysOtherwise) {
  JoinTokenSource env;
  env.env = token_ + "\n";
  EXPECT_EQ(ReadJoinToken(env, Stdin("other")).value(), token_);
  env.arg = "-";
  EXPECT_EQ(ReadJoinToken(env, Stdin("other")).value(), "other");
}

TEST_F(ReadJoinTokenTest, AsAnArgumentItIsRefusedSayingWhereToGiveIt) {
  JoinTokenSource arg;
  arg.arg = token_;
  absl::Status s = ReadJoinToken(arg, Stdin(token_)).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("/proc/PID/cmdline"), absl::string_view::npos) << s;
  EXPECT_NE(s.message().find("--token-file"), absl::string_view::npos) << s;
  EXPECT_NE(s.message().find("skiff token create"), absl::string_view::npos) << s;
  EXPECT_EQ(s.message().find(token_), absl::string_view::npos) << s;
}

TEST_F(ReadJoinTokenTest, AFileMustBePrivateRegularAndSmall) {
  JoinTokenSource source;
  source.file = File("token", token_ + "\n", 0600);
  EXPECT_EQ(ReadJoinToken(source, Stdin("")).value(), token_);
  for (mode_t loose : {0644, 0640, 0604, 0620}) {
    source.file = File("loose", token_, loose);
    absl::Status s = ReadJoinToken(source, Stdin("")).status();
    EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << loose;
    EXPECT_NE(s.message().find("may be read or replaced by other users"), absl::string_view::npos)
        << s;
    EXPECT_NE(s.message().find(source.file), absl::string_view::npos) << s;
  }
  source.file = dir_ + "/link";
  ASSERT_EQ(symlink((dir_ + "/token").c_str(), source.file.c_str()), 0);
  EXPECT_NE(ReadJoinToken(source, Stdin("")).status().message().find("symbolic link"),
            absl::string_view::npos);
  source.file = dir_ + "/fifo";
  ASSERT_EQ(mkfifo(source.file.c_str(), 0600), 0);
  EXPECT_NE(ReadJoinToken(source, Stdin("")).status().message().find("not a regular file"),
            absl::string_view::npos);
  source.file = File("big", std::string(5000, 'a'), 0600);
  EXPECT_EQ(ReadJoinToken(source, Stdin("")).status().code(),
            absl::StatusCode::kFailedPrecondition);
  source.file = dir_ + "/none";
  EXPECT_EQ(ReadJoinToken(source, Stdin("")).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

// The node key proves the node and says where its controller is: only a
// private, regular file of the caller's is read.
TEST_F(ReadJoinTokenTest, ANodeKeyFileMustBePrivateAndRegular) {
  const NodeKeyFile file = SampleNodeKeyFile();
  const std::string path = File("node.key", FormatNodeKeyFile(file), 0600);
  EXPECT_EQ(ReadNodeKeyFile(path)->node_key, file.node_key);
  const std::string open_file = File("open.key", FormatNodeKeyFile(file), 0644);
  EXPECT_NE(
      ReadNodeKeyFile(open_file).status().message().find("may be read or replaced by other users"),
      absl::string_view::npos);
  ASSERT_EQ(symlink(path.c_str(), (dir_ + "/link.key").c_str()), 0);
  EXPECT_NE(ReadNodeKeyFile(dir_ + "/link.key").status().message().find("symbolic link"),
            absl::string_view::npos);
  EXPECT_NE(ReadNodeKeyFile(dir_ + "/none").status().message().find("did not join"),
            absl::string_view::npos);
}

TEST(AdminTest, TokenListShowsStates) {
  v1::ListJoinTokensReply reply;
  v1::JoinTokenInfo* t = reply.add_tokens();
  t->set_id("abcdef");
  t->set_state("used by n3");
  const std::string text = FormatTokenList(reply);
  EXPECT_EQ(text.substr(0, text.find('\n')).find("TOKEN"), 0u);
  EXPECT_NE(text.find("abcdef"), std::string::npos);
  EXPECT_NE(text.find("used by n3\n"), std::string::npos);
  EXPECT_EQ(ShortDuration(59), "59s");
  EXPECT_EQ(ShortDuration(3599), "59m");
  EXPECT_EQ(ShortDuration(7200), "2h");
  EXPECT_EQ(ShortDuration(3 * 86400), "3d");
}

}  // namespace
}  // namespace skiff::cli
