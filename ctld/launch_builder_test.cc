#include "ctld/launch_builder.h"

#include <gtest/gtest.h>

#include "ctld/state/job_spec_parts.h"

namespace skiff::ctld {
namespace {

Job RunningJob() {
  Job job;
  job.id = 42;
  job.name = "train";
  job.user_name = "alice";
  job.uid = 1001;
  job.gid = 1001;
  job.qos = "normal";
  job.request.partition = "gpu";
  job.request.ntasks = 2;
  job.nodes = {"n3", "n4"};
  job.cpus_by_node = {1, 1};
  job.mem_by_node_mb = {500, 500};
  job.tasks_by_node = {1, 1};
  job.request.mem_per_node_mb = 500;
  job.gpu_indices = {0, 1};
  return job;
}

TEST(ExpandOutputPattern, ExpandsSlurmSymbols) {
  Job job = RunningJob();
  EXPECT_EQ(ExpandOutputPattern("out-%j-%x-%u-%N-%A_%a-%%.log", job, "/w"),
            "/w/out-42-train-alice-n3-42_4294967294-%.log");
}

TEST(ExpandOutputPattern, DefaultsToSlurmJobOutInWorkDir) {
  EXPECT_EQ(ExpandOutputPattern("", RunningJob(), "/home/a"), "/home/a/slurm-42.out");
}

// Slurm names an array task's default output slurm-%A_%a.out (slurm-15_3.out).
TEST(ExpandOutputPattern, ArrayTasksDefaultToSlurmArrayJobAndTaskOut) {
  Job task = RunningJob();
  task.id = 17;
  task.array_job_id = 15;
  task.array_task_id = 3;
  EXPECT_EQ(ExpandOutputPattern("", task, "/home/a"), "/home/a/slurm-15_3.out");
  EXPECT_EQ(ExpandOutputPattern("out-%j.log", task, "/w"), "/w/out-17.log");
}

TEST(ExpandOutputPattern, AbsolutePathsStayAndUnknownCodesAreKept) {
  EXPECT_EQ(ExpandOutputPattern("/tmp/%q%j", RunningJob(), "/w"), "/tmp/%q42");
}

TEST(JobEnvironment, CarriesSlurmVariablesOverTheUsersOwn) {
  v1::JobSpec spec;
  (*spec.mutable_environment())["HOME"] = "/home/alice";
  (*spec.mutable_environment())["SLURM_JOB_ID"] = "stale";
  spec.set_submit_dir("/home/alice/run");
  spec.set_submit_host("login1");
  spec.set_cpus_per_task(1);
  auto env = JobEnvironment(RunningJob(), spec, {"lab", "/etc/skiff/skiff.conf", 4000});
  EXPECT_EQ(env["HOME"], "/home/alice");
  EXPECT_EQ(env["SLURM_JOB_ID"], "42");
  EXPECT_EQ(env["SLURM_JOB_NODELIST"], "n[3-4]");
  EXPECT_EQ(env["SLURM_NNODES"], "2");
  EXPECT_EQ(env.count("SLURM_NTASKS"), 0u);  // only when -n was given, as Slurm
  EXPECT_EQ(env["SLURM_TASKS_PER_NODE"], "1(x2)");
  EXPECT_EQ(env["SLURM_CPUS_PER_TASK"], "1");
  EXPECT_EQ(env["SLURM_MEM_PER_NODE"], "500");
  EXPECT_EQ(env["SLURM_SUBMIT_DIR"], "/home/alice/run");
  EXPECT_EQ(env["SLURM_SUBMIT_HOST"], "login1");
  EXPECT_EQ(env["SLURM_JOB_PARTITION"], "gpu");
  EXPECT_EQ(env["SLURM_JOB_USER"], "alice");
  EXPECT_EQ(env["SLURM_JOB_UID"], "1001");
  EXPECT_EQ(env["SLURM_CLUSTER_NAME"], "lab");
  EXPECT_EQ(env.count("SLURM_JOB_ACCOUNT"), 0u);
  EXPECT_EQ(env.count("SLURM_CONF"), 0u);  // a real Slurm client would read skiff.conf
  EXPECT_EQ(env["SKIFF_CONF"], "/etc/skiff/skiff.conf");
  spec.set_ntasks(3);
  Job three_tasks = RunningJob();
  three_tasks.request.ntasks = 3;
  three_tasks.cpus_by_node = {2, 1};
  three_tasks.tasks_by_node = {2, 1};
  env = JobEnvironment(three_tasks, spec, {"lab", "/etc/skiff/skiff.conf", 4000});
  EXPECT_EQ(env["SLURM_NTASKS"], "3");
  EXPECT_EQ(env["SLURM_TASKS_PER_NODE"], "2,1");
  EXPECT_EQ(env["SLURM_JOB_CPUS_PER_NODE"], "2,1");
  // A record from before per-node tasks: blocks as Slurm lays them out.
  three_tasks.tasks_by_node.clear();
  env = JobEnvironment(three_tasks, spec, {"lab", "/etc/skiff/skiff.conf", 4000});
  EXPECT_EQ(env["SLURM_TASKS_PER_NODE"], "2,1");
}

TEST(JobEnvironment, NamesTheWorkingClusterAsSlurm2205) {
  // tests/reference/slurm-22.05/job_env_plain.txt: lab:127.0.0.1:PORT:9728:109.
  EXPECT_EQ(WorkingCluster("lab", "127.0.0.1", 6817), "lab:127.0.0.1:6817:9728:109");
  ClusterFacts facts{"lab", "/etc/skiff/skiff.conf", 4000};
  EXPECT_EQ(JobEnvironment(RunningJob(), v1::JobSpec(), facts).count("SLURM_WORKING_CLUSTER"), 0u);
  facts.working_cluster = WorkingCluster("lab", "10.0.0.1", 7817);
  EXPECT_EQ(JobEnvironment(RunningJob(), v1::JobSpec(), facts)["SLURM_WORKING_CLUSTER"],
            "lab:10.0.0.1:7817:9728:109");
}

TEST(TasksPerNode, BlocksAsSlurm) {
  EXPECT_EQ(TasksPerNode(5, 2), (std::vector<int>{3, 2}));
  EXPECT_EQ(TasksPerNode(1, 3), (std::vector<int>{1, 1, 1}));
}

TEST(BuildBatchLaunch, CarriesScriptPathsAndGpus) {
  v1::JobSpec spec;
  spec.set_script("#!/bin/sh\necho hi\n");
  spec.set_work_dir("/w");
  spec.set_stdout_pattern("o-%j");
  spec.set_stderr_pattern("/e/%x.err");
  BatchLaunch launch = BuildBatchLaunch(RunningJob(), spec, {"lab", "/c", 1});
  EXPECT_EQ(launch.job_id, 42u);
  EXPECT_EQ(launch.uid, 1001u);
  EXPECT_EQ(launch.stdout_path, "/w/o-42");
  EXPECT_EQ(launch.stderr_path, "/e/train.err");
  EXPECT_EQ(launch.gpu_indices.size(), 2u);
  EXPECT_EQ(launch.environment.at("SLURM_JOB_NAME"), "train");
}

// A running job holding `count` shares (shards, unless changed) of GPU 1.
Job SharedGpuJob(int32_t count) {
  Job job = RunningJob();
  job.gpu_indices.clear();
  job.gpus_by_node.clear();
  job.request.gpus_per_node = 0;
  job.request.shares_per_node = count;
  job.shares_by_node = {{1, count}};
  return job;
}

v1::JobSpec ShellSpec() {
  v1::JobSpec spec;
  spec.set_script("#!/bin/sh\n");
  spec.set_work_dir("/w");
  return spec;
}

// A shard job's GPU is given to noded with its share; gres/mps names the GPU
// whose MPS server noded starts, with Slurm's percentage of the GPU's count.
TEST(BuildBatchLaunch, SharedGpusComeWithTheirShareOfIt) {
  const v1::JobSpec spec = ShellSpec();
  Job job = SharedGpuJob(2);
  BatchLaunch shard = BuildBatchLaunch(job, spec, {"lab", "/c", 1});
  EXPECT_EQ(shard.gpu_indices, std::vector<int>{1});
  EXPECT_EQ(shard.environment.at("SLURM_SHARDS_ON_NODE"), "2");
  EXPECT_EQ(shard.mps_gpu, -1);
  job.request.share_kind = GpuShareKind::kMps;
  job.shares_by_node = {{1, 30}};
  ClusterFacts facts{"lab", "/c", 1};
  facts.share_gpu_count = 200;
  BatchLaunch mps = BuildBatchLaunch(job, spec, facts);
  EXPECT_EQ(mps.mps_gpu, 1);
  EXPECT_EQ(mps.environment.at("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"), "15");
  EXPECT_EQ(mps.environment.count("SLURM_SHARDS_ON_NODE"), 0u);
  job.shares_by_node = {{1, 1}};
  EXPECT_EQ(BuildBatchLaunch(job, spec, facts).environment.at("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"),
            "1");                         // at least 1, as Slurm
  EXPECT_EQ(mps.mps_memory_fraction, 0);  // not fenced
}

// Fenced shards (gres.conf Flags=fence) run under MPS with their share of the
// GPU's threads and memory, and keep SLURM_SHARDS_ON_NODE.
TEST(BuildBatchLaunch, FencedShardsGetMpsLimits) {
  ClusterFacts facts{"lab", "/c", 1};
  facts.share_gpu_count = 4;
  facts.share_fenced = true;
  BatchLaunch fenced = BuildBatchLaunch(SharedGpuJob(1), ShellSpec(), facts);
  EXPECT_EQ(fenced.mps_gpu, 1);
  EXPECT_EQ(fenced.environment.at("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"), "25");
  EXPECT_DOUBLE_EQ(fenced.mps_memory_fraction, 0.25);
  EXPECT_EQ(fenced.environment.at("SLURM_SHARDS_ON_NODE"), "1");
}

// A launch as ctld makes it: the job's own light spec joined with the
// script and environment stored once for its submission, and slurm_bb_paths'
// lines among the user's variables (SLURM_* still win).
TEST(BuildBatchLaunch, JoinsTheStoredPayloadAndBurstBufferPaths) {
  v1::JobSpec spec;
  spec.set_script("#!/bin/sh\necho hi\n");
  spec.add_argv("--epochs=3");
  (*spec.mutable_environment())["HOME"] = "/home/alice";
  spec.set_work_dir("/w");
  const SpecParts parts = SplitSpec(spec);
  Job job = RunningJob();
  job.spec_blob = parts.light;
  const BatchLaunch launch = BuildBatchLaunch(
      job, parts.light + parts.payload,
      {{"DW_JOB_STRIPED", "/bb/42"}, {"SLURM_JOB_ID", "from-lua"}}, {"lab", "/c", 1});
  EXPECT_EQ(launch.script, "#!/bin/sh\necho hi\n");
  EXPECT_EQ(launch.argv, std::vector<std::string>{"--epochs=3"});
  EXPECT_EQ(launch.environment.at("HOME"), "/home/alice");
  EXPECT_EQ(launch.environment.at("DW_JOB_STRIPED"), "/bb/42");
  EXPECT_EQ(launch.environment.at("SLURM_JOB_ID"), "42");
  EXPECT_EQ(launch.work_dir, "/w");
}

TEST(BuildBatchLaunch, TheBatchScriptRunsInTheJobsContainer) {
  Job job = RunningJob();
  v1::JobSpec spec;
  spec.set_script("#!/bin/sh\ntrue\n");
  EXPECT_TRUE(BuildBatchLaunch(job, spec, {"lab", "/c", 1}).container.IsEmpty());
  job.request.container.bundle = "/srv/oci/alpine";
  EXPECT_EQ(BuildBatchLaunch(job, spec, {"lab", "/c", 1}).container.bundle, "/srv/oci/alpine");
  job.request.container = {};
  job.request.container.image = "ubuntu:22.04";
  job.request.container.mounts = {"/data:/data"};
  const BatchLaunch launch = BuildBatchLaunch(job, spec, {"lab", "/c", 1});
  EXPECT_EQ(launch.container, job.request.container);
}

TEST(JobDetailsEnvironment, GivesOutputPathsAsSubmittedAndTheArraysShape) {
  v1::JobSpec spec;
  spec.set_stdout_pattern("out-%A_%a");
  spec.set_array("1-7:3");
  Job task = RunningJob();
  task.array_job_id = 40;
  task.array_task_id = 4;
  task.spec_blob = spec.SerializeAsString();
  std::map<std::string, std::string> env = JobDetailsEnvironment(task);
  EXPECT_EQ(env["SLURM_JOB_STDOUT"], "out-%A_%a");
  EXPECT_EQ(env.count("SLURM_JOB_STDERR"), 0u);
  EXPECT_EQ(env["SLURM_ARRAY_TASK_COUNT"], "3");
  EXPECT_EQ(env["SLURM_ARRAY_TASK_MIN"], "1");
  EXPECT_EQ(env["SLURM_ARRAY_TASK_MAX"], "7");
  EXPECT_EQ(env["SLURM_ARRAY_TASK_STEP"], "3");
  task.spec_blob = "not a spec";
  EXPECT_TRUE(JobDetailsEnvironment(task).empty());
}

TEST(BuildCtldScriptCall, EpilogSeesExitCodeAndContext) {
  Job job = RunningJob();
  job.exit_code = 3;
  ScriptCall call =
      BuildCtldScriptCall(CtldScript::kEpilog, "/etc/epilog", 60, job, {"lab", "/c", 1});
  EXPECT_EQ(call.path, "/etc/epilog");
  EXPECT_EQ(call.timeout_seconds, 60);
  EXPECT_EQ(call.environment.at("SLURM_SCRIPT_CONTEXT"), "epilog_slurmctld");
  EXPECT_EQ(call.environment.at("SLURM_JOB_EXIT_CODE2"), "3:0");
  EXPECT_EQ(call.request_id, "epilog-42-0");
  // A retried epilog whose first run ended is answered from scriptd's journal.
  EXPECT_TRUE(call.run_once);
}

}  // namespace
}  // namespace skiff::ctld
