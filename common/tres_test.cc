#include "common/tres.h"

#include <gtest/gtest.h>

namespace skiff {
namespace {

TEST(ParseTres, ReadsEveryKnownTresInAnyOrder) {
  absl::StatusOr<TresLimits> limits = ParseTres("cpu=4,gres/gpu=4,mem=10G,node=2");
  ASSERT_TRUE(limits.ok()) << limits.status();
  EXPECT_EQ(limits->cpu, 4);
  EXPECT_EQ(limits->mem_mb, 10240);
  EXPECT_EQ(limits->node, 2);
  EXPECT_EQ(limits->gpu, 4);
}

TEST(ParseTres, LeavesUnnamedTresUnset) {
  TresLimits limits = *ParseTres("cpu=4");
  EXPECT_EQ(limits.cpu, 4);
  EXPECT_FALSE(limits.mem_mb.has_value());
  EXPECT_FALSE(limits.node.has_value());
  EXPECT_FALSE(limits.gpu.has_value());
}

TEST(ParseTres, MemorySuffixesDefaultToMebibytes) {
  EXPECT_EQ(ParseTres("mem=500")->mem_mb, 500);
  EXPECT_EQ(ParseTres("mem=500M")->mem_mb, 500);
  EXPECT_EQ(ParseTres("mem=2g")->mem_mb, 2048);
  EXPECT_EQ(ParseTres("mem=1T")->mem_mb, 1048576);
  EXPECT_EQ(ParseTres("mem=2048K")->mem_mb, 2);
  EXPECT_EQ(ParseTres("mem=1K")->mem_mb, 1);  // rounds up to a whole MiB
}

TEST(ParseTres, MinusOneClears) {
  TresLimits limits = *ParseTres("cpu=-1,mem=-1,gres/gpu=-1");
  EXPECT_EQ(limits.cpu, kTresClear);
  EXPECT_EQ(limits.mem_mb, kTresClear);
  EXPECT_EQ(limits.gpu, kTresClear);
}

TEST(ParseTres, NamesAreCaseInsensitiveAndLaterEntriesWin) {
  TresLimits limits = *ParseTres(" CPU=2 , cpu=8,Gres/GPU=1 ");
  EXPECT_EQ(limits.cpu, 8);
  EXPECT_EQ(limits.gpu, 1);
}

TEST(ParseTres, UnknownNameIsNamedInTheError) {
  absl::StatusOr<TresLimits> limits = ParseTres("cpu=1,gres/fpga=2");
  ASSERT_FALSE(limits.ok());
  EXPECT_EQ(limits.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(limits.status().message().find("'gres/fpga'"), absl::string_view::npos)
      << limits.status();
}

TEST(ParseTres, RejectsMalformedValues) {
  for (const char* bad : {"", " ", ",", "cpu", "cpu=", "cpu=x", "cpu=-2", "cpu=1.5", "mem=10X",
                          "mem=G", "node=99999999999999999999999"}) {
    EXPECT_FALSE(ParseTres(bad).ok()) << bad;
  }
}

TEST(FormatTres, UsesSlurmsOrderAndMemoryUnits) {
  TresLimits limits;
  limits.gpu = 4;
  limits.node = 2;
  limits.mem_mb = 10240;
  limits.cpu = 4;
  EXPECT_EQ(FormatTres(limits), "cpu=4,mem=10G,node=2,gres/gpu=4");
  limits = TresLimits();
  limits.mem_mb = 1536;
  EXPECT_EQ(FormatTres(limits), "mem=1536M");
}

TEST(FormatTres, LeavesOutUnsetAndClearedLimits) {
  EXPECT_EQ(FormatTres(TresLimits()), "");
  TresLimits limits;
  limits.cpu = kTresClear;
  limits.node = 3;
  EXPECT_EQ(FormatTres(limits), "node=3");
}

TEST(FormatTres, RoundTripsThroughParse) {
  for (const char* text : {"cpu=4", "cpu=4,mem=10G,node=2,gres/gpu=4", "mem=1536M", "node=0"}) {
    EXPECT_EQ(FormatTres(*ParseTres(text)), text);
  }
}

}  // namespace
}  // namespace skiff
