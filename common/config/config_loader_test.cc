#include "common/config/config_loader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "absl/status/status.h"
#include "common/config/config_test_files.h"

namespace skiff {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;

using ::skiff::testing::MakeDir;
using ::skiff::testing::WriteFile;

std::string Message(const absl::Status& status) { return std::string(status.message()); }

TEST(LoadConfigTest, LoadsAllThreeFilesAndFollowsRelativeIncludes) {
  std::string dir = MakeDir("full");
  WriteFile(dir + "/skiff.conf",
            "ClusterName=loaded\n"
            "SlurmctldHost=head\n"
            "BurstBufferType=burst_buffer/lua\n"
            "Include nodes.d/nodes.conf\n"
            "PartitionName=all Nodes=ALL Default=YES\n");
  WriteFile(dir + "/nodes.d/nodes.conf", "NodeName=n[1-2] CPUs=8\nInclude gpu.conf\n");
  // Relative to nodes.d/nodes.conf, which includes it.
  WriteFile(dir + "/nodes.d/gpu.conf", "NodeName=g1 Gres=gpu:a100:2\n");
  WriteFile(dir + "/gres.conf", "NodeName=g1 Name=gpu Type=a100 File=/dev/nvidia[0-1]\n");
  WriteFile(dir + "/burst_buffer.conf", "Flags=PrivateData\nStageInTimeout=60\n");

  absl::StatusOr<LoadedConfig> loaded = LoadConfig(dir + "/skiff.conf");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->conf_path, dir + "/skiff.conf");
  EXPECT_EQ(loaded->conf_dir, dir);
  EXPECT_EQ(loaded->skiff.cluster_name, "loaded");
  ASSERT_EQ(loaded->skiff.nodes.size(), 3u);
  EXPECT_EQ(loaded->skiff.nodes[2].name, "g1");
  EXPECT_THAT(loaded->skiff.partitions.at(0).nodes, ElementsAre("n1", "n2", "g1"));
  ASSERT_EQ(loaded->gres.ForNode("g1").size(), 1u);
  EXPECT_EQ(loaded->gres.ForNode("g1")[0].count, 2);
  EXPECT_THAT(loaded->gres.ForNode("n1"), IsEmpty());
  ASSERT_TRUE(loaded->burst_buffer.has_value());
  EXPECT_TRUE(loaded->burst_buffer->HasFlag("PrivateData"));
  EXPECT_EQ(loaded->burst_buffer->stage_in_timeout, 60);
}

TEST(LoadConfigTest, OptionalFilesMayBeAbsent) {
  std::string dir = MakeDir("minimal");
  WriteFile(dir + "/skiff.conf", "SlurmctldHost=head\nNodeName=n1\n");
  absl::StatusOr<LoadedConfig> loaded = LoadConfig(dir + "/skiff.conf");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_THAT(loaded->gres.devices, IsEmpty());
  EXPECT_FALSE(loaded->burst_buffer.has_value());
}

TEST(LoadConfigTest, MissingSkiffConfIsNotFoundNamingThePath) {
  std::string dir = MakeDir("empty");
  absl::StatusOr<LoadedConfig> loaded = LoadConfig(dir + "/skiff.conf");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(Message(loaded.status()), HasSubstr(dir + "/skiff.conf"));
}

TEST(LoadConfigTest, ParseErrorsNameTheFullPathAndLine) {
  std::string dir = MakeDir("bad_gres");
  WriteFile(dir + "/skiff.conf", "SlurmctldHost=head\n");
  WriteFile(dir + "/gres.conf", "# gpus\nName=gpu File=/dev/nvidia[0-1] Count=3\n");
  absl::StatusOr<LoadedConfig> loaded = LoadConfig(dir + "/skiff.conf");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(loaded.status()), StartsWith(dir + "/gres.conf:2: Count: "));
}

TEST(LoadConfigTest, MissingIncludeIsReportedAtTheIncludeLine) {
  std::string dir = MakeDir("bad_include");
  WriteFile(dir + "/skiff.conf", "SlurmctldHost=head\nInclude nowhere.conf\n");
  absl::StatusOr<LoadedConfig> loaded = LoadConfig(dir + "/skiff.conf");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(Message(loaded.status()),
              StartsWith(dir + "/skiff.conf:2: Include: cannot read '" + dir + "/nowhere.conf'"));
}

TEST(LoadConfigTest, LoadsCgroupConfAndGathersEveryFilesWarnings) {
  std::string dir = MakeDir("warnings");
  WriteFile(dir + "/skiff.conf",
            "SlurmctldHost=head\nMessageTimeout=300\nGresTypes=gpu\nNodeName=g1 CPUs=8 "
            "Gres=gpu:2\n");
  WriteFile(dir + "/gres.conf",
            "NodeName=g1 Name=gpu File=/dev/nvidia[0-1]\nNodeName=g1 Name=nic Count=1\n");
  WriteFile(dir + "/burst_buffer.conf", "Mystery=1\n");
  WriteFile(dir + "/cgroup.conf", "ConstrainCores=yes\nCgroupAutomount=yes\n");

  absl::StatusOr<LoadedConfig> loaded = LoadConfig(dir + "/skiff.conf");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_TRUE(loaded->cgroup.has_value());
  EXPECT_TRUE(loaded->cgroup->constrain_cores);
  // The nic line is dropped: nic is not in GresTypes.
  ASSERT_EQ(loaded->gres.ForNode("g1").size(), 1u);
  EXPECT_THAT(loaded->warnings,
              ElementsAre(StartsWith(dir + "/skiff.conf:2: MessageTimeout: "),
                          StartsWith(dir + "/gres.conf:2: Name: 'nic' is not in GresTypes"),
                          StartsWith(dir + "/burst_buffer.conf:1: Mystery: "),
                          StartsWith(dir + "/cgroup.conf:2: CgroupAutomount: ")));
}

TEST(LoadConfigTest, CgroupConfMayBeAbsentButNotWrong) {
  std::string dir = MakeDir("cgroup");
  WriteFile(dir + "/skiff.conf", "SlurmctldHost=head\n");
  absl::StatusOr<LoadedConfig> loaded = LoadConfig(dir + "/skiff.conf");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_FALSE(loaded->cgroup.has_value());
  EXPECT_THAT(loaded->warnings, IsEmpty());

  WriteFile(dir + "/cgroup.conf", "# limits\nConstrainRAMSpace=yes\nAllowedRAMSpace=0\n");
  loaded = LoadConfig(dir + "/skiff.conf");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(Message(loaded.status()),
            dir + "/cgroup.conf:3: AllowedRAMSpace: '0' must be greater than 0 (percent)");
}

TEST(LoadConfigTest, GresConfIsCheckedAgainstSkiffConfNodes) {
  std::string dir = MakeDir("gres_nodes");
  WriteFile(dir + "/skiff.conf", "SlurmctldHost=head\nNodeName=gpu[01-02] Gres=gpu:2\n");
  WriteFile(dir + "/gres.conf", "NodeName=gpu[01-03] Name=gpu File=/dev/nvidia[0-1]\n");
  absl::StatusOr<LoadedConfig> loaded = LoadConfig(dir + "/skiff.conf");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Message(loaded.status()),
            dir +
                "/gres.conf:1: NodeName: 'gpu03' is not a node in skiff.conf (add a NodeName "
                "line for it there, or fix this list)");
}

// Skiff's Flags=fence on a node's shard line marks that node alone.
TEST(LoadConfigTest, FenceOnAShardLineMarksItsNodes) {
  std::string dir = MakeDir("gres_fence");
  WriteFile(dir + "/skiff.conf",
            "SlurmctldHost=head\nGresTypes=gpu,shard\nNodeName=g[1-2] Gres=gpu:2,shard:8\n");
  WriteFile(dir + "/gres.conf",
            "NodeName=g1 Name=shard Count=8 Flags=fence\nNodeName=g2 Name=shard Count=8\n");
  absl::StatusOr<LoadedConfig> loaded = LoadConfig(dir + "/skiff.conf");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_EQ(loaded->skiff.nodes.size(), 2u);
  EXPECT_TRUE(loaded->skiff.nodes[0].gpu_shares_fenced);
  EXPECT_FALSE(loaded->skiff.nodes[1].gpu_shares_fenced);
}

// Shard lines with File= give each GPU its own count (Slurm's per-GPU
// counts); a GPU no line names has none, and a file no GPU has is refused.
TEST(LoadConfigTest, ShardLinesWithFilesCountPerGpu) {
  std::string dir = MakeDir("gres_shard_files");
  WriteFile(dir + "/skiff.conf",
            "SlurmctldHost=head\nGresTypes=gpu,shard\nNodeName=g1 Gres=gpu:3,shard:8\n");
  WriteFile(dir + "/gres.conf",
            "NodeName=g1 Name=gpu File=/dev/nvidia[0-2]\n"
            "NodeName=g1 Name=shard Count=6 File=/dev/nvidia0\n"
            "NodeName=g1 Name=shard Count=2 File=/dev/nvidia2\n");
  absl::StatusOr<LoadedConfig> loaded = LoadConfig(dir + "/skiff.conf");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_THAT(loaded->skiff.nodes[0].gpu_share_counts, ElementsAre(6, 0, 2));

  WriteFile(dir + "/gres.conf",
            "NodeName=g1 Name=gpu File=/dev/nvidia[0-2]\n"
            "NodeName=g1 Name=shard Count=8 File=/dev/nvidia7\n");
  loaded = LoadConfig(dir + "/skiff.conf");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(Message(loaded.status()),
            dir +
                "/gres.conf:2: File: '/dev/nvidia7' is not a GPU of NodeName=g1 (its "
                "Name=gpu File= lines): a shard count belongs to one of its GPUs");

  // Without the GPUs' files (AutoDetect): spread evenly, with a warning.
  WriteFile(dir + "/gres.conf",
            "AutoDetect=nvml\nNodeName=g1 Name=shard Count=8 File=/dev/nvidia0\n");
  loaded = LoadConfig(dir + "/skiff.conf");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_THAT(loaded->skiff.nodes[0].gpu_share_counts, IsEmpty());
  EXPECT_THAT(loaded->gres.warnings, ElementsAre(HasSubstr("spread evenly")));
}

TEST(ReadFileToStringTest, ReadsWholeFileAndNamesMissingPath) {
  std::string dir = MakeDir("read");
  std::string big(200000, 'x');
  WriteFile(dir + "/big", big);
  absl::StatusOr<std::string> text = ReadFileToString(dir + "/big");
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, big);

  absl::StatusOr<std::string> missing = ReadFileToString(dir + "/missing");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(Message(missing.status()), HasSubstr(dir + "/missing"));

  EXPECT_FALSE(ReadFileToString(dir).ok());  // a directory is not a file
}

TEST(ResolveConfPathTest, PrefersExplicitPathThenSkiffConfThenDefault) {
  unsetenv("SKIFF_CONF");
  EXPECT_EQ(ResolveConfPath(""), kDefaultConfPath);
  EXPECT_EQ(ResolveConfPath("/x/skiff.conf"), "/x/skiff.conf");

  setenv("SKIFF_CONF", "/from/env/skiff.conf", 1);
  EXPECT_EQ(ResolveConfPath(""), "/from/env/skiff.conf");
  EXPECT_EQ(ResolveConfPath("/x/skiff.conf"), "/x/skiff.conf");

  setenv("SKIFF_CONF", "", 1);  // set but empty counts as unset
  EXPECT_EQ(ResolveConfPath(""), kDefaultConfPath);
  unsetenv("SKIFF_CONF");
}

}  // namespace
}  // namespace skiff
