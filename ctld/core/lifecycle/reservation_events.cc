// scontrol create|update|delete reservation as a lifecycle event: the rules
// are ctld/core/reservations' (PlanCreate, PlanUpdate, CheckDelete); this file
// gathers what they check against from the tables (nodes, partitions,
// accounts, the running jobs) and makes the change one journaled transaction,
// so the reservation is stored through the Controller's Commit, in order with
// every other change, before the command hears OK.
#include <set>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ctld/core/lifecycle/lifecycle.h"

namespace skiff::ctld {
namespace {

const char* OpName(ResvOp op) {
  switch (op) {
    case ResvOp::kCreate:
      return "created";
    case ResvOp::kUpdate:
      return "updated";
    case ResvOp::kDelete:
      return "deleted";
  }
  return "";
}

// What the reservation rules check a request against.
ResvContext ContextOf(const JournaledState& state, const SkiffConfig& config,
                      const LifecycleSettings& settings, const ResvLookups& lookups) {
  ResvContext context;
  context.calendar = settings.resv_calendar;
  for (const Node& node : state.nodes().nodes()) {
    context.nodes.push_back(
        {node.config.name, static_cast<int32_t>(node.gpu_owner.size()), node.Usable()});
  }
  for (const PartitionConfig& partition : config.partitions) {
    context.partitions[partition.name] = partition.nodes;
    if (partition.is_default) context.default_partition = partition.name;
  }
  if (const PartitionConfig* d = config.DefaultPartition(); d != nullptr) {
    context.default_partition = d->name;
  }
  context.known_users = lookups.known_users;
  context.group_members = lookups.group_members;
  context.check_accounts = config.accounting_storage_enforce.associations;
  for (const auto& [name, account] : state.accounts().accounts) context.accounts.insert(name);
  for (const auto& [id, job] : state.unfinished()) {
    if (!HoldsResources(job->state)) continue;
    const int64_t end = job->request.time_limit == kUnlimited
                            ? kResvForever
                            : job->start_time + job->request.time_limit;
    for (size_t k = 0; k < job->nodes.size(); ++k) {
      const int32_t gpus =
          k < job->gpus_by_node.size() ? static_cast<int32_t>(job->gpus_by_node[k].size()) : 0;
      context.busy.push_back({job->nodes[k], end, gpus, job->reservation});
    }
  }
  return context;
}

// What reservation `resv` holds of the nodes as they are now (kept with each
// change for sreport).
TresCounts ResvHeldTres(const JournaledState& state, const AdvanceReservation& resv) {
  std::vector<ResvNodeTres> nodes;
  for (const Node& node : state.nodes().nodes()) {
    double gpus = 0;
    for (const GresCount& gres : node.config.gres) {
      if (gres.name == "gpu") gpus += static_cast<double>(gres.count);
    }
    nodes.push_back({node.config.name, static_cast<double>(node.config.cpus),
                     static_cast<double>(node.config.real_memory_mb), gpus, node.gpu_type});
  }
  return ResvTres(resv, nodes);
}

}  // namespace

absl::StatusOr<Effects> Lifecycle::UpdateReservation(const Caller& caller, bool privileged,
                                                     const std::string& caller_name, ResvOp op,
                                                     const ResvRequest& request,
                                                     const ResvLookups& lookups, int64_t now,
                                                     std::string* name) {
  const ResvTable& table = state_.advance_reservations();
  std::optional<AdvanceReservation> put;
  std::string target = request.name;
  if (op == ResvOp::kDelete) {
    auto it = table.find(request.name);
    if (it == table.end() || ResvEnded(it->second, now)) {
      return absl::NotFoundError("Requested reservation is invalid");
    }
    std::set<std::string> caller_accounts;
    for (const auto& [key, assoc] : state_.accounts().assocs) {
      if (assoc.user == caller_name) caller_accounts.insert(assoc.account);
    }
    if (absl::Status s = CheckDelete(it->second, privileged, caller_name, caller_accounts);
        !s.ok()) {
      return s;
    }
    // Slurm keeps a reservation that running jobs use.
    for (const auto& [id, job] : state_.unfinished()) {
      if (HoldsResources(job->state) && job->reservation == request.name) {
        return absl::FailedPreconditionError("Requested reservation is in use");
      }
    }
  } else {
    // Slurm's words for a caller who is not an operator (ESLURM_USER_ID_MISSING).
    if (!privileged) return absl::PermissionDeniedError("Invalid user id");
    const ResvContext context = ContextOf(state_, *config_, settings_, lookups);
    absl::StatusOr<AdvanceReservation> planned = op == ResvOp::kCreate
                                                     ? PlanCreate(table, request, context, now)
                                                     : PlanUpdate(table, request, context, now);
    if (!planned.ok()) return planned.status();
    target = planned->name;
    put = std::move(*planned);
  }
  state_.Begin();
  Effects effects;
  ResvTable& mut = state_.MutAdvanceReservations();
  if (put) {
    mut[target] = *put;
  } else {
    mut.erase(target);
  }
  // Expired one-off reservations go with the next change (Slurm drops them
  // at their end; they are hidden from then on: ResvEnded).
  for (auto it = mut.begin(); it != mut.end();) {
    if (it->first != target && ResvEnded(it->second, now)) {
      effects.records.push_back(ResvChange{it->first, std::nullopt});
      it = mut.erase(it);
    } else {
      ++it;
    }
  }
  effects.records.push_back(ResvChange{target, put});
  ResvEvent event{target, now, op == ResvOp::kCreate, put, {}};
  if (put) event.tres = ResvHeldTres(state_, *put);
  effects.records.push_back(ResvEventChange{std::move(event)});
  effects.log.push_back(absl::StrCat("ReservationName=", target, " ", OpName(op), " by uid ",
                                     caller.uid,
                                     put ? absl::StrCat(" Nodes=", absl::StrJoin(put->nodes, ","),
                                                        " Flags=", ResvFlagsString(put->flags))
                                         : std::string()));
  effects.reschedule = true;  // nodes held or freed: pending jobs may start or must wait
  *name = target;
  return state_.Close(std::move(effects));
}

}  // namespace skiff::ctld
