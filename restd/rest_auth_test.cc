#include "restd/rest_auth.h"

#include <gtest/gtest.h>

#include "common/auth/jwt.h"

namespace skiff::restd {
namespace {

HttpRequest WithHeaders(std::map<std::string, std::string> headers) {
  HttpRequest request;
  request.method = "GET";
  request.path = "/slurm/v0.0.42/ping";
  request.headers = std::move(headers);
  return request;
}

TEST(CallerOfTest, ATokenActsAsItsUserOverTcpOrTheSocket) {
  const std::string token = MakeJwt("key", "alice", 100, 60);
  HttpPeer tcp;
  tcp.address = "127.0.0.1:5000";
  absl::StatusOr<RestCaller> caller =
      CallerOf(WithHeaders({{"x-slurm-user-token", token}, {"x-slurm-user-name", "alice"}}), tcp);
  ASSERT_TRUE(caller.ok()) << caller.status();
  EXPECT_EQ(caller->token, token);
  EXPECT_FALSE(caller->uid);
  // The name header must be the token's user.
  EXPECT_EQ(
      CallerOf(WithHeaders({{"x-slurm-user-token", token}, {"x-slurm-user-name", "bob"}}), tcp)
          .status()
          .message(),
      "X-SLURM-USER-NAME bob is not the token's user");
}

TEST(CallerOfTest, TheUnixSocketsPeerWithoutAToken) {
  HttpPeer local;
  local.unix_socket = true;
  local.uid = 1001;
  absl::StatusOr<RestCaller> caller = CallerOf(WithHeaders({}), local);
  ASSERT_TRUE(caller.ok());
  EXPECT_EQ(*caller->uid, 1001u);
  HttpPeer tcp;
  EXPECT_EQ(CallerOf(WithHeaders({}), tcp).status().code(), absl::StatusCode::kUnauthenticated);
}

}  // namespace
}  // namespace skiff::restd
