#include "noded/user_env.h"

#include <gtest/gtest.h>

namespace skiff::noded {
namespace {

TEST(UserEnv, OnlyJobsThatAskGetTheirLoginEnvironment) {
  EXPECT_TRUE(WantsLoginEnvironment({{"SLURM_GET_USER_ENV", "1"}}));
  EXPECT_FALSE(WantsLoginEnvironment({{"SLURM_GET_USER_ENV", "0"}}));
  EXPECT_FALSE(WantsLoginEnvironment({{"HOME", "/root"}}));
}

TEST(UserEnv, TheCommandIsALoginShellPrintingAMarkerThenTheEnvironment) {
  EXPECT_EQ(LoginEnvironmentCommand("/usr/sbin/runuser", "alice"),
            (std::vector<std::string>{"/usr/sbin/runuser", "-l", "alice", "-c",
                                      "printf '\\n%s\\0' SKIFF_LOGIN_ENV_FOLLOWS; env -0"}));
}

TEST(UserEnv, ParsesWhatFollowsTheMarkerEvenAfterABanner) {
  const std::string output = std::string("Welcome!\nSKIFF_LOGIN_ENV_FOLLOWS") + '\0' +
                             "HOME=/home/alice" + '\0' + "MULTI=a\nb=c" + '\0' + "EMPTY=" + '\0' +
                             "junk-without-equals" + '\0';
  absl::StatusOr<std::map<std::string, std::string>> env = ParseLoginEnvironment("\n" + output);
  ASSERT_TRUE(env.ok()) << env.status();
  EXPECT_EQ(*env, (std::map<std::string, std::string>{
                      {"HOME", "/home/alice"}, {"MULTI", "a\nb=c"}, {"EMPTY", ""}}));
  EXPECT_FALSE(ParseLoginEnvironment("su: Authentication failure\n").ok());
}

TEST(UserEnv, LoginVariablesFillWhatTheScriptsEnvironmentLacks) {
  std::vector<std::string> env = {"PATH=/job/bin", "SLURM_JOB_ID=7"};
  AddLoginEnvironment({{"PATH", "/login/bin"}, {"LANG", "C.UTF-8"}}, &env);
  EXPECT_EQ(env, (std::vector<std::string>{"PATH=/job/bin", "SLURM_JOB_ID=7", "LANG=C.UTF-8"}));
}

TEST(UserEnv, TheJobsOwnVariablesWin) {
  EXPECT_EQ(MergeLoginEnvironment({{"PATH", "/login/bin"}, {"LANG", "C.UTF-8"}},
                                  {{"PATH", "/job/bin"}, {"SLURM_JOB_ID", "7"}}),
            (std::map<std::string, std::string>{
                {"LANG", "C.UTF-8"}, {"PATH", "/job/bin"}, {"SLURM_JOB_ID", "7"}}));
}

}  // namespace
}  // namespace skiff::noded
