#include "common/assoc_key.h"

#include <map>

#include "gtest/gtest.h"

namespace skiff {
namespace {

TEST(AssocKey, RecordKeysReadBackAsWritten) {
  const AssocKey key{"lab", "alice", "gpu"};
  EXPECT_EQ(key.RecordKey(), "lab|alice|gpu");
  EXPECT_EQ(key.UsageRecordKey(), "lab|alice");
  EXPECT_EQ(AssocKey::FromRecordKey("lab|alice|gpu"), key);
  EXPECT_EQ(AssocKey::FromRecordKey("lab|alice"), AssocKey::User("lab", "alice"));
  EXPECT_EQ(AssocKey::FromRecordKey("lab||"), AssocKey::Account("lab"));
  EXPECT_EQ(AssocKey::FromRecordKey("lab"), AssocKey::Account("lab"));
  EXPECT_EQ(AssocKey::FromRecordKey("a|b|c|d"), std::nullopt);
}

TEST(AssocKey, OrdersAnAccountBeforeItsUsersAndDropsThePartition) {
  std::map<AssocKey, int> keys{{AssocKey::User("lab", "bob"), 2},
                               {AssocKey::Account("lab"), 1},
                               {AssocKey::User("lab", "alice"), 3}};
  EXPECT_EQ(keys.begin()->first, AssocKey::Account("lab"));
  EXPECT_EQ(std::next(keys.begin())->first.user, "alice");
  EXPECT_EQ((AssocKey{"lab", "alice", "gpu"}).WithoutPartition(), AssocKey::User("lab", "alice"));
  EXPECT_TRUE(AssocKey::Account("lab").is_account());
}

TEST(AssocKey, DescribesWhoItIs) {
  EXPECT_EQ(AssocKey::Account("lab").Describe(), "account lab");
  EXPECT_EQ(AssocKey::User("lab", "alice").Describe(), "user alice in account lab");
}

}  // namespace
}  // namespace skiff
