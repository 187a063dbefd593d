#include "noded/munge_key_renewal.h"

#include <gtest/gtest.h>

namespace skiff::noded {
namespace {

TEST(RenewalPacerTest, TheFirstRefusalTriesAtOnceThenOncePerInterval) {
  RenewalPacer pacer(30);
  EXPECT_TRUE(pacer.Due(100));
  EXPECT_FALSE(pacer.Due(100.5));
  EXPECT_FALSE(pacer.Due(129.9));
  EXPECT_TRUE(pacer.Due(130));
  EXPECT_FALSE(pacer.Due(131));
  EXPECT_TRUE(pacer.Due(500));
}

}  // namespace
}  // namespace skiff::noded
