#include "ctld/core/scheduler/from_ctld.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace skiff::ctld {
namespace {

// BuildSnapshot + Schedule + ToScheduleResult: one pass as ctld runs it.
ScheduleResult ScheduleForCtld(const CtldSchedulerInputs& inputs, const SchedulerOptions& options,
                               int64_t now) {
  const CtldSnapshot snapshot = BuildSnapshot(inputs);
  return ToScheduleResult(snapshot, Schedule(snapshot.view, snapshot.pending, options, now));
}

NodeCapacity Capacity(const std::string& name, int gpus, const std::string& type) {
  NodeCapacity node;
  node.name = name;
  node.usable = true;
  node.cpus = 16;
  node.memory_mb = 64000;
  node.gpu_type = type;
  node.gpu_owner.assign(gpus, 0);
  node.partitions = {"gpu"};
  return node;
}

Job MakeJob(uint64_t id, const std::string& user, int gpus, const std::string& qos = "normal") {
  Job job;
  job.id = id;
  job.user_name = user;
  job.group_name = user;
  job.account = "lab";
  job.qos = qos;
  job.submit_time = static_cast<int64_t>(id);
  job.request.partition = "gpu";
  job.request.gpus_per_node = gpus;
  job.request.time_limit = 3600;
  return job;
}

CtldSchedulerInputs Inputs() {
  CtldSchedulerInputs inputs;
  inputs.nodes = {Capacity("g1", 4, "a100"), Capacity("g2", 4, "v100")};
  PartitionConfig gpu;
  gpu.name = "gpu";
  gpu.nodes = {"g1", "g2"};
  inputs.partitions = {gpu};
  Qos normal;
  normal.name = "normal";
  normal.max_tres_per_user.gpus = 4;
  inputs.qos = {normal};
  return inputs;
}

TEST(FromCtld, PlacesAroundRunningJobsAndNamesReasons) {
  CtldSchedulerInputs inputs = Inputs();
  Job running = MakeJob(10, "alice", 2);
  running.state = JobState::kRunning;
  running.nodes = {"g1"};
  running.cpus_by_node = {1};
  running.mem_by_node_mb = {0};
  running.gpu_indices = {0, 2};
  running.start_time = 0;
  inputs.running = {&running};
  Job a = MakeJob(1, "alice", 2), b = MakeJob(2, "alice", 1), c = MakeJob(3, "bob", 1);
  c.request.gpu_type = "v100";
  Job d = MakeJob(4, "bob", 1, "nosuchqos");
  Job e = MakeJob(5, "bob", 1);
  e.request.partition = "gone";
  inputs.pending = {&a, &b, &c, &d, &e};

  ScheduleResult result = ScheduleForCtld(inputs, SchedulerOptions{}, 100);
  ASSERT_EQ(result.placements.size(), 2u);
  EXPECT_EQ(result.placements[0].job_id, 1u);
  EXPECT_EQ(result.placements[0].nodes, std::vector<std::string>{"g1"});
  EXPECT_EQ(result.placements[0].gpu_indices, (std::vector<std::vector<int>>{{1, 3}}));
  EXPECT_EQ(result.placements[1].job_id, 3u);
  EXPECT_EQ(result.placements[1].nodes, std::vector<std::string>{"g2"});
  std::map<uint64_t, std::string> reasons;
  for (const PendingReason& reason : result.pending) reasons[reason.job_id] = reason.reason;
  EXPECT_EQ(reasons[2], "QOSMaxGRESPerUser");  // alice holds 2 + 2
  EXPECT_EQ(reasons[4], "InvalidQOS");
  EXPECT_EQ(reasons[5], "PartitionInactive");
  EXPECT_EQ(reasons.size(), 3u);
}

TEST(FromCtld, JobsBeingStoppedAreExpectedToEndNow) {
  CtldSchedulerInputs inputs = Inputs();
  inputs.now = 500;
  Job stopping = MakeJob(10, "alice", 1);
  stopping.state = JobState::kRunning;
  stopping.final_state = JobState::kPreempted;
  stopping.nodes = {"g1"};
  stopping.start_time = 400;
  Job running = stopping;
  running.id = 11;
  running.final_state = JobState::kCompleted;
  inputs.running = {&stopping, &running};
  const CtldSnapshot snapshot = BuildSnapshot(inputs);
  ASSERT_EQ(snapshot.view.running.size(), 2u);
  EXPECT_EQ(snapshot.view.running[0].ExpectedEnd(), 500);
  EXPECT_EQ(snapshot.view.running[1].ExpectedEnd(), 400 + 3600);
}

TEST(FromCtld, OptionsFromConfig) {
  SkiffConfig config;
  config.priority_weight_age = 7;
  config.priority_weight_qos = 9;
  config.priority_max_age = 60;
  config.scheduler_parameters = *ParseSchedulerParameters("bf_max_job_test=1234,bf_interval=30");
  SchedulerOptions options = OptionsFromConfig(config);
  EXPECT_EQ(options.weights.age, 7);
  EXPECT_EQ(options.weights.qos, 9);
  EXPECT_EQ(options.weights.max_age, 60);
  EXPECT_EQ(options.bf_max_job_test, 1234);
  EXPECT_EQ(options.bf_interval, 30);
  EXPECT_TRUE(options.backfill);
  EXPECT_EQ(options.default_queue_depth, 100) << "Slurm's default";
  EXPECT_EQ(options.sched_interval, 60) << "Slurm's default";
  config.scheduler_parameters =
      *ParseSchedulerParameters("default_queue_depth=500,sched_interval=0,bf_interval=-1");
  options = OptionsFromConfig(config);
  EXPECT_EQ(options.default_queue_depth, 500);
  EXPECT_EQ(options.sched_interval, 0);
  EXPECT_FALSE(options.backfill) << "bf_interval=-1 turns backfill off";
}

TEST(DescribeWaitReason, UsesSlurmsWordsForUnavailableNodes) {
  ClusterView view;
  for (const char* name : {"n1", "n2", "n3"}) {
    SchedNode node;
    node.name = name;
    node.usable = std::string(name) == "n1";
    view.nodes.push_back(node);
  }
  SchedPartition debug;
  debug.name = "debug";
  debug.nodes = {0, 1, 2};
  view.partitions.push_back(debug);
  PendingJob job;
  EXPECT_EQ(
      DescribeWaitReason(view, job, WaitReason::kReqNodeNotAvail, WaitDetail::kUnavailableNodes)
          .description,
      "ReqNodeNotAvail, UnavailableNodes:n[2-3]");
  job.nodelist = {2};
  ReasonText text =
      DescribeWaitReason(view, job, WaitReason::kReqNodeNotAvail, WaitDetail::kUnavailableNodes);
  EXPECT_EQ(text.reason, "ReqNodeNotAvail");
  EXPECT_EQ(text.description, "ReqNodeNotAvail, UnavailableNodes:n3");
  text = DescribeWaitReason(view, job, WaitReason::kPriority, WaitDetail::kNodesUnavailable);
  EXPECT_EQ(text.reason, "Resources");
  EXPECT_EQ(text.description,
            "Nodes required for job are DOWN, DRAINED or reserved for jobs in higher priority "
            "partitions");
  text = DescribeWaitReason(view, job, WaitReason::kPriority, WaitDetail::kNone);
  EXPECT_EQ(text.reason, "Priority");
  EXPECT_EQ(text.description, "");
}

TEST(FromCtld, MagneticReservationTakesTheJobsItsUsersSubmit) {
  CtldSchedulerInputs inputs = Inputs();
  inputs.now = 1000;
  ResvTable reservations;
  AdvanceReservation mag;
  mag.name = "mag";
  mag.start = 900;
  mag.end = 5000;
  mag.nodes = {"g2"};
  mag.users = {"alice"};
  mag.flags = kResvMagnetic | kResvSpecNodes;
  reservations["mag"] = mag;
  inputs.reservations = &reservations;
  Job alice = MakeJob(1, "alice", 1);
  alice.request.nodelist = {"g2"};
  Job bob = MakeJob(2, "bob", 1);
  bob.request.nodelist = {"g2"};
  inputs.pending = {&alice, &bob};
  const ScheduleResult result = ScheduleForCtld(inputs, SchedulerOptions(), inputs.now);
  ASSERT_EQ(result.placements.size(), 1u);
  EXPECT_EQ(result.placements[0].job_id, 1u);
  EXPECT_EQ(result.placements[0].reservation, "mag");
  // Without MAGNETIC alice's job keeps off too.
  reservations["mag"].flags = kResvSpecNodes;
  EXPECT_TRUE(ScheduleForCtld(inputs, SchedulerOptions(), inputs.now).placements.empty());
}

}  // namespace
}  // namespace skiff::ctld
