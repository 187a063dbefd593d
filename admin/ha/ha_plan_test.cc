#include "admin/ha/ha_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "admin/ha/bundle.h"
#include "common/config/config.h"

namespace skiff::cli::ha {
namespace {

using ::testing::HasSubstr;

Plan ThreeMachines() {
  return Plan{"lab",
              {{"head", "10.0.0.1", true}, {"standby", "10.0.0.2", true}, {"vote", "10.0.0.3"}},
              "skiff-lab-abc"};
}

absl::StatusOr<std::string> NoInclude(const std::string& path) { return absl::NotFoundError(path); }

TEST(HaPlanTest, MemberSpecsTakeNamesAndAddresses) {
  absl::StatusOr<Member> m = ParseMemberSpec("--standby", "standby(10.0.0.2)");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->name, "standby");
  EXPECT_EQ(m->addr, "10.0.0.2");
  EXPECT_EQ(ParseMemberSpec("--vote", "vote")->addr, "");
  EXPECT_EQ(std::string(ParseMemberSpec("--vote", "vote(").status().message()),
            "--vote 'vote(' is not NAME or NAME(ADDRESS)");
  EXPECT_FALSE(ParseMemberSpec("--vote", "a b").ok());
}

TEST(HaPlanTest, ThreeMembersEachOnceAndReachable) {
  EXPECT_TRUE(CheckPlan(ThreeMachines()).ok());
  Plan two = ThreeMachines();
  two.members.pop_back();
  EXPECT_THAT(std::string(CheckPlan(two).message()),
              HasSubstr("needs etcd on at least three machines"));
  Plan loopback = ThreeMachines();
  loopback.members[0].addr = "127.0.1.1";  // Debian's line for the host's own name
  EXPECT_EQ(std::string(CheckPlan(loopback).message()),
            "'head' is at 127.0.1.1, a loopback address the other machines cannot reach: give "
            "it as NAME(ADDRESS)");
  Plan twice = ThreeMachines();
  twice.members[2].addr = "10.0.0.2";
  EXPECT_THAT(std::string(CheckPlan(twice).message()), HasSubstr("given twice"));
  Plan unnamed = ThreeMachines();
  unnamed.members[2].addr = "";
  EXPECT_THAT(std::string(CheckPlan(unnamed).message()), HasSubstr("'vote' has no address"));
}

// The lines skiff.conf gains make a configuration ctld runs with a standby
// over TLS to etcd.
TEST(HaPlanTest, SkiffConfGainsTheStandbyAndEtcd) {
  const std::string text = "SlurmctldHost=head(10.0.0.1)\n" + SkiffConfLines(ThreeMachines(), "/r");
  absl::StatusOr<SkiffConfig> config = ParseSkiffConfig(text, "skiff.conf", NoInclude);
  ASSERT_TRUE(config.ok()) << config.status() << "\n" << text;
  EXPECT_TRUE(config->warnings.empty());
  ASSERT_EQ(config->ctld_hosts.size(), 2u);
  EXPECT_EQ(config->ctld_hosts[1].name, "standby");
  EXPECT_EQ(config->ctld_hosts[1].addr, "10.0.0.2");
  EXPECT_EQ(config->etcd_endpoints,
            (std::vector<std::string>{"10.0.0.1:2379", "10.0.0.2:2379", "10.0.0.3:2379"}));
  EXPECT_EQ(config->etcd_ca_file, "/r/etc/skiff/etcd/ca.crt");
  EXPECT_EQ(config->etcd_cert_file, "/r/etc/skiff/etcd/ctld.crt");
  EXPECT_EQ(config->etcd_key_file, "/r/etc/skiff/etcd/ctld.key");
}

TEST(HaPlanTest, EtcdSettingsNameEveryMemberOverTls) {
  const Plan plan = ThreeMachines();
  const std::string env = EtcdEnvText(plan, plan.members[2], "");
  EXPECT_THAT(env, HasSubstr("\nETCD_NAME=vote\n"));
  EXPECT_THAT(env, HasSubstr("\nETCD_DATA_DIR=/var/lib/etcd/skiff\n"));
  EXPECT_THAT(env, HasSubstr("\nETCD_LISTEN_CLIENT_URLS=https://10.0.0.3:2379\n"));
  EXPECT_THAT(env, HasSubstr("\nETCD_INITIAL_ADVERTISE_PEER_URLS=https://10.0.0.3:2380\n"));
  EXPECT_THAT(env, HasSubstr("\nETCD_INITIAL_CLUSTER=head=https://10.0.0.1:2380,"
                             "standby=https://10.0.0.2:2380,vote=https://10.0.0.3:2380\n"));
  EXPECT_THAT(env, HasSubstr("\nETCD_INITIAL_CLUSTER_TOKEN=skiff-lab-abc\n"));
  EXPECT_THAT(env, HasSubstr("\nETCD_CLIENT_CERT_AUTH=true\n"));
  EXPECT_THAT(env, HasSubstr("\nETCD_PEER_CLIENT_CERT_AUTH=true\n"));
  EXPECT_THAT(env, HasSubstr("\nETCD_PEER_KEY_FILE=/etc/skiff/etcd/member.key\n"));
  EXPECT_THAT(env, HasSubstr("\nETCD_AUTO_COMPACTION_MODE=revision\n"));
  EXPECT_THAT(EtcdDropInText(""), HasSubstr("\nEnvironmentFile=/etc/skiff/etcd/etcd.env\n"));
}

TEST(BundleTest, RoundTrips) {
  Bundle bundle{"standby",
                true,
                {{"/etc/skiff/etcd/member.key", 0400, "etcd", "KEY\nwith lines\n"},
                 {"/etc/munge/munge.key", 0400, "munge", std::string("\0\n\xff", 3)},
                 {"/etc/skiff/skiff.conf", 0644, "root", ""}}};
  absl::StatusOr<Bundle> back = DecodeBundle(EncodeBundle(bundle));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->host, "standby");
  EXPECT_TRUE(back->controller);
  ASSERT_EQ(back->files.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(back->files[i].path, bundle.files[i].path);
    EXPECT_EQ(back->files[i].mode, bundle.files[i].mode);
    EXPECT_EQ(back->files[i].owner, bundle.files[i].owner);
    EXPECT_EQ(back->files[i].content, bundle.files[i].content);
  }
}

TEST(BundleTest, RefusesWhatIsNotABundleOrWritesElsewhere) {
  EXPECT_THAT(std::string(DecodeBundle("hello\n").status().message()),
              HasSubstr("not a Skiff bundle"));
  auto with = [](const std::string& path, mode_t mode) {
    return EncodeBundle(Bundle{"vote", false, {{path, mode, "root", "x"}}});
  };
  EXPECT_TRUE(DecodeBundle(with("/etc/skiff/etcd/ca.crt", 0644)).ok());
  EXPECT_THAT(std::string(DecodeBundle(with("/etc/passwd", 0644)).status().message()),
              HasSubstr("/etc/passwd: a bundle writes only under"));
  EXPECT_FALSE(DecodeBundle(with("/etc/skiff/../passwd", 0644)).ok());
  EXPECT_THAT(std::string(DecodeBundle(with("/etc/skiff/x", 04755)).status().message()),
              HasSubstr("at most 0755"));
  EXPECT_THAT(std::string(DecodeBundle(with("/etc/skiff/x", 0666)).status().message()),
              HasSubstr("at most 0755"));
  std::string cut = with("/etc/skiff/x", 0644);
  cut.resize(cut.size() - 2);
  EXPECT_THAT(std::string(DecodeBundle(cut).status().message()), HasSubstr("not all there"));
}

}  // namespace
}  // namespace skiff::cli::ha
