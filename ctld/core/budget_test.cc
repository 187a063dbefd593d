#include "ctld/core/budget.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace skiff::ctld {
namespace {

TEST(Budget, OnlyTheTresALimitNamesCount) {
  TresMinutes limit = kNoBudget;
  limit.gpu = 600;  // GrpTRESMins=gres/gpu=600
  const TresMinutes used{5000, 9000, 0, 0, 500};
  EXPECT_EQ(OverBudget(limit, used, TresMinutes{0, 0, 0, 0, 100}), std::nullopt);  // exactly 600
  EXPECT_EQ(OverBudget(limit, used, TresMinutes{0, 0, 0, 0, 101}), BudgetTres::kGpu);
  // Billing and CPUs are unlimited here, however much is used.
  EXPECT_EQ(OverBudget(limit, used, TresMinutes{1e9, 1e9, 0, 0, 0}), std::nullopt);
  EXPECT_EQ(OverBudget(kNoBudget, used, used), std::nullopt);
  EXPECT_FALSE(NamesAnyTres(kNoBudget));
  EXPECT_TRUE(NamesAnyTres(limit));
}

TEST(Budget, AJobWithoutATimeLimitNeverFitsALimitedTres) {
  TresMinutes limit = kNoBudget;
  limit.billing = 1e12;
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(OverBudget(limit, {}, TresMinutes{inf, inf, inf, inf, inf}), BudgetTres::kBilling);
}

TEST(Budget, RunMinutesAreAllocationTimesTime) {
  // A 2-GPU, 4-CPU, 1000 MB, 1-node job billing 10 for 90 s.
  const TresMinutes run = RunMinutes(10, 4, 1000, 1, 2, 90);
  EXPECT_DOUBLE_EQ(run.gpu, 3.0);  // 0.05 GPU-hours
  EXPECT_DOUBLE_EQ(run.cpu, 6.0);
  EXPECT_DOUBLE_EQ(run.mem, 1500.0);
  EXPECT_DOUBLE_EQ(run.node, 1.5);
  EXPECT_DOUBLE_EQ(run.billing, 15.0);
  EXPECT_EQ(run + run, run * 2);
}

TEST(Budget, NamesAndReasonsAreSlurms) {
  EXPECT_STREQ(BudgetTresName(BudgetTres::kGpu), "gres/gpu");
  EXPECT_STREQ(AssocGrpMinutesReason(BudgetTres::kGpu), "AssocGrpGRESMinutes");
  EXPECT_STREQ(AssocGrpMinutesReason(BudgetTres::kCpu), "AssocGrpCPUMinutesLimit");
  EXPECT_STREQ(AssocGrpMinutesReason(BudgetTres::kBilling), "AssocGrpBillingMinutes");
  EXPECT_STREQ(MinutesLimitReason(MinutesLimit::kAssocGrpRunMins, BudgetTres::kGpu),
               "AssocGrpGRESRunMinutes");
  EXPECT_STREQ(MinutesLimitReason(MinutesLimit::kQosGrpRunMins, BudgetTres::kCpu),
               "QOSGrpCPURunMinutesLimit");
  EXPECT_STREQ(MinutesLimitReason(MinutesLimit::kQosMaxRunMinsPerUser, BudgetTres::kGpu),
               "MaxGRESRunMinsPerUser");
  EXPECT_STREQ(MinutesLimitReason(MinutesLimit::kQosMaxMinsPerJob, BudgetTres::kMem),
               "QOSMaxMemoryMinutesPerJob");
}

TEST(Budget, MinutesOverATimeLimitAndWithoutOne) {
  const TresMinutes per_minute{0, 4, 0, 1, 2};
  const TresMinutes half_hour = MinutesOver(per_minute, 1800);
  EXPECT_DOUBLE_EQ(half_hour.gpu, 60.0);
  EXPECT_DOUBLE_EQ(half_hour.cpu, 120.0);
  EXPECT_DOUBLE_EQ(half_hour.mem, 0.0);
  // Without end: infinite only in what it holds, so a limit on another TRES passes.
  const TresMinutes forever = MinutesOver(per_minute, -1);
  EXPECT_TRUE(std::isinf(forever.gpu));
  EXPECT_EQ(forever.mem, 0.0);
  EXPECT_FALSE(OverBudget(TresMinutes{-1, -1, 100, -1, -1}, {}, forever).has_value());
  EXPECT_EQ(OverBudget(TresMinutes{-1, -1, -1, -1, 100}, {}, forever), BudgetTres::kGpu);
}

TEST(BankKey, RecordKeysAreTheStoredSpellings) {
  EXPECT_EQ(BankKey::Of(AssocKey::Account("lab")).RecordKey(), "lab");
  EXPECT_EQ(BankKey::Of(AssocKey{"lab", "alice", "gpu"}).RecordKey(), "lab|alice");
  EXPECT_EQ(BankKey::OfQos("normal").RecordKey(), "qos=normal");
  for (const BankKey& key :
       {BankKey::Of(AssocKey::Account("lab")), BankKey::Of(AssocKey::User("lab", "alice")),
        BankKey::OfQos("normal")}) {
    EXPECT_EQ(BankKey::FromRecordKey(key.RecordKey()), key);
  }
  EXPECT_EQ(BankKey::OfQos("normal").Describe(), "QOS normal");
  EXPECT_EQ(BankKey::Of(AssocKey::User("lab", "alice")).Describe(), "user alice in account lab");
}

}  // namespace
}  // namespace skiff::ctld
