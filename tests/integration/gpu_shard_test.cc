// gres/shard through the real daemons (issue 52): a node with Slurm's
// Gres=gpu:2,shard:8 gives two users' 1-shard jobs the first GPU at once,
// each with the GPU in CUDA_VISIBLE_DEVICES and SLURM_SHARDS_ON_NODE; a job
// asking for both GPUs waits until the shards are given back; sacct shows
// gres/shard in AllocTRES and billing counts it under TRESBillingWeights
// (fair share charges billing); a request no GPU can hold is refused. With
// Gres=gpu:2,mps:200, two MPS jobs of one user share a GPU, each with its
// CUDA_MPS_ACTIVE_THREAD_PERCENTAGE, and another user's waits for them. With
// Skiff's gres.conf Flags=fence, shard jobs run under their GPU's MPS server
// with their share of its threads and memory, one user a GPU.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/shared_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

constexpr char kAlice[] = "skiffalice";
constexpr char kBob[] = "skiffbob";

// A one-node cluster (n1, two fake GPUs) with Alice and Bob, whose n1 has the
// admin's `gres` in place of Gres=gpu:2 and `gres_conf` (@DIR@ standing for
// the cluster's directory) added to gres.conf, up and idle.
void StartSharedGpuCluster(LocalCluster::Options options, const std::string& gres,
                           const std::string& gres_conf, std::unique_ptr<LocalCluster>* out) {
  options.nodes = 1;
  options.gpu_nodes = 1;
  StartLocalCluster(options, out);
  if (::testing::Test::HasFatalFailure()) return;
  LocalCluster& cluster = **out;
  EnsureUsers(cluster, {kAlice, kBob});
  if (::testing::Test::HasFatalFailure()) return;
  ASSERT_EQ(cluster.Down().exit_code, 0);
  const std::string conf = ReadFile(cluster.conf_path());
  const std::string shared = absl::StrReplaceAll(conf, {{" Gres=gpu:2\n", " Gres=" + gres + "\n"}});
  ASSERT_NE(shared, conf);
  std::ofstream(cluster.conf_path()) << shared;
  std::ofstream(cluster.dir() + "/etc/gres.conf", std::ios::app)
      << absl::StrReplaceAll(gres_conf, {{"@DIR@", cluster.dir()}});
  CommandResult up = cluster.Up();
  ASSERT_EQ(up.exit_code, 0) << up.out << up.err;
  ASSERT_TRUE(Eventually(
      60,
      [&] { return cluster.Run("sinfo -h -n n1 -o %t").out.find("idle") != std::string::npos; }))
      << cluster.Run("sinfo -R").out << cluster.Log("noded-n1.log");
}

// NVIDIA's control program, stood in for in `dir`: it records in
// dir/control.log who started or asked it what, for which GPU and pipe
// directory. Returns its path.
std::string WriteMpsControl(const std::string& dir) {
  const std::string log = dir + "/control.log";
  const std::string control = dir + "/nvidia-cuda-mps-control";
  EXPECT_EQ(chmod(dir.c_str(), 0755), 0);
  std::ofstream(log) << "";
  EXPECT_EQ(chmod(log.c_str(), 0666), 0);
  std::ofstream(control) << "#!/bin/sh\n"
                            "if [ \"$1\" = -d ]; then\n"
                            "  echo \"start uid=$(id -u) gpu=$CUDA_VISIBLE_DEVICES "
                            "pipe=$CUDA_MPS_PIPE_DIRECTORY\" >> "
                         << log
                         << "\n  exit 0\nfi\n"
                            "read command\n"
                            "echo \"$command uid=$(id -u) gpu=$CUDA_VISIBLE_DEVICES\" >> "
                         << log << "\n";
  EXPECT_EQ(chmod(control.c_str(), 0755), 0);
  return control;
}

TEST(GpuShardTest, TwoUsersShareAGpuAndAWholeGpuJobWaits) {
  if (getuid() != 0) GTEST_SKIP() << "needs root to create test users";
  LocalCluster::Options options;
  options.extra_config = "GresTypes=gpu,shard\n";
  // A shard bills a quarter of a GPU (four shards a GPU).
  options.environment["SKIFF_TRES_BILLING_WEIGHTS"] = "CPU=1.0,GRES/gpu=8.0,GRES/shard=2.0";
  std::unique_ptr<LocalCluster> started;
  // The admin's line, as for Slurm: eight shards over n1's two GPUs.
  StartSharedGpuCluster(options, "gpu:2,shard:8", "", &started);
  if (HasFatalFailure()) return;
  LocalCluster& cluster = *started;
  CommandResult node = cluster.Run("scontrol show node n1");
  EXPECT_NE(node.out.find("Gres=gpu:2,shard:8"), std::string::npos) << node.out;

  // Refused at submit: more shards than one GPU has, and GPUs beside shards.
  CommandResult too_many = cluster.RunAs(kAlice, "sbatch -p gpu --gres=shard:5 --wrap true");
  EXPECT_NE(too_many.exit_code, 0);
  EXPECT_EQ(too_many.err,
            "sbatch: error: Batch job submission failed: Requested node configuration is not "
            "available\n");
  CommandResult both = cluster.RunAs(kAlice, "sbatch -p gpu --gres=gpu:1,shard:1 --wrap true");
  EXPECT_NE(both.exit_code, 0);
  EXPECT_EQ(both.err,
            "sbatch: error: Batch job submission failed: Invalid generic resource (gres) "
            "specification\n");

  // One 1-shard job each: both run at once on GPU 0.
  const std::string script =
      "#!/bin/bash\n"
      "echo \"$CUDA_VISIBLE_DEVICES $SLURM_JOB_GPUS $SLURM_SHARDS_ON_NODE\" > seen.$SLURM_JOB_ID\n"
      "for i in $(seq 600); do [ -e release ] && exit 0; sleep 0.2; done\nexit 1\n";
  std::vector<std::pair<std::string, uint64_t>> jobs;
  for (const char* user : {kAlice, kBob}) {
    const std::string home = absl::StrCat(cluster.dir(), "/home/", user);
    std::ofstream(home + "/shard.sh") << script;
    CommandResult submit =
        cluster.RunAs(user, "sbatch -p gpu --gres=shard:1 -o /dev/null shard.sh");
    ASSERT_EQ(submit.exit_code, 0) << submit.err;
    std::vector<uint64_t> ids = SubmittedJobIds(submit.out);
    ASSERT_EQ(ids.size(), 1u) << submit.out;
    jobs.push_back({home, ids[0]});
  }
  auto seen = [&](const std::pair<std::string, uint64_t>& job) {
    return std::string(
        absl::StripAsciiWhitespace(ReadFile(absl::StrCat(job.first, "/seen.", job.second))));
  };
  ASSERT_TRUE(Eventually(60, [&] { return !seen(jobs[0]).empty() && !seen(jobs[1]).empty(); }))
      << cluster.Run("squeue").out << cluster.Log("noded-n1.log");
  for (const auto& job : jobs) EXPECT_EQ(seen(job), "0 0 1") << job.second;
  // Slurm's GresUsed counts the GPUs with a shard in use.
  EXPECT_EQ(absl::StripAsciiWhitespace(cluster.Run("sinfo -h -n n1 -O GresUsed:60").out),
            "gpu:(null):0(IDX:N/A),shard:(null):1(IDX:0)");

  // srun's own allocation with a shard: its step runs on that GPU, GPU 0
  // (two of its four shards are free: first fit).
  CommandResult step = cluster.RunAs(kAlice, "srun -p gpu --gres=shard:1 printenv SLURM_STEP_GPUS");
  EXPECT_EQ(step.exit_code, 0) << step.err;
  EXPECT_EQ(step.out, "0\n") << step.err;

  // Both GPUs whole: GPU 0 is sharded, so the job waits for the shards.
  CommandResult whole = cluster.RunAs(kAlice, "sbatch --parsable -p gpu --gres=gpu:2 --wrap true");
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  const std::string whole_id(absl::StripAsciiWhitespace(whole.out));
  EXPECT_TRUE(Eventually(30, [&] {
    return cluster.Run("squeue -h -j " + whole_id + " -o %T:%r").out == "PENDING:Resources\n";
  })) << cluster.Run("squeue -j " + whole_id).out;
  for (const auto& job : jobs) std::ofstream(job.first + "/release") << "";
  EXPECT_TRUE(Eventually(
      60,
      [&] {
        return cluster.Run("sacct -n -X -j " + whole_id + " -o State%20").out.find("COMPLETED") !=
               std::string::npos;
      }))
      << cluster.Run("squeue").out << cluster.Run("sacct -j " + whole_id).out;

  // Accounting: gres/shard in AllocTRES; billing = 1 CPU + 1 shard x 2.
  for (const auto& job : jobs) {
    const std::string id = absl::StrCat(job.second);
    EXPECT_TRUE(Eventually(30, [&] {
      return cluster.Run("sacct -n -X -P -j " + id + " -o State").out == "COMPLETED\n";
    })) << cluster.Run("sacct -j " + id).out;
    EXPECT_EQ(cluster.Run("sacct -n -X -P -j " + id + " -o AllocTRES").out,
              "billing=3,cpu=1,gres/shard=1,node=1\n");
  }
}

TEST(GpuShardTest, OneUsersMpsJobsShareAGpuAndAnotherUsersWait) {
  if (getuid() != 0) GTEST_SKIP() << "needs root to create test users";
  ScratchDir scratch("skiff-mps");
  ASSERT_FALSE(scratch.path().empty());
  const std::string control = WriteMpsControl(scratch.path());
  const std::string log = scratch.path() + "/control.log";
  LocalCluster::Options options;
  options.extra_config = "GresTypes=gpu,mps\n";
  options.environment["SKIFF_NODED_PREFIX_n1"] = "env SKIFF_MPS_CONTROL=" + control;
  std::unique_ptr<LocalCluster> started;
  StartSharedGpuCluster(options, "gpu:2,mps:200", "", &started);
  if (HasFatalFailure()) return;
  LocalCluster& cluster = *started;

  const std::string script =
      "#!/bin/bash\n"
      "echo \"$CUDA_VISIBLE_DEVICES $CUDA_MPS_ACTIVE_THREAD_PERCENTAGE "
      "$CUDA_MPS_PIPE_DIRECTORY\" > seen.$SLURM_JOB_ID\n"
      "for i in $(seq 600); do [ -e release ] && exit 0; sleep 0.2; done\nexit 1\n";
  auto submit = [&](const char* user, const std::string& gres) {
    const std::string home = absl::StrCat(cluster.dir(), "/home/", user);
    std::ofstream(home + "/mps.sh") << script;
    CommandResult result =
        cluster.RunAs(user, "sbatch --parsable -p gpu --gres=" + gres + " -o /dev/null mps.sh");
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return std::make_pair(home, std::string(absl::StripAsciiWhitespace(result.out)));
  };
  auto seen = [&](const std::pair<std::string, std::string>& job) {
    return std::string(
        absl::StripAsciiWhitespace(ReadFile(absl::StrCat(job.first, "/seen.", job.second))));
  };
  const auto first = submit(kAlice, "mps:50");
  const auto second = submit(kAlice, "mps:25");
  ASSERT_TRUE(Eventually(60, [&] { return !seen(first).empty() && !seen(second).empty(); }))
      << cluster.Run("squeue").out << cluster.Log("noded-n1.log");
  // One daemon for GPU 0, started as Alice for her first job; both jobs use it.
  const std::string alice_uid = absl::StrCat(*cluster.EnsureUser(kAlice));
  const std::string bob_uid = absl::StrCat(*cluster.EnsureUser(kBob));
  const std::string pipe =
      absl::StrCat(cluster.dir(), "/state/noded/n1/mps/gpu0.", alice_uid, "/pipe");
  const std::string bob_pipe =
      absl::StrCat(cluster.dir(), "/state/noded/n1/mps/gpu0.", bob_uid, "/pipe");
  EXPECT_EQ(seen(first), "0 50 " + pipe);
  EXPECT_EQ(seen(second), "0 25 " + pipe);
  EXPECT_EQ(ReadFile(log), absl::StrCat("start uid=", alice_uid, " gpu=0 pipe=", pipe, "\n"));
  // Bob's waits: the node's MPS GPU is Alice's, and MPS stays on one GPU.
  const auto bobs = submit(kBob, "mps:10");
  EXPECT_TRUE(Eventually(30, [&] {
    return cluster.Run("squeue -h -j " + bobs.second + " -o %T:%r").out == "PENDING:Resources\n";
  })) << cluster.Run("squeue").out;
  std::ofstream(first.first + "/release") << "";
  EXPECT_TRUE(Eventually(60, [&] { return seen(bobs) == "0 10 " + bob_pipe; }))
      << cluster.Run("squeue").out << cluster.Run("sacct").out;
  // Alice's daemon was told to quit after her last job, then Bob's started.
  EXPECT_EQ(ReadFile(log), absl::StrCat("start uid=", alice_uid, " gpu=0 pipe=", pipe, "\n",
                                        "quit uid=", alice_uid, " gpu=0\n", "start uid=", bob_uid,
                                        " gpu=0 pipe=", bob_pipe, "\n"));
  std::ofstream(bobs.first + "/release") << "";
  EXPECT_TRUE(Eventually(30, [&] {
    return cluster.Run("sacct -n -X -P -j " + first.second + " -o AllocTRES").out ==
           "billing=1,cpu=1,gres/mps=50,node=1\n";
  })) << cluster.Run("sacct -n -X -P -j " + first.second + " -o AllocTRES").out;
}

// Fenced shards: each job runs under its GPU's MPS server (started as its
// user), with its share of the GPU's threads and memory (gres.conf's per-GPU
// counts) and the GPU as CUDA's device 0 through the server; another user's
// go to a GPU of their own.
TEST(GpuShardTest, FencedShardsRunUnderMpsWithTheirShareOfTheGpu) {
  if (getuid() != 0) GTEST_SKIP() << "needs root to create test users";
  ScratchDir scratch("skiff-mps");
  ASSERT_FALSE(scratch.path().empty());
  const std::string control = WriteMpsControl(scratch.path());
  const std::string log = scratch.path() + "/control.log";
  // The fake NVML gives the GPUs' memory, which the limits divide.
  const std::string nvml_state = scratch.path() + "/nvml.state";
  std::ofstream(nvml_state) << "gpu minor=0 memtotal=40960\ngpu minor=1 memtotal=40960\n";
  LocalCluster::Options options;
  options.extra_config = "GresTypes=gpu,shard\n";
  options.environment["SKIFF_NODED_PREFIX_n1"] =
      absl::StrCat("env SKIFF_MPS_CONTROL=", control, " LD_LIBRARY_PATH=", RunfilesRoot(),
                   "/tests/fake_nvml SKIFF_FAKE_NVML_STATE=", nvml_state);
  std::unique_ptr<LocalCluster> started;
  // Slurm's per-GPU counts: six shards on GPU 0, two on GPU 1.
  StartSharedGpuCluster(options, "gpu:2,shard:8",
                        "NodeName=n1 Name=shard Count=6 File=@DIR@/dev/n1/nvidia0 Flags=fence\n"
                        "NodeName=n1 Name=shard Count=2 File=@DIR@/dev/n1/nvidia1 Flags=fence\n",
                        &started);
  if (HasFatalFailure()) return;
  LocalCluster& cluster = *started;

  const std::string script =
      "#!/bin/bash\n"
      "echo \"$CUDA_VISIBLE_DEVICES $SLURM_JOB_GPUS $SLURM_SHARDS_ON_NODE "
      "$CUDA_MPS_ACTIVE_THREAD_PERCENTAGE $CUDA_MPS_PINNED_DEVICE_MEM_LIMIT "
      "$CUDA_MPS_PIPE_DIRECTORY\" > seen.$SLURM_JOB_ID\n"
      "for i in $(seq 600); do [ -e release ] && exit 0; sleep 0.2; done\nexit 1\n";
  std::vector<std::pair<std::string, std::string>> jobs;  // (home, id)
  for (const char* user : {kAlice, kAlice, kBob}) {
    const std::string home = absl::StrCat(cluster.dir(), "/home/", user);
    std::ofstream(home + "/fenced.sh") << script;
    CommandResult result =
        cluster.RunAs(user, "sbatch --parsable -p gpu --gres=shard:1 -o /dev/null fenced.sh");
    ASSERT_EQ(result.exit_code, 0) << result.err;
    jobs.push_back({home, std::string(absl::StripAsciiWhitespace(result.out))});
  }
  auto seen = [&](const std::pair<std::string, std::string>& job) {
    return std::string(
        absl::StripAsciiWhitespace(ReadFile(absl::StrCat(job.first, "/seen.", job.second))));
  };
  ASSERT_TRUE(Eventually(
      60,
      [&] { return !seen(jobs[0]).empty() && !seen(jobs[1]).empty() && !seen(jobs[2]).empty(); }))
      << cluster.Run("squeue").out << cluster.Log("noded-n1.log");
  const std::string alice_uid = absl::StrCat(*cluster.EnsureUser(kAlice));
  const std::string bob_uid = absl::StrCat(*cluster.EnsureUser(kBob));
  const std::string mps_dir = cluster.dir() + "/state/noded/n1/mps";
  const std::string alice_pipe = absl::StrCat(mps_dir, "/gpu0.", alice_uid, "/pipe");
  const std::string bob_pipe = absl::StrCat(mps_dir, "/gpu1.", bob_uid, "/pipe");
  // A sixth of GPU 0 each (16% of its threads, 6826 of the fake GPU's 40960
  // MiB), half of GPU 1 for Bob's.
  EXPECT_EQ(seen(jobs[0]), "0 0 1 16 0=6826M " + alice_pipe);
  EXPECT_EQ(seen(jobs[1]), "0 0 1 16 0=6826M " + alice_pipe);
  EXPECT_EQ(seen(jobs[2]), "0 1 1 50 0=20480M " + bob_pipe);
  // One daemon a GPU, each as its user (in either order).
  std::vector<std::string> starts = absl::StrSplit(ReadFile(log), '\n', absl::SkipEmpty());
  std::vector<std::string> expected = {
      absl::StrCat("start uid=", alice_uid, " gpu=0 pipe=", alice_pipe),
      absl::StrCat("start uid=", bob_uid, " gpu=1 pipe=", bob_pipe)};
  std::sort(starts.begin(), starts.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(starts, expected) << ReadFile(log);
  for (const auto& job : jobs) std::ofstream(job.first + "/release") << "";
  for (const auto& job : jobs) {
    EXPECT_TRUE(Eventually(60, [&] {
      return cluster.Run("sacct -n -X -P -j " + job.second + " -o State").out == "COMPLETED\n";
    })) << cluster.Run("sacct -j " + job.second).out;
  }
}

}  // namespace
}  // namespace skiff::testing
