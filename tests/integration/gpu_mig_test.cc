// MIG through the real daemons: with gres.conf's AutoDetect=nvml, a GPU in MIG
// mode (the fake NVML describes it, a stand-in for the driver's mig-minors
// table numbers its capability devices) registers as its MIG devices, typed
// as Slurm types them, and each job given one sees that device, by its MIG
// UUID, in CUDA_VISIBLE_DEVICES (its steps' tasks too). Both jobs on the GPU
// are in its dcgm-exporter mapping file and are requeued when it breaks.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

TEST(GpuMigTest, AGpuInMigModeRegistersAsItsMigDevicesAndEachJobSeesItsOwn) {
  ScratchDir scratch("skiff-mig");  // the fake NVML's state and the MIG table
  ASSERT_FALSE(scratch.path().empty());
  // One A100 in MIG mode with two 3g.20gb instances (GPU instances 1 and 2).
  const std::string state = scratch.path() + "/nvml.state";
  std::ofstream(state) << "gpu minor=0 name=NVIDIA_A100-SXM4-40GB uuid=GPU-a100 mig=1\n"
                          "mig gpu=0 gi=1 ci=0 slices=3 memory=20096 uuid=MIG-one\n"
                          "mig gpu=0 gi=2 ci=0 slices=3 memory=20096 uuid=MIG-two\n";
  const std::string minors = scratch.path() + "/mig-minors";
  std::ofstream(minors) << "config 1\nmonitor 2\n"
                           "gpu0/gi1/access 21\ngpu0/gi1/ci0/access 22\n"
                           "gpu0/gi2/access 30\ngpu0/gi2/ci0/access 31\n";

  LocalCluster::Options options;
  options.nodes = 1;
  options.gpu_nodes = 1;
  options.extra_config =
      "JobAcctGatherFrequency=task=1\nHeartbeatInterval=1\nHpcJobMappingDir=@DIR@/jobmap\n";
  options.environment["SKIFF_NODED_PREFIX_n1"] = absl::StrCat(
      "env LD_LIBRARY_PATH=", RunfilesRoot(), "/tests/fake_nvml SKIFF_FAKE_NVML_STATE=", state,
      " SKIFF_NVIDIA_MIG_MINORS=", minors);
  auto started = LocalCluster::Start(options);
  ASSERT_TRUE(started.ok()) << started.status();
  LocalCluster& cluster = **started;

  // The admin's configuration for it, as for Slurm: AutoDetect=nvml in
  // gres.conf and the MIG type on the node (Slurm's spelling, "a100_3g.20gb").
  ASSERT_EQ(cluster.Down().exit_code, 0);
  std::ofstream(cluster.dir() + "/etc/gres.conf") << "AutoDetect=nvml\n";
  {
    const std::string conf = ReadFile(cluster.conf_path());
    const std::string typed =
        absl::StrReplaceAll(conf, {{" Gres=gpu:2\n", " Gres=gpu:a100_3g.20gb:2\n"}});
    ASSERT_NE(typed, conf);
    std::ofstream(cluster.conf_path()) << typed;
  }
  CommandResult up = cluster.Up();
  ASSERT_EQ(up.exit_code, 0) << up.out << up.err;
  ASSERT_TRUE(Eventually(
      60,
      [&] { return cluster.Run("sinfo -h -n n1 -o %t").out.find("idle") != std::string::npos; }))
      << cluster.Run("sinfo -R").out << cluster.Log("noded-n1.log");

  CommandResult node = cluster.Run("scontrol show node n1");
  EXPECT_NE(node.out.find("Gres=gpu:a100_3g.20gb:2"), std::string::npos) << node.out;
  EXPECT_NE(cluster.Log("noded-n1.log")
                .find("/dev/nvidia0 NVIDIA A100-SXM4-40GB in MIG mode: "
                      "nvidia_a100-sxm4-40gb_3g.20gb MIG-one, nvidia_a100-sxm4-40gb_3g.20gb "
                      "MIG-two"),
            std::string::npos)
      << cluster.Log("noded-n1.log");

  // Two jobs, one MIG device each, at once: each sees its own device by its
  // MIG UUID; SLURM_JOB_GPUS keeps the gres index, as Slurm's does.
  const std::string dir = cluster.dir();
  std::ofstream(dir + "/mig.sh") << "#!/bin/bash\n"
                                    "srun printenv CUDA_VISIBLE_DEVICES > "
                                 << dir << "/step.$SLURM_JOB_ID\n"
                                 << "echo \"$CUDA_VISIBLE_DEVICES $SLURM_JOB_GPUS\" > " << dir
                                 << "/mig.$SLURM_JOB_ID\n"
                                 << "for i in $(seq 600); do [ -e " << dir
                                 << "/release ] && exit 0; sleep 0.2; done\nexit 1\n";
  std::vector<uint64_t> ids;
  for (int i = 0; i < 2; ++i) {
    CommandResult submit = cluster.Run(
        absl::StrCat("sbatch -p gpu --gres=gpu:a100_3g.20gb:1 -o /dev/null ", dir, "/mig.sh"));
    ASSERT_EQ(submit.exit_code, 0) << submit.err;
    std::vector<uint64_t> submitted = SubmittedJobIds(submit.out);
    ASSERT_EQ(submitted.size(), 1u) << submit.out;
    ids.push_back(submitted[0]);
  }
  auto seen = [&](uint64_t id) {
    return std::string(absl::StripAsciiWhitespace(ReadFile(absl::StrCat(dir, "/mig.", id))));
  };
  ASSERT_TRUE(Eventually(60, [&] { return !seen(ids[0]).empty() && !seen(ids[1]).empty(); }))
      << cluster.Run("squeue").out << cluster.Log("noded-n1.log");
  const std::set<std::string> devices = {seen(ids[0]), seen(ids[1])};
  EXPECT_EQ(devices, (std::set<std::string>{"MIG-one 0", "MIG-two 1"}));
  // A step (srun) in the job names it the same way.
  for (uint64_t id : ids) {
    EXPECT_EQ(ReadFile(absl::StrCat(dir, "/step.", id)),
              seen(id).substr(0, seen(id).find(' ')) + "\n");
  }

  // A third waits: both MIG devices are held.
  CommandResult third = cluster.Run(absl::StrCat(
      "sbatch --parsable -p gpu --gres=gpu:a100_3g.20gb:1 -o /dev/null ", dir, "/mig.sh"));
  ASSERT_EQ(third.exit_code, 0) << third.err;
  const std::string third_id(absl::StripAsciiWhitespace(third.out));
  EXPECT_TRUE(Eventually(30, [&] {
    return cluster.Run("squeue -h -j " + third_id + " -o %T:%r").out == "PENDING:Resources\n";
  })) << cluster.Run("squeue -j " + third_id).out;

  // dcgm-exporter's job mapping file of the GPU (NVML index 0) names both
  // jobs, one a line; a fault of the GPU requeues both and drains the node.
  EXPECT_TRUE(Eventually(30, [&] {
    const std::string text = ReadFile(dir + "/jobmap/0");
    return text == absl::StrCat(ids[0], "\n", ids[1], "\n") ||
           text == absl::StrCat(ids[1], "\n", ids[0], "\n");
  })) << ReadFile(dir + "/jobmap/0");
  std::ofstream(state, std::ios::app) << "xid gpu=0 code=79\n";
  EXPECT_TRUE(Eventually(60,
                         [&] {
                           return cluster.Run("sinfo -R -h -o '%E|%N'").out ==
                                  "GPU /dev/nvidia0: Xid 79 (GPU has fallen off the bus)|n1\n";
                         }))
      << cluster.Run("sinfo -R").out << cluster.Log("noded-n1.log");
  for (uint64_t id : ids) {
    const std::string job = absl::StrCat("scontrol show job ", id);
    EXPECT_TRUE(Eventually(60, [&] {
      const std::string text = cluster.Run(job).out;
      return text.find("Restarts=1") != std::string::npos &&
             text.find("JobState=PENDING") != std::string::npos;
    })) << cluster.Run(job).out;
  }
  cluster.Run(absl::StrCat("scancel ", ids[0], " ", ids[1], " ", third_id));
  EXPECT_TRUE(Eventually(60, [&] { return cluster.Run("squeue -h").out.empty(); }))
      << cluster.Run("squeue").out;
}

}  // namespace
}  // namespace skiff::testing
