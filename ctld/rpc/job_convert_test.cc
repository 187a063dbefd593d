#include "ctld/rpc/job_convert.h"

#include <gtest/gtest.h>

#include <memory>

#include "google/protobuf/dynamic_message.h"
#include "proto/schema.h"

namespace skiff::ctld {
namespace {

SkiffConfig Config() {
  SkiffConfig config;
  PartitionConfig debug;
  debug.name = "debug";
  debug.is_default = true;
  debug.max_time = 86400;
  debug.default_time = 3600;
  PartitionConfig gpu = debug;
  gpu.name = "gpu";
  gpu.is_default = false;
  config.partitions = {debug, gpu};
  return config;
}

std::vector<NodeCapacity> Nodes() {
  NodeCapacity n1;
  n1.name = "n1";
  n1.cpus = 2;
  n1.memory_mb = 1000;
  n1.partitions = {"debug"};
  NodeCapacity n3 = n1;
  n3.name = "n3";
  n3.gpu_owner = {0, 0};
  n3.partitions = {"debug", "gpu"};
  return {n1, n3};
}

v1::JobSpec Spec() {
  v1::JobSpec spec;
  spec.set_script("#!/bin/sh\ntrue\n");
  spec.set_work_dir("/tmp");
  return spec;
}

const Submitter kAlice{1001, 1001, "alice", "alice"};

TEST(JobFromSpec, FillsDefaultsFromTheDefaultPartition) {
  absl::StatusOr<Job> job = JobFromSpec(Spec(), kAlice, Config(), Nodes());
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->request.partition, "debug");
  EXPECT_EQ(job->request.time_limit, 3600);
  EXPECT_EQ(job->request.num_nodes, 1);
  EXPECT_EQ(job->request.ntasks, 1);
  EXPECT_EQ(job->request.cpus_per_task, 1);
  EXPECT_EQ(job->user_name, "alice");
  EXPECT_EQ(job->qos, "normal");
  // The job keeps the light part; the script travels in the payload only.
  v1::JobSpec light;
  ASSERT_TRUE(light.ParseFromString(job->spec_blob));
  EXPECT_TRUE(light.script().empty());
  const SubmitRequest request = SubmitRequestFromSpec(Spec(), kAlice);
  v1::JobSpec payload;
  ASSERT_TRUE(payload.ParseFromString(request.payload_blob));
  EXPECT_EQ(payload.script(), "#!/bin/sh\ntrue\n");
}

TEST(JobFromSpec, APartitionListTakesTheFirstThatCanRunTheJob) {
  v1::JobSpec spec = Spec();
  spec.set_partition("debug,gpu");
  spec.add_gres("gpu:2");
  // n3 is in both: debug accepts it first.
  absl::StatusOr<Job> job = JobFromSpec(spec, kAlice, Config(), Nodes());
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->request.partition, "debug");
  // Only gpu has a node that can hold 2 GPUs when debug is n1 alone.
  std::vector<NodeCapacity> nodes = Nodes();
  nodes[1].partitions = {"gpu"};
  job = JobFromSpec(spec, kAlice, Config(), nodes);
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->request.partition, "gpu");
  spec.set_partition("gpu,nosuch");
  EXPECT_EQ(JobFromSpec(spec, kAlice, Config(), nodes).status().message(),
            "invalid partition specified: nosuch\nInvalid partition name specified");
  spec.set_partition("debug,gpu");
  spec.clear_gres();
  spec.add_gres("gpu:3");
  EXPECT_EQ(JobFromSpec(spec, kAlice, Config(), nodes).status().message(),
            "Requested node configuration is not available");
}

TEST(JobFromSpec, PriorityIsKeptForOperatorsAndRefusedForOthers) {
  v1::JobSpec spec = Spec();
  spec.set_priority(500);
  absl::StatusOr<Job> refused = JobFromSpec(spec, kAlice, Config(), Nodes());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(refused.status().message(),
            "Access/permission denied (only an operator can set a job's priority)");
  EXPECT_EQ(JobFromSpec(spec, {0, 0, "root", "root"}, Config(), Nodes())->admin_priority, 500);
  Submitter operator_alice = kAlice;
  operator_alice.privileged = true;  // SlurmUser, SkiffOperators or an admin
  EXPECT_EQ(JobFromSpec(spec, operator_alice, Config(), Nodes())->admin_priority, 500);
  spec.clear_priority();
  EXPECT_EQ(JobFromSpec(spec, kAlice, Config(), Nodes())->admin_priority, 0);
}

TEST(JobFromSpec, RejectsWithSlurmsMessages) {
  struct Case {
    std::function<void(v1::JobSpec&)> change;
    std::string message;
  };
  const std::vector<Case> cases = {
      // tests/reference/slurm-22.05/sbatch_err_bad_partition.txt: slurmctld's err_msg first.
      {[](v1::JobSpec& s) { s.set_partition("nosuch"); },
       "invalid partition specified: nosuch\nInvalid partition name specified"},
      {[](v1::JobSpec& s) { s.set_time_limit(2 * 86400); },
       "Requested time limit is invalid (missing or exceeds some limit)"},
      {[](v1::JobSpec& s) { s.set_time_limit(-1); },
       "Requested time limit is invalid (missing or exceeds some limit)"},
      {[](v1::JobSpec& s) { s.add_gres("tpu:1"); },
       "Invalid generic resource (gres) specification"},
      {[](v1::JobSpec& s) { s.add_gres("gpu:3"); },
       "Requested node configuration is not available"},
      // shared/reference/sbatch_err_too_many_cpus.txt: slurmctld's err_msg first.
      {[](v1::JobSpec& s) { s.set_cpus_per_task(4); },
       "CPU count per node can not be satisfied\nRequested node configuration is not available"},
      {[](v1::JobSpec& s) { s.set_min_nodes(3); }, "More processors requested than permitted"},
      // shared/reference/sbatch_err_too_much_mem.txt.
      {[](v1::JobSpec& s) { s.set_mem_per_node_mb(5000); },
       "Memory specification can not be satisfied\nRequested node configuration is not "
       "available"},
      {[](v1::JobSpec& s) { s.set_qos("nosuchqos"); }, "Invalid qos specification"},
      {[](v1::JobSpec& s) { s.set_script("echo no shebang"); },
       "Batch script must start with #! (a shebang line)"},
  };
  for (const Case& c : cases) {
    v1::JobSpec spec = Spec();
    c.change(spec);
    absl::StatusOr<Job> job = JobFromSpec(spec, kAlice, Config(), Nodes());
    ASSERT_FALSE(job.ok()) << c.message;
    EXPECT_EQ(job.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(job.status().message(), c.message);
  }
}

TEST(JobFromSpec, PartitionAllowListsAreCheckedAtSubmit) {
  SkiffConfig config = Config();
  config.partitions[0].allow_qos = {"high"};
  absl::StatusOr<Job> job = JobFromSpec(Spec(), kAlice, config, Nodes(), {"normal", "high"});
  EXPECT_EQ(job.status().message(),
            "Job's QOS not permitted to use this partition (debug allows high not normal)");
  v1::JobSpec high = Spec();
  high.set_qos("high");
  EXPECT_TRUE(JobFromSpec(high, kAlice, config, Nodes(), {"normal", "high"}).ok());
  config = Config();
  config.partitions[0].allow_accounts = {"physics"};
  EXPECT_EQ(JobFromSpec(Spec(), kAlice, config, Nodes()).status().message(),
            "Invalid account or account/partition combination specified");
  config = Config();
  config.partitions[0].allow_groups = {"wheel"};
  EXPECT_FALSE(JobFromSpec(Spec(), kAlice, config, Nodes()).ok());
  config.partitions[0].allow_groups = {"ALL"};
  EXPECT_TRUE(JobFromSpec(Spec(), kAlice, config, Nodes()).ok());
}

TEST(JobFromSpec, NodeListsFeaturesGpusAndMemoryOptions) {
  std::vector<NodeCapacity> nodes = Nodes();
  nodes[1].features = {"a100", "ib"};
  v1::JobSpec spec = Spec();
  spec.add_nodelist("n1");
  spec.add_nodelist("n3");
  absl::StatusOr<Job> job = JobFromSpec(spec, kAlice, Config(), nodes);
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->request.num_nodes, 2);  // -w with two nodes raises -N
  spec = Spec();
  spec.add_nodelist("n9");
  EXPECT_EQ(JobFromSpec(spec, kAlice, Config(), nodes).status().message(),
            "Invalid node name specified");
  spec = Spec();
  spec.add_nodelist("n3");
  spec.add_exclude("n3");
  EXPECT_FALSE(JobFromSpec(spec, kAlice, Config(), nodes).ok());
  spec = Spec();
  spec.set_constraint("a100&ib");
  job = JobFromSpec(spec, kAlice, Config(), nodes);
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->request.features, (std::vector<std::string>{"a100", "ib"}));
  spec.set_constraint("nvlink");
  EXPECT_EQ(JobFromSpec(spec, kAlice, Config(), nodes).status().message(),
            "Invalid feature specification");
  spec = Spec();
  spec.set_partition("gpu");
  spec.set_gpus("2");
  spec.set_mem_per_gpu_mb(100);
  job = JobFromSpec(spec, kAlice, Config(), nodes);
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->request.gpus_per_node, 2);
  EXPECT_EQ(job->request.MemPerNodeMb(), 200u);
  spec.set_mem_per_cpu_mb(10);
  EXPECT_EQ(JobFromSpec(spec, kAlice, Config(), nodes).status().message(),
            "--mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive");
  spec = Spec();
  spec.set_exclusive(true);
  job = JobFromSpec(spec, kAlice, Config(), nodes);
  ASSERT_TRUE(job.ok());
  EXPECT_TRUE(job->request.exclusive);
}

TEST(JobFromSpec, ParsesTypedAndUntypedGpus) {
  v1::JobSpec spec = Spec();
  spec.set_partition("gpu");
  spec.add_gres("gpu:2");
  absl::StatusOr<Job> job = JobFromSpec(spec, kAlice, Config(), Nodes());
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->request.gpus_per_node, 2);
}

TEST(JobFromSpec, ZeroTimeLimitMeansUnlimitedWhichAFinitePartitionRefuses) {
  v1::JobSpec spec = Spec();
  spec.set_time_limit(0);
  EXPECT_FALSE(JobFromSpec(spec, kAlice, Config(), Nodes()).ok());
}

TEST(DisplayState, ACompletingJobStagingOutShowsAsStageOut) {
  Job job;
  job.state = JobState::kCompleting;
  EXPECT_EQ(DisplayState(job), v1::COMPLETING);
  job.bb_directives = "#BB_LUA pool=fast capacity=1G";
  job.bb_state = BbState::kPostRun;
  EXPECT_EQ(DisplayState(job), v1::STAGE_OUT);
  job.bb_state = BbState::kStagingOut;
  EXPECT_EQ(DisplayState(job), v1::STAGE_OUT);
  job.bb_state = BbState::kTeardown;
  EXPECT_EQ(DisplayState(job), v1::COMPLETING);
  job.state = JobState::kCompleted;
  job.bb_state = BbState::kStagingOut;
  EXPECT_EQ(DisplayState(job), v1::COMPLETED);
  EXPECT_EQ(*FromProtoState(v1::STAGE_OUT), JobState::kCompleting);
}

TEST(JobToInfo, CarriesStateNodesAndExpandedPaths) {
  absl::StatusOr<Job> job = JobFromSpec(Spec(), kAlice, Config(), Nodes());
  ASSERT_TRUE(job.ok());
  job->id = 12;
  job->state = JobState::kRunning;
  job->nodes = {"n1"};
  job->cpus_by_node = {1};
  v1::JobInfo info;
  JobToInfo(*job, 100, &info, JobInfoReader::kOwnerOrOperator);
  EXPECT_EQ(info.job_id(), 12u);
  EXPECT_EQ(info.state(), v1::RUNNING);
  EXPECT_EQ(info.stdout_path(), "/tmp/slurm-12.out");
  EXPECT_EQ(info.stderr_path(), "/tmp/slurm-12.out");
  EXPECT_EQ(info.num_cpus(), 1);
  EXPECT_EQ(info.now(), 100);
}

TEST(JobToInfo, ASummaryIsTheWholeInfoWithoutTheStoredSpecPathsAndFactors) {
  v1::JobSpec spec = Spec();
  spec.set_name("sim");
  spec.set_comment("c1");
  spec.set_stdout_pattern("out-%j.txt");
  absl::StatusOr<Job> job = JobFromSpec(spec, kAlice, Config(), Nodes());
  ASSERT_TRUE(job.ok());
  job->id = 12;
  job->state = JobState::kPending;
  job->reason = "Priority";
  job->factors.age = 7;
  job->expected_start = 500;
  v1::JobInfo whole, summary;
  JobToInfo(*job, 100, &whole, JobInfoReader::kOwnerOrOperator);
  JobToInfo(*job, 100, &summary, JobInfoReader::kOwnerOrOperator, JobInfoDetail::kSummary);
  EXPECT_EQ(whole.stdout_path(), "/tmp/out-12.txt");
  EXPECT_EQ(whole.spec().work_dir(), "/tmp");
  EXPECT_EQ(whole.priority_factors().age(), 7);
  // The summary keeps what ctld holds in memory ...
  EXPECT_EQ(summary.spec().name(), "sim");
  EXPECT_EQ(summary.spec().comment(), "c1");
  EXPECT_EQ(summary.spec().partition(), "debug");
  EXPECT_EQ(summary.expected_start(), 500);
  // ... and leaves out what needs the stored spec.
  EXPECT_EQ(summary.spec().work_dir(), "");
  EXPECT_EQ(summary.spec().stdout_pattern(), "");
  EXPECT_EQ(summary.stdout_path(), "");
  EXPECT_FALSE(summary.has_priority_factors());
  // Every other field is the same.
  whole.clear_spec();
  summary.clear_spec();
  whole.clear_stdout_path();
  whole.clear_stderr_path();
  whole.clear_priority_factors();
  whole.clear_node_resources();
  EXPECT_EQ(whole.SerializeAsString(), summary.SerializeAsString());
}

TEST(JobFromSpec, TheSpecsContainerBecomesTheRequestsAndComesBackInEveryInfo) {
  v1::JobSpec spec = Spec();
  spec.mutable_container()->set_bundle("/srv/oci/alpine");
  absl::StatusOr<Job> job = JobFromSpec(spec, kAlice, Config(), Nodes());
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->request.container.bundle, "/srv/oci/alpine");
  EXPECT_TRUE(job->request.container.image.empty());
  v1::ContainerRequest& image = *spec.mutable_container();
  image.Clear();
  image.set_image("ubuntu:22.04");
  image.add_mounts("/data:/data:ro");
  image.add_env("HOME");
  image.set_name("u:exec");
  image.set_remap_root(true);
  image.set_no_mount_home(true);
  job = JobFromSpec(spec, kAlice, Config(), Nodes());
  ASSERT_TRUE(job.ok()) << job.status();
  const ContainerSpec& c = job->request.container;
  EXPECT_EQ(c.image, "ubuntu:22.04");
  EXPECT_EQ(c.mounts, std::vector<std::string>{"/data:/data:ro"});
  EXPECT_EQ(c.env, std::vector<std::string>{"HOME"});
  EXPECT_EQ(c.name, "u:exec");
  EXPECT_TRUE(c.remap_root);
  EXPECT_TRUE(c.no_mount_home);
  // squeue's summary, scontrol's whole info and another user's alike.
  job->id = 5;
  for (const JobInfoDetail detail : {JobInfoDetail::kWhole, JobInfoDetail::kSummary}) {
    for (const JobInfoReader reader :
         {JobInfoReader::kOwnerOrOperator, JobInfoReader::kOtherUser}) {
      v1::JobInfo info;
      JobToInfo(*job, 100, &info, reader, detail);
      EXPECT_EQ(info.spec().container().SerializeAsString(), image.SerializeAsString());
    }
  }
  // Admission holds a request from elsewhere to sbatch's checks.
  image.set_bundle("relative/bundle");
  image.clear_image();
  image.clear_name();
  EXPECT_EQ(JobFromSpec(spec, kAlice, Config(), Nodes()).status().message(),
            "Container bundle path must be absolute: relative/bundle");
  // No container: none in the info either.
  job = JobFromSpec(Spec(), kAlice, Config(), Nodes());
  ASSERT_TRUE(job.ok());
  v1::JobInfo info;
  JobToInfo(*job, 100, &info, JobInfoReader::kOwnerOrOperator);
  EXPECT_FALSE(info.spec().has_container());
}

// tests/reference/slurm-22.05/scontrol_show_job_after_scancel.txt.
TEST(JobToInfo, AJobThatEndedPendingShowsSlurmsStartPlanAndNoTaskCount) {
  absl::StatusOr<Job> job = JobFromSpec(Spec(), kAlice, Config(), Nodes());
  ASSERT_TRUE(job.ok());
  job->id = 12;
  job->request.mem_per_cpu_mb = 100;  // DefMemPerCPU
  job->state = JobState::kCancelled;
  job->reason = "Priority";
  job->end_time = 900;
  job->expected_start = 1200;
  job->sched_nodes = "n3";
  for (const JobInfoDetail detail : {JobInfoDetail::kWhole, JobInfoDetail::kSummary}) {
    v1::JobInfo info;
    JobToInfo(*job, 1000, &info, JobInfoReader::kOwnerOrOperator, detail);
    EXPECT_EQ(info.start_time(), 900);  // Slurm's start time of a cancelled pending job
    EXPECT_EQ(info.state_reason(), "Priority");
    EXPECT_EQ(info.sched_nodes(), "n3");
    EXPECT_EQ(info.expected_start(), 1200);
    EXPECT_EQ(info.spec().mem_per_cpu_mb(), 100u);                        // MinMemoryCPU=100M
    if (detail == JobInfoDetail::kWhole) EXPECT_EQ(info.num_tasks(), 0);  // NumTasks=N/A
  }
  // One that ran keeps its own start and no plan.
  job->nodes = {"n1"};
  job->start_time = 800;
  v1::JobInfo ran;
  JobToInfo(*job, 1000, &ran, JobInfoReader::kOwnerOrOperator);
  EXPECT_EQ(ran.start_time(), 800);
  EXPECT_EQ(ran.num_tasks(), 1);
  EXPECT_EQ(ran.sched_nodes(), "");
}

// Issue 32: --export=VAR=value values reached every user in the spec's
// export_mode, although the environment itself was withheld.
TEST(JobToInfo, AnotherUserGetsOnlyWhatSlurmShowsEveryone) {
  v1::JobSpec spec = Spec();
  spec.set_name("sim");
  spec.set_command("/home/alice/sim.sh");
  spec.set_stdout_pattern("out-%j.txt");
  spec.set_export_mode("ALL,API_TOKEN=hunter2");
  spec.set_submit_dir("/home/alice/secret-project");
  spec.set_open_mode("append");
  spec.set_mail_user("alice@lab");
  absl::StatusOr<Job> job = JobFromSpec(spec, kAlice, Config(), Nodes());
  ASSERT_TRUE(job.ok());
  job->id = 12;
  for (const JobInfoDetail detail : {JobInfoDetail::kWhole, JobInfoDetail::kSummary}) {
    v1::JobInfo theirs;
    JobToInfo(*job, 100, &theirs, JobInfoReader::kOtherUser, detail);
    EXPECT_EQ(theirs.spec().export_mode(), "");
    EXPECT_EQ(theirs.spec().submit_dir(), "");
    EXPECT_EQ(theirs.spec().open_mode(), "");
    EXPECT_EQ(theirs.spec().script(), "");
    EXPECT_EQ(theirs.spec().environment_size(), 0);
    EXPECT_EQ(theirs.spec().name(), "sim");
    EXPECT_EQ(theirs.user_name(), "alice");
    if (detail == JobInfoDetail::kSummary) continue;
    // What scontrol show job prints for everyone stays.
    EXPECT_EQ(theirs.spec().command(), "/home/alice/sim.sh");
    EXPECT_EQ(theirs.spec().work_dir(), "/tmp");
    EXPECT_EQ(theirs.spec().mail_user(), "alice@lab");
    EXPECT_EQ(theirs.stdout_path(), "/tmp/out-12.txt");
  }
  v1::JobInfo mine;
  JobToInfo(*job, 100, &mine, JobInfoReader::kOwnerOrOperator);
  EXPECT_EQ(mine.spec().export_mode(), "ALL,API_TOKEN=hunter2");
  EXPECT_EQ(mine.spec().submit_dir(), "/home/alice/secret-project");
}

// Every field of `message` set to a value that is not its default (one
// element for a repeated field, one entry for a map).
void FillEveryField(google::protobuf::Message* message) {
  const google::protobuf::Reflection* reflection = message->GetReflection();
  const google::protobuf::Descriptor* descriptor = message->GetDescriptor();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const google::protobuf::FieldDescriptor* field = descriptor->field(i);
    using Type = google::protobuf::FieldDescriptor::CppType;
    if (field->cpp_type() == Type::CPPTYPE_MESSAGE) {
      google::protobuf::Message* inner = field->is_repeated()
                                             ? reflection->AddMessage(message, field)
                                             : reflection->MutableMessage(message, field);
      FillEveryField(inner);
      continue;
    }
    const bool repeated = field->is_repeated();
    switch (field->cpp_type()) {
      case Type::CPPTYPE_STRING:
        repeated ? reflection->AddString(message, field, "x")
                 : reflection->SetString(message, field, "x");
        break;
      case Type::CPPTYPE_BOOL:
        repeated ? reflection->AddBool(message, field, true)
                 : reflection->SetBool(message, field, true);
        break;
      case Type::CPPTYPE_INT32:
        repeated ? reflection->AddInt32(message, field, 1)
                 : reflection->SetInt32(message, field, 1);
        break;
      case Type::CPPTYPE_INT64:
        repeated ? reflection->AddInt64(message, field, 1)
                 : reflection->SetInt64(message, field, 1);
        break;
      case Type::CPPTYPE_UINT32:
        repeated ? reflection->AddUInt32(message, field, 1)
                 : reflection->SetUInt32(message, field, 1);
        break;
      case Type::CPPTYPE_UINT64:
        repeated ? reflection->AddUInt64(message, field, 1)
                 : reflection->SetUInt64(message, field, 1);
        break;
      case Type::CPPTYPE_DOUBLE:
        repeated ? reflection->AddDouble(message, field, 1)
                 : reflection->SetDouble(message, field, 1);
        break;
      case Type::CPPTYPE_FLOAT:
        repeated ? reflection->AddFloat(message, field, 1)
                 : reflection->SetFloat(message, field, 1);
        break;
      case Type::CPPTYPE_ENUM:
        repeated ? reflection->AddEnumValue(message, field, 1)
                 : reflection->SetEnumValue(message, field, 1);
        break;
      default:
        ADD_FAILURE() << "FillEveryField: no value for " << field->full_name();
    }
  }
}

// A field added to JobSpec is private until it is put on the public list; this
// list changes only with a decision about what Slurm shows everyone. A spec
// with every field of the schema set goes through WithholdPrivateSpecFields:
// these are the fields that come out empty.
TEST(JobToInfo, TheSpecsPrivateFieldsAreTheseAndNewOnes) {
  const google::protobuf::Descriptor* schema = proto_schema::Message("skiff.v1.JobSpec");
  ASSERT_NE(schema, nullptr);
  google::protobuf::DynamicMessageFactory factory;
  std::unique_ptr<google::protobuf::Message> full(factory.GetPrototype(schema)->New());
  FillEveryField(full.get());
  v1::JobSpec spec;
  ASSERT_TRUE(spec.ParseFromString(full->SerializeAsString()));
  WithholdPrivateSpecFields(&spec);
  std::unique_ptr<google::protobuf::Message> left(factory.GetPrototype(schema)->New());
  ASSERT_TRUE(left->ParseFromString(spec.SerializeAsString()));
  std::vector<std::string> withheld;
  const google::protobuf::Reflection* reflection = left->GetReflection();
  for (int i = 0; i < schema->field_count(); ++i) {
    const google::protobuf::FieldDescriptor* field = schema->field(i);
    const bool kept = field->is_repeated() ? reflection->FieldSize(*left, field) > 0
                                           : reflection->HasField(*left, field);
    if (!kept) withheld.push_back(field->name());
  }
  EXPECT_EQ(withheld, (std::vector<std::string>{"script", "argv", "environment", "submit_dir",
                                                "export_mode", "open_mode"}));
  // What is kept is kept whole: the public fields' values are those given.
  EXPECT_EQ(spec.name(), "x");
  EXPECT_EQ(spec.gres_size(), 1);
  EXPECT_TRUE(spec.has_time_limit());
  EXPECT_TRUE(spec.has_container());
}

}  // namespace
}  // namespace skiff::ctld
