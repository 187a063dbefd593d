#include "cli/srun/srun_options.h"

#include <signal.h>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace skiff::cli {
namespace {

using ::testing::ElementsAre;

std::map<std::string, std::string> JobEnv() {
  return {{"SLURM_JOB_ID", "42"}, {"SLURM_NNODES", "2"}, {"PATH", "/bin"}, {"HOME", "/h"}};
}

SrunArgs Command(std::vector<std::string> command) {
  SrunArgs args;
  args.command = std::move(command);
  return args;
}

TEST(BuildStepRequest, DefaultsAreOneTaskOnEveryNodeOfTheJob) {
  absl::StatusOr<v1::StepRequest> r = BuildStepRequest(Command({"hostname"}), JobEnv(), "/w");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->job_id(), 42u);
  EXPECT_EQ(r->ntasks(), 2);
  EXPECT_EQ(r->min_nodes(), 2);
  EXPECT_EQ(r->cpus_per_task(), 1);
  EXPECT_EQ(r->gpus_per_node(), -1);
  EXPECT_EQ(r->stdin_task(), -1) << "Slurm sends stdin to every task";
  EXPECT_EQ(r->work_dir(), "/w");
  EXPECT_EQ(r->environment().at("HOME"), "/h");
  EXPECT_FALSE(r->exact());
}

// -m (or SLURM_DISTRIBUTION from sbatch -m): the layout and Slurm's name for
// the tasks; a bare plane takes SLURM_DIST_PLANESIZE; arbitrary is refused.
TEST(BuildStepRequest, DistributionNamesTheLayout) {
  SrunArgs args = Command({"hostname"});
  args.distribution = "cyclic:block";
  absl::StatusOr<v1::StepRequest> r = BuildStepRequest(args, JobEnv(), "/");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->distribution(), v1::StepRequest::CYCLIC);
  EXPECT_EQ(r->distribution_name(), "cyclic:block");
  std::map<std::string, std::string> env = JobEnv();
  env["SLURM_DIST_PLANESIZE"] = "3";
  args.distribution = "plane";
  r = BuildStepRequest(args, env, "/");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->distribution(), v1::StepRequest::PLANE);
  EXPECT_EQ(r->plane_size(), 3);
  args.distribution = "arbitrary";
  EXPECT_THAT(std::string(BuildStepRequest(args, env, "/").status().message()),
              ::testing::HasSubstr("--distribution=arbitrary is not supported by Skiff"));
  r = BuildStepRequest(Command({"hostname"}), JobEnv(), "/");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->distribution(), v1::StepRequest::BLOCK);
  EXPECT_EQ(r->distribution_name(), "");
}

TEST(BuildStepRequest, TheJobsTaskCountIsTheDefault) {
  std::map<std::string, std::string> env = JobEnv();
  env["SLURM_NTASKS"] = "4";
  absl::StatusOr<v1::StepRequest> r = BuildStepRequest(Command({"hostname"}), env, "/");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->ntasks(), 4);
  EXPECT_EQ(r->min_nodes(), 2) << "SLURM_NNODES is -N";
}

// Issue 32 item 5: Slurm's bound of nodes x MaxTasksPerNode (512) tasks, and
// no product of tasks per node x nodes that wraps.
TEST(BuildStepRequest, MoreTasksThanTheJobsNodesAllowAreRefused) {
  SrunArgs args = Command({"true"});
  args.ntasks = 1025;  // the job has 2 nodes
  args.cpus_per_task = 65536;
  absl::StatusOr<v1::StepRequest> r = BuildStepRequest(args, JobEnv(), "/");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "Unable to create step for job 42: Task count specification invalid");
  args.ntasks = 1024;
  EXPECT_TRUE(BuildStepRequest(args, JobEnv(), "/").ok()) << "the step manager counts CPUs";
  args.ntasks.reset();
  args.nodes = "2";
  args.ntasks_per_node = 1073741824;  // x 2 nodes = 2^31
  r = BuildStepRequest(args, JobEnv(), "/");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "Unable to create step for job 42: Task count specification invalid");
}

TEST(BuildStepRequest, TimeLimitsPastSlurmsRangeAreRefused) {
  SrunArgs args = Command({"true"});
  args.time = "99999999999";  // minutes
  EXPECT_EQ(BuildStepRequest(args, JobEnv(), "/").status().message(),
            "Invalid --time specification");
}

TEST(BuildStepRequest, OneTaskInATwoNodeJob) {
  SrunArgs args = Command({"x"});
  args.ntasks = 1;
  absl::StatusOr<v1::StepRequest> r = BuildStepRequest(args, JobEnv(), "/");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->ntasks(), 1);
  EXPECT_EQ(r->min_nodes(), 2) << "the step manager shrinks it to the tasks, as Slurm";
}

TEST(BuildStepRequest, OptionsMapToTheRequest) {
  SrunArgs args = Command({"a.out", "x"});
  args.ntasks = 3;
  args.nodes = "1-2";
  args.cpus_per_task = 2;
  args.mem = "1G";
  args.gres = "gpu:a100:1";
  args.nodelist = "n[1-2]";
  args.input = "0";
  args.export_env = "NONE,FOO=bar";
  absl::StatusOr<v1::StepRequest> r = BuildStepRequest(args, JobEnv(), "/");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->ntasks(), 3);
  EXPECT_EQ(r->min_nodes(), 1);
  EXPECT_EQ(r->max_nodes(), 2);
  EXPECT_TRUE(r->exact()) << "-c implies --exact";
  EXPECT_TRUE(r->mem_given());
  EXPECT_EQ(r->mem_per_node_mb(), 1024u);
  EXPECT_EQ(r->gpus_per_node(), 1);
  EXPECT_THAT(r->nodelist(), ElementsAre("n1", "n2"));
  EXPECT_EQ(r->stdin_task(), 0);
  EXPECT_EQ(r->environment().count("HOME"), 0u);
  EXPECT_EQ(r->environment().at("FOO"), "bar");
  EXPECT_EQ(r->environment().at("SLURM_JOB_ID"), "42");
  EXPECT_THAT(r->argv(), ElementsAre("a.out", "x"));
}

TEST(BuildStepRequest, MemoryPerCpuOrGpuAndCpusPerGpu) {
  SrunArgs args = Command({"x"});
  args.mem_per_cpu = "6M";
  absl::StatusOr<v1::StepRequest> r = BuildStepRequest(args, JobEnv(), "/");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->mem_per_cpu_mb(), 6u);
  EXPECT_FALSE(r->mem_given());
  args.mem = "1G";
  EXPECT_EQ(BuildStepRequest(args, JobEnv(), "/").status().message(),
            "--mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.");
  args = Command({"x"});
  args.mem_per_gpu = "2G";
  args.gpus_per_task = 2;
  args.cpus_per_gpu = 3;
  r = BuildStepRequest(args, JobEnv(), "/");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->mem_per_gpu_mb(), 2048u);
  EXPECT_EQ(r->cpus_per_task(), 6);
  args.cpus_per_task = 2;
  EXPECT_EQ(BuildStepRequest(args, JobEnv(), "/").status().message(),
            "--cpus-per-gpu is mutually exclusive with --cpus-per-task");
  // In a job of sbatch --gpus-per-task=a100:1 --cpus-per-gpu=4: each task 4 CPUs.
  std::map<std::string, std::string> env = JobEnv();
  env["SLURM_GPUS_PER_TASK"] = "a100:1";
  env["SLURM_CPUS_PER_GPU"] = "4";
  args = Command({"x"});
  int verbose = 0;
  EXPECT_TRUE(ApplySrunEnvironment(env, &args, &verbose).empty());
  EXPECT_EQ(args.gpus_per_task, 1);
  r = BuildStepRequest(args, env, "/");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->gpus_per_task(), 1);
  EXPECT_EQ(r->cpus_per_task(), 4);
}

TEST(BuildStepRequest, GpuBindNonePerTaskAndPerTaskMaps) {
  SrunArgs args = Command({"x"});
  args.gpus_per_task = 1;
  args.gpu_bind = "none";
  absl::StatusOr<v1::StepRequest> r = BuildStepRequest(args, JobEnv(), "/");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->gpu_bind_per_task(), -1);
  args.gpu_bind = "verbose,per_task:2";
  r = BuildStepRequest(args, JobEnv(), "/");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->gpu_bind_per_task(), 2);
  for (const char* bind : {"closest", "map_gpu:1*2,0", "mask_gpu:0x3", "single:2"}) {
    args.gpu_bind = absl::StrCat("verbose,", bind);
    r = BuildStepRequest(args, JobEnv(), "/");
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->gpu_bind(), bind) << "applied per task by noded";
  }
  // sbatch --gpu-bind=... leaves SLURM_GPU_BIND in the job for its steps.
  std::map<std::string, std::string> env = JobEnv();
  env["SLURM_GPU_BIND"] = "single:2";
  SrunArgs inherited = Command({"x"});
  int verbose = 0;
  EXPECT_TRUE(ApplySrunEnvironment(env, &inherited, &verbose).empty());
  EXPECT_EQ(BuildStepRequest(inherited, env, "/")->gpu_bind(), "single:2");
  args.gpu_bind = "Map_GPU:1";
  EXPECT_EQ(BuildStepRequest(args, JobEnv(), "/")->gpu_bind(), "map_gpu:1");
  args.gpu_bind = "nearest";
  EXPECT_THAT(std::string(BuildStepRequest(args, JobEnv(), "/").status().message()),
              ::testing::HasSubstr("--gpu-bind=nearest is not supported by Skiff"));
}

// A step asking for shards (or MPS) of a job's GPU gets the job's GPUs, as a
// step without --gres does; whole GPUs are counted.
TEST(BuildStepRequest, SharesOfTheJobsGpuLeaveItsGpusToTheStep) {
  for (const char* gres : {"shard:1", "mps:50", "shard"}) {
    SrunArgs args = Command({"x"});
    args.gres = gres;
    absl::StatusOr<v1::StepRequest> r = BuildStepRequest(args, JobEnv(), "/");
    ASSERT_TRUE(r.ok()) << gres << ": " << r.status();
    EXPECT_EQ(r->gpus_per_node(), -1) << gres;
  }
  SrunArgs args = Command({"x"});
  args.gres = "gpu:2";
  EXPECT_EQ(BuildStepRequest(args, JobEnv(), "/")->gpus_per_node(), 2);
}

TEST(BuildStepRequest, BadInputIsNamed) {
  SrunArgs args = Command({"x"});
  args.nodes = "0";
  EXPECT_EQ(BuildStepRequest(args, JobEnv(), "/").status().message(), "invalid node count `0'");
  args = Command({"x"});
  args.gres = "fpga:1";
  EXPECT_FALSE(BuildStepRequest(args, JobEnv(), "/").ok());
  args = Command({"x"});
  args.mpi = "pmix";
  EXPECT_THAT(std::string(BuildStepRequest(args, JobEnv(), "/").status().message()),
              ::testing::HasSubstr("MPI type 'pmix' is not supported"));
  EXPECT_FALSE(BuildStepRequest(Command({}), JobEnv(), "/").ok());
}

TEST(BuildStepRequest, TheStepsOwnContainerOptions) {
  SrunArgs args = Command({"python", "train.py"});
  args.container.image = "nvcr.io#nvidia/pytorch:24.01-py3";
  args.container.mounts = "/data:/data:ro";
  args.container.remap_root = true;
  absl::StatusOr<v1::StepRequest> r = BuildStepRequest(args, JobEnv(), "/w");
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->has_container());
  EXPECT_EQ(r->container().image(), "nvcr.io#nvidia/pytorch:24.01-py3");
  ASSERT_EQ(r->container().mounts_size(), 1);
  EXPECT_EQ(r->container().mounts(0), "/data:/data:ro");
  EXPECT_TRUE(r->container().remap_root());
  args = Command({"true"});
  args.container.bundle = "oci/alpine";
  r = BuildStepRequest(args, JobEnv(), "/w");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->container().bundle(), "/w/oci/alpine") << "against srun's directory";
  args.container.image = "alpine";
  r = BuildStepRequest(args, JobEnv(), "/w");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "--container and --container-image options are mutually exclusive");
}

TEST(BuildStepRequest, AStepDoesNotInheritItsJobsContainer) {
  // Inside `sbatch --container=/b`: the job's SLURM_CONTAINER is an output
  // variable, not srun's input; a plain srun runs its tasks on the host.
  std::map<std::string, std::string> env = JobEnv();
  env["SLURM_CONTAINER"] = "/b";
  SrunArgs args = Command({"hostname"});
  int verbose = 0;
  EXPECT_TRUE(ApplySrunEnvironment(env, &args, &verbose).empty());
  absl::StatusOr<v1::StepRequest> r = BuildStepRequest(args, env, "/w");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->has_container());
  // SRUN_CONTAINER is srun's --container; the command line overrides it.
  env["SRUN_CONTAINER"] = "/srv/oci/step";
  ApplySrunEnvironment(env, &args, &verbose);
  r = BuildStepRequest(args, env, "/w");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->container().bundle(), "/srv/oci/step");
  env["SRUN_CONTAINER"] = "";
  args = Command({"hostname"});
  ApplySrunEnvironment(env, &args, &verbose);
  EXPECT_FALSE(args.container.bundle.has_value()) << "set but empty: none";
}

TEST(TaskResults, ExitCodeAndLinesAsSrun) {
  std::vector<TaskResult> results = {
      {0, "n1", 4, 0, ""}, {1, "n1", 4, 0, ""}, {2, "n2", 0, 0, ""}, {3, "n2", 1, 0, ""}};
  EXPECT_EQ(SrunExitCode(results), 4);
  EXPECT_THAT(TaskErrorLines(results),
              ElementsAre("srun: error: n1: tasks 0-1: Exited with exit code 4",
                          "srun: error: n2: task 3: Exited with exit code 1"));
  results.push_back({4, "n2", 0, SIGKILL, ""});
  EXPECT_EQ(SrunExitCode(results), 128 + SIGKILL);
  EXPECT_EQ(TaskErrorLines(results).back(), "srun: error: n2: task 4: Killed");
  EXPECT_EQ(TaskRanges({5, 0, 1, 2}), "0-2,5");
}

TEST(BuildStepRequest, FilesForOutputAndInputAndATerminal) {
  SrunArgs args = Command({"hostname"});
  args.output = "out-%t.txt";
  args.error = "err-%N";
  args.input = "in.txt";
  absl::StatusOr<v1::StepRequest> r = BuildStepRequest(args, JobEnv(), "/");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->output_pattern(), "out-%t.txt");
  EXPECT_EQ(r->error_pattern(), "err-%N");
  EXPECT_EQ(r->input_pattern(), "in.txt");
  EXPECT_EQ(r->stdin_task(), -2);  // nothing from srun
  args = Command({"bash"});
  args.pty = true;
  r = BuildStepRequest(args, JobEnv(), "/");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->pty());
  EXPECT_EQ(r->stdin_task(), 0);
  // A number that is no task id of the step is a file's name, as Slurm's.
  args.input = "7";
  r = BuildStepRequest(args, JobEnv(), "/");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->input_pattern(), "7");
}

// Slurm's fname_create, as srun(1)'s "IO Redirection" describes it.
TEST(ClassifyIo, AllNoneATaskOrAFile) {
  for (const char* all : {"all", "ALL", "allx", "-", "-x"}) {
    EXPECT_EQ(ClassifyIo(all, 4).kind, IoTarget::kAll) << all;
  }
  EXPECT_EQ(ClassifyIo("none", 4).kind, IoTarget::kNone);
  EXPECT_EQ(ClassifyIo("NoNe", 4).kind, IoTarget::kNone);
  EXPECT_EQ(ClassifyIo("3", 4).kind, IoTarget::kTask);
  EXPECT_EQ(ClassifyIo("3", 4).task, 3);
  EXPECT_EQ(ClassifyIo("03", 4).task, 3);
  EXPECT_EQ(ClassifyIo("", 4).task, 0);  // strtoul's: no digits is 0
  EXPECT_EQ(ClassifyIo("4", 4).kind, IoTarget::kFile);
  EXPECT_EQ(ClassifyIo("none.txt", 4).kind, IoTarget::kFile);
  EXPECT_EQ(ClassifyIo("out-%t", 4).kind, IoTarget::kFile);
}

TEST(BuildStepRequest, ATaskIdKeepsThatTasksStreamAlone) {
  SrunArgs args = Command({"hostname"});
  std::map<std::string, std::string> env = JobEnv();
  env["SLURM_NTASKS"] = "3";
  args.input = "1";
  args.output = "2";
  absl::StatusOr<v1::StepRequest> r = BuildStepRequest(args, env, "/");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->stdin_task(), 1);
  ASSERT_TRUE(r->has_output_task());
  EXPECT_EQ(r->output_task(), 2);
  EXPECT_TRUE(r->output_pattern().empty());
  EXPECT_FALSE(r->has_error_task()) << "stderr follows -o";
  args.error = "0";
  r = BuildStepRequest(args, env, "/");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->error_task(), 0);
  args.error = "all";
  EXPECT_EQ(BuildStepRequest(args, env, "/")->error_task(), -1);
  args.output = "none";
  args.error = "none";
  args.input = "none";
  r = BuildStepRequest(args, env, "/");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->output_pattern(), "/dev/null");
  EXPECT_EQ(r->error_pattern(), "/dev/null");
  EXPECT_EQ(r->stdin_task(), -2);
  EXPECT_FALSE(r->has_output_task());
}

TEST(ParseMultiProg, RanksRangesAsteriskAndSubstitutions) {
  absl::StatusOr<std::vector<std::vector<std::string>>> c = ParseMultiProg(
      "# comment\n0 echo first\n1-2 sh -c 'echo %t of %o'\n\n* hostname\n", "mp.conf", 5, true);
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->size(), 5u);
  EXPECT_EQ((*c)[0], (std::vector<std::string>{"echo", "first"}));
  EXPECT_EQ((*c)[2], (std::vector<std::string>{"sh", "-c", "echo 2 of 1"}));
  EXPECT_EQ((*c)[4], (std::vector<std::string>{"hostname"}));
}

// As Slurm 22.05 printed it for the same file.
TEST(ParseMultiProg, OffsetCountsTheLinesTasksAcrossItsRanges) {
  absl::StatusOr<std::vector<std::vector<std::string>>> c =
      ParseMultiProg("1,3-4 echo t%t o%o\n* echo star %t %o\n", "mp.conf", 5, true);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ((*c)[0], (std::vector<std::string>{"echo", "star", "0", "0"}));
  EXPECT_EQ((*c)[1], (std::vector<std::string>{"echo", "t1", "o0"}));
  EXPECT_EQ((*c)[2], (std::vector<std::string>{"echo", "star", "2", "2"}));
  EXPECT_EQ((*c)[3], (std::vector<std::string>{"echo", "t3", "o1"}));
  EXPECT_EQ((*c)[4], (std::vector<std::string>{"echo", "t4", "o2"}));
}

// Slurm 22.05's srun -v -N2 -n3 on two 2-CPU nodes.
TEST(VerboseLaunchLines, AsSlurmPrintsThem) {
  google::protobuf::RepeatedPtrField<v1::StepTaskPlacement> placement;
  v1::StepTaskPlacement* n1 = placement.Add();
  n1->set_node("n1");
  n1->add_task_ids(0);
  n1->add_task_ids(1);
  n1->set_cpus(2);
  v1::StepTaskPlacement* n2 = placement.Add();
  n2->set_node("n2");
  n2->add_task_ids(2);
  n2->set_cpus(1);
  EXPECT_EQ(VerboseLaunchLines(18, 0, placement),
            (std::vector<std::string>{"jobid 18: nodes(2):`n[1-2]', cpu counts: 2(x1),1(x1)",
                                      "launching StepId=18.0 on host n1, 2 tasks: [0-1]",
                                      "launching StepId=18.0 on host n2, 1 tasks: 2"}));
  n2->set_cpus(2);
  n2->add_task_ids(4);
  EXPECT_EQ(VerboseLaunchLines(18, 3, placement)[0],
            "jobid 18: nodes(2):`n[1-2]', cpu counts: 2(x2)");
  EXPECT_EQ(VerboseLaunchLines(18, 3, placement)[2],
            "launching StepId=18.3 on host n2, 2 tasks: [2,4]");
}

// Slurm 22.05's lines on the anchor, one "srun: error: " line each.
TEST(ParseMultiProg, SlurmsErrors) {
  EXPECT_EQ(ParseMultiProg("0 true\n", "mp.conf", 2, true).status().message(),
            "Configuration file mp.conf invalid, no record for task id 1");
  EXPECT_EQ(ParseMultiProg("0 true\n5 true\n", "mp.conf", 2, true).status().message(),
            "Invalid task id, 5 >= ntasks\nLine 2 of configuration file mp.conf invalid");
  EXPECT_EQ(ParseMultiProg("0\n", "mp.conf", 1, true).status().message(),
            "Line 1 of configuration file mp.conf invalid");
  EXPECT_EQ(ParseMultiProg("0,0 true\n", "mp.conf", 1, true).status().message(),
            "Duplicate record for task 0\nLine 1 of configuration file mp.conf invalid");
  EXPECT_EQ(ParseMultiProg("0-x true\n", "mp.conf", 2, true).status().message(),
            "Invalid task range specification\nLine 1 of configuration file mp.conf invalid");
  EXPECT_EQ(ParseMultiProg("a true\n", "mp.conf", 2, true).status().message(),
            "Invalid task range specification (a)\nLine 1 of configuration file mp.conf invalid");
  EXPECT_EQ(ParseMultiProg("2-1 true\n", "mp.conf", 2, true).status().message(),
            "Invalid task range, 2-1\nLine 1 of configuration file mp.conf invalid");
}

// srun -O -l --multi-prog without -n (or a job's count), as Slurm's srun: the
// file's highest task id sets the count.
TEST(ParseMultiProg, WithoutATaskCountTheFileSetsIt) {
  absl::StatusOr<std::vector<std::vector<std::string>>> c =
      ParseMultiProg("0 echo first\n1 echo second\n", "mp.conf", 1, false);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(*c, (std::vector<std::vector<std::string>>{{"echo", "first"}, {"echo", "second"}}));
  c = ParseMultiProg("2-3 echo %t\n0,1 echo low\n", "mp.conf", 1, false);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->size(), 4u);
  // "*" covers the count so far and fixes it: one task alone.
  c = ParseMultiProg("* echo star %t\n", "mp.conf", 1, false);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(*c, (std::vector<std::vector<std::string>>{{"echo", "star", "0"}}));
  c = ParseMultiProg("0-1 echo a\n* echo b\n", "mp.conf", 1, false);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->size(), 2u);
  // A count given (-n 1) is kept.
  EXPECT_EQ(ParseMultiProg("0 echo a\n1 echo b\n", "mp.conf", 1, true).status().message(),
            "Invalid task id, 1 >= ntasks\nLine 2 of configuration file mp.conf invalid");
}

TEST(TaskCountGiven, DashNOrTheJobsCountUnlessDashN) {
  SrunArgs args = Command({"mp.conf"});
  EXPECT_FALSE(TaskCountGiven(args, JobEnv()));
  EXPECT_TRUE(TaskCountGiven(args, {{"SLURM_NTASKS", "2"}}));
  EXPECT_TRUE(TaskCountGiven(args, {{"SLURM_NPROCS", "2"}}));
  args.nodes = "2";
  EXPECT_FALSE(TaskCountGiven(args, {{"SLURM_NTASKS", "2"}}));
  args.ntasks = 3;
  EXPECT_TRUE(TaskCountGiven(args, {}));
}

TEST(BuildStepRequest, AStepsOwnTimeLimit) {
  SrunArgs args = Command({"sleep", "9"});
  args.time = "1:30";
  absl::StatusOr<v1::StepRequest> r = BuildStepRequest(args, JobEnv(), "/");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->time_limit(), 90);
  args.time = "UNLIMITED";
  EXPECT_EQ(BuildStepRequest(args, JobEnv(), "/")->time_limit(), 0);
  args.time = "soon";
  EXPECT_EQ(BuildStepRequest(args, JobEnv(), "/").status().message(),
            "Invalid --time specification");
}

TEST(StepStatusLines, GroupedAsSlurm) {
  EXPECT_THAT(StepStatusLines(42, 0, 4, {}), ElementsAre("StepId=42.0 tasks 0-3: running"));
  EXPECT_THAT(
      StepStatusLines(42, 1, 4, {{0, "n1", 0, 0, ""}, {2, "n2", 3, 0, ""}, {3, "n2", 0, 9, ""}}),
      ElementsAre("StepId=42.1 task 1: running", "StepId=42.1 tasks 2-3: exited abnormally",
                  "StepId=42.1 task 0: exited"));
  EXPECT_THAT(StepStatusLines(7, 2, 1, {{0, "n1", 2, 0, "execve(): x: No such file"}}),
              ElementsAre("StepId=7.2 task 0: failed to start"));
}

}  // namespace
}  // namespace skiff::cli
