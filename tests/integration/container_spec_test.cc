// Containers through the real daemons, as far as ctld carries them: sbatch
// --container's bundle goes with the job (through ctld's store too: a kill -9
// of ctld keeps it) and scontrol show job prints Slurm's Container= line,
// squeue -O container the same path; sbatch refuses --container with
// --container-image before anything is submitted. Whether the script runs in
// the bundle is noded's (LaunchJobRequest.container) and not looked at here.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/shared_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

constexpr char kBundle[] = "/some/abs/bundle";

class ContainerSpecTest : public SharedClusterTest<ContainerSpecTest> {
 protected:
  static void SetUpTestSuite() { StartCluster(NodesWithoutGpus(1, 2)); }

  static std::string Submit(const std::string& args) {
    const CommandResult r = cluster_->Run("sbatch --parsable -o /dev/null " + args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return std::string(absl::StripAsciiWhitespace(r.out));
  }

  static std::string Show(const std::string& job) {
    return cluster_->Run("scontrol show job " + job).out;
  }
};

TEST_F(ContainerSpecTest, ScontrolShowsTheBundleOfASubmittedJob) {
  const std::string job = Submit(absl::StrCat("--container=", kBundle, " --wrap true"));
  ASSERT_FALSE(job.empty());
  const std::string shown = Show(job);
  // The record's last line, as Slurm 22.05 prints it.
  EXPECT_TRUE(absl::StrContains(shown, absl::StrCat("\n   Container=", kBundle, "\n   \n")))
      << shown;
  const CommandResult listed =
      cluster_->Run(absl::StrCat("squeue -h -t all -j ", job, " -O container:40"));
  EXPECT_EQ(absl::StripAsciiWhitespace(listed.out), kBundle) << listed.err;
}

TEST_F(ContainerSpecTest, ARelativeBundleIsTheSubmittingDirectorys) {
  const CommandResult r =
      cluster_->Run(absl::StrCat("cd ", cluster_->dir(),
                                 " && sbatch --parsable -o /dev/null -H --container=oci/alpine "
                                 "--wrap true"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string job(absl::StripAsciiWhitespace(r.out));
  EXPECT_TRUE(
      absl::StrContains(Show(job), absl::StrCat("   Container=", cluster_->dir(), "/oci/alpine\n")))
      << Show(job);
  cluster_->Run("scancel " + job);
}

TEST_F(ContainerSpecTest, TheBundleSurvivesAKilledCtld) {
  const std::string job = Submit(absl::StrCat("-H --container=", kBundle, " --wrap true"));
  ASSERT_FALSE(job.empty());
  const pid_t ctld = cluster_->Pid("ctld");
  ASSERT_GT(ctld, 0);
  kill(ctld, SIGKILL);
  ASSERT_TRUE(Eventually(30, [&] { return !Alive(ctld); }));
  ASSERT_EQ(cluster_->Up().exit_code, 0);
  ASSERT_TRUE(Eventually(30, [&] { return cluster_->Run("squeue -h").exit_code == 0; }));
  EXPECT_TRUE(absl::StrContains(Show(job), absl::StrCat("   Container=", kBundle, "\n")))
      << Show(job);
  cluster_->Run("scancel " + job);
}

TEST_F(ContainerSpecTest, ABundleAndAnImageAreRefusedAndNothingIsSubmitted) {
  const std::string before = cluster_->Run("squeue -h -t all -o %i").out;
  const CommandResult r =
      cluster_->Run("sbatch --container=/x --container-image=ubuntu --wrap true");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "sbatch: error: --container and --container-image options are mutually "
            "exclusive\n");
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(cluster_->Run("squeue -h -t all -o %i").out, before);
}

TEST_F(ContainerSpecTest, AJobWithoutAContainerShowsNoContainerLine) {
  const std::string job = Submit("-H --wrap true");
  ASSERT_FALSE(job.empty());
  EXPECT_FALSE(absl::StrContains(Show(job), "Container=")) << Show(job);
  cluster_->Run("scancel " + job);
}

}  // namespace
}  // namespace skiff::testing
