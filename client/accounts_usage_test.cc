#include "client/accounts_usage.h"

#include "gtest/gtest.h"

namespace skiff::client {
namespace {

TEST(AccountsUsage, FindsEachFigureByItsTypedKey) {
  v1::GetAccountsReply reply;
  v1::AssocUsage* lab = reply.add_assoc_usage();
  lab->mutable_key()->set_account("lab");
  lab->mutable_used_budget_mins()->set_gpu(30);
  v1::AssocUsage* alice = reply.add_assoc_usage();
  alice->mutable_key()->set_account("lab");
  alice->mutable_key()->set_user("alice");
  alice->set_raw_usage(7);
  v1::QosUsage* normal = reply.add_qos_usage();
  normal->set_qos("normal");
  normal->set_user("alice");
  normal->mutable_in_use()->set_running_jobs(2);

  const AccountsUsage usage(reply);
  EXPECT_EQ(usage.Of(AssocKey::Account("lab")).used_budget_mins().gpu(), 30);
  EXPECT_EQ(usage.Of(AssocKey::User("lab", "alice")).raw_usage(), 7);
  EXPECT_EQ(usage.Of(AssocKey::User("lab", "bob")).raw_usage(), 0);  // none sent
  EXPECT_EQ(usage.OfQos(QosKey{"normal", "alice"}).in_use().running_jobs(), 2);
  EXPECT_EQ(usage.OfQos(QosKey{"normal", ""}).in_use().running_jobs(), 0);
}

TEST(AccountsUsage, KeysOfAssociationsCarryTheirPartition) {
  v1::AssocInfo assoc;
  assoc.set_account("lab");
  assoc.set_user("alice");
  assoc.set_partition("gpu");
  EXPECT_EQ(AssocKeyOf(assoc), (AssocKey{"lab", "alice", "gpu"}));
}

}  // namespace
}  // namespace skiff::client
