// strigger's event triggers as lifecycle events: --set, --clear and the
// housekeeping observation that pulls and fires them. Each is one journaled
// transaction, so a trigger change is stored in order with the job and node
// events it observed, and a store that fails puts the table (and the
// observation it compares the next one with) back as it was.
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "ctld/core/lifecycle/lifecycle.h"

namespace skiff::ctld {
namespace {

// The nodes, and the jobs `job_ids` names, as the trigger core sees them.
TriggerWorld WorldOf(const JournaledState& state, const std::set<uint64_t>& job_ids) {
  TriggerWorld world;
  for (const Node& node : state.nodes().nodes()) {
    TriggerNodeView view;
    view.name = node.config.name;
    view.down = node.state == NodeBaseState::kDown;
    view.idle = node.state == NodeBaseState::kIdle;
    view.busy = node.alloc_cpus > 0 || node.state == NodeBaseState::kAllocated ||
                node.state == NodeBaseState::kMixed;
    view.drain = node.drain;
    view.fail = node.fail;
    view.last_busy = node.last_busy;
    world.nodes.push_back(std::move(view));
  }
  for (uint64_t id : job_ids) {
    const Job* job = state.Find(id);
    if (job == nullptr) continue;
    TriggerJobView view;
    view.pending = job->state == JobState::kPending;
    view.finished = IsFinal(job->state);
    if (view.finished || job->state == JobState::kCompleting) {
      view.end = job->end_time;
    } else if (job->state != JobState::kSuspended && job->start_time != 0 &&
               job->request.time_limit != kUnlimited) {
      // Running (or configuring): its time limit, the time it spent
      // suspended added, as EnforceTimeLimits counts it.
      view.end = job->start_time + job->request.time_limit + job->suspended_total;
    }
    view.nodes = job->nodes;
    world.jobs[id] = std::move(view);
  }
  return world;
}

}  // namespace

absl::StatusOr<Effects> Lifecycle::SetTrigger(const Caller& caller, const TriggerRequest& request,
                                              const TriggerPolicy& policy, bool program_ok,
                                              int64_t now, uint32_t* id) {
  (void)now;
  std::set<uint64_t> job_ids;
  if (request.res_type == TriggerResType::kJob) {
    uint64_t job_id = 0;
    if (absl::SimpleAtoi(request.res_id, &job_id)) job_ids.insert(job_id);
  }
  state_.Begin();
  TriggerTable& table = state_.MutTriggers();
  absl::StatusOr<Trigger> trigger =
      table.Prepare(request, caller.uid, caller.gid, policy, WorldOf(state_, job_ids), program_ok);
  if (!trigger.ok()) {
    state_.Rollback();  // Prepare took nothing, but the frame is open
    return trigger.status();
  }
  Effects effects;
  effects.records.push_back(TriggerChange{trigger->id, *trigger});
  effects.log.push_back(absl::StrCat("trigger[", trigger->id, "] set by uid ", caller.uid, ": ",
                                     TriggerResTypeName(trigger->res_type), " ", trigger->res_id,
                                     " ", TriggerTypeName(trigger->type), " offset ",
                                     trigger->offset, " program ", trigger->program));
  *id = trigger->id;
  table.Add(std::move(*trigger));
  return state_.Close(std::move(effects));
}

absl::StatusOr<Effects> Lifecycle::ClearTriggers(const Caller& caller,
                                                 const TriggerTable::ClearFilter& filter,
                                                 int64_t now, std::vector<uint32_t>* removed,
                                                 absl::Status* answer) {
  (void)now;
  TriggerTable::ClearPlan plan = state_.triggers().PlanClear(filter, caller.uid);
  if (plan.ids.empty()) return plan.status;
  state_.Begin();
  state_.MutTriggers().Remove(plan.ids);
  Effects effects;
  for (uint32_t trigger_id : plan.ids) {
    effects.records.push_back(TriggerChange{trigger_id, std::nullopt});
    effects.log.push_back(absl::StrCat("trigger[", trigger_id, "] cleared by uid ", caller.uid));
  }
  *removed = std::move(plan.ids);
  *answer = std::move(plan.status);
  return state_.Close(std::move(effects));
}

Effects Lifecycle::ObserveTriggers(bool reconfigured, int64_t now) {
  state_.Begin();
  TriggerTable& table = state_.MutTriggers();
  TriggerWorld world = WorldOf(state_, table.JobIds());
  world.reconfigured = reconfigured;
  TriggerTable::Outcome outcome = table.Observe(world, now);
  Effects effects;
  for (uint32_t id : outcome.changed) {
    auto it = table.triggers().find(id);
    effects.records.push_back(TriggerChange{
        id, it != table.triggers().end() ? std::optional<Trigger>(it->second) : std::nullopt});
  }
  for (TriggerFiring& fired : outcome.fired) {
    effects.intents.push_back(RunTriggerIntent{
        fired.trigger_id, static_cast<uint32_t>(fired.uid), static_cast<uint32_t>(fired.gid),
        std::move(fired.path), std::move(fired.argv),
        absl::StrCat(TriggerResTypeName(fired.res_type), ":", TriggerTypeName(fired.type))});
  }
  effects.log = std::move(outcome.log);
  return state_.Close(std::move(effects));
}

}  // namespace skiff::ctld
