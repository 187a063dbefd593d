#include <gtest/gtest.h>

#include <string>

#include "absl/strings/match.h"
#include "common/config/config.h"

namespace skiff {
namespace {

absl::StatusOr<OciConfig> Parse(const std::string& text) {
  return ParseOciConfig(text, "/etc/skiff/oci.conf", nullptr);
}

// Slurm's containers guide's example for crun with run, unchanged.
TEST(OciConfig, SlurmsCrunRunExampleParses) {
  absl::StatusOr<OciConfig> config = Parse(
      "EnvExclude=\"^(SLURM_CONF|SLURM_CONF_SERVER)=\"\n"
      "RunTimeEnvExclude=\"^(SLURM_CONF|SLURM_CONF_SERVER)=\"\n"
      "RunTimeQuery=\"crun --rootless=true --root=/run/user/%U/ state %n.%u.%j.%s.%t\"\n"
      "RunTimeKill=\"crun --rootless=true --root=/run/user/%U/ kill -a %n.%u.%j.%s.%t\"\n"
      "RunTimeDelete=\"crun --rootless=true --root=/run/user/%U/ delete --force "
      "%n.%u.%j.%s.%t\"\n"
      "RunTimeRun=\"crun --rootless=true --root=/run/user/%U/ run --bundle %b "
      "%n.%u.%j.%s.%t\"\n");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_TRUE(config->UsesRun());
  EXPECT_EQ(config->env_exclude, "^(SLURM_CONF|SLURM_CONF_SERVER)=");
  EXPECT_EQ(config->run_time_run,
            "crun --rootless=true --root=/run/user/%U/ run --bundle %b %n.%u.%j.%s.%t");
  EXPECT_EQ(config->create_env_file, "disabled");
}

TEST(OciConfig, SlurmsRuncCreateStartExampleParses) {
  absl::StatusOr<OciConfig> config = Parse(
      "RunTimeQuery=\"runc --rootless=true --root=/run/user/%U/ state %n.%u.%j.%s.%t\"\n"
      "RunTimeCreate=\"runc --rootless=true --root=/run/user/%U/ create %n.%u.%j.%s.%t -b %b\"\n"
      "RunTimeStart=\"runc --rootless=true --root=/run/user/%U/ start %n.%u.%j.%s.%t\"\n"
      "RunTimeKill=\"runc --rootless=true --root=/run/user/%U/ kill -a %n.%u.%j.%s.%t\"\n"
      "RunTimeDelete=\"runc --rootless=true --root=/run/user/%U/ delete --force "
      "%n.%u.%j.%s.%t\"\n"
      "CreateEnvFile=true  # old spelling of null\n"
      "mountspooldir=/run/slurm\n");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_FALSE(config->UsesRun());
  EXPECT_EQ(config->create_env_file, "null");
  EXPECT_EQ(config->mount_spool_dir, "/run/slurm");
}

TEST(OciConfig, RefusesWhatSlurmRefuses) {
  EXPECT_TRUE(absl::StrContains(Parse("CreateEnvFile=yes\n").status().message(), "no RunTime*"));
  EXPECT_TRUE(absl::StrContains(
      Parse("RunTimeRun=a\nRunTimeCreate=b\nRunTimeKill=c\nRunTimeDelete=d\n").status().message(),
      "mutually exclusive"));
  EXPECT_TRUE(absl::StrContains(Parse("RunTimeRun=a\n").status().message(), "mutually exclusive"));
  const std::string run = "RunTimeRun=a\nRunTimeKill=c\nRunTimeDelete=d\n";
  EXPECT_TRUE(
      absl::StrContains(Parse(run + "CreateEnvFile=maybe\n").status().message(), "CreateEnvFile"));
  EXPECT_TRUE(absl::StrContains(Parse(run + "EnvExclude=\"(\"\n").status().message(),
                                "not an extended regular expression"));
  EXPECT_TRUE(
      absl::StrContains(Parse(run + "RunTimeBogus=x\n").status().message(), "RunTimeBogus"));
  // A site faking a runtime needs no RunTime* set at all.
  EXPECT_TRUE(Parse("IgnoreFileConfigJson=true\nRunTimeRun=\"x %@\"\n").ok());
}

TEST(OciConfig, DebugAndScrunKeysAreAcceptedWithAWarning) {
  absl::StatusOr<OciConfig> config =
      Parse("RunTimeRun=a\nRunTimeKill=c\nRunTimeDelete=d\nStdIODebug=debug\nSrunArgs=-v\n");
  ASSERT_TRUE(config.ok()) << config.status();
  ASSERT_EQ(config->warnings.size(), 2u);
  EXPECT_TRUE(absl::StrContains(config->warnings[0], "StdIODebug"));
}

TEST(OciConfig, DefaultIsCrunRunUnderTheContainersSpoolDirectory) {
  const OciConfig config = DefaultOciConfig();
  EXPECT_TRUE(config.UsesRun());
  EXPECT_EQ(config.run_time_run,
            "crun --rootless=true --root=%m/crun run --bundle %b %n.%u.%j.%s.%t");
  const OciConfig runc = DefaultOciConfig(OciRuntime::kRunc);
  EXPECT_EQ(runc.run_time_run,
            "runc --rootless=true --root=%m/runc run --bundle %b %n.%u.%j.%s.%t");
  EXPECT_EQ(runc.run_time_kill, "runc --rootless=true --root=%m/runc kill -a %n.%u.%j.%s.%t");
}

}  // namespace
}  // namespace skiff
