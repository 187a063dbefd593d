#include "restd/data_parser/job_desc.h"

#include <gtest/gtest.h>

namespace skiff::restd {
namespace {

using Json = nlohmann::json;

const JobDescDefaults kDefaults = {"/home/alice", "head"};

absl::StatusOr<ParsedJobDesc> Parse(const char* text) {
  return JobSpecFromDesc(Json::parse(text), kDefaults);
}

TEST(JobDescTest, ReadsWhatSbatchWouldSend) {
  auto parsed = Parse(R"({"script": "#!/bin/bash\nhostname\n", "name": "train",
      "partition": "gpu", "account": "lab", "qos": "normal", "nodes": "1-2", "tasks": 4,
      "cpus_per_task": {"set": true, "infinite": false, "number": 2},
      "memory_per_node": {"set": true, "number": 4096}, "time_limit": 90,
      "tres_per_node": "gres/gpu:a100:2", "tres_per_job": "gres/gpu:4",
      "environment": ["PATH=/bin", "A=b=c"], "current_working_directory": "/scratch",
      "standard_output": "out-%j.txt", "hold": true, "mail_type": ["END", "FAIL"],
      "shared": ["none"], "required_nodes": "g[1-2]", "open_mode": ["APPEND"]})");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  const v1::JobSpec& spec = parsed->spec;
  EXPECT_EQ(spec.name(), "train");
  EXPECT_EQ(spec.partition(), "gpu");
  EXPECT_EQ(spec.min_nodes(), 1);
  EXPECT_EQ(spec.max_nodes(), 2);
  EXPECT_EQ(spec.ntasks(), 4);
  EXPECT_EQ(spec.cpus_per_task(), 2);
  EXPECT_EQ(spec.mem_per_node_mb(), 4096u);
  EXPECT_EQ(spec.time_limit(), 90 * 60);
  ASSERT_EQ(spec.gres_size(), 1);
  EXPECT_EQ(spec.gres(0), "gpu:a100:2");
  EXPECT_EQ(spec.gpus(), "4");
  EXPECT_EQ(spec.environment().at("A"), "b=c");
  EXPECT_EQ(spec.work_dir(), "/scratch");
  EXPECT_EQ(spec.stdout_pattern(), "out-%j.txt");
  EXPECT_TRUE(spec.hold());
  EXPECT_EQ(spec.mail_type(), "END,FAIL");
  EXPECT_TRUE(spec.exclusive());
  EXPECT_EQ(spec.nodelist_size(), 2);
  EXPECT_EQ(spec.open_mode(), "append");
  EXPECT_EQ(spec.submit_host(), "head");
  EXPECT_TRUE(parsed->warnings.empty());
}

// --tmp, -s, --exclusive=user and -k as slurmrestd's job_desc_msg has them.
TEST(JobDescTest, TmpDiskSharingAndKillOnNodeFail) {
  auto parsed = Parse(R"({"script": "#!/bin/sh\n", "temporary_disk_per_node": 2048,
      "shared": ["oversubscribe"], "kill_on_node_fail": false})");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->spec.min_tmp_disk_mb(), 2048u);
  EXPECT_TRUE(parsed->spec.oversubscribe());
  EXPECT_FALSE(parsed->spec.exclusive());
  EXPECT_TRUE(parsed->spec.no_kill());
  EXPECT_TRUE(parsed->warnings.empty());
  parsed = Parse(R"({"script": "#!/bin/sh\n", "shared": ["user"], "kill_on_node_fail": true})");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(parsed->spec.exclusive());
  EXPECT_EQ(parsed->spec.exclusive_kind(), "user");
  EXPECT_FALSE(parsed->spec.no_kill());
  EXPECT_FALSE(Parse(R"({"script": "#!/bin/sh\n", "temporary_disk_per_node": -1})").ok());
}

TEST(JobDescTest, DefaultsAreTheUsersHomeAndNoExportedEnvironment) {
  auto parsed = Parse(R"({"script": "#!/bin/sh\ntrue\n"})");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->spec.work_dir(), "/home/alice");
  EXPECT_EQ(parsed->spec.export_mode(), "NONE");
  EXPECT_FALSE(parsed->spec.has_time_limit());
}

TEST(JobDescTest, AnUnlimitedTimeIsInfinite) {
  auto parsed = Parse(R"({"script": "#!/bin/sh\n", "time_limit": {"infinite": true}})");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->spec.time_limit(), -1);
}

TEST(JobDescTest, UnsupportedFieldsAreWarningsNotFailures) {
  auto parsed = Parse(R"({"script": "#!/bin/sh\n", "licenses": "matlab:1", "wckey": "w",
      "x11": ["ALL"]})");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->warnings,
            (std::vector<std::string>{"job.wckey is not supported by Skiff; ignored",
                                      "job.x11 is not supported by Skiff; ignored"}));
  EXPECT_EQ(parsed->spec.licenses(), "matlab:1");  // -L, checked by ctld
}

TEST(JobDescTest, BadValuesNameTheirField) {
  struct Case {
    const char* desc;
    const char* message;
  };
  for (const Case& c : std::vector<Case>{
           {R"({})", "job.script: a batch script is required"},
           {R"({"script": "echo hi"})", "job.script: the batch script must start with \"#!\""},
           {R"({"script": "#!/bin/sh\n", "tasks": "many"})", "job.tasks: expected a number"},
           {R"({"script": "#!/bin/sh\n", "tasks": 0})", "job.tasks: must be at least 1"},
           {R"({"script": "#!/bin/sh\n", "nodes": "2-1"})",
            "job.nodes: \"2-1\" is not N or MIN-MAX"},
           {R"({"script": "#!/bin/sh\n", "environment": ["NOEQUALS"]})",
            "job.environment: \"NOEQUALS\" is not NAME=VALUE"},
           {R"({"script": "#!/bin/sh\n", "current_working_directory": "rel"})",
            "job.current_working_directory: must be an absolute path"},
           {R"({"script": "#!/bin/sh\n", "tres_per_node": "gpu:1"})",
            "job.tres_per_node: \"gpu:1\" is not a gres TRES (gres/NAME[:TYPE]:COUNT)"},
           {R"({"script": "#!/bin/sh\n", "hold": "yes"})", "job.hold: expected true or false"},
           {R"({"script": "#!/bin/sh\n", "memory_per_node": 1, "memory_per_cpu": 1})",
            "job.memory_per_cpu: memory_per_node and memory_per_cpu are mutually exclusive"},
       }) {
    auto parsed = Parse(c.desc);
    ASSERT_FALSE(parsed.ok()) << c.desc;
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(parsed.status().message(), c.message) << c.desc;
  }
}

TEST(JobUpdateFromDesc, ScontrolUpdatesFieldsFromAJobDescription) {
  const Json desc = Json::parse(R"({"hold": true, "time_limit": {"set": true, "number": 30},
      "priority": 7, "nice": {"set": true, "number": -5}, "comment": "c", "partition": "gpu",
      "excluded_nodes": ["n1", "n2"], "constraints": "a&b", "licenses": "x"})");
  absl::StatusOr<ParsedJobUpdate> update = JobUpdateFromDesc(desc);
  ASSERT_TRUE(update.ok()) << update.status();
  const v1::UpdateJobRequest& r = update->request;
  EXPECT_TRUE(r.has_held() && r.held());
  EXPECT_EQ(r.time_limit(), 1800);
  EXPECT_EQ(r.priority(), 7);
  EXPECT_EQ(r.nice(), -5);
  EXPECT_EQ(r.comment(), "c");
  EXPECT_EQ(r.partition(), "gpu");
  EXPECT_EQ(r.exc_node_list(), "n1,n2");
  EXPECT_EQ(r.features(), "a&b");
  EXPECT_FALSE(r.has_qos());
  ASSERT_EQ(update->warnings.size(), 1u);
  EXPECT_EQ(update->warnings[0], "job.licenses: not a field Skiff updates; ignored");
  update = JobUpdateFromDesc(Json::parse(R"({"time_limit": {"infinite": true}, "hold": false})"));
  ASSERT_TRUE(update.ok()) << update.status();
  EXPECT_EQ(update->request.time_limit(), -1);
  EXPECT_FALSE(update->request.held());
}

TEST(JobUpdateFromDesc, RefusesBadFieldsAndEmptyUpdates) {
  EXPECT_EQ(JobUpdateFromDesc(Json::parse(R"({"hold": "yes"})")).status().message(),
            "job.hold: expected true or false");
  EXPECT_EQ(JobUpdateFromDesc(Json::parse(R"({"minimum_nodes": 0})")).status().message(),
            "job.minimum_nodes: must be at least 1");
  EXPECT_FALSE(JobUpdateFromDesc(Json::parse("{}")).ok());
  EXPECT_FALSE(JobUpdateFromDesc(Json::parse("[]")).ok());
}

}  // namespace
}  // namespace skiff::restd
