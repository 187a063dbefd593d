// scontrol token through the real daemons (AuthAltTypes=auth/jwt): a user
// gets their own JSON Web Token, signed with the cluster's jwt_key, for
// Slurm's default lifespan or the one asked for within max_token_lifespan;
// only root gets one for someone else; without auth/jwt it is refused with
// Slurm's words. Runs as root: it creates a test user.
#include <gtest/gtest.h>
#include <unistd.h>

#include <ctime>
#include <memory>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/strip.h"
#include "common/auth/jwt.h"
#include "tests/harness/local_cluster.h"

namespace skiff::testing {
namespace {

constexpr char kAlice[] = "skiffalice";
constexpr char kKey[] = "a test cluster's jwt_hs256 key, 48 bytes long..";

// The token in `out` ("SLURM_JWT=...\n"), checked with the cluster's key.
absl::StatusOr<JwtClaims> Claims(const CommandResult& r) {
  absl::string_view line = absl::StripTrailingAsciiWhitespace(r.out);
  if (!absl::ConsumePrefix(&line, "SLURM_JWT=")) {
    return absl::InvalidArgumentError("no SLURM_JWT= line in: " + r.out + r.err);
  }
  return VerifyJwt(kKey, line, time(nullptr));
}

TEST(TokenTest, ScontrolTokenFollowsSlurmsRules) {
  if (getuid() != 0) GTEST_SKIP() << "needs root to create test users";
  LocalCluster::Options options;
  options.nodes = 1;
  options.gpu_nodes = 0;
  options.files = {{"etc/jwt_hs256.key", kKey}};
  options.extra_config =
      "AuthAltTypes=auth/jwt\nAuthAltParameters=jwt_key=@DIR@/etc/jwt_hs256.key,"
      "max_token_lifespan=3600\n";
  auto cluster = LocalCluster::Start(options);
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  ASSERT_TRUE((*cluster)->EnsureUser(kAlice).ok());

  absl::StatusOr<JwtClaims> own = Claims((*cluster)->RunAs(kAlice, "scontrol token"));
  ASSERT_TRUE(own.ok()) << own.status();
  EXPECT_EQ(own->username, kAlice);
  EXPECT_EQ(own->expires_at - own->issued_at, 1800);

  absl::StatusOr<JwtClaims> short_lived =
      Claims((*cluster)->RunAs(kAlice, "scontrol token lifespan=60"));
  ASSERT_TRUE(short_lived.ok()) << short_lived.status();
  EXPECT_EQ(short_lived->expires_at - short_lived->issued_at, 60);

  const CommandResult other = (*cluster)->RunAs(kAlice, "scontrol token username=root");
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_EQ(other.out, "");
  EXPECT_EQ(other.err, "scontrol: error: slurm_fetch_token: error with request: Invalid user id\n");

  const CommandResult too_long = (*cluster)->RunAs(kAlice, "scontrol token lifespan=7200");
  EXPECT_EQ(too_long.exit_code, 1);
  EXPECT_TRUE(absl::StrContains(too_long.err, "Requested time limit is invalid")) << too_long.err;

  // root may have anyone's, for longer than max_token_lifespan.
  absl::StatusOr<JwtClaims> for_alice =
      Claims((*cluster)->Run(std::string("scontrol token username=") + kAlice + " lifespan=7200"));
  ASSERT_TRUE(for_alice.ok()) << for_alice.status();
  EXPECT_EQ(for_alice->username, kAlice);
  EXPECT_EQ(for_alice->expires_at - for_alice->issued_at, 7200);

  const CommandResult bad = (*cluster)->RunAs(kAlice, "scontrol token bogus=1");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.err, "Invalid option: `bogus=1`\n");

  // SLURM_JWT=: the commands send the token, and ctld takes it as alice's
  // identity, whoever runs them: root's sbatch makes alice's job, and with
  // her token root cannot cancel its own job.
  const std::string alice_token = std::string(
      absl::StripTrailingAsciiWhitespace((*cluster)->RunAs(kAlice, "scontrol token").out));
  const CommandResult as_alice = (*cluster)->Run(
      "env " + alice_token + " sbatch --parsable -D /tmp -o /dev/null --wrap 'sleep 300'");
  ASSERT_EQ(as_alice.exit_code, 0) << as_alice.err;
  const std::string alice_job(absl::StripAsciiWhitespace(as_alice.out));
  EXPECT_TRUE(absl::StrContains((*cluster)->Run("scontrol show job " + alice_job).out,
                                std::string("UserId=") + kAlice + "("))
      << (*cluster)->Run("scontrol show job " + alice_job).out;
  const CommandResult roots = (*cluster)->Run("sbatch --parsable -o /dev/null --wrap 'sleep 300'");
  ASSERT_EQ(roots.exit_code, 0) << roots.err;
  const std::string root_job(absl::StripAsciiWhitespace(roots.out));
  const CommandResult refused = (*cluster)->Run("env " + alice_token + " scancel " + root_job);
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_TRUE(absl::StrContains(refused.err, "Access/permission denied")) << refused.err;
  // A forged or expired token is no identity at all.
  const CommandResult forged = (*cluster)->Run(
      "env SLURM_JWT=" + MakeJwt("not the key", "root", time(nullptr), 600) + " squeue");
  EXPECT_NE(forged.exit_code, 0);
  EXPECT_TRUE(absl::StrContains(forged.err, "invalid token: bad signature")) << forged.err;
  const CommandResult expired = (*cluster)->Run(
      "env SLURM_JWT=" + MakeJwt(kKey, kAlice, time(nullptr) - 3600, 60) + " squeue");
  EXPECT_NE(expired.exit_code, 0);
  EXPECT_TRUE(absl::StrContains(expired.err, "invalid token: token expired")) << expired.err;
  EXPECT_EQ((*cluster)->Run("scancel " + alice_job + " " + root_job).exit_code, 0);
}

TEST(TokenTest, WithoutAuthJwtTokensAreRefused) {
  if (getuid() != 0) GTEST_SKIP() << "needs root";
  LocalCluster::Options options;
  options.nodes = 1;
  options.gpu_nodes = 0;
  auto cluster = LocalCluster::Start(options);
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  const CommandResult r = (*cluster)->Run("scontrol token");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "scontrol: error: slurm_fetch_token: error with request: Required plugin type not "
            "loaded or initialized\n");
}

// Issue 47 item 12: without max_token_lifespan a user could ask for a token
// that never expires (lifespan=infinite) or whose expiry overflows. A user's
// token now lasts at most a day (kMaxUserTokenLifespan, unless
// max_token_lifespan says otherwise); root and SlurmUser may ask for longer,
// up to "infinite" (68 years, as scontrol sends it), never past it.
TEST(TokenTest, LifespansAreCappedForUsersAndNeverOverflow) {
  if (getuid() != 0) GTEST_SKIP() << "needs root to create test users";
  LocalCluster::Options options;
  options.nodes = 1;
  options.gpu_nodes = 0;
  options.files = {{"etc/jwt_hs256.key", kKey}};
  options.extra_config =
      "AuthAltTypes=auth/jwt\nAuthAltParameters=jwt_key=@DIR@/etc/jwt_hs256.key\n";
  auto cluster = LocalCluster::Start(options);
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  ASSERT_TRUE((*cluster)->EnsureUser(kAlice).ok());

  for (const char* lifespan : {"infinite", "86401", "9223372036854775807"}) {
    const CommandResult r =
        (*cluster)->RunAs(kAlice, std::string("scontrol token lifespan=") + lifespan);
    EXPECT_EQ(r.exit_code, 1) << lifespan << ": " << r.out;
    EXPECT_EQ(r.out, "") << lifespan;
    EXPECT_TRUE(absl::StrContains(r.err, "Requested time limit is invalid")) << r.err;
    EXPECT_TRUE(absl::StrContains(r.err, "lifespan")) << r.err;
  }
  absl::StatusOr<JwtClaims> day =
      Claims((*cluster)->RunAs(kAlice, "scontrol token lifespan=86400"));
  ASSERT_TRUE(day.ok()) << day.status();
  EXPECT_EQ(day->expires_at - day->issued_at, 86400);

  // root: long lifespans, "infinite" included; one that overflows, never.
  const CommandResult overflow = (*cluster)->Run("scontrol token lifespan=9223372036854775807");
  EXPECT_EQ(overflow.exit_code, 1) << overflow.out;
  EXPECT_TRUE(absl::StrContains(overflow.err, "lifespan")) << overflow.err;
  absl::StatusOr<JwtClaims> forever = Claims((*cluster)->Run("scontrol token lifespan=infinite"));
  ASSERT_TRUE(forever.ok()) << forever.status();
  EXPECT_EQ(forever->expires_at - forever->issued_at, 2147483646);
}

}  // namespace
}  // namespace skiff::testing
