#include "ctld/launch_builder.h"

#include <gtest/gtest.h>

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

TEST(BuildLaunchRequest, CarriesScriptPathsAndGpus) {
  v1::JobSpec spec;
  spec.set_script("#!/bin/sh\necho hi\n");
  spec.set_work_dir("/w");
  spec.set_stdout_pattern("o-%j");
  spec.set_stderr_pattern("/e/%x.err");
  v1::LaunchJobRequest request = BuildLaunchRequest(RunningJob(), spec, {"lab", "/c", 1});
  EXPECT_EQ(request.job_id(), 42u);
  EXPECT_EQ(request.uid(), 1001u);
  EXPECT_EQ(request.stdout_path(), "/w/o-42");
  EXPECT_EQ(request.stderr_path(), "/e/train.err");
  EXPECT_EQ(request.gpu_indices_size(), 2);
  EXPECT_EQ(request.environment().at("SLURM_JOB_NAME"), "train");
}

TEST(BuildCtldScriptRequest, EpilogSeesExitCodeAndContext) {
  Job job = RunningJob();
  job.exit_code = 3;
  v1::RunScriptRequest request =
      BuildCtldScriptRequest(CtldScript::kEpilog, "/etc/epilog", 60, job, {"lab", "/c", 1});
  EXPECT_EQ(request.path(), "/etc/epilog");
  EXPECT_EQ(request.timeout_seconds(), 60);
  EXPECT_EQ(request.environment().at("SLURM_SCRIPT_CONTEXT"), "epilog_slurmctld");
  EXPECT_EQ(request.environment().at("SLURM_JOB_EXIT_CODE2"), "3:0");
  EXPECT_EQ(request.request_id(), "epilog-42-0");
  // A retried epilog whose first run ended is answered from scriptd's journal.
  EXPECT_TRUE(request.run_once());
}

}  // namespace
}  // namespace skiff::ctld
