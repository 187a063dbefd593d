// The lifecycle core's test fixture: a two-node configuration, a core over it,
// and a driver that plays the store, noded and scriptd by turning intents into
// the reports they would cause. Synchronous: no threads, no sleeps, no clock.
#ifndef SKIFF_CTLD_CORE_LIFECYCLE_LIFECYCLE_TEST_UTIL_H_
#define SKIFF_CTLD_CORE_LIFECYCLE_LIFECYCLE_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ctld/core/lifecycle/lifecycle.h"

namespace skiff::ctld {

// Two nodes, n1 and n2 (2 CPUs and 1000 MB each), in the default partition
// debug; the configuration controller_test and journaled_state_test use too.
inline SkiffConfig TestConfig() {
  SkiffConfig config;
  config.cluster_name = "test";
  for (const char* name : {"n1", "n2"}) {
    NodeConfig node;
    node.name = name;
    node.addr = "127.0.0.1";
    node.port = 7000;
    node.cpus = 2;
    node.real_memory_mb = 1000;
    config.nodes.push_back(node);
  }
  PartitionConfig debug;
  debug.name = "debug";
  debug.nodes = {"n1", "n2"};
  debug.is_default = true;
  config.partitions = {debug};
  config.heartbeat_interval = 10;
  config.slurmd_timeout = 60;
  config.kill_wait = 1;
  return config;
}

inline SubmitRequest Request(int cpus = 1, uid_t uid = 1001) {
  SubmitRequest r;
  r.uid = uid;
  r.user_name = uid == 0 ? "root" : "alice";
  r.name = "j";
  r.cpus_per_task = cpus;
  r.time_limit = 600;
  r.script = "#!/bin/sh\ntrue\n";
  r.work_dir = "/tmp";
  return r;
}

inline CancelSpec CancelOf(uint64_t id) {
  CancelSpec spec;
  spec.jobs = {{id}};
  return spec;
}

// Persisted fields of every job plus node usage: what a rollback must restore.
inline std::string Fingerprint(const Lifecycle& core) {
  std::ostringstream out;
  for (const auto& [id, j] : core.state().jobs()) {
    out << id << ':' << JobStateName(j.state) << '/' << JobStateName(j.final_state) << " v"
        << j.version << " n=" << absl::StrJoin(j.nodes, ",") << " h" << j.held << j.held_by_admin
        << " r" << j.restart_count << " p" << j.progress.prolog_done << " l" << j.progress.launched
        << " c" << j.progress.cancel_requested << " x" << j.exit_code << " t"
        << j.request.time_limit << " q" << j.qos << " m" << j.comment << " s" << j.start_time
        << " e" << j.end_time << " bb" << BbStateName(j.bb_state) << '\n';
  }
  for (const Node& node : core.state().nodes().nodes()) {
    out << node.config.name << ' ' << node.alloc_cpus << ' ' << node.alloc_memory_mb << ' '
        << NodeBaseStateName(node.state) << node.drain << node.not_responding << '\n';
  }
  return out.str();
}

class LifecycleTest : public ::testing::Test {
 protected:
  explicit LifecycleTest(LifecycleSettings settings = {}) : settings_(settings) {}

  void SetUp() override { Reset(); }

  // A fresh core over config_ (tests that change config_ call it again).
  void Reset() {
    store_.clear();
    core_ = std::make_unique<Lifecycle>(config_, settings_, now_);
    core_->SetQosViewForTest({Qos{"normal"}});
    for (const NodeConfig& node : config_.nodes) {
      NodeRegistration reg;
      reg.node_name = node.name;
      reg.cpus = 2;
      reg.real_memory_mb = 1000;
      // What the configuration says the node has (Gres=).
      for (const GresCount& gres : node.gres)
        reg.gres.push_back({gres.name, gres.type, gres.count});
      std::vector<uint64_t> terminate;
      std::vector<NodeChange> changes;
      Store(core_->RegisterNode(reg, {}, now_, &terminate, &changes));
    }
  }

  // Plays the store: keeps the rows (newest version wins), confirms.
  Effects Store(absl::StatusOr<Effects> effects) {
    EXPECT_TRUE(effects.ok()) << effects.status();
    if (!effects.ok()) return {};
    for (const Job& row : effects->rows) {
      Job& stored = store_[row.id];
      EXPECT_GT(row.version, stored.version) << "JobId=" << row.id << " version must grow";
      stored = row;
    }
    core_->Confirm();
    return std::move(*effects);
  }

  uint64_t Submit(const SubmitRequest& request) {
    absl::StatusOr<Admitted> admitted = core_->Admit(request, now_);
    EXPECT_TRUE(admitted.ok()) << admitted.status();
    Store(core_->Insert(*admitted, now_));
    return admitted->first_id;
  }

  Effects Schedule() {
    PassInput input;
    Effects prepared = Store(core_->PrepareSchedule(now_, &input));
    SchedulerOptions options;
    const PassPlan plan = PlanPass(input, options, PreemptOptions{}, now_);
    bool replan = false;
    Effects applied = Store(core_->ApplySchedule(input, plan, now_, &replan));
    for (Intent& intent : prepared.intents) applied.intents.insert(applied.intents.begin(), intent);
    return applied;
  }

  // Plays noded and scriptd: every intent becomes its successful report.
  void Drive(Effects effects, int depth = 0) {
    ASSERT_LT(depth, 20);
    for (const Intent& intent : effects.intents) {
      Effects next = std::visit(
          [&](const auto& it) -> Effects {
            using T = std::decay_t<decltype(it)>;
            if constexpr (std::is_same_v<T, RunPrologIntent>) {
              return Store(core_->PrologDone(it.job.id, it.job.restart_count,
                                             {true, true, "exit code 0", 1}, now_));
            } else if constexpr (std::is_same_v<T, LaunchIntent>) {
              launched_.push_back(it.job.id);
              return Store(
                  core_->LaunchDone(it.job.id, it.job.restart_count, absl::OkStatus(), now_));
            } else if constexpr (std::is_same_v<T, TerminateIntent>) {
              terminated_.push_back(it.job_id);
              return Effects{};
            } else if constexpr (std::is_same_v<T, RunEpilogIntent>) {
              return Store(core_->EpilogDone(it.job.id, {true, true, "exit code 0", 2}, now_));
            } else if constexpr (std::is_same_v<T, RunBbStageIntent>) {
              BbStageResult ok;
              return Store(core_->BbStageDone(it.job.id, it.stage, ok, now_));
            } else {
              return Effects{};
            }
          },
          intent);
      Drive(std::move(next), depth + 1);
    }
  }

  JobState StateOf(uint64_t id) { return core_->Find(id)->state; }

  SkiffConfig config_ = TestConfig();
  LifecycleSettings settings_;
  int64_t now_ = 1000;
  std::unique_ptr<Lifecycle> core_;
  std::map<uint64_t, Job> store_;
  std::vector<uint64_t> launched_;
  std::vector<uint64_t> terminated_;
};

class LifecycleWithScriptsTest : public LifecycleTest {
 protected:
  LifecycleWithScriptsTest() : LifecycleTest({true, true, nullptr, false, 0}) {}
};

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_LIFECYCLE_LIFECYCLE_TEST_UTIL_H_
