#include "common/billing.h"

#include <gtest/gtest.h>

namespace skiff {
namespace {

TEST(Billing, WithoutWeightsItIsTheCpuCount) {
  BillingWeights none = *ParseBillingWeights("");
  EXPECT_FALSE(none.set);
  EXPECT_DOUBLE_EQ(Billing(none, 4, 8192, 2, 1), 4.0);
}

TEST(Billing, WeightsSumCpuMemoryGpusAndNodes) {
  BillingWeights w = *ParseBillingWeights("CPU=1.0,Mem=0.25G,GRES/gpu=10");
  // 2 CPUs + 8 GiB x 0.25 + 1 GPU x 10
  EXPECT_DOUBLE_EQ(Billing(w, 2, 8192, 1, 1), 2.0 + 2.0 + 10.0);
  BillingWeights per_mib = *ParseBillingWeights("mem=0.001,node=5");
  EXPECT_DOUBLE_EQ(Billing(per_mib, 4, 1000, 0, 2), 1.0 + 10.0);
  EXPECT_DOUBLE_EQ(BillingMinutes(3.0, 120), 6.0);
}

TEST(Billing, AShardBillsItsOwnWeight) {
  BillingWeights w = *ParseBillingWeights("CPU=1.0,GRES/gpu=8,GRES/shard=2");
  EXPECT_DOUBLE_EQ(Billing(w, 1, 0, 0, 1, 1), 1.0 + 2.0);
  EXPECT_DOUBLE_EQ(Billing(w, 1, 0, 1, 1, 0), 1.0 + 8.0);
  BillingWeights mps = *ParseBillingWeights("CPU=1.0,GRES/mps=0.08");
  EXPECT_DOUBLE_EQ(Billing(mps, 1, 0, 0, 1, 0, 50), 1.0 + 4.0);
}

TEST(Billing, BadEntriesNameThemselves) {
  EXPECT_EQ(ParseBillingWeights("CPU").status().message(),
            "TRESBillingWeights: 'CPU' is not NAME=WEIGHT");
  EXPECT_EQ(ParseBillingWeights("CPU=x").status().message(),
            "TRESBillingWeights: 'CPU=x' has no valid weight");
  EXPECT_EQ(ParseBillingWeights("Licenses=2").status().message(),
            "TRESBillingWeights: unknown TRES 'Licenses' (CPU, Mem, Node, GRES/gpu, GRES/shard, "
            "GRES/mps)");
}

}  // namespace
}  // namespace skiff
