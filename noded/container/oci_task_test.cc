#include "noded/container/oci_task.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "absl/strings/match.h"

namespace skiff::noded {
namespace {

using Json = nlohmann::json;

OciTask Batch() {
  OciTask task;
  task.bundle = "/srv/bundles/alpine";
  task.node_name = "n1";
  task.user_name = "alice";
  task.uid = 1000;
  task.job_id = 42;
  task.job_dir = "/var/spool/skiff/job42";
  task.argv = {"/var/spool/skiff/job42/slurm_script", "arg one", "it's"};
  task.env = {"PATH=/usr/bin", "SLURM_JOB_ID=42", "SLURM_CONF=/etc/skiff/skiff.conf"};
  task.stdout_path = "/home/alice/slurm-42.out";
  task.stdin_path = "/dev/null";
  task.devices = {"/dev/nvidia1", "/tmp/fake/nvidiactl"};
  return task;
}

const char kBundleConfig[] = R"({
  "ociVersion": "1.0.0",
  "process": {"terminal": true, "user": {"uid": 0, "gid": 0}, "args": ["sh"],
              "env": ["PATH=/usr/local/sbin:/usr/local/bin:/bin", "TERM=xterm"], "cwd": "/"},
  "root": {"path": "rootfs", "readonly": true},
  "hostname": "runc",
  "mounts": [{"destination": "/proc", "type": "proc", "source": "proc"}],
  "hooks": {"prestart": [{"path": "/bin/true"}], "poststop": [{"path": "/bin/true"}]}
})";

TEST(OciPattern, ExpandsSlurmsLetters) {
  OciPatternValues values;
  values.bundle = "/b";
  values.spool_dir = "/m";
  values.rootfs = "/r";
  values.env_file = "/m/environment";
  values.argv = {"echo", "it's"};
  values.pid = 77;
  OciTask task = Batch();
  task.task_id = 3;
  absl::StatusOr<std::string> out = ExpandOciPattern(
      "run --root=/run/user/%U/ %n.%u.%j.%s.%t -b %b %m %r %e %p %% %@", task, values);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out,
            "run --root=/run/user/1000/ n1.alice.42.4294967291.3 -b /b /m /r /m/environment 77 % "
            "'echo' 'it'\"'\"'s'");
  EXPECT_TRUE(absl::StrContains(ExpandOciPattern("x %q", task, values).status().message(), "%q"));
  EXPECT_FALSE(ExpandOciPattern("x %", task, values).ok());
}

TEST(OciSpoolDir, DefaultsUnderTheJobsDirectoryOrFollowsContainerPath) {
  OciTask task = Batch();
  task.task_id = 1;
  EXPECT_EQ(*OciSpoolDir(OciConfig{}, task, "/var/spool/skiff"),
            "/var/spool/skiff/job42/oci-job42-batch/task-1");
  task.step_id = 5;
  EXPECT_EQ(*OciSpoolDir(OciConfig{}, task, "/var/spool/skiff"),
            "/var/spool/skiff/job42/oci-job42-5/task-1");
  OciConfig config;
  config.container_path = "%m/c/%u/%j.%s.%t";
  EXPECT_EQ(*OciSpoolDir(config, task, "/var/spool/skiff"), "/var/spool/skiff/c/alice/42.5.1");
}

TEST(PlanOciTask, RewritesTheBundlesConfigAsSlurmDoes) {
  OciConfig config;
  config.env_exclude = "^SLURM_CONF=";
  config.disable_hooks = {"prestart"};
  absl::StatusOr<OciTaskPlan> plan =
      PlanOciTask(config, kBundleConfig, Batch(), "/var/spool/skiff/job42/oci-job42-batch/task-0");
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->rootfs, "/srv/bundles/alpine/rootfs");
  const Json json = Json::parse(plan->config_json);
  EXPECT_EQ(json["root"]["path"], "/srv/bundles/alpine/rootfs");
  EXPECT_EQ(json["root"]["readonly"], true);  // the rest of the bundle's config stays
  EXPECT_EQ(json["hostname"], "runc");
  EXPECT_EQ(json["process"]["terminal"], false);
  EXPECT_EQ(json["process"]["noNewPrivileges"], true);
  EXPECT_EQ(json["process"]["args"], Json::array({"/tmp/slurm/startup", "arg one", "it's"}));
  // The bundle's PATH wins; SLURM_CONF is excluded.
  EXPECT_EQ(json["process"]["env"], Json::array({"PATH=/usr/local/sbin:/usr/local/bin:/bin",
                                                 "SLURM_JOB_ID=42", "TERM=xterm"}));
  EXPECT_FALSE(json["hooks"].contains("prestart"));
  EXPECT_TRUE(json["hooks"].contains("poststop"));
  const Json& mounts = json["mounts"];
  ASSERT_EQ(mounts.size(), 6u);
  EXPECT_EQ(mounts[1]["destination"], "/var/run/slurm/");
  EXPECT_EQ(mounts[1]["source"], "/var/spool/skiff/job42/oci-job42-batch/task-0");
  EXPECT_EQ(mounts[2]["destination"], "/tmp/slurm/stdout");  // stdin is /dev/null: not bound
  EXPECT_EQ(mounts[3]["destination"], "/tmp/slurm/startup");
  EXPECT_EQ(mounts[3]["source"], "/var/spool/skiff/job42/slurm_script");
  EXPECT_EQ(mounts[3]["options"], Json::array({"bind", "ro"}));
  EXPECT_EQ(mounts[4]["destination"], "/dev/nvidia1");
  EXPECT_EQ(mounts[5]["destination"], "/dev/nvidiactl");
  EXPECT_EQ(mounts[5]["source"], "/tmp/fake/nvidiactl");
  EXPECT_EQ(plan->argv.front(), "/tmp/slurm/startup");
  EXPECT_EQ(plan->env_file, "");
}

TEST(PlanOciTask, StepsRunTheirCommandAndEnvFilesFollowCreateEnvFile) {
  OciConfig config;
  config.create_env_file = "newline";
  OciTask task = Batch();
  task.step_id = 0;
  task.argv = {"hostname"};
  task.env = {"A=1", "B=two\nlines"};
  absl::StatusOr<OciTaskPlan> plan = PlanOciTask(config, kBundleConfig, task, "/spool");
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(Json::parse(plan->config_json)["process"]["args"], Json::array({"hostname"}));
  EXPECT_EQ(plan->env_file, "A=1\nPATH=/usr/local/sbin:/usr/local/bin:/bin\nTERM=xterm\n");
  config.create_env_file = "null";
  plan = PlanOciTask(config, kBundleConfig, task, "/spool");
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->env_file.substr(0, 4), std::string("A=1\0", 4));
}

TEST(PlanOciTask, GpuListsAreNumberedAsInsideTheContainer) {
  OciTask task = Batch();
  task.step_id = 0;
  task.argv = {"nvidia-smi"};
  task.env = {"CUDA_VISIBLE_DEVICES=2,3", "GPU_DEVICE_ORDINAL=2,3", "SLURM_JOB_GPUS=2,3"};
  task.devices = {"/dev/nvidia2", "/dev/nvidia3", "/dev/nvidiactl"};
  absl::StatusOr<OciTaskPlan> plan = PlanOciTask(OciConfig{}, kBundleConfig, task, "/spool");
  ASSERT_TRUE(plan.ok()) << plan.status();
  const Json env = Json::parse(plan->config_json)["process"]["env"];
  auto has = [&](const std::string& entry) {
    return std::find(env.begin(), env.end(), entry) != env.end();
  };
  EXPECT_TRUE(has("CUDA_VISIBLE_DEVICES=0,1")) << env;
  EXPECT_TRUE(has("GPU_DEVICE_ORDINAL=0,1")) << env;
  EXPECT_TRUE(has("SLURM_JOB_GPUS=2,3")) << env;  // the node's, as in Slurm
  // Without GPUs bound in, nothing is renumbered.
  task.devices.clear();
  plan = PlanOciTask(OciConfig{}, kBundleConfig, task, "/spool");
  ASSERT_TRUE(plan.ok());
  EXPECT_NE(plan->config_json.find("CUDA_VISIBLE_DEVICES=2,3"), std::string::npos);
}

TEST(PlanOciTask, IgnoreFileConfigJsonUsesTheBundleAsItsRoot) {
  OciConfig config;
  config.ignore_file_config_json = true;
  absl::StatusOr<OciTaskPlan> plan = PlanOciTask(config, kBundleConfig, Batch(), "/spool");
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->config_json, "");
  EXPECT_EQ(plan->rootfs, "/srv/bundles/alpine");
  EXPECT_EQ(plan->argv.front(), "/var/spool/skiff/job42/slurm_script");
}

TEST(PlanOciTask, BadConfigsNameWhatIsWrong) {
  EXPECT_EQ(PlanOciTask(OciConfig{}, "{not json", Batch(), "/s").status().message(),
            "config.json is not a JSON object");
  EXPECT_EQ(PlanOciTask(OciConfig{}, R"({"root": {"path": 3}})", Batch(), "/s").status().message(),
            "config.json: root.path is missing or not a string");
}

}  // namespace
}  // namespace skiff::noded
