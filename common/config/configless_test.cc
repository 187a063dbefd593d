#include "common/config/configless.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/config/config_loader.h"
#include "common/config/config_test_files.h"

namespace skiff {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace fs = std::filesystem;

using ::skiff::testing::MakeDir;
using ::skiff::testing::WriteFile;

constexpr char kSkiffConf[] =
    "SlurmctldHost=ctl(127.0.0.1)\n"
    "SlurmctldParameters=enable_configless\n"
    "GresTypes=gpu\n"
    "Include nodes.conf\n"
    "PartitionName=debug Nodes=n1 Default=YES\n";
constexpr char kNodesConf[] = "NodeName=n1 CPUs=2 Gres=gpu:2\n";
constexpr char kGresConf[] = "NodeName=n1 Name=gpu File=/dev/nvidia[0-1]\n";

// --- --conf-server HOST[:PORT] ---

TEST(ParseConfServer, HostAloneTakesTheDefaultPort) {
  EXPECT_EQ(*ParseConfServer("ctl01", 6817), "ctl01:6817");
}

TEST(ParseConfServer, HostAndPort) {
  EXPECT_EQ(*ParseConfServer("10.0.0.1:7000", 6817), "10.0.0.1:7000");
}

TEST(ParseConfServer, BracketedIpv6WithAndWithoutPort) {
  EXPECT_EQ(*ParseConfServer("[::1]:7000", 6817), "[::1]:7000");
  EXPECT_EQ(*ParseConfServer("[fe80::1]", 6817), "[fe80::1]:6817");
}

TEST(ParseConfServer, RefusesWhatIsNotHostPort) {
  for (const char* bad :
       {"", ":6817", "ctl:", "ctl:0", "ctl:65536", "ctl:x", "::1", "[::1", "[::1]x", "[]:1"}) {
    absl::StatusOr<std::string> parsed = ParseConfServer(bad, 6817);
    EXPECT_FALSE(parsed.ok()) << bad;
    EXPECT_THAT(std::string(parsed.status().message()), HasSubstr("HOST[:PORT]")) << bad;
  }
}

// --- --conf-server HOST[:PORT],HOST[:PORT] (Slurm's list) ---

TEST(ParseConfServers, OneAddressIsAListOfOne) {
  EXPECT_THAT(*ParseConfServers("ctl01", 6817), ElementsAre("ctl01:6817"));
}

TEST(ParseConfServers, EachEntryInOrderWithItsOwnPort) {
  EXPECT_THAT(*ParseConfServers("a,b:7000,[::1]:6817", 6817),
              ElementsAre("a:6817", "b:7000", "[::1]:6817"));
  EXPECT_THAT(*ParseConfServers("head:7000, standby:7000", 6817),
              ElementsAre("head:7000", "standby:7000"));
}

TEST(ParseConfServers, ARepeatedEntryIsTriedOnce) {
  EXPECT_THAT(*ParseConfServers("a,b,a:6817", 6817), ElementsAre("a:6817", "b:6817"));
}

TEST(ParseConfServers, OneBadAddressKeepsParseConfServersError) {
  absl::StatusOr<std::vector<std::string>> parsed = ParseConfServers("ctl:x", 6817);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().message(),
            "--conf-server 'ctl:x': port 'x' is not 1 to 65535 (expected HOST[:PORT])");
}

TEST(ParseConfServers, RefusesABadEntryNamingTheFlagAndTheEntry) {
  struct Case {
    const char* list;
    const char* message;
  };
  for (const Case& c : std::vector<Case>{
           {"a,,b",
            "--conf-server 'a,,b': entry 2 is empty (expected HOST[:PORT][,HOST[:PORT]...])"},
           {"a,", "--conf-server 'a,': entry 2 is empty (expected HOST[:PORT][,HOST[:PORT]...])"},
           {"a,b:0",
            "--conf-server 'a,b:0': entry 2 'b:0': port '0' is not 1 to 65535 (expected "
            "HOST[:PORT][,HOST[:PORT]...])"},
           {"::1,b",
            "--conf-server '::1,b': entry 1 '::1': an IPv6 address needs brackets "
            "(expected HOST[:PORT][,HOST[:PORT]...])"},
           {"a,[::1",
            "--conf-server 'a,[::1': entry 2 '[::1': no closing ] (expected "
            "HOST[:PORT][,HOST[:PORT]...])"},
       }) {
    absl::StatusOr<std::vector<std::string>> parsed = ParseConfServers(c.list, 6817);
    ASSERT_FALSE(parsed.ok()) << c.list;
    EXPECT_TRUE(absl::IsInvalidArgument(parsed.status())) << c.list;
    EXPECT_EQ(parsed.status().message(), c.message);
  }
}

TEST(MergeControllerTargets, TheFirstListThenWhatTheSecondAdds) {
  EXPECT_THAT(MergeControllerTargets({"head:6817"}, {"head:6817", "standby:6817"}),
              ElementsAre("head:6817", "standby:6817"));
  EXPECT_THAT(MergeControllerTargets({"", "b:1", "a:1"}, {"a:1", "c:1", ""}),
              ElementsAre("b:1", "a:1", "c:1"));
  EXPECT_TRUE(MergeControllerTargets({}, {}).empty());
}

// --- DNS SRV answers ---

void Put16(std::vector<unsigned char>& out, int value) {
  out.push_back(static_cast<unsigned char>(value >> 8));
  out.push_back(static_cast<unsigned char>(value & 0xff));
}

void PutName(std::vector<unsigned char>& out, const std::string& dotted) {
  size_t start = 0;
  while (start < dotted.size()) {
    size_t dot = dotted.find('.', start);
    if (dot == std::string::npos) dot = dotted.size();
    out.push_back(static_cast<unsigned char>(dot - start));
    out.insert(out.end(), dotted.begin() + start, dotted.begin() + dot);
    start = dot + 1;
  }
  out.push_back(0);
}

struct Srv {
  int priority, weight, port;
  std::string target;
};

// A DNS reply to "_skiffctld._tcp.lab.example IN SRV" with `answers`.
std::vector<unsigned char> SrvReply(const std::vector<Srv>& answers) {
  std::vector<unsigned char> m;
  Put16(m, 0x1234);  // id
  Put16(m, 0x8180);  // response, recursion desired and available
  Put16(m, 1);       // questions
  Put16(m, static_cast<int>(answers.size()));
  Put16(m, 0);
  Put16(m, 0);
  PutName(m, "_skiffctld._tcp.lab.example");
  Put16(m, 33);  // SRV
  Put16(m, 1);   // IN
  for (const Srv& srv : answers) {
    Put16(m, 0xc00c);  // the question's name
    Put16(m, 33);
    Put16(m, 1);
    Put16(m, 0);
    Put16(m, 300);  // TTL
    std::vector<unsigned char> rdata;
    Put16(rdata, srv.priority);
    Put16(rdata, srv.weight);
    Put16(rdata, srv.port);
    PutName(rdata, srv.target);
    Put16(m, static_cast<int>(rdata.size()));
    m.insert(m.end(), rdata.begin(), rdata.end());
  }
  return m;
}

TEST(ParseSrvAnswer, ReadsEveryRecord) {
  std::vector<unsigned char> reply =
      SrvReply({{10, 5, 6817, "ctl1.lab.example"}, {20, 0, 7000, "ctl2.lab.example"}});
  absl::StatusOr<std::vector<SrvRecord>> records =
      ParseSrvAnswer(reply.data(), static_cast<int>(reply.size()));
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(records->size(), 2u);
  EXPECT_EQ((*records)[0].priority, 10);
  EXPECT_EQ((*records)[0].weight, 5);
  EXPECT_EQ((*records)[0].port, 6817);
  EXPECT_EQ((*records)[0].target, "ctl1.lab.example");
  EXPECT_EQ((*records)[1].target, "ctl2.lab.example");
  EXPECT_EQ((*records)[1].port, 7000);
}

TEST(ParseSrvAnswer, RefusesATruncatedReply) {
  std::vector<unsigned char> reply = SrvReply({{10, 5, 6817, "ctl1.lab.example"}});
  reply.resize(reply.size() - 4);
  EXPECT_FALSE(ParseSrvAnswer(reply.data(), static_cast<int>(reply.size())).ok());
  EXPECT_FALSE(ParseSrvAnswer(reply.data(), 0).ok());
}

TEST(SrvTargetsInOrder, LowestPriorityFirstThenHighestWeight) {
  std::vector<SrvRecord> records = {
      {20, 100, 1, "backup"}, {10, 1, 2, "light"}, {10, 9, 3, "heavy"}, {20, 100, 4, "later"}};
  EXPECT_THAT(*SrvTargetsInOrder(records),
              ElementsAre("heavy:3", "light:2", "backup:1", "later:4"));
}

TEST(SrvTargetsInOrder, LeavesOutDotAndRepeats) {
  EXPECT_THAT(*SrvTargetsInOrder({{0, 0, 6817, ""}, {1, 0, 6817, "a"}, {2, 0, 6817, "a"}}),
              ElementsAre("a:6817"));
}

TEST(SrvTargetsInOrder, NoneOrOnlyDotIsNotFound) {
  EXPECT_TRUE(absl::IsNotFound(SrvTargetsInOrder({}).status()));
  EXPECT_TRUE(absl::IsNotFound(SrvTargetsInOrder({{0, 0, 6817, ""}}).status()));
}

// --- what ctld serves ---

TEST(ServableConfigFiles, ServesEveryFileReadInTheDirectoryWithItsIncludes) {
  const std::string dir = MakeDir("servable");
  WriteFile(dir + "/skiff.conf", kSkiffConf);
  WriteFile(dir + "/nodes.conf", kNodesConf);
  WriteFile(dir + "/gres.conf", kGresConf);
  WriteFile(dir + "/munge.key", "secret");  // never read by the loader, never served
  absl::StatusOr<LoadedConfig> loaded = LoadConfig(dir + "/skiff.conf");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  std::vector<std::string> skipped;
  ConfigFileSet set = ServableConfigFiles(*loaded, &skipped);
  std::vector<std::string> names;
  for (const ConfigFile& file : set.files) names.push_back(file.name);
  EXPECT_THAT(names, ElementsAre("gres.conf", "nodes.conf", "skiff.conf"));
  EXPECT_TRUE(skipped.empty());
  EXPECT_EQ(set.files[1].text, kNodesConf);
  EXPECT_EQ(set.hash, ConfigHash(set.files));
}

TEST(ServableConfigFiles, LeavesOutAFileOutsideTheDirectory) {
  const std::string dir = MakeDir("servable_outside");
  const std::string other = MakeDir("servable_elsewhere");
  WriteFile(other + "/nodes.conf", kNodesConf);
  std::string conf = kSkiffConf;
  conf.replace(conf.find("Include nodes.conf"), 18, "Include " + other + "/nodes.conf");
  WriteFile(dir + "/skiff.conf", conf);
  absl::StatusOr<LoadedConfig> loaded = LoadConfig(dir + "/skiff.conf");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  std::vector<std::string> skipped;
  ConfigFileSet set = ServableConfigFiles(*loaded, &skipped);
  ASSERT_EQ(set.files.size(), 1u);
  EXPECT_EQ(set.files[0].name, "skiff.conf");
  EXPECT_THAT(skipped, ElementsAre(other + "/nodes.conf"));
}

TEST(ConfigHash, ChangesWithATextOrANameNotWithOrder) {
  std::vector<ConfigFile> a = {{"skiff.conf", "A=1\n"}, {"gres.conf", "x\n"}};
  std::vector<ConfigFile> reordered = {a[1], a[0]};
  std::vector<ConfigFile> edited = {{"skiff.conf", "A=2\n"}, {"gres.conf", "x\n"}};
  std::vector<ConfigFile> renamed = {{"skiff.conf", "A=1\n"}, {"cgroup.conf", "x\n"}};
  EXPECT_EQ(ConfigHash(a), ConfigHash(reordered));
  EXPECT_NE(ConfigHash(a), ConfigHash(edited));
  EXPECT_NE(ConfigHash(a), ConfigHash(renamed));
  EXPECT_EQ(ConfigHash(a).size(), 16u);
}

TEST(CheckConfigFileName, RefusesNamesThatLeaveTheCache) {
  EXPECT_TRUE(CheckConfigFileName("skiff.conf").ok());
  EXPECT_TRUE(CheckConfigFileName("nodes/gpu.conf").ok());
  for (const char* bad :
       {"", "/etc/passwd", "../x", "a/../../x", "a//b", "./a", ".manifest", "a\nb"}) {
    EXPECT_FALSE(CheckConfigFileName(bad).ok()) << bad;
  }
}

// --- the node's cache ---

TEST(ConfigCache, WritesAndReadsBackTheSameFilesAndHash) {
  const std::string dir = MakeDir("cache_roundtrip") + "/conf-cache";
  ConfigFileSet set;
  set.files = {{"gres.conf", kGresConf}, {"nodes.conf", kNodesConf}, {"skiff.conf", kSkiffConf}};
  set.hash = ConfigHash(set.files);
  ASSERT_TRUE(WriteConfigCache(dir, set).ok());
  absl::StatusOr<ConfigFileSet> read = ReadConfigCache(dir);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->hash, set.hash);
  ASSERT_EQ(read->files.size(), 3u);
  EXPECT_EQ(read->files[2].text, kSkiffConf);
  // And the loader reads the cache as a config directory, Include and all.
  absl::StatusOr<LoadedConfig> loaded = LoadConfig(dir + "/skiff.conf");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_NE(loaded->skiff.FindNode("n1"), nullptr);
  EXPECT_EQ(loaded->gres.ForNode("n1").size(), 1u);  // one line, two files
}

TEST(ConfigCache, ANewCopyReplacesTheOldAndDropsFilesNoLongerServed) {
  const std::string dir = MakeDir("cache_replace");
  ConfigFileSet first;
  first.files = {{"gres.conf", kGresConf}, {"skiff.conf", "A=1\n"}};
  first.hash = ConfigHash(first.files);
  ASSERT_TRUE(WriteConfigCache(dir, first).ok());
  ConfigFileSet second;
  second.files = {{"skiff.conf", "A=2\n"}};
  second.hash = ConfigHash(second.files);
  ASSERT_TRUE(WriteConfigCache(dir, second).ok());
  absl::StatusOr<ConfigFileSet> read = ReadConfigCache(dir);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->hash, second.hash);
  EXPECT_FALSE(fs::exists(dir + "/gres.conf"));
  for (const auto& entry : fs::directory_iterator(dir)) {
    EXPECT_EQ(entry.path().string().find(".tmp."), std::string::npos) << entry.path();
  }
}

TEST(ConfigCache, AnEmptyDirectoryIsNotFound) {
  const std::string dir = MakeDir("cache_empty");
  EXPECT_TRUE(absl::IsNotFound(ReadConfigCache(dir).status()));
  EXPECT_TRUE(absl::IsNotFound(ReadConfigCache(dir + "/missing").status()));
}

// --- commands: the fetched files loaded from memory ---

TEST(LoadConfigFromMemory, LoadsFetchedFilesWithIncludes) {
  absl::StatusOr<LoadedConfig> loaded =
      LoadConfigFromMemory("/ctld@ctl:6817", {{"/ctld@ctl:6817/skiff.conf", kSkiffConf},
                                              {"/ctld@ctl:6817/nodes.conf", kNodesConf},
                                              {"/ctld@ctl:6817/gres.conf", kGresConf}});
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->skiff.ctld_addr, "127.0.0.1");
  EXPECT_NE(loaded->skiff.FindNode("n1"), nullptr);
  EXPECT_TRUE(loaded->skiff.slurmctld_parameters.enable_configless);
}

TEST(LoadConfigFromMemory, AMissingIncludeNamesIt) {
  absl::StatusOr<LoadedConfig> loaded =
      LoadConfigFromMemory("/ctld@ctl:6817", {{"/ctld@ctl:6817/skiff.conf", kSkiffConf}});
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(std::string(loaded.status().message()), HasSubstr("nodes.conf"));
}

}  // namespace
}  // namespace skiff
