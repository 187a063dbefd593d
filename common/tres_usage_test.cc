#include "common/tres_usage.h"

#include <algorithm>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace skiff {
namespace {

TEST(TresUsageTest, RunTresCountsTypedGpusInGresGpuAndUnderTheirType) {
  const TresCounts counts = RunTres(4, 2048, 2, 14.9, {{"a100", 2}, {"", 1}});
  EXPECT_EQ(EncodeTres(counts), "billing=14,cpu=4,gres/gpu=3,gres/gpu:a100=2,mem=2048,node=2");
}

TEST(TresUsageTest, RunTresLeavesOutMemAndGpusNotHeld) {
  EXPECT_EQ(EncodeTres(RunTres(1, 0, 1, 1, {})), "billing=1,cpu=1,node=1");
  EXPECT_EQ(EncodeTres(RunTres(1, 0, 1, 1, {{"v100", 0}})), "billing=1,cpu=1,node=1");
}

TEST(TresUsageTest, RunTresCountsShards) {
  EXPECT_EQ(EncodeTres(RunTres(1, 0, 1, 3, {}, 2)), "billing=3,cpu=1,gres/shard=2,node=1");
  EXPECT_EQ(EncodeTres(RunTres(1, 0, 1, 1, {}, 0, 50)), "billing=1,cpu=1,gres/mps=50,node=1");
}

TEST(TresUsageTest, DecodeReversesEncode) {
  const TresCounts counts = RunTres(3, 100, 1, 7, {{"t4", 1}});
  absl::StatusOr<TresCounts> back = DecodeTres(EncodeTres(counts));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, counts);
  EXPECT_TRUE(DecodeTres("")->empty());
}

TEST(TresUsageTest, DecodeRefusesMalformedEntries) {
  EXPECT_FALSE(DecodeTres("cpu").ok());
  EXPECT_FALSE(DecodeTres("=2").ok());
  EXPECT_FALSE(DecodeTres("cpu=two").ok());
  EXPECT_FALSE(DecodeTres("cpu=").ok());
}

TEST(TresUsageTest, SacctFormPrintsMemWithUnitsAndWholeCounts) {
  EXPECT_EQ(FormatTresForSacct(RunTres(2, 1024, 1, 2, {{"", 1}})),
            "billing=2,cpu=2,gres/gpu=1,mem=1G,node=1");
  EXPECT_EQ(FormatTresForSacct(RunTres(1, 100, 1, 1, {})), "billing=1,cpu=1,mem=100M,node=1");
}

TEST(TresUsageTest, UsageIsCountTimesSeconds) {
  TresCounts usage;
  // A 2-GPU job for 90 s: 180 GPU-seconds, 0.05 GPU-hours.
  AddTresUsage(RunTres(2, 0, 1, 2, {{"", 2}}), 90, &usage);
  AddTresUsage(RunTres(1, 0, 1, 1, {}), 10, &usage);
  EXPECT_DOUBLE_EQ(usage["gres/gpu"], 180);
  EXPECT_DOUBLE_EQ(usage["gres/gpu"] / 3600, 0.05);
  EXPECT_DOUBLE_EQ(usage["cpu"], 190);
  EXPECT_DOUBLE_EQ(usage["node"], 100);
}

TEST(TresUsageTest, SlurmOrderPutsBaseTresByIdThenTheRestByName) {
  std::vector<std::string> names = {"gres/gpu:a100", "node", "bb/lua", "billing",
                                    "gres/gpu",      "cpu",  "pages",  "mem"};
  std::sort(names.begin(), names.end(), TresBefore);
  EXPECT_EQ(names, (std::vector<std::string>{"cpu", "mem", "node", "billing", "pages", "bb/lua",
                                             "gres/gpu", "gres/gpu:a100"}));
}

}  // namespace
}  // namespace skiff
