#include "cli/common/budget_text.h"

#include <gtest/gtest.h>

namespace skiff::cli {
namespace {

TEST(BudgetText, LimitsAndWhatIsLeftPerAssociationInSlurmsOrder) {
  v1::GetAccountsReply reply;
  v1::AssocInfo account;
  account.set_account("lab");
  account.mutable_limits()->set_grp_billing_mins(1000);
  account.mutable_limits()->mutable_grp_tres_mins()->set_gpu(600);
  account.mutable_limits()->mutable_grp_tres_mins()->set_cpu(-1);  // cleared
  v1::AssocInfo user = account;
  user.set_user("alice");
  user.mutable_limits()->Clear();
  user.mutable_limits()->mutable_grp_tres_mins()->set_gpu(100);
  (*reply.mutable_used_budget_mins())["lab"].set_gpu(250.5);
  (*reply.mutable_held_budget_mins())["lab"].set_gpu(100);
  (*reply.mutable_used_budget_mins())["lab"].set_billing(2000);  // overdrawn by a lowered limit
  (*reply.mutable_used_budget_mins())["lab|alice"].set_gpu(30);

  EXPECT_EQ(BudgetText(GrpTresMinsOf(account.limits())), "billing=1000,gres/gpu=600");
  const std::map<std::string, double> left = GrpTresLeftOf(reply, account);
  EXPECT_DOUBLE_EQ(left.at("gres/gpu"), 249.5);
  EXPECT_DOUBLE_EQ(left.at("billing"), -1000);
  EXPECT_EQ(BudgetText(left), "billing=0,gres/gpu=249");
  // A user's own budget is kept under "account|user".
  EXPECT_EQ(BudgetText(GrpTresLeftOf(reply, user)), "gres/gpu=70");
  EXPECT_EQ(BudgetText({}), "");
}

}  // namespace
}  // namespace skiff::cli
