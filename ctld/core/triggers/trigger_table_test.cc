#include "ctld/core/triggers/trigger_table.h"

#include <gtest/gtest.h>

namespace skiff::ctld {
namespace {

constexpr uid_t kAlice = 1001;
constexpr uid_t kBob = 1002;

TriggerNodeView IdleNode(const std::string& name, int64_t last_busy = 0) {
  TriggerNodeView node;
  node.name = name;
  node.idle = true;
  node.last_busy = last_busy;
  return node;
}

TriggerWorld FourNodes() {
  TriggerWorld world;
  for (const char* name : {"n1", "n2", "n3", "n4"}) world.nodes.push_back(IdleNode(name));
  return world;
}

TriggerNodeView* NodeOf(TriggerWorld& world, const std::string& name) {
  for (TriggerNodeView& node : world.nodes) {
    if (node.name == name) return &node;
  }
  return nullptr;
}

TriggerRequest NodeRequest(uint32_t type, const std::string& nodes = "*") {
  TriggerRequest request;
  request.res_type = TriggerResType::kNode;
  request.res_id = nodes;
  request.type = type;
  request.program = "/bin/prog";
  return request;
}

TriggerRequest JobRequest(uint64_t job, uint32_t type, int32_t offset = 0) {
  TriggerRequest request;
  request.res_type = TriggerResType::kJob;
  request.res_id = std::to_string(job);
  request.type = type;
  request.offset = offset;
  request.program = "/bin/prog extra";
  return request;
}

TriggerPolicy RootSlurmUser() {
  TriggerPolicy policy;
  policy.slurm_user = 0;
  policy.max_count = 100;
  return policy;
}

// Sets `request` as root and adds it.
uint32_t SetAsRoot(TriggerTable& table, const TriggerRequest& request, const TriggerWorld& world) {
  absl::StatusOr<Trigger> t = table.Prepare(request, 0, 0, RootSlurmUser(), world, true);
  EXPECT_TRUE(t.ok()) << t.status();
  if (!t.ok()) return 0;
  const uint32_t id = t->id;
  table.Add(*t);
  return id;
}

TEST(TriggerSet, PlainUsersAreRefusedUnlessAllowUserTriggers) {
  TriggerTable table;
  const TriggerWorld world = FourNodes();
  TriggerPolicy policy = RootSlurmUser();
  absl::StatusOr<Trigger> t =
      table.Prepare(NodeRequest(trigger_type::kDown), kAlice, 100, policy, world, true);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(t.status().message(), "Access/permission denied");
  policy.allow_user_triggers = true;
  t = table.Prepare(NodeRequest(trigger_type::kDown), kAlice, 100, policy, world, true);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->uid, kAlice);
  EXPECT_EQ(t->gid, 100u);
  EXPECT_EQ(t->res_id, "*");
}

TEST(TriggerSet, ANonRootSlurmUserIsTheOnlyOneWhoMaySet) {
  TriggerTable table;
  const TriggerWorld world = FourNodes();
  TriggerPolicy policy = RootSlurmUser();
  policy.slurm_user = kBob;
  policy.allow_user_triggers = true;
  // Not even root, nor a user allow_user_triggers lets past the RPC check.
  for (uid_t uid : {static_cast<uid_t>(0), kAlice}) {
    absl::StatusOr<Trigger> t =
        table.Prepare(NodeRequest(trigger_type::kDown), uid, 0, policy, world, true);
    ASSERT_FALSE(t.ok()) << uid;
    EXPECT_EQ(t.status().code(), absl::StatusCode::kPermissionDenied);
  }
  EXPECT_TRUE(table.Prepare(NodeRequest(trigger_type::kDown), kBob, 0, policy, world, true).ok());
}

TEST(TriggerSet, RefusesWithSlurmsErrors) {
  TriggerTable table;
  TriggerWorld world = FourNodes();
  world.jobs[7] = TriggerJobView{};
  TriggerJobView ended;
  ended.finished = true;
  world.jobs[8] = ended;
  const TriggerPolicy policy = RootSlurmUser();
  auto error = [&](const TriggerRequest& request, bool program_ok = true) {
    absl::StatusOr<Trigger> t = table.Prepare(request, 0, 0, policy, world, program_ok);
    return t.ok() ? std::string("ok") : std::string(t.status().message());
  };
  EXPECT_EQ(error(JobRequest(9, trigger_type::kFini)), "Invalid job id specified");
  EXPECT_EQ(error(JobRequest(8, trigger_type::kFini)), "Job/step already completing or completed");
  EXPECT_EQ(error(NodeRequest(trigger_type::kDown, "n[1-9]")), "Invalid node name specified");
  EXPECT_EQ(error(NodeRequest(trigger_type::kDown, "n[1-")), "Invalid node name specified");
  EXPECT_EQ(error(JobRequest(7, trigger_type::kFini), false), "Access/permission denied");
  EXPECT_EQ(error(JobRequest(7, trigger_type::kFini)), "ok");
  SetAsRoot(table, JobRequest(7, trigger_type::kFini), world);
  EXPECT_EQ(error(JobRequest(7, trigger_type::kFini)), "Duplicate event trigger");
  EXPECT_EQ(error(JobRequest(7, trigger_type::kFini, -10)), "ok");  // another offset
  TriggerRequest ctld = NodeRequest(1u << 9);                       // primary_slurmctld_failure
  ctld.res_type = TriggerResType::kSlurmctld;
  EXPECT_NE(error(ctld).find("only job and node events"), std::string::npos);
}

TEST(TriggerSet, MaxJobCountBoundsUsersButNotRoot) {
  TriggerTable table;
  const TriggerWorld world = FourNodes();
  TriggerPolicy policy = RootSlurmUser();
  policy.max_count = 1;
  policy.allow_user_triggers = true;
  SetAsRoot(table, NodeRequest(trigger_type::kDown), world);
  absl::StatusOr<Trigger> t =
      table.Prepare(NodeRequest(trigger_type::kUp), kAlice, 0, policy, world, true);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(), "Resource temporarily unavailable");
  EXPECT_TRUE(table.Prepare(NodeRequest(trigger_type::kUp), 0, 0, policy, world, true).ok());
}

TEST(TriggerClear, OwnersAndRootOnlyWithSlurmsAnswers) {
  TriggerTable table;
  TriggerWorld world = FourNodes();
  world.jobs[7] = TriggerJobView{};
  TriggerPolicy policy = RootSlurmUser();
  policy.allow_user_triggers = true;
  absl::StatusOr<Trigger> a =
      table.Prepare(JobRequest(7, trigger_type::kFini), kAlice, 0, policy, world, true);
  ASSERT_TRUE(a.ok());
  table.Add(*a);
  absl::StatusOr<Trigger> b =
      table.Prepare(NodeRequest(trigger_type::kDown), kBob, 0, policy, world, true);
  ASSERT_TRUE(b.ok());
  table.Add(*b);

  TriggerTable::ClearPlan plan = table.PlanClear({a->id, 0, std::nullopt}, kBob);
  EXPECT_TRUE(plan.ids.empty());
  EXPECT_EQ(plan.status.message(), "Access/permission denied");
  plan = table.PlanClear({99, 0, std::nullopt}, kBob);
  EXPECT_EQ(plan.status.message(), "No such process");
  plan = table.PlanClear({0, 0, std::nullopt}, kBob);
  EXPECT_EQ(plan.status.message(), "Invalid argument");
  plan = table.PlanClear({0, 7, std::nullopt}, kAlice);
  EXPECT_TRUE(plan.status.ok());
  EXPECT_EQ(plan.ids, std::vector<uint32_t>{a->id});
  // Root clears anyone's, here by user.
  plan = table.PlanClear({0, 0, kBob}, 0);
  EXPECT_TRUE(plan.status.ok());
  EXPECT_EQ(plan.ids, std::vector<uint32_t>{b->id});
  table.Remove(plan.ids);
  EXPECT_EQ(table.Visible().size(), 1u);
}

TEST(TriggerObserve, NodeDownFiresOnceWithTheNodeNamesAsTheLastArgument) {
  TriggerTable table;
  TriggerWorld world = FourNodes();
  const uint32_t id = SetAsRoot(table, NodeRequest(trigger_type::kDown), world);
  EXPECT_TRUE(table.Observe(world, 100).fired.empty());  // baseline
  NodeOf(world, "n2")->down = true;
  NodeOf(world, "n3")->down = true;
  TriggerTable::Outcome out = table.Observe(world, 101);
  ASSERT_EQ(out.fired.size(), 1u);
  EXPECT_EQ(out.fired[0].trigger_id, id);
  EXPECT_EQ(out.fired[0].path, "/bin/prog");
  EXPECT_EQ(out.fired[0].argv, std::vector<std::string>{"n[2-3]"});
  EXPECT_EQ(out.changed, std::vector<uint32_t>{id});  // gone: one-shot
  EXPECT_TRUE(table.triggers().empty());
}

TEST(TriggerObserve, NodesAlreadyDownAtTheFirstObservationAreNoEvent) {
  TriggerTable table;
  TriggerWorld world = FourNodes();
  NodeOf(world, "n1")->down = true;
  SetAsRoot(table, NodeRequest(trigger_type::kDown), world);
  EXPECT_TRUE(table.Observe(world, 100).fired.empty());
  EXPECT_TRUE(table.Observe(world, 101).fired.empty());
}

TEST(TriggerObserve, ANamedNodeTriggerIgnoresOtherNodes) {
  TriggerTable table;
  TriggerWorld world = FourNodes();
  SetAsRoot(table, NodeRequest(trigger_type::kDown, "n[3-4]"), world);
  table.Observe(world, 100);
  NodeOf(world, "n1")->down = true;
  EXPECT_TRUE(table.Observe(world, 101).fired.empty());
  NodeOf(world, "n1")->down = false;
  NodeOf(world, "n2")->down = true;
  NodeOf(world, "n4")->down = true;
  TriggerTable::Outcome out = table.Observe(world, 102);
  ASSERT_EQ(out.fired.size(), 1u);
  EXPECT_EQ(out.fired[0].argv, std::vector<std::string>{"n4"});
}

TEST(TriggerObserve, PermTriggersWaitForTheNextEventAndOffsetsDelay) {
  TriggerTable table;
  TriggerWorld world = FourNodes();
  TriggerRequest request = NodeRequest(trigger_type::kUp);
  request.flags = kTriggerFlagPerm;
  request.offset = 5;
  const uint32_t id = SetAsRoot(table, request, world);
  NodeOf(world, "n1")->down = true;
  table.Observe(world, 100);
  NodeOf(world, "n1")->down = false;
  TriggerTable::Outcome out = table.Observe(world, 101);
  EXPECT_TRUE(out.fired.empty());
  EXPECT_EQ(out.changed, std::vector<uint32_t>{id});  // pulled: stored so
  EXPECT_TRUE(table.Visible().empty());               // --get hides pulled ones, as Slurm
  EXPECT_TRUE(table.Observe(world, 105).fired.empty());
  out = table.Observe(world, 106);
  ASSERT_EQ(out.fired.size(), 1u);
  EXPECT_EQ(out.fired[0].argv, std::vector<std::string>{"n1"});
  ASSERT_EQ(table.Visible().size(), 1u);  // re-armed
  EXPECT_EQ(table.Visible()[0].res_id, "*");
  EXPECT_TRUE(table.Observe(world, 107).fired.empty());
}

TEST(TriggerObserve, DrainedMeansDrainWithNothingRunning) {
  TriggerTable table;
  TriggerWorld world = FourNodes();
  SetAsRoot(table, NodeRequest(trigger_type::kDrained), world);
  NodeOf(world, "n1")->busy = true;
  NodeOf(world, "n1")->idle = false;
  table.Observe(world, 100);
  NodeOf(world, "n1")->drain = true;  // DRAINING
  EXPECT_TRUE(table.Observe(world, 101).fired.empty());
  NodeOf(world, "n1")->busy = false;  // DRAINED
  TriggerTable::Outcome out = table.Observe(world, 102);
  ASSERT_EQ(out.fired.size(), 1u);
  EXPECT_EQ(out.fired[0].argv, std::vector<std::string>{"n1"});
}

TEST(TriggerObserve, FailFiresOnTheFailFlag) {
  TriggerTable table;
  TriggerWorld world = FourNodes();
  SetAsRoot(table, NodeRequest(trigger_type::kFail), world);
  table.Observe(world, 100);
  NodeOf(world, "n3")->fail = true;
  TriggerTable::Outcome out = table.Observe(world, 101);
  ASSERT_EQ(out.fired.size(), 1u);
  EXPECT_EQ(out.fired[0].argv, std::vector<std::string>{"n3"});
}

TEST(TriggerObserve, IdleFiresForNodesIdleAtLeastTheOffset) {
  TriggerTable table;
  TriggerWorld world;
  world.nodes = {IdleNode("n1", 950), IdleNode("n2", 850)};
  world.nodes[1].idle = false;  // busy since
  TriggerRequest request = NodeRequest(trigger_type::kIdle);
  request.offset = 60;
  SetAsRoot(table, request, world);
  EXPECT_TRUE(table.Observe(world, 1000).fired.empty());  // n1 idle 50 s only
  TriggerTable::Outcome out = table.Observe(world, 1010);
  ASSERT_EQ(out.fired.size(), 1u);
  EXPECT_EQ(out.fired[0].argv, std::vector<std::string>{"n1"});
}

TEST(TriggerObserve, ReconfigFiresWithReconfigAsItsArgument) {
  TriggerTable table;
  TriggerWorld world = FourNodes();
  SetAsRoot(table, NodeRequest(trigger_type::kReconfig), world);
  EXPECT_TRUE(table.Observe(world, 100).fired.empty());
  world.reconfigured = true;
  TriggerTable::Outcome out = table.Observe(world, 101);
  ASSERT_EQ(out.fired.size(), 1u);
  EXPECT_EQ(out.fired[0].argv, std::vector<std::string>{"reconfig"});
}

TEST(TriggerObserve, JobFiniRunsWhenTheJobEndsWithItsIdAndIsThenGone) {
  TriggerTable table;
  TriggerWorld world = FourNodes();
  world.jobs[42] = TriggerJobView{};
  TriggerRequest request = JobRequest(42, trigger_type::kFini);
  request.flags = kTriggerFlagPerm;  // a job ends once: gone all the same
  const uint32_t id = SetAsRoot(table, request, world);
  EXPECT_TRUE(table.Observe(world, 100).fired.empty());
  world.jobs[42].finished = true;
  TriggerTable::Outcome out = table.Observe(world, 101);
  ASSERT_EQ(out.fired.size(), 1u);
  EXPECT_EQ(out.fired[0].path, "/bin/prog");
  EXPECT_EQ(out.fired[0].argv, (std::vector<std::string>{"extra", "42"}));
  EXPECT_EQ(out.changed, std::vector<uint32_t>{id});
  EXPECT_TRUE(table.triggers().empty());
}

TEST(TriggerObserve, JobFiniFiresForAJobAlreadyPurged) {
  TriggerTable table;
  TriggerWorld world = FourNodes();
  world.jobs[42] = TriggerJobView{};
  SetAsRoot(table, JobRequest(42, trigger_type::kFini), world);
  world.jobs.clear();
  EXPECT_EQ(table.Observe(world, 100).fired.size(), 1u);
}

TEST(TriggerObserve, OtherJobTriggersOfAPurgedJobGoWithoutRunning) {
  TriggerTable table;
  TriggerWorld world = FourNodes();
  world.jobs[42] = TriggerJobView{};
  const uint32_t id = SetAsRoot(table, JobRequest(42, trigger_type::kDown), world);
  world.jobs.clear();
  TriggerTable::Outcome out = table.Observe(world, 100);
  EXPECT_TRUE(out.fired.empty());
  EXPECT_EQ(out.changed, std::vector<uint32_t>{id});
  EXPECT_TRUE(table.triggers().empty());
}

TEST(TriggerObserve, JobTimeWithNegativeOffsetFiresThatLongBeforeTheLimit) {
  TriggerTable table;
  TriggerWorld world = FourNodes();
  TriggerJobView job;
  job.pending = true;
  world.jobs[5] = job;
  SetAsRoot(table, JobRequest(5, trigger_type::kTime, -60), world);
  EXPECT_TRUE(table.Observe(world, 1000).fired.empty());  // pending: no end yet
  world.jobs[5].pending = false;
  world.jobs[5].end = 1200;
  EXPECT_TRUE(table.Observe(world, 1139).fired.empty());  // 61 s left
  TriggerTable::Outcome out = table.Observe(world, 1140);
  ASSERT_EQ(out.fired.size(), 1u);
  EXPECT_EQ(out.fired[0].argv, (std::vector<std::string>{"extra", "5"}));
}

TEST(TriggerObserve, JobDownMatchesTheJobsNodesOnly) {
  TriggerTable table;
  TriggerWorld world = FourNodes();
  TriggerJobView job;
  job.nodes = {"n2", "n3"};
  world.jobs[9] = job;
  SetAsRoot(table, JobRequest(9, trigger_type::kDown), world);
  table.Observe(world, 100);
  NodeOf(world, "n1")->down = true;
  EXPECT_TRUE(table.Observe(world, 101).fired.empty());
  NodeOf(world, "n3")->down = true;
  TriggerTable::Outcome out = table.Observe(world, 102);
  ASSERT_EQ(out.fired.size(), 1u);
  EXPECT_EQ(out.fired[0].argv.back(), "9");
}

TEST(TriggerRecord, RoundTripsEveryField) {
  Trigger t;
  t.id = 12;
  t.res_type = TriggerResType::kNode;
  t.res_id = "n[1-2]";
  t.nodes = {"n1", "n2"};
  t.type = trigger_type::kDown | trigger_type::kUp;
  t.offset = -30;
  t.flags = kTriggerFlagPerm;
  t.uid = 1001;
  t.gid = 1002;
  t.program = "/bin/prog a\tb\nc";
  t.pulled = true;
  t.fire_at = 12345;
  t.arg = "n1";
  absl::StatusOr<Trigger> back = DecodeTrigger(EncodeTrigger(t));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, t);
  EXPECT_EQ(back->program, t.program);
  EXPECT_EQ(DecodeTrigger("t1\tgarbage").status().code(), absl::StatusCode::kDataLoss);
}

TEST(TriggerTable, LoadedTriggersKeepTheirIdsAndNewOnesFollow) {
  TriggerTable table;
  Trigger t;
  t.id = 7;
  t.type = trigger_type::kDown;
  t.res_id = "*";
  t.program = "/bin/x";
  table.Load({t});
  const uint32_t id = SetAsRoot(table, NodeRequest(trigger_type::kUp), FourNodes());
  EXPECT_EQ(id, 8u);
  EXPECT_EQ(table.Visible().size(), 2u);
}

TEST(TriggerNames, AreSlurms) {
  EXPECT_STREQ(TriggerTypeName(trigger_type::kDrained), "drained");
  EXPECT_STREQ(TriggerTypeName(trigger_type::kDown | trigger_type::kUp), "unknown");
  EXPECT_STREQ(TriggerResTypeName(TriggerResType::kJob), "job");
}

}  // namespace
}  // namespace skiff::ctld
