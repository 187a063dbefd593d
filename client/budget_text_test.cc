#include "client/budget_text.h"

#include <gtest/gtest.h>

namespace skiff::client {
namespace {

TEST(BudgetText, LimitsAndWhatIsLeftPerAssociationInSlurmsOrder) {
  v1::AssocInfo account;
  account.set_account("lab");
  account.mutable_limits()->set_grp_billing_mins(1000);
  account.mutable_limits()->mutable_grp_tres_mins()->set_gpu(600);
  account.mutable_limits()->mutable_grp_tres_mins()->set_cpu(-1);  // cleared
  v1::AssocInfo user = account;
  user.set_user("alice");
  user.mutable_limits()->Clear();
  user.mutable_limits()->mutable_grp_tres_mins()->set_gpu(100);
  v1::AssocUsage lab;
  lab.mutable_used_budget_mins()->set_gpu(250.5);
  lab.mutable_held_budget_mins()->set_gpu(100);
  lab.mutable_used_budget_mins()->set_billing(2000);  // overdrawn by a lowered limit
  v1::AssocUsage alice;
  alice.mutable_used_budget_mins()->set_gpu(30);

  EXPECT_EQ(BudgetText(GrpTresMinsOf(account.limits())), "billing=1000,gres/gpu=600");
  const std::map<std::string, double> left = GrpTresLeftOf(account, lab);
  EXPECT_DOUBLE_EQ(left.at("gres/gpu"), 249.5);
  EXPECT_DOUBLE_EQ(left.at("billing"), -1000);
  EXPECT_EQ(BudgetText(left), "billing=0,gres/gpu=249");
  // A user's own budget against the user's own figures.
  EXPECT_EQ(BudgetText(GrpTresLeftOf(user, alice)), "gres/gpu=70");
  EXPECT_EQ(BudgetText({}), "");
}

}  // namespace
}  // namespace skiff::client
