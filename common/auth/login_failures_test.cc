#include "common/auth/login_failures.h"

#include <gtest/gtest.h>

namespace skiff {
namespace {

TEST(LoginFailureLog, AddressDropsSchemeAndPort) {
  EXPECT_EQ(LoginFailureLog::Address("ipv4:127.0.0.1:40312"), "127.0.0.1");
  EXPECT_EQ(LoginFailureLog::Address("ipv6:[::1]:5"), "::1");
  EXPECT_EQ(LoginFailureLog::Address("unix:/run/skiff.sock"), "unix:/run/skiff.sock");
}

TEST(LoginFailureLog, FirstRefusalPerPeerIsLoggedThenAtMostOncePerInterval) {
  LoginFailureLog log(10);
  std::optional<std::string> first =
      log.Refused("ipv4:10.0.0.7:1000", "invalid munge credential", 100);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(*first, "refused a request from 10.0.0.7: invalid munge credential");
  // A flood from the same address (new ports each time) stays quiet...
  for (int i = 0; i < 50; ++i) {
    EXPECT_FALSE(log.Refused("ipv4:10.0.0.7:" + std::to_string(2000 + i), "replayed", 105));
  }
  // ...while another address is still reported at once.
  EXPECT_TRUE(log.Refused("ipv4:10.0.0.8:1000", "replayed", 105).has_value());
  // After the interval the next line counts what was not logged.
  std::optional<std::string> later = log.Refused("ipv4:10.0.0.7:3000", "replayed", 110);
  ASSERT_TRUE(later.has_value());
  EXPECT_EQ(*later,
            "refused a request from 10.0.0.7: replayed (and 50 more from there since the "
            "last report)");
  EXPECT_FALSE(log.Refused("ipv4:10.0.0.7:3001", "replayed", 111).has_value());
}

}  // namespace
}  // namespace skiff
