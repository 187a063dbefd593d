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
  EXPECT_EQ(caller->act_as, "");
  // A name header naming someone else asks to act for them (ctld decides).
  caller =
      CallerOf(WithHeaders({{"x-slurm-user-token", token}, {"x-slurm-user-name", "bob"}}), tcp);
  ASSERT_TRUE(caller.ok()) << caller.status();
  EXPECT_EQ(caller->user_name, "alice");
  EXPECT_EQ(caller->act_as, "bob");
}

TEST(CallerOfTest, ABearerTokenActsAsItsUserAndXSlurmUserTokenWins) {
  const std::string alice = MakeJwt("key", "alice", 100, 60);
  const std::string bob = MakeJwt("key", "bob", 100, 60);
  HttpPeer tcp;
  // Prometheus's `authorization: {credentials_file: ...}` sends this.
  absl::StatusOr<RestCaller> caller =
      CallerOf(WithHeaders({{"authorization", "Bearer " + alice}}), tcp);
  ASSERT_TRUE(caller.ok()) << caller.status();
  EXPECT_EQ(caller->token, alice);
  EXPECT_EQ(caller->user_name, "alice");
  // The scheme in any case, spaces around the token ignored.
  caller = CallerOf(WithHeaders({{"authorization", "  bEaReR   " + alice + " "}}), tcp);
  ASSERT_TRUE(caller.ok()) << caller.status();
  EXPECT_EQ(caller->token, alice);
  // With both, X-SLURM-USER-TOKEN is the request's.
  caller = CallerOf(
      WithHeaders({{"authorization", "Bearer " + bob}, {"x-slurm-user-token", alice}}), tcp);
  ASSERT_TRUE(caller.ok()) << caller.status();
  EXPECT_EQ(caller->token, alice);
  // X-SLURM-USER-NAME asks to act for another user with a bearer token too.
  EXPECT_EQ(
      CallerOf(WithHeaders({{"authorization", "Bearer " + alice}, {"x-slurm-user-name", "bob"}}),
               tcp)
          ->act_as,
      "bob");
  // Another scheme, or Bearer without a token, is no token.
  for (const std::string& value : {std::string("Basic YWxpY2U6c2VjcmV0"), std::string("Bearer"),
                                   std::string("Bearer   "), std::string("Bearerx " + alice)}) {
    EXPECT_EQ(CallerOf(WithHeaders({{"authorization", value}}), tcp).status().code(),
              absl::StatusCode::kUnauthenticated)
        << value;
  }
  // On the Unix socket a bearer token still decides, not the peer's uid.
  HttpPeer local;
  local.unix_socket = true;
  local.uid = 1001;
  caller = CallerOf(WithHeaders({{"authorization", "Bearer " + alice}}), local);
  ASSERT_TRUE(caller.ok()) << caller.status();
  EXPECT_EQ(caller->token, alice);
  EXPECT_FALSE(caller->uid);
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

TEST(MetricsCredentialTest, OnlyTheFilesSecretAsABearerToken) {
  const std::string secret(40, 'k');
  EXPECT_TRUE(IsMetricsCredential(WithHeaders({{"authorization", "Bearer " + secret}}), secret));
  EXPECT_TRUE(IsMetricsCredential(WithHeaders({{"authorization", "bearer  " + secret}}), secret));
  EXPECT_FALSE(
      IsMetricsCredential(WithHeaders({{"authorization", "Bearer " + secret + "x"}}), secret));
  EXPECT_FALSE(IsMetricsCredential(WithHeaders({{"x-slurm-user-token", secret}}), secret))
      << "a user token's header is not the scrape credential";
  EXPECT_FALSE(IsMetricsCredential(WithHeaders({{"authorization", "Bearer "}}), ""))
      << "no file: no credential";
}

TEST(MetricsCredentialTest, ReadsTheMetricsPathsOnly) {
  EXPECT_TRUE(IsMetricsPath("GET", "/metrics"));
  EXPECT_TRUE(IsMetricsPath("GET", "/metrics/jobs"));
  EXPECT_FALSE(IsMetricsPath("POST", "/metrics"));
  EXPECT_FALSE(IsMetricsPath("GET", "/metricsx"));
  EXPECT_FALSE(IsMetricsPath("GET", "/slurm/v0.0.42/jobs"));
}

TEST(MetricsCredentialTest, TheFileMustBeKeptAndHoldASecret) {
  const std::string secret(64, 'a');
  EXPECT_TRUE(CheckMetricsTokenFile("/f", true, 0100600, secret + "\n").ok());
  EXPECT_TRUE(CheckMetricsTokenFile("/f", true, 0100640, secret).ok());
  EXPECT_EQ(CheckMetricsTokenFile("/f", true, 0100644, secret).message(),
            "--metrics-token-file /f: group or others may write it, or others read it (chmod 600 "
            "or 640)");
  EXPECT_FALSE(CheckMetricsTokenFile("/f", true, 0100660, secret).ok());
  EXPECT_FALSE(CheckMetricsTokenFile("/f", false, 0100600, secret).ok());
  EXPECT_FALSE(CheckMetricsTokenFile("/f", true, 0100600, "short").ok());
  EXPECT_FALSE(CheckMetricsTokenFile("/f", true, 0100600, secret + " " + secret).ok());
}

}  // namespace
}  // namespace skiff::restd
