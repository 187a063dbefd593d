#include "noded/job_files.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace skiff::noded {
namespace {

LaunchSpec FullSpec() {
  LaunchSpec spec;
  spec.job_id = 42;
  spec.uid = 1000;
  spec.gid = 100;
  spec.user_name = "alice";
  spec.groups = {100, 27, 44};
  spec.node_name = "n3";
  spec.argv = {"--flag", "two words", "", "tab\there"};
  spec.environment = {{"PATH", "/usr/bin:/bin"}, {"MULTI", "line one\nline two"},
                      {"EQUALS", "a=b=c"},       {"QUOTE", "it's \"quoted\" \\ backslash"},
                      {"UTF8", "caf\xc3\xa9"},   {"EMPTY", ""}};
  spec.work_dir = "/home/alice/run dir";
  spec.stdout_path = "/home/alice/slurm-42.out";
  spec.stderr_path = "";
  spec.stdin_path = "/dev/null";
  spec.time_limit = 3600;
  spec.cpus = 2;
  spec.memory_mb = 4096;
  spec.gpu_indices = {0, 1};
  spec.gpu_cuda_names = {"", "MIG-5c1e/1/0"};
  spec.mps_gpu = 1;
  spec.cpu_ids = {2, 3};
  spec.cgroup_version = 1;
  spec.cgroup_mount = "/sys/fs/cgroup";
  spec.cgroup_path = "skiff/n3/job_42";
  spec.cgroup_controllers = {"freezer", "memory"};
  spec.allocation = {{"n3", "127.0.0.1:6818", 2, 4096, {0, 1}},
                     {"n4", "127.0.0.1:6819", 2, 4096, {}}};
  spec.prolog = "/etc/skiff/prolog.sh";
  spec.epilog = "/etc/skiff/epilog.sh";
  spec.task_prolog = "/etc/skiff/task prolog.sh";
  spec.task_epilog = "/etc/skiff/task_epilog.sh";
  spec.container_bundle = "/srv/bundles/alpine";
  spec.oci_conf = "/etc/skiff/oci.conf";
  spec.container_config_json = false;
  spec.container_devices = {"/dev/nvidia1", "/dev/nvidiactl"};
  spec.prolog_epilog_timeout = 30;
  return spec;
}

TEST(LaunchSpecFile, RoundTripsEveryField) {
  const LaunchSpec spec = FullSpec();
  absl::StatusOr<LaunchSpec> parsed = ParseLaunchSpec(FormatLaunchSpec(spec));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(*parsed == spec);
  EXPECT_EQ(parsed->environment.at("MULTI"), "line one\nline two");
  EXPECT_EQ(parsed->environment.at("EQUALS"), "a=b=c");
  EXPECT_EQ(parsed->argv[1], "two words");
  EXPECT_EQ(parsed->argv[2], "");
}

TEST(LaunchSpecFile, KeepsEveryValueOnOneLine) {
  const std::string text = FormatLaunchSpec(FullSpec());
  for (const char* line : {"env=MULTI=line one\\nline two\n", "job_id=42\n", "gpu=1\n"}) {
    EXPECT_THAT(text, testing::HasSubstr(line));
  }
}

TEST(LaunchSpecFile, IgnoresUnknownKeysAndComments) {
  absl::StatusOr<LaunchSpec> parsed =
      ParseLaunchSpec("# comment\njob_id=7\nfuture_key=whatever\nuid=5\n");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->job_id, 7u);
  EXPECT_EQ(parsed->uid, 5u);
}

TEST(LaunchSpecFile, RejectsABadAllocationLine) {
  EXPECT_FALSE(ParseLaunchSpec("job_id=1\nalloc=n1 h:1 x 10 -\n").ok());
  EXPECT_FALSE(ParseLaunchSpec("job_id=1\nalloc=n1 h:1\n").ok());
}

TEST(LaunchSpecFile, RejectsMissingJobIdAndBadNumbers) {
  EXPECT_FALSE(ParseLaunchSpec("uid=5\n").ok());
  EXPECT_FALSE(ParseLaunchSpec("job_id=0\n").ok());
  absl::StatusOr<LaunchSpec> bad = ParseLaunchSpec("job_id=1\nuid=abc\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), testing::HasSubstr("uid"));
  EXPECT_FALSE(ParseLaunchSpec("job_id=1\nenv=NOEQUALS\n").ok());
  EXPECT_FALSE(ParseLaunchSpec("job_id=1\nno equals sign\n").ok());
}

TEST(JobStatusFile, RoundTripsExitSignalAndFailure) {
  for (const JobResult& result :
       {JobResult{3, 0, ""}, JobResult{0, 9, ""},
        JobResult{1, 0, "cannot chdir to work_dir /nope: No such file or directory"},
        JobResult{1, 0, "multi\nline = failure"}, JobResult{0, 9, "", false, 2, 3},
        JobResult{1, 0, "Prolog error", false, 1, 0, "exit code 3: no\nscratch", "killed"}}) {
    absl::StatusOr<JobResult> parsed = ParseJobStatus(FormatJobStatus(result));
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_TRUE(*parsed == result) << FormatJobStatus(result);
  }
}

TEST(JobStatusFile, RoundTripsTheBatchScriptsUsage) {
  JobResult result{0, 0, ""};
  result.has_usage = true;
  result.user_cpu_usec = 1234567;
  result.system_cpu_usec = 89;
  result.max_rss_kb = 2016;
  EXPECT_NE(FormatJobStatus(result).find("\nusage=1234567 89 2016\n"), std::string::npos);
  absl::StatusOr<JobResult> parsed = ParseJobStatus(FormatJobStatus(result));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(*parsed == result) << FormatJobStatus(result);
  EXPECT_FALSE(ParseJobStatus("exit_code=0\nsignal=0\nusage=1 2\n").ok());
}

TEST(JobStatusFile, IsKeyValueLines) {
  EXPECT_EQ(FormatJobStatus(JobResult{3, 0, "x"}),
            "# skiff job status\nexit_code=3\nsignal=0\nfailure=x\n");
}

TEST(JobStatusFile, RejectsIncompleteFiles) {
  EXPECT_FALSE(ParseJobStatus("").ok());
  EXPECT_FALSE(ParseJobStatus("exit_code=3\n").ok());
  EXPECT_FALSE(ParseJobStatus("signal=0\n").ok());
  EXPECT_FALSE(ParseJobStatus("exit_code=x\nsignal=0\n").ok());
}

TEST(JobPidsFile, RoundTripsAndNeedsTheShepherd) {
  JobPids pids{100, 101, 101};
  absl::StatusOr<JobPids> parsed = ParseJobPids(FormatJobPids(pids));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(*parsed == pids);
  EXPECT_TRUE(ParseJobPids("shepherd_pid=5\n").ok());
  EXPECT_FALSE(ParseJobPids("job_pid=5\n").ok());
}

TEST(JobDirName, ParsesOnlyJobDirectories) {
  EXPECT_EQ(JobDirName(42), "job42");
  EXPECT_EQ(ParseJobDirName("job42"), 42u);
  EXPECT_EQ(ParseJobDirName("job18446744073709551615"), 18446744073709551615ull);
  for (const char* name : {"job", "job0", "job4x", "jobs", "xjob4", "job-4", "job+4", "spec", ""}) {
    EXPECT_EQ(ParseJobDirName(name), std::nullopt) << name;
  }
}

}  // namespace
}  // namespace skiff::noded
