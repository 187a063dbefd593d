#include "noded/cgroup/confinement.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace skiff::noded {
namespace {

SkiffConfig CgroupSkiffConfig() {
  SkiffConfig config;
  config.proctrack_type = "proctrack/cgroup";
  config.task_plugin = "task/affinity,task/cgroup";
  return config;
}

NodeConfig Node() {
  NodeConfig node;
  node.name = "n1";
  node.cpus = 2;
  return node;
}

TEST(SetUpConfinement, ConstraintsWithoutAHierarchyDrainTheNodeSayingWhy) {
  CgroupConfig cgroup;
  cgroup.mountpoint = "/nonexistent-skiff-cgroup";
  cgroup.constrain_cores = true;
  cgroup.constrain_ram_space = true;
  absl::StatusOr<Confinement> c = SetUpConfinement(CgroupSkiffConfig(), cgroup, Node(), {});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->cgroups, nullptr);
  EXPECT_EQ(
      c->drain_reason.rfind("cgroups unavailable (ConstrainCores,ConstrainRAMSpace=yes): "
                            "no cgroup hierarchy at CgroupMountpoint=/nonexistent-skiff-cgroup",
                            0),
      0u)
      << c->drain_reason;
  EXPECT_NE(c->log_line.find("registers drained"), std::string::npos) << c->log_line;
  EXPECT_NE(c->log_line.find("scontrol update NodeName=n1 State=RESUME"), std::string::npos)
      << c->log_line;
}

TEST(SetUpConfinement, TrackingAloneWithoutAHierarchyFallsBackWithoutDraining) {
  CgroupConfig cgroup;
  cgroup.mountpoint = "/nonexistent-skiff-cgroup";
  cgroup.constrain_cores = true;  // ignored: TaskPlugin has no task/cgroup
  SkiffConfig config = CgroupSkiffConfig();
  config.task_plugin = "task/affinity";
  absl::StatusOr<Confinement> c = SetUpConfinement(config, cgroup, Node(), {});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->cgroups, nullptr);
  EXPECT_EQ(c->drain_reason, "");
  EXPECT_EQ(c->log_line.rfind("cgroups unavailable: no cgroup hierarchy", 0), 0u) << c->log_line;
}

TEST(SetUpConfinement, WithoutProctrackCgroupNothingIsAskedAndNothingDrains) {
  CgroupConfig cgroup;
  cgroup.mountpoint = "/nonexistent-skiff-cgroup";
  cgroup.constrain_ram_space = true;
  SkiffConfig config;  // ProctrackType=proctrack/pgid, Skiff's default
  config.task_plugin = "task/cgroup";
  absl::StatusOr<Confinement> c = SetUpConfinement(config, cgroup, Node(), {});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->drain_reason, "");
  EXPECT_EQ(c->log_line.rfind("cgroups not used: ", 0), 0u) << c->log_line;
}

}  // namespace
}  // namespace skiff::noded
