// ctld refuses to start on a bad skiff.conf, naming file, line and key, with a
// non-zero exit code (and starts nothing).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "tests/harness/local_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

struct BadConfigCase {
  std::string name;
  std::string bad_line;  // replaces the NodeName line, line 3
  std::string must_say;  // key as the user wrote it
};

class CtldBadConfigTest : public ::testing::TestWithParam<BadConfigCase> {};

TEST_P(CtldBadConfigTest, RefusesToStartNamingFileLineAndKey) {
  const BadConfigCase& c = GetParam();
  const std::string dir = std::string(getenv("TEST_TMPDIR")) + "/" + c.name;
  ASSERT_EQ(RunShell("mkdir -p " + dir).exit_code, 0);
  const std::string conf = dir + "/skiff.conf";
  std::ofstream(conf) << "ClusterName=bad\n"
                      << "SlurmctldHost=localhost(127.0.0.1)\n"
                      << c.bad_line << "\n"
                      << "PartitionName=debug Nodes=ALL Default=YES\n";
  CommandResult result = RunShell("timeout 20 " + RunfilesRoot() + "/ctld/ctld -f " + conf);
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.exit_code, 124) << "ctld started instead of refusing";
  EXPECT_NE(result.err.find(conf + ":3:"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find(c.must_say), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("ctld: fatal:"), std::string::npos) << result.err;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, CtldBadConfigTest,
    ::testing::Values(BadConfigCase{"typo_key", "NodeName=n1 CPUs=2 RealMemroy=100", "RealMemroy"},
                      BadConfigCase{"cpus_not_a_number", "NodeName=n1 CPUs=abc", "CPUs"},
                      BadConfigCase{"unclosed_bracket", "NodeName=n[1-4 CPUs=2", "NodeName"},
                      BadConfigCase{"relative_state_save_location", "StateSaveLocation=state",
                                    "StateSaveLocation: 'state' is not an absolute path"},
                      // Once a silent 50 (issue 50, item 3).
                      BadConfigCase{"budget_warn_percent_not_a_number",
                                    "SchedulerParameters=bf_continue,budget_warn_percent=abc",
                                    "SchedulerParameters: budget_warn_percent=abc is not a whole "
                                    "number from 0 to 100"}),
    [](const ::testing::TestParamInfo<BadConfigCase>& info) { return info.param.name; });

// Slurm drops an unknown user from AllowUsers with a log line, which leaves
// the users meant there refused with no explanation; ctld refuses to start.
TEST(CtldBadBurstBufferConfigTest, AnUnknownUserInAllowUsersStopsCtldNamingIt) {
  const std::string dir = std::string(getenv("TEST_TMPDIR")) + "/bb_unknown_user";
  ASSERT_EQ(RunShell("mkdir -p " + dir).exit_code, 0);
  const std::string conf = dir + "/skiff.conf";
  std::ofstream(conf) << "ClusterName=bad\n"
                      << "SlurmctldHost=localhost(127.0.0.1)\n"
                      << "StateSaveLocation=" << dir << "/state\n"
                      << "BurstBufferType=burst_buffer/lua\n"
                      << "NodeName=n1 CPUs=2\n"
                      << "PartitionName=debug Nodes=ALL Default=YES\n";
  std::ofstream(dir + "/burst_buffer.conf") << "Flags=DisablePersistent\n"
                                            << "AllowUsers=root,nosuchuser_skiffbb\n";
  CommandResult result = RunShell("timeout 20 " + RunfilesRoot() + "/ctld/ctld -f " + conf);
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.exit_code, 124) << "ctld started instead of refusing";
  EXPECT_NE(result.err.find("ctld: fatal: " + dir +
                            "/burst_buffer.conf:2: AllowUsers: no such user 'nosuchuser_skiffbb'"),
            std::string::npos)
      << result.err;
}

// Issue 47 item 12: a token key that others can read lets them forge any
// user's token, root's too, and a short one is found by brute force from any
// token: ctld refuses to start on either, naming the file and what to do.
struct BadJwtKeyCase {
  std::string name;
  std::string key;
  mode_t mode;
  std::string owner;     // chown'ed to this user when not empty
  std::string must_say;  // after "ctld: fatal: AuthAltParameters: jwt_key "
};

class CtldBadJwtKeyTest : public ::testing::TestWithParam<BadJwtKeyCase> {};

TEST_P(CtldBadJwtKeyTest, RefusesToStartNamingTheKeyFile) {
  if (getuid() != 0) GTEST_SKIP() << "needs root to give the key another owner";
  const BadJwtKeyCase& c = GetParam();
  const std::string dir = std::string(getenv("TEST_TMPDIR")) + "/jwt_" + c.name;
  ASSERT_EQ(RunShell("mkdir -p " + dir).exit_code, 0);
  const std::string key = dir + "/jwt_hs256.key";
  std::ofstream(key) << c.key;
  ASSERT_EQ(chmod(key.c_str(), c.mode), 0);
  if (!c.owner.empty()) {
    ASSERT_EQ(RunShell("chown " + c.owner + " " + key).exit_code, 0);
  }
  const std::string conf = dir + "/skiff.conf";
  std::ofstream(conf) << "ClusterName=bad\n"
                      << "SlurmctldHost=localhost(127.0.0.1)\n"
                      << "SlurmctldPort=" << FreePort() << "\n"
                      << "SlurmUser=root\n"
                      << "StateSaveLocation=" << dir << "/state\n"
                      << "AuthAltTypes=auth/jwt\n"
                      << "AuthAltParameters=jwt_key=" << key << "\n"
                      << "NodeName=n1 CPUs=2\n"
                      << "PartitionName=debug Nodes=ALL Default=YES\n";
  CommandResult result = RunShell("timeout 20 " + RunfilesRoot() + "/ctld/ctld -f " + conf);
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.exit_code, 124) << "ctld started instead of refusing";
  EXPECT_NE(result.err.find("ctld: fatal: AuthAltParameters: jwt_key " + key + " " + c.must_say),
            std::string::npos)
      << result.err;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, CtldBadJwtKeyTest,
    ::testing::Values(BadJwtKeyCase{"world_readable", std::string(48, 'k'), 0644, "",
                                    "is open to group or other users (mode 0644)"},
                      BadJwtKeyCase{"group_readable", std::string(48, 'k'), 0640, "",
                                    "is open to group or other users (mode 0640)"},
                      BadJwtKeyCase{"one_byte", "k", 0600, "", "is 1 bytes long"},
                      BadJwtKeyCase{"thirty_one_bytes", std::string(31, 'k'), 0600, "",
                                    "is 31 bytes long"},
                      BadJwtKeyCase{"owned_by_nobody", std::string(48, 'k'), 0600, "nobody",
                                    "is owned by uid 65534"}),
    [](const ::testing::TestParamInfo<BadJwtKeyCase>& info) { return info.param.name; });

}  // namespace
}  // namespace skiff::testing
