#include <gtest/gtest.h>

#include "admin/init_command.h"
#include "admin/join_command.h"
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
  EXPECT_EQ(config->slurmctld_parameters.at("join_port"), "6820");
  EXPECT_EQ(config->slurmctld_parameters.count("enable_configless"), 1u);
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
  EXPECT_NE(text.find("  skiff join head:6820 --token " + reply.token() + "\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("(60m)"), std::string::npos) << text;
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
