#include "ctld/core/node_table.h"

#include <gtest/gtest.h>

namespace skiff::ctld {
namespace {

SkiffConfig TwoNodeConfig() {
  SkiffConfig config;
  NodeConfig n1;
  n1.name = "n1";
  n1.cpus = 4;
  n1.real_memory_mb = 1000;
  NodeConfig n2 = n1;
  n2.name = "n2";
  config.nodes = {n1, n2};
  PartitionConfig debug;
  debug.name = "debug";
  debug.nodes = {"n1", "n2"};
  config.partitions = {debug};
  return config;
}

NodeRegistration Reg(const std::string& name, int cpus = 4, uint64_t mem = 1000) {
  NodeRegistration reg;
  reg.node_name = name;
  reg.cpus = cpus;
  reg.real_memory_mb = mem;
  return reg;
}

TEST(NodeTable, ConfiguredNodesStartUnknownAndNotResponding) {
  NodeTable table(TwoNodeConfig());
  const Node* n1 = table.Find("n1");
  ASSERT_NE(n1, nullptr);
  EXPECT_EQ(n1->state, NodeBaseState::kUnknown);
  EXPECT_TRUE(n1->not_responding);
  EXPECT_EQ(n1->partitions, std::vector<std::string>{"debug"});
}

TEST(NodeTable, RegistrationMakesNodeIdleAndResponding) {
  NodeTable table(TwoNodeConfig());
  std::vector<NodeChange> changes;
  ASSERT_TRUE(table.Register(Reg("n1"), 100, false, &changes).ok());
  EXPECT_EQ(table.Find("n1")->state, NodeBaseState::kIdle);
  EXPECT_FALSE(table.Find("n1")->not_responding);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].what, "UNKNOWN -> IDLE (registered)");
}

TEST(NodeTable, UnknownNodeCannotRegister) {
  NodeTable table(TwoNodeConfig());
  absl::Status status = table.Register(Reg("n9"), 100, false, nullptr);
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(status.message().find("NodeName=n9"), std::string_view::npos);
}

TEST(NodeTable, NodeWithLessMemoryThanConfiguredIsDrained) {
  NodeTable table(TwoNodeConfig());
  ASSERT_TRUE(table.Register(Reg("n1", 4, 500), 100, false, nullptr).ok());
  EXPECT_TRUE(table.Find("n1")->drain);
  EXPECT_EQ(table.Find("n1")->reason, "Low RealMemory");
}

TEST(NodeTable, NodeThatCannotConfineJobsIsDrainedWithItsReasonEvenWithConfigOverrides) {
  NodeTable table(TwoNodeConfig());
  NodeRegistration reg = Reg("n1");
  reg.drain_reason = "cgroups unavailable (ConstrainRAMSpace=yes): no cgroup hierarchy";
  std::vector<NodeChange> changes;
  ASSERT_TRUE(table.Register(reg, 100, /*config_overrides=*/true, &changes).ok());
  const Node* n1 = table.Find("n1");
  EXPECT_TRUE(n1->drain);
  EXPECT_FALSE(n1->Usable());
  EXPECT_EQ(n1->reason, reg.drain_reason);
  EXPECT_EQ(n1->reason_time, 100);
  ASSERT_FALSE(changes.empty());
  EXPECT_EQ(changes[0].what, "DRAIN (" + reg.drain_reason + ")");
  // An admin's drain keeps its own reason.
  ASSERT_TRUE(table.AdminUpdate("n2", "DRAIN", "disk swap", 7, 150, nullptr).ok());
  reg.node_name = "n2";
  ASSERT_TRUE(table.Register(reg, 200, false, nullptr).ok());
  EXPECT_EQ(table.Find("n2")->reason, "disk swap");
  // A registration without one drains nothing.
  NodeTable clean(TwoNodeConfig());
  ASSERT_TRUE(clean.Register(Reg("n1"), 100, false, nullptr).ok());
  EXPECT_FALSE(clean.Find("n1")->drain);
}

TEST(NodeTable, NodeWithGpusOfAnotherTypeThanConfiguredIsDrainedWithSlurmsReason) {
  SkiffConfig config = TwoNodeConfig();
  config.nodes[0].gres = {{"gpu", "a100", 2}};
  NodeRegistration reg = Reg("n1");
  reg.gres = {{"gpu", "v100", 2, {"/dev/nvidia0", "/dev/nvidia1"}}};
  NodeTable wrong(config);
  ASSERT_TRUE(wrong.Register(reg, 1, false, nullptr).ok());
  EXPECT_TRUE(wrong.Find("n1")->drain);
  EXPECT_EQ(wrong.Find("n1")->reason, "gres/gpu:a100 count too low (0 < 2)");
  reg.gres = {{"gpu", "a100", 1, {"/dev/nvidia0"}}, {"gpu", "v100", 1, {"/dev/nvidia1"}}};
  NodeTable mixed(config);
  ASSERT_TRUE(mixed.Register(reg, 1, false, nullptr).ok());
  EXPECT_EQ(mixed.Find("n1")->reason, "gres/gpu:a100 count too low (1 < 2)");
  reg.gres = {{"gpu", "a100", 2, {"/dev/nvidia0", "/dev/nvidia1"}}};
  NodeTable right(config);
  ASSERT_TRUE(right.Register(reg, 1, false, nullptr).ok());
  EXPECT_FALSE(right.Find("n1")->drain);
  // config_overrides (SlurmdParameters): the configuration is trusted.
  reg.gres = {{"gpu", "v100", 2, {"/dev/nvidia0", "/dev/nvidia1"}}};
  NodeTable trusted(config);
  ASSERT_TRUE(trusted.Register(reg, 1, true, nullptr).ok());
  EXPECT_FALSE(trusted.Find("n1")->drain);
}

TEST(NodeTable, NodeWithFewerGpusThanConfiguredIsDrainedWithSlurmsReason) {
  SkiffConfig config = TwoNodeConfig();
  config.nodes[0].gres = {{"gpu", "", 2}};
  NodeTable table(config);
  NodeRegistration reg = Reg("n1");
  reg.gres = {{"gpu", "", 1, {"/dev/nvidia0"}}};
  ASSERT_TRUE(table.Register(reg, 1, false, nullptr).ok());
  EXPECT_TRUE(table.Find("n1")->drain);
  EXPECT_EQ(table.Find("n1")->reason, "gres/gpu count reported lower than configured (1 < 2)");
  reg = Reg("n1");
  reg.gres = {{"gpu", "", 2, {"/dev/nvidia0", "/dev/nvidia1"}}};
  NodeTable full(config);
  ASSERT_TRUE(full.Register(reg, 1, false, nullptr).ok());
  EXPECT_FALSE(full.Find("n1")->drain);
}

TEST(NodeTable, ConfigOverridesTrustsConfiguredHardware) {
  NodeTable table(TwoNodeConfig());
  ASSERT_TRUE(table.Register(Reg("n1", 1, 10), 100, true, nullptr).ok());
  EXPECT_FALSE(table.Find("n1")->drain);
}

TEST(NodeTable, HeartbeatFromUnregisteredNodeAsksForRegistration) {
  NodeTable table(TwoNodeConfig());
  EXPECT_FALSE(table.Heartbeat("n1", 100, nullptr));
  EXPECT_FALSE(table.Heartbeat("n9", 100, nullptr));
}

TEST(NodeTable, SilentNodeIsNotRespondingThenDown) {
  NodeTable table(TwoNodeConfig());
  ASSERT_TRUE(table.Register(Reg("n1"), 100, false, nullptr).ok());
  std::vector<NodeChange> changes;
  table.CheckTimeouts(100 + 20, /*heartbeat_interval=*/10, /*slurmd_timeout=*/60, &changes);
  EXPECT_FALSE(table.Find("n1")->not_responding) << "exactly 2 intervals is still fine";
  table.CheckTimeouts(100 + 21, 10, 60, &changes);
  EXPECT_TRUE(table.Find("n1")->not_responding);
  EXPECT_EQ(table.Find("n1")->state, NodeBaseState::kIdle);
  table.CheckTimeouts(100 + 61, 10, 60, &changes);
  EXPECT_EQ(table.Find("n1")->state, NodeBaseState::kDown);
  EXPECT_EQ(table.Find("n1")->reason, "Not responding");
  // Never-registered n2 stays UNKNOWN rather than flapping to DOWN.
  EXPECT_EQ(table.Find("n2")->state, NodeBaseState::kUnknown);
}

TEST(NodeTable, HeartbeatClearsNotResponding) {
  NodeTable table(TwoNodeConfig());
  ASSERT_TRUE(table.Register(Reg("n1"), 100, false, nullptr).ok());
  table.CheckTimeouts(130, 10, 60, nullptr);
  ASSERT_TRUE(table.Find("n1")->not_responding);
  EXPECT_TRUE(table.Heartbeat("n1", 131, nullptr));
  EXPECT_FALSE(table.Find("n1")->not_responding);
}

TEST(NodeTable, DownNodeReturnsToServiceOnlyByRegistering) {
  NodeTable table(TwoNodeConfig());
  ASSERT_TRUE(table.Register(Reg("n1"), 100, false, nullptr).ok());
  table.CheckTimeouts(200, 10, 60, nullptr);
  ASSERT_EQ(table.Find("n1")->state, NodeBaseState::kDown);
  EXPECT_FALSE(table.Heartbeat("n1", 201, nullptr));
  ASSERT_TRUE(table.Register(Reg("n1"), 202, false, nullptr).ok());
  EXPECT_EQ(table.Find("n1")->state, NodeBaseState::kIdle);
  EXPECT_TRUE(table.Find("n1")->reason.empty());
}

TEST(NodeTable, AdminDownNodeStaysDownAfterRegistering) {
  SkiffConfig config = TwoNodeConfig();
  config.nodes[0].state = "DOWN";
  config.nodes[0].reason = "maintenance";
  NodeTable table(config);
  ASSERT_TRUE(table.Register(Reg("n1"), 100, false, nullptr).ok());
  EXPECT_EQ(table.Find("n1")->state, NodeBaseState::kDown);
  EXPECT_EQ(table.Find("n1")->reason, "maintenance");
}

// Slurm's ReturnToService=0: a DOWN node stays DOWN until an operator
// resumes it, though it registers and answers again.
TEST(NodeTable, ReturnToServiceZeroKeepsASilentNodeDown) {
  NodeTable table(TwoNodeConfig());
  ASSERT_TRUE(table.Register(Reg("n1"), 100, false, nullptr, 0).ok());
  table.CheckTimeouts(200, 10, 60, nullptr);
  ASSERT_EQ(table.Find("n1")->state, NodeBaseState::kDown);
  ASSERT_TRUE(table.Register(Reg("n1"), 202, false, nullptr, 0).ok());
  EXPECT_EQ(table.Find("n1")->state, NodeBaseState::kDown);
  EXPECT_EQ(table.Find("n1")->reason, "Not responding");
  EXPECT_TRUE(table.Heartbeat("n1", 210, nullptr)) << "registered since: no new registration asked";
  ASSERT_TRUE(table.AdminUpdate("n1", "RESUME", "", 0u, 220, nullptr).ok());
  EXPECT_EQ(table.Find("n1")->state, NodeBaseState::kIdle);
}

// ReturnToService=2: whatever set it DOWN, a node that registers comes back.
TEST(NodeTable, ReturnToServiceTwoBringsBackANodeSetDownForAnyReason) {
  SkiffConfig config = TwoNodeConfig();
  config.nodes[0].state = "DOWN";
  config.nodes[0].reason = "maintenance";
  NodeTable table(config);
  ASSERT_TRUE(table.Register(Reg("n1"), 100, false, nullptr, 2).ok());
  EXPECT_EQ(table.Find("n1")->state, NodeBaseState::kIdle);
  EXPECT_EQ(table.Find("n1")->reason, "");
  // Still drained when it reports less than configured.
  ASSERT_TRUE(table.AdminUpdate("n2", "DOWN", "fan", 0u, 100, nullptr).ok());
  ASSERT_TRUE(table.Register(Reg("n2", 4, 500), 110, false, nullptr, 2).ok());
  EXPECT_NE(table.Find("n2")->state, NodeBaseState::kDown);
  EXPECT_TRUE(table.Find("n2")->drain);
  EXPECT_NE(table.Find("n2")->reason.find("Low RealMemory"), std::string::npos)
      << table.Find("n2")->reason;
}

}  // namespace
}  // namespace skiff::ctld

namespace skiff::ctld {
namespace {

TEST(NodeTableStartTime, NeverRegisteredNodeGoesDownAfterTimeoutSinceStart) {
  SkiffConfig config;
  NodeConfig n1;
  n1.name = "n1";
  config.nodes = {n1};
  NodeTable table(config, /*started_at=*/1000);
  std::vector<NodeChange> changes;
  table.CheckTimeouts(1050, 10, 60, &changes);
  EXPECT_EQ(table.Find("n1")->state, NodeBaseState::kUnknown);
  table.CheckTimeouts(1061, 10, 60, &changes);
  EXPECT_EQ(table.Find("n1")->state, NodeBaseState::kDown);
  ASSERT_FALSE(changes.empty());
  EXPECT_TRUE(changes.back().went_down);
}

TEST(NodeTableAdmin, DrainNeedsReasonAndResumeClearsIt) {
  SkiffConfig config;
  NodeConfig n1;
  n1.name = "n1";
  n1.cpus = 2;
  n1.real_memory_mb = 10;
  config.nodes = {n1};
  NodeTable table(config);
  NodeRegistration reg;
  reg.node_name = "n1";
  reg.cpus = 2;
  reg.real_memory_mb = 10;
  ASSERT_TRUE(table.Register(reg, 1, false, nullptr).ok());
  EXPECT_EQ(table.AdminUpdate("n1", "drain", "", 0u, 2, nullptr).code(),
            absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(table.AdminUpdate("n1", "DRAIN", "disk", 1001u, 2, nullptr).ok());
  EXPECT_TRUE(table.Find("n1")->drain);
  EXPECT_EQ(table.Find("n1")->reason_uid, 1001u);  // who drained it, for sinfo -R
  EXPECT_FALSE(table.Find("n1")->Usable());
  ASSERT_TRUE(table.AdminUpdate("n1", "RESUME", "", 0u, 3, nullptr).ok());
  EXPECT_FALSE(table.Find("n1")->drain);
  EXPECT_FALSE(table.Find("n1")->reason_uid.has_value());
  EXPECT_TRUE(table.Find("n1")->Usable());
  EXPECT_EQ(table.AdminUpdate("n9", "DRAIN", "x", 0u, 3, nullptr).code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(table.AdminUpdate("n1", "SLEEP", "x", 0u, 3, nullptr).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(NodeTableAllocation, AllocateAndReleaseTrackGpusAndState) {
  SkiffConfig config;
  NodeConfig n1;
  n1.name = "n1";
  n1.cpus = 4;
  n1.real_memory_mb = 100;
  n1.gres = {{"gpu", "", 2}};
  config.nodes = {n1};
  NodeTable table(config);
  NodeRegistration reg;
  reg.node_name = "n1";
  reg.cpus = 4;
  reg.real_memory_mb = 100;
  ASSERT_TRUE(table.Register(reg, 1, false, nullptr).ok());
  Placement placement;
  placement.job_id = 9;
  placement.nodes = {"n1"};
  placement.cpus = {2};
  placement.mem_mb = {0};
  placement.gpu_indices = {{1}};
  table.Allocate(placement);
  EXPECT_EQ(table.Find("n1")->state, NodeBaseState::kMixed);
  EXPECT_EQ(table.Find("n1")->gpu_owner, (std::vector<uint64_t>{0, 9}));
  table.Release(9, {"n1"}, {2}, {0});
  EXPECT_EQ(table.Find("n1")->state, NodeBaseState::kIdle);
  EXPECT_EQ(table.Find("n1")->gpu_owner, (std::vector<uint64_t>{0, 0}));
}

// n1 with Gres=gpu:2,shard:8 (4 CPUs, 100 MB).
NodeConfig ShardedNodeConfig() {
  NodeConfig n1;
  n1.name = "n1";
  n1.cpus = 4;
  n1.real_memory_mb = 100;
  n1.gres = {{"gpu", "", 2}, {"shard", "", 8}};
  return n1;
}

// gres.conf's per-GPU counts (NodeConfig::gpu_share_counts) over the even
// spread; the fence flag reaches the scheduler's view.
TEST(NodeTableAllocation, PerGpuShareCountsAndFenceComeFromTheConfig) {
  SkiffConfig config;
  NodeConfig n1 = ShardedNodeConfig();
  n1.gpu_share_counts = {6, 2};
  n1.gpu_shares_fenced = true;
  config.nodes = {n1};
  NodeTable table(config);
  EXPECT_EQ(table.Find("n1")->gpu_shares, (std::vector<int32_t>{6, 2}));
  EXPECT_TRUE(table.Capacities().front().share_fenced);
}

// Gres=gpu:2,shard:8: four shards a GPU; shard jobs share a GPU, which is
// then not given whole, and a GPU held whole gives no shards.
TEST(NodeTableAllocation, ShardsShareAGpuThatIsThenNotGivenWhole) {
  SkiffConfig config;
  config.nodes = {ShardedNodeConfig()};
  NodeTable table(config);
  NodeRegistration reg;
  reg.node_name = "n1";
  reg.cpus = 4;
  reg.real_memory_mb = 100;
  reg.gres = {{"gpu", "", 2, {}}, {"shard", "", 8, {}}};
  ASSERT_TRUE(table.Register(reg, 1, false, nullptr).ok());
  EXPECT_EQ(table.Find("n1")->gpu_shares, (std::vector<int32_t>{4, 4}));
  auto shard_job = [](uint64_t id, int32_t gpu, int32_t count) {
    Placement placement;
    placement.job_id = id;
    placement.nodes = {"n1"};
    placement.cpus = {1};
    placement.mem_mb = {0};
    placement.gpu_indices = {{}};
    placement.shares = {{gpu, count}};
    return placement;
  };
  ASSERT_TRUE(table.CanAllocate(shard_job(7, 0, 3)));
  table.Allocate(shard_job(7, 0, 3));
  ASSERT_TRUE(table.CanAllocate(shard_job(8, 0, 1)));
  table.Allocate(shard_job(8, 0, 1));
  EXPECT_FALSE(table.CanAllocate(shard_job(9, 0, 1)));  // GPU 0's four are held
  Placement whole;
  whole.job_id = 10;
  whole.nodes = {"n1"};
  whole.cpus = {1};
  whole.mem_mb = {0};
  whole.gpu_indices = {{0}};
  EXPECT_FALSE(table.CanAllocate(whole));  // sharded
  whole.gpu_indices = {{1}};
  ASSERT_TRUE(table.CanAllocate(whole));
  table.Allocate(whole);
  EXPECT_FALSE(table.CanAllocate(shard_job(9, 1, 1)));  // held whole
  EXPECT_EQ(table.Capacities().front().share_holds.size(), 2u);
  table.Release(7, {"n1"}, {1}, {0});
  table.Release(8, {"n1"}, {1}, {0});
  EXPECT_TRUE(table.Find("n1")->share_holds.empty());
  whole.job_id = 11;
  whole.gpu_indices = {{0}};
  EXPECT_TRUE(table.CanAllocate(whole));
}

// Slurm's last_busy: set when a node comes up idle and when its last job
// ends; a busy node keeps the time it last became idle.
TEST(NodeTableAllocation, LastBusyIsWhenTheNodeLastBecameIdle) {
  NodeTable table(TwoNodeConfig());
  EXPECT_EQ(table.Find("n1")->last_busy, 0);
  ASSERT_TRUE(table.Register(Reg("n1"), 100, false, nullptr).ok());
  EXPECT_EQ(table.Find("n1")->last_busy, 100);
  Placement placement;
  placement.job_id = 7;
  placement.nodes = {"n1"};
  placement.cpus = {2};
  placement.mem_mb = {0};
  placement.gpu_indices = {{}};
  table.Allocate(placement);
  placement.job_id = 8;
  table.Allocate(placement);
  table.Release(7, {"n1"}, {2}, {0}, 150);
  EXPECT_EQ(table.Find("n1")->last_busy, 100);  // job 8 still runs there
  table.Release(8, {"n1"}, {2}, {0}, 200);
  EXPECT_EQ(table.Find("n1")->last_busy, 200);
  EXPECT_EQ(table.Find("n1")->state, NodeBaseState::kIdle);
}

TEST(NodeTable, HeartbeatsAndRegistrationsCarryTheNodesLoad) {
  NodeTable table(TwoNodeConfig());
  NodeRegistration reg = Reg("n1");
  reg.load.cpu_load = 91;
  ASSERT_TRUE(table.Register(reg, 100, false, nullptr).ok());
  EXPECT_EQ(table.Find("n1")->load.cpu_load, 91u);
  EXPECT_FALSE(table.Find("n1")->load.free_memory_mb.has_value());
  ReportedLoad load;
  load.cpu_load = 12;
  load.free_memory_mb = 23439;
  ASSERT_TRUE(table.Heartbeat("n1", 110, nullptr, load));
  EXPECT_EQ(table.Find("n1")->load.cpu_load, 12u);
  EXPECT_EQ(table.Find("n1")->load.free_memory_mb, 23439u);
  ASSERT_TRUE(table.Heartbeat("n1", 120, nullptr));  // says nothing: the last one stays
  EXPECT_EQ(table.Find("n1")->load.free_memory_mb, 23439u);
}

TEST(NodeTableAllocation, JobsGetTheLowestFreeCpuIdsAndKeepStoredOnes) {
  NodeTable table(TwoNodeConfig());
  ASSERT_TRUE(table.Register(Reg("n1"), 1, false, nullptr).ok());
  ASSERT_TRUE(table.Register(Reg("n2"), 1, false, nullptr).ok());
  Placement first;
  first.job_id = 1;
  first.nodes = {"n1"};
  first.cpus = {1};
  first.mem_mb = {0};
  EXPECT_EQ(table.Allocate(first), (std::vector<std::vector<int>>{{0}}));
  Placement second = first;
  second.job_id = 2;
  second.nodes = {"n1", "n2"};
  second.cpus = {2, 2};
  second.mem_mb = {0, 0};
  EXPECT_EQ(table.Allocate(second), (std::vector<std::vector<int>>{{1, 2}, {0, 1}}));
  table.Release(1, {"n1"}, {1}, {0});
  // A recovered job keeps the ids it had (here the one freed just now).
  Placement recovered = first;
  recovered.job_id = 3;
  recovered.cpu_ids = {{0}};
  EXPECT_EQ(table.Allocate(recovered), (std::vector<std::vector<int>>{{0}}));
  Placement third = first;
  third.job_id = 4;
  EXPECT_EQ(table.Allocate(third), (std::vector<std::vector<int>>{{3}}));
  EXPECT_EQ(table.Find("n1")->cpu_owner, (std::vector<uint64_t>{3, 2, 2, 4}));
  table.Release(2, {"n1", "n2"}, {2, 2}, {0, 0});
  EXPECT_EQ(table.Find("n1")->cpu_owner, (std::vector<uint64_t>{3, 0, 0, 4}));
  EXPECT_EQ(table.Find("n2")->cpu_owner, (std::vector<uint64_t>{0, 0, 0, 0}));
}

TEST(NodeTable, AdminStateIsWhatAnAdminOrCtldDecided) {
  NodeTable table(TwoNodeConfig());
  ASSERT_TRUE(table.Register(Reg("n1"), 1, false, nullptr).ok());
  ASSERT_TRUE(table.Register(Reg("n2"), 1, false, nullptr).ok());
  EXPECT_TRUE(table.AdminStateOf(*table.Find("n1")).empty());
  ASSERT_TRUE(table.AdminUpdate("n1", "DRAIN", "disk swap soon", 1000, 50, nullptr).ok());
  ASSERT_TRUE(table.AdminUpdate("n2", "DOWN", "rma", 0, 60, nullptr).ok());
  const NodeAdminState drained = table.AdminStateOf(*table.Find("n1"));
  EXPECT_TRUE(drained.drain);
  EXPECT_FALSE(drained.down);
  EXPECT_EQ(drained.reason, "disk swap soon");
  EXPECT_EQ(drained.reason_uid, 1000u);
  const NodeAdminState down = table.AdminStateOf(*table.Find("n2"));
  EXPECT_TRUE(down.down);
  ASSERT_TRUE(table.AdminUpdate("n1", "RESUME", "", 0, 70, nullptr).ok());
  EXPECT_TRUE(table.AdminStateOf(*table.Find("n1")).empty());
  EXPECT_EQ(table.AdminUpdate("n1", "FAIL", "", 0, 80, nullptr).code(),
            absl::StatusCode::kInvalidArgument);  // needs a reason
  ASSERT_TRUE(table.AdminUpdate("n1", "FAIL", "ecc errors", 0, 80, nullptr).ok());
  EXPECT_FALSE(table.Find("n1")->Usable());
  const NodeAdminState failing = table.AdminStateOf(*table.Find("n1"));
  EXPECT_TRUE(failing.fail);
  ASSERT_TRUE(table.AdminUpdate("n1", "RESUME", "", 0, 90, nullptr).ok());
  EXPECT_TRUE(table.Find("n1")->Usable());

  // A new table (ctld restarted) gets them back; nodes not responding are not
  // an admin's decision.
  NodeTable restarted(TwoNodeConfig());
  restarted.RestoreAdminState("n1", drained);
  restarted.RestoreAdminState("n2", down);
  restarted.RestoreAdminState("gone", down);  // no longer configured: ignored
  EXPECT_EQ(restarted.AdminStateOf(*restarted.Find("n1")), drained);
  EXPECT_EQ(restarted.AdminStateOf(*restarted.Find("n2")), down);
  ASSERT_TRUE(restarted.Register(Reg("n2"), 100, false, nullptr).ok());
  EXPECT_EQ(restarted.Find("n2")->state, NodeBaseState::kDown);  // an admin's DOWN stays
}

TEST(NodeTable, CanAllocateChecksLiveCpusMemoryAndUsability) {
  NodeTable table(TwoNodeConfig());
  Placement p;
  p.job_id = 7;
  p.nodes = {"n1"};
  p.cpus = {3};
  p.mem_mb = {600};
  EXPECT_FALSE(table.CanAllocate(p));  // n1 has not registered: not usable
  ASSERT_TRUE(table.Register(Reg("n1"), 100, false, nullptr).ok());
  EXPECT_TRUE(table.CanAllocate(p));
  table.Allocate(p);
  Placement q = p;
  q.job_id = 8;
  q.cpus = {1};
  EXPECT_FALSE(table.CanAllocate(q));  // 1 CPU left, but only 400 MB
  q.mem_mb = {400};
  EXPECT_TRUE(table.CanAllocate(q));
  q.cpus = {2};
  EXPECT_FALSE(table.CanAllocate(q));
}

}  // namespace
}  // namespace skiff::ctld
