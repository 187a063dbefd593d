// Admission's size checks: products and sums of the numbers a user gives are
// checked without wrapping and refused with Slurm's words (issue 32, item 5).
#include "ctld/core/lifecycle/admission.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace skiff::ctld {
namespace {

// Slurm 22.05's reference cluster: 4 nodes of 2 CPUs and 1000 MB, the last two
// with 2 GPUs each.
SkiffConfig Config() {
  SkiffConfig config;
  PartitionConfig debug;
  debug.name = "debug";
  debug.is_default = true;
  debug.max_time = kUnlimited;
  config.partitions = {debug};
  return config;
}

std::vector<NodeCapacity> Nodes() {
  std::vector<NodeCapacity> nodes;
  for (int i = 1; i <= 4; ++i) {
    NodeCapacity node;
    node.name = "n" + std::to_string(i);
    node.usable = true;
    node.cpus = 2;
    node.memory_mb = 1000;
    node.partitions = {"debug"};
    if (i >= 3) node.gpu_owner = {0, 0};
    if (i == 4) node.gpu_shares = {4, 4};
    nodes.push_back(node);
  }
  return nodes;
}

SubmitRequest Request() {
  SubmitRequest request;
  request.uid = 1001;
  request.gid = 1001;
  request.user_name = "alice";
  request.group_name = "alice";
  request.script = "#!/bin/sh\ntrue\n";
  request.work_dir = "/tmp";
  return request;
}

absl::Status Admit(const std::function<void(SubmitRequest&)>& change) {
  SubmitRequest request = Request();
  change(request);
  return JobFromRequest(request, Config(), Nodes(), {"normal"}).status();
}

constexpr char kTooManyCpus[] = "More processors requested than permitted";
constexpr char kBadMemory[] =
    "Memory specification can not be satisfied\nRequested node configuration is not available";

TEST(AdmissionTest, TasksTimesCpusPastTwoToTheThirtyTwoIsRefusedNotWrapped) {
  // 65536 x 65536 = 2^32: it wrapped to 0 CPUs and was accepted (NumCPUs=1).
  EXPECT_EQ(Admit([](SubmitRequest& r) {
              r.ntasks = 65536;
              r.cpus_per_task = 65536;
            }).message(),
            std::string("Requested CPU count overflows: NumTasks=65536 x CPUs/Task=65536\n") +
                kTooManyCpus);
  // 4 x 2^30 = 2^32: 4 tasks on "0" CPUs.
  EXPECT_EQ(Admit([](SubmitRequest& r) {
              r.ntasks = 4;
              r.cpus_per_task = 1073741824;
            }).message(),
            std::string("Requested CPU count overflows: NumTasks=4 x CPUs/Task=1073741824\n") +
                kTooManyCpus);
  // Just below int: fits the type, not the partition (Slurm's _part_access_check).
  EXPECT_EQ(Admit([](SubmitRequest& r) {
              r.ntasks = 65535;
              r.cpus_per_task = 32768;
            }).message(),
            kTooManyCpus);
  // Tasks per node x nodes.
  EXPECT_EQ(Admit([](SubmitRequest& r) {
              r.min_nodes = 4;
              r.ntasks_per_node = 1073741824;
            }).message(),
            std::string("Requested task count overflows: NumNodes=4 x NtasksPerN=1073741824\n") +
                kTooManyCpus);
}

TEST(AdmissionTest, CpusAndMemoryPerNodeGetSlurmsDetailLine) {
  // shared/reference/sbatch_err_too_many_cpus.txt and sbatch_err_too_much_mem.txt.
  EXPECT_EQ(Admit([](SubmitRequest& r) { r.cpus_per_task = 4; }).message(),
            "CPU count per node can not be satisfied\n"
            "Requested node configuration is not available");
  EXPECT_EQ(Admit([](SubmitRequest& r) { r.mem_per_node_mb = 100 * 1024; }).message(), kBadMemory);
  EXPECT_TRUE(Admit([](SubmitRequest& r) {
                r.ntasks = 8;
                r.min_nodes = 4;
                r.mem_per_cpu_mb = 500;
              }).ok());
}

TEST(AdmissionTest, MemoryProductsThatWrapAreRefused) {
  // --mem-per-cpu x CPUs per node past 2^64 MB.
  EXPECT_EQ(Admit([](SubmitRequest& r) {
              r.ntasks = 2;
              r.mem_per_cpu_mb = uint64_t{1} << 63;
            }).message(),
            kBadMemory);
  EXPECT_EQ(Admit([](SubmitRequest& r) {
              r.ntasks = 2;
              r.mem_per_cpu_mb = (uint64_t{1} << 63) - 1;
            }).message(),
            kBadMemory);
  // --mem-per-gpu x GPUs per node.
  EXPECT_EQ(Admit([](SubmitRequest& r) {
              r.gpus_per_node = "2";
              r.mem_per_gpu_mb = (uint64_t{1} << 63) - 1;
            }).message(),
            kBadMemory);
  // --mem above Slurm's 2^63 MB was an int64 of -1 to the node check, and fit.
  EXPECT_EQ(Admit([](SubmitRequest& r) { r.mem_per_node_mb = ~uint64_t{0}; }).message(),
            kBadMemory);
  // Huge --mem on many nodes: refused per node, never multiplied by the count.
  EXPECT_EQ(Admit([](SubmitRequest& r) {
              r.min_nodes = 4;
              r.mem_per_node_mb = uint64_t{1} << 62;
            }).message(),
            kBadMemory);
}

// --gres=shard:N: N shards of one GPU per node; never beside GPUs (Slurm's
// ESLURM_INVALID_GRES), never more than one GPU has.
TEST(AdmissionTest, ShardsComeFromOneGpuAndNeverBesideGpus) {
  SubmitRequest request = Request();
  request.gres = {"shard:3"};
  absl::StatusOr<Job> job = JobFromRequest(request, Config(), Nodes(), {"normal"});
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->request.shares_per_node, 3);
  EXPECT_EQ(job->request.gpus_per_node, 0);
  request.gres = {"shard"};
  job = JobFromRequest(request, Config(), Nodes(), {"normal"});
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->request.shares_per_node, 1);
  EXPECT_EQ(Admit([](SubmitRequest& r) { r.gres = {"shard:5"}; }).message(),
            "Requested node configuration is not available");
  for (const std::vector<std::string>& gres : std::vector<std::vector<std::string>>{
           {"gpu:1", "shard:1"}, {"shard:0"}, {"shard:a100:1"}, {"shard:x"}}) {
    EXPECT_EQ(Admit([&](SubmitRequest& r) { r.gres = gres; }).message(),
              "Invalid generic resource (gres) specification")
        << gres.back();
  }
  EXPECT_EQ(Admit([](SubmitRequest& r) {
              r.gres = {"shard:1"};
              r.gpus_per_task = "1";
              r.ntasks = 1;
            }).message(),
            "Invalid generic resource (gres) specification: --gpus-per-task together with --gres "
            "or --gpus-per-node");
}

TEST(AdmissionTest, ShardsWhereNoNodeHasAnyAreAnInvalidGres) {
  SubmitRequest request = Request();
  request.gres = {"shard:1"};
  std::vector<NodeCapacity> nodes = Nodes();
  nodes.back().gpu_shares.clear();
  EXPECT_EQ(JobFromRequest(request, Config(), nodes, {"normal"}).status().message(),
            "Invalid generic resource (gres) specification");
}

TEST(AdmissionTest, GpuSumsThatWrapAreRefused) {
  EXPECT_EQ(Admit([](SubmitRequest& r) {
              r.gres = {"gpu:2147483647", "gpu:2"};
            }).message(),
            "Invalid generic resource (gres) specification");
  EXPECT_EQ(Admit([](SubmitRequest& r) { r.gres = {"gpu:2147483647"}; }).message(),
            "Requested node configuration is not available");
}

TEST(AdmissionTest, TimeLimitsOutsideSlurmsRangeAreRefused) {
  const std::string bad = "Requested time limit is invalid (missing or exceeds some limit)";
  EXPECT_EQ(Admit([](SubmitRequest& r) { r.time_limit = int64_t{1} << 62; }).message(), bad);
  EXPECT_EQ(Admit([](SubmitRequest& r) { r.time_limit = -5; }).message(), bad);
  EXPECT_TRUE(Admit([](SubmitRequest& r) { r.time_limit = int64_t{4294967293} * 60; }).ok());
  EXPECT_TRUE(Admit([](SubmitRequest& r) { r.time_limit = -1; }).ok());
}

TEST(AdmissionTest, TheJobsProductsStayExactOrPinned) {
  JobRequest request;
  request.ntasks = 65536;
  request.cpus_per_task = 65536;
  EXPECT_EQ(request.TotalCpus(), int64_t{1} << 32);
  EXPECT_EQ(request.CpusPerNode(), 2147483647);
  request.num_nodes = 4;
  EXPECT_EQ(request.CpusPerNode(), 1073741824);
  request.mem_per_cpu_mb = uint64_t{1} << 40;
  EXPECT_EQ(request.MemPerNodeMb(), ~uint64_t{0});
}

TEST(AdmissionTest, TheContainerIsKeptWithTheJobsRequest) {
  SubmitRequest request = Request();
  request.container.image = "ubuntu:22.04";
  request.container.mounts = {"/data:/data:ro"};
  request.container.remap_root = true;
  absl::StatusOr<Job> job = JobFromRequest(request, Config(), Nodes(), {"normal"});
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->request.container, request.container);
  EXPECT_TRUE(
      JobFromRequest(Request(), Config(), Nodes(), {"normal"})->request.container.IsEmpty());
}

TEST(AdmissionTest, ARelativeBundleOrABundleWithAnImageIsRefused) {
  absl::Status s = Admit([](SubmitRequest& r) { r.container.bundle = "oci/alpine"; });
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "Container bundle path must be absolute: oci/alpine");
  s = Admit([](SubmitRequest& r) {
    r.container.bundle = "/oci/alpine";
    r.container.image = "alpine";
  });
  EXPECT_EQ(s.message(), "--container and --container-image options are mutually exclusive");
  s = Admit([](SubmitRequest& r) {
    r.container.bundle = "/oci/alpine";
    r.container.name = "saved";
  });
  EXPECT_EQ(s.message(), "--container and --container-name options are mutually exclusive");
  EXPECT_TRUE(Admit([](SubmitRequest& r) { r.container.bundle = "/oci/alpine"; }).ok());
}

// Two nodes of 8 CPUs and 4 a100 GPUs: room for the GPU options below.
absl::StatusOr<Job> AdmitOnGpuNodes(const std::function<void(SubmitRequest&)>& change) {
  std::vector<NodeCapacity> nodes;
  for (const char* name : {"g1", "g2"}) {
    NodeCapacity node;
    node.name = name;
    node.usable = true;
    node.cpus = 8;
    node.memory_mb = 8000;
    node.partitions = {"debug"};
    node.gpu_type = "a100";
    node.gpu_owner = {0, 0, 0, 0};
    nodes.push_back(node);
  }
  SubmitRequest request = Request();
  change(request);
  return JobFromRequest(request, Config(), nodes, {"normal"});
}

// Slurm's gres_job_state_validate: --gpus-per-task with -n (or -G for the
// task count) gives each task its GPUs, --cpus-per-gpu each task its GPUs' CPUs.
TEST(AdmissionTest, GpusPerTaskAndCpusPerGpuShapeTheTasks) {
  absl::StatusOr<Job> job = AdmitOnGpuNodes([](SubmitRequest& r) {
    r.ntasks = 2;
    r.gpus_per_task = "1";
    r.cpus_per_gpu = 2;
  });
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->request.num_nodes, 1);
  EXPECT_EQ(job->request.ntasks, 2);
  EXPECT_EQ(job->request.ntasks_per_node, 2);
  EXPECT_EQ(job->request.gpus_per_node, 2);
  EXPECT_EQ(job->request.cpus_per_task, 2);
  EXPECT_EQ(job->request.TotalCpus(), 4);

  // -G sets the task count; a type goes with it.
  job = AdmitOnGpuNodes([](SubmitRequest& r) {
    r.gpus = "4";
    r.gpus_per_task = "a100:2";
  });
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->request.ntasks, 2);
  EXPECT_EQ(job->request.gpus_per_node, 4);
  EXPECT_EQ(job->request.gpu_type, "a100");

  // -N spreads the tasks evenly, each node with its tasks' GPUs.
  job = AdmitOnGpuNodes([](SubmitRequest& r) {
    r.min_nodes = 2;
    r.ntasks = 4;
    r.gpus_per_task = "1";
  });
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->request.ntasks_per_node, 2);
  EXPECT_EQ(job->request.gpus_per_node, 2);

  // Without --gpus-per-task, --cpus-per-gpu sets the CPUs every node holds.
  job = AdmitOnGpuNodes([](SubmitRequest& r) {
    r.gpus_per_node = "2";
    r.cpus_per_gpu = 3;
  });
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->request.min_cpus_per_node, 6);
}

TEST(AdmissionTest, GpuTaskOptionsThatDisagreeAreRefusedWithSlurmsReason) {
  auto message = [](const std::function<void(SubmitRequest&)>& change) {
    return std::string(AdmitOnGpuNodes(change).status().message());
  };
  EXPECT_EQ(message([](SubmitRequest& r) { r.gpus_per_task = "1"; }),
            "Invalid generic resource (gres) specification: --gpus-per-task used without either "
            "--gpus or -n/--ntasks is not allowed.");
  EXPECT_EQ(message([](SubmitRequest& r) {
              r.ntasks = 3;
              r.gpus = "4";
              r.gpus_per_task = "1";
            }),
            "Invalid generic resource (gres) specification: Based on --gpus and --gpus-per-task "
            "number of requested tasks differ from -n/--ntasks.");
  EXPECT_EQ(message([](SubmitRequest& r) {
              r.ntasks = 2;
              r.cpus_per_task = 4;
              r.gpus_per_task = "1";
              r.cpus_per_gpu = 2;
            }),
            "Invalid generic resource (gres) specification: Based on --cpus-per-gpu and "
            "--gpus-per-task requested number of cpus differ from -c/--cpus-per-task.");
  EXPECT_NE(message([](SubmitRequest& r) {
              r.min_nodes = 2;
              r.ntasks = 3;
              r.gpus_per_task = "1";
            }).find("cannot give 2 nodes the same tasks and GPUs each"),
            std::string::npos);
  EXPECT_EQ(message([](SubmitRequest& r) {
              r.gpus_per_node = "1";
              r.cpus_per_task = 2;
              r.cpus_per_gpu = 2;
            }),
            "--cpus-per-gpu is mutually exclusive with --cpus-per-task");
  EXPECT_EQ(message([](SubmitRequest& r) { r.cpus_per_gpu = 2; }),
            "--cpus-per-gpu requires a GPU request");
  EXPECT_EQ(message([](SubmitRequest& r) {
              r.ntasks = 1;
              r.gpus_per_task = "0";
            }),
            "Invalid --gpus-per-task specification: 0");
}

// --tmp against the nodes' TmpDisk (0 on the reference cluster, as on the
// anchor, where `sbatch --tmp=10` answers these two lines and exits 1).
TEST(AdmissionTest, TmpDiskNoNodeHasIsRefusedWithSlurmsLines) {
  EXPECT_EQ(Admit([](SubmitRequest& r) { r.min_tmp_disk_mb = 10; }).message(),
            "Temporary disk specification can not be satisfied\n"
            "Requested node configuration is not available");
  SubmitRequest request = Request();
  request.min_tmp_disk_mb = 512;
  std::vector<NodeCapacity> nodes = Nodes();
  nodes[3].tmp_disk_mb = 512;
  absl::StatusOr<Job> job = JobFromRequest(request, Config(), nodes, {"normal"});
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->request.min_tmp_disk_mb, 512u);
}

// -L: Slurm's grammar, names and counts within Licenses=; kept as written.
TEST(AdmissionTest, LicensesBeyondTheConfiguredOnesAreRefused) {
  EXPECT_EQ(Admit([](SubmitRequest& r) { r.licenses = "matlab"; }).message(),
            "Invalid license specification");  // none configured
  SkiffConfig config = Config();
  config.licenses = {{"matlab", 4}};
  SubmitRequest request = Request();
  request.licenses = "matlab:3;matlab";
  absl::StatusOr<Job> job = JobFromRequest(request, config, Nodes(), {"normal"});
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->request.licenses_text, "matlab:3;matlab");
  EXPECT_EQ(job->request.licenses, (std::vector<LicenseCount>{{"matlab", 4}}));
  for (const char* bad : {"matlab:5", "matlab:3,matlab:2", "matlab:-1", "mat lab"}) {
    request.licenses = bad;
    EXPECT_EQ(JobFromRequest(request, config, Nodes(), {"normal"}).status().message(),
              "Invalid license specification")
        << bad;
  }
}

TEST(AdmissionTest, OversubscribeAndNoKillAreKeptWithTheJob) {
  SubmitRequest request = Request();
  request.oversubscribe = true;
  request.no_kill = true;
  absl::StatusOr<Job> job = JobFromRequest(request, Config(), Nodes(), {"normal"});
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_TRUE(job->request.oversubscribe);
  EXPECT_TRUE(job->no_kill);
  // --exclusive wins: a job that holds its nodes whole shares nothing.
  request.exclusive = true;
  job = JobFromRequest(request, Config(), Nodes(), {"normal"});
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_FALSE(job->request.oversubscribe);
  EXPECT_TRUE(job->request.exclusive);
}

}  // namespace
}  // namespace skiff::ctld
