// CtldService's accounting RPCs: sacct's job records, sacctmgr's accounts and
// QOS, and sreport's usage report.
#include <algorithm>
#include <ctime>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/billing.h"
#include "common/hostlist.h"
#include "common/rpc/auth_metadata.h"
#include "common/rpc/status.h"
#include "common/users.h"
#include "ctld/core/reservations/resv_usage.h"
#include "ctld/local_calendar.h"
#include "ctld/rpc/acct_convert.h"
#include "ctld/rpc/private_data.h"
#include "ctld/rpc/services.h"
#include "ctld/rpc/services_internal.h"

namespace skiff::ctld {
namespace {

using services_internal::Names;

// Each partition's TRESBillingWeights, by partition name (checked when
// skiff.conf was read; one that does not parse is left out: billing = CPUs).
std::map<std::string, BillingWeights> PartitionBillingWeights(const SkiffConfig& config) {
  std::map<std::string, BillingWeights> out;
  for (const PartitionConfig& partition : config.partitions) {
    if (absl::StatusOr<BillingWeights> parsed = ParseBillingWeights(partition.tres_billing_weights);
        parsed.ok()) {
      out[partition.name] = *parsed;
    }
  }
  return out;
}

}  // namespace

grpc::Status CtldService::GetAccounting(grpc::ServerContext* context,
                                        const v1::GetAccountingRequest* request,
                                        v1::GetAccountingReply* reply) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  const int64_t now = time(nullptr);
  AcctSelection selection;
  selection.request = request;
  selection.window_end = request->window_end() != 0 ? request->window_end() : now;
  for (const std::string& expression : request->nodes()) {
    absl::StatusOr<std::vector<std::string>> expanded = ExpandHostlist(expression);
    if (!expanded.ok()) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                          absl::StrCat("Invalid node list: ", expression));
    }
    selection.nodes.insert(expanded->begin(), expanded->end());
  }
  // The store narrows by id, user and end time (its indexes); the rest of the
  // filters run here, outside the controller's lock.
  JobQuery query;
  for (const v1::AcctJobSelector& selector : request->jobs())
    query.ids.push_back(selector.job_id());
  query.uids.assign(request->uids().begin(), request->uids().end());
  query.done_since = request->window_start();
  absl::StatusOr<std::vector<Job>> jobs = controller_.AccountingJobs(query);
  if (!jobs.ok()) return ToGrpcStatus(jobs.status());
  // PrivateData=jobs: users read only their own records (operators all).
  const bool own_only =
      controller_.config()->private_data.jobs && !controller_.IsPrivileged(caller->uid);
  const std::string cluster = controller_.config()->cluster_name;
  // For ReqTRES's billing.
  const std::map<std::string, BillingWeights> billing_weights =
      PartitionBillingWeights(*controller_.config());
  for (const Job& job : *jobs) {
    if (own_only && job.uid != caller->uid) continue;
    if (!AcctSelected(job, selection)) continue;
    const std::vector<std::string> steps = AcctSelectedSteps(job, *request);
    v1::AcctJob* record = reply->add_jobs();
    const bool with_steps = request->steps() || !steps.empty();
    auto weights = billing_weights.find(job.request.partition);
    *record = ToAcctJob(job, with_steps, cluster, now,
                        weights == billing_weights.end() ? BillingWeights{} : weights->second);
    if (job.progress.launched) {  // srun steps: rows, and the DerivedExitCode even with -X
      absl::StatusOr<std::vector<StepRecord>> stored = controller_.StoredSteps(job.id);
      if (!stored.ok()) return ToGrpcStatus(stored.status());
      AddStoredSteps(job, *stored, with_steps, record);
    }
    if (steps.empty()) continue;
    record->set_steps_only(true);
    auto* rows = record->mutable_steps();
    rows->erase(std::remove_if(rows->begin(), rows->end(),
                               [&](const v1::AcctStep& step) {
                                 return std::find(steps.begin(), steps.end(), step.step_id()) ==
                                        steps.end();
                               }),
                rows->end());
  }
  reply->set_now(now);
  return grpc::Status::OK;
}

grpc::Status CtldService::GetAccounts(grpc::ServerContext* context,
                                      const v1::GetAccountsRequest* request,
                                      v1::GetAccountsReply* reply) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  AccountsSnapshot snapshot = controller_.SnapshotAccounts();
  absl::StatusOr<std::vector<JobStore::UsageSum>> ended = controller_.EndedUsageSums();
  if (!ended.ok()) return ToGrpcStatus(ended.status());
  for (const JobStore::UsageSum& sum : *ended) {
    std::map<std::string, double>& minutes =
        snapshot.by_assoc[AssocKey::User(sum.account, sum.user)].used_tres_mins;
    for (const auto& [name, seconds] : sum.tres_seconds) minutes[name] += seconds / 60;
  }
  *reply = AccountsSnapshotToProto(snapshot);
  // PrivateData=users,accounts,usage (private_data.h): operators see all.
  const SkiffConfig& config = *controller_.config();
  const PrivateAccountsData hidden{config.private_data.users, config.private_data.accounts,
                                   config.private_data.usage};
  if ((hidden.users || hidden.accounts || hidden.usage) && !controller_.IsPrivileged(caller->uid)) {
    HidePrivateAccounts(hidden, LookUpUserName(caller->uid).value_or(""), reply);
  }
  return grpc::Status::OK;
}

grpc::Status CtldService::UpdateAccounts(grpc::ServerContext* context,
                                         const v1::UpdateAccountsRequest* request,
                                         v1::UpdateAccountsReply* reply) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  // User names to uids here, at the edge: NSS lookups never run under ctld's lock.
  std::map<std::string, int64_t> uids;
  if (request->op() == v1::UpdateAccountsRequest::ADD_USER) {
    for (const std::string& name : request->names()) {
      std::optional<uid_t> uid = UidOf(name);
      uids[name] = uid ? static_cast<int64_t>(*uid) : -1;
    }
  }
  absl::StatusOr<AccountsAffected> result = controller_.UpdateAccounts(
      Caller{caller->uid, caller->gid}, AccountsUpdateFromProto(*request), uids);
  if (!result.ok()) return ToGrpcStatus(result.status());
  *reply = AccountsAffectedToProto(*result);
  return grpc::Status::OK;
}

grpc::Status CtldService::GetUsageReport(grpc::ServerContext* context,
                                         const v1::GetUsageReportRequest* request,
                                         v1::GetUsageReportReply* reply) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  const int64_t end = request->end() != 0 ? request->end() : time(nullptr);
  if (request->start() >= end) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "start time must be before the end time");
  }
  absl::StatusOr<std::vector<JobStore::UsageSum>> sums =
      controller_.UsageSums(request->start(), end);
  if (!sums.ok()) return ToGrpcStatus(sums.status());
  for (const JobStore::UsageSum& sum : *sums) {
    v1::UsageRow* row = reply->add_rows();
    row->set_account(sum.account);
    row->set_user(sum.user);
    row->set_cpu_seconds(sum.cpu_seconds);
    for (const auto& [name, seconds] : sum.tres_seconds)
      (*row->mutable_tres_seconds())[name] = seconds;
  }
  // PrivateData=usage: a user's own rows only (operators see all).
  if (controller_.config()->private_data.usage && !controller_.IsPrivileged(caller->uid)) {
    HidePrivateUsageRows(LookUpUserName(caller->uid).value_or(""), reply);
  }
  // Planned: what eligible jobs waited for inside the window, from every job
  // not done by its start (the records sacct reads).
  JobQuery waiting_query;
  waiting_query.done_since = request->start();
  absl::StatusOr<std::vector<Job>> jobs = controller_.AccountingJobs(waiting_query);
  if (!jobs.ok()) return ToGrpcStatus(jobs.status());
  const std::map<std::string, BillingWeights> billing_weights =
      PartitionBillingWeights(*controller_.config());
  std::map<std::string, double> waiting;
  const int64_t now = time(nullptr);
  for (const Job& job : *jobs) {
    auto weights = billing_weights.find(job.request.partition);
    AddWaitingTres(job, request->start(), end, now,
                   weights == billing_weights.end() ? BillingWeights{} : weights->second, &waiting);
  }
  for (const auto& [name, seconds] : waiting)
    (*reply->mutable_waiting_tres_seconds())[name] = seconds;
  // Reservations' time, and the time of the jobs that ran in them.
  absl::StatusOr<std::vector<ResvEvent>> resv_events = controller_.ReservationEvents();
  if (!resv_events.ok()) return ToGrpcStatus(resv_events.status());
  std::vector<ResvJobRun> runs;
  for (const Job& job : *jobs) {
    if (job.reservation.empty() || job.start_time <= 0) continue;
    runs.push_back({job.reservation, job.start_time, IsFinal(job.state) ? job.end_time : 0,
                    job.alloc_tres.empty()
                        ? TresCounts{{"cpu", static_cast<double>(job.AllocCpus())}}
                        : job.alloc_tres});
  }
  const ResvUsage resv_usage = SumResvUsage(ResvPeriods(*std::move(resv_events)), runs,
                                            request->start(), end, now, LocalCalendar());
  for (const auto& [name, seconds] : resv_usage.allocated)
    (*reply->mutable_reserved_tres_seconds())[name] = seconds;
  for (const auto& [name, seconds] : resv_usage.planned_down)
    (*reply->mutable_maint_tres_seconds())[name] = seconds;
  for (const auto& [name, seconds] : resv_usage.bundled)
    (*reply->mutable_in_reservation_tres_seconds())[name] = seconds;
  const std::vector<Node> nodes = controller_.SnapshotNodes({});
  int64_t cpus = 0;
  for (const Node& node : nodes) cpus += node.config.cpus;
  reply->set_total_cpus(cpus);
  for (const auto& [name, count] : ClusterTres(nodes, controller_.config()->partitions,
                                               !controller_.config()->burst_buffer_type.empty())) {
    v1::ClusterTres* tres = reply->add_tres();
    tres->set_name(name);
    tres->set_count(count);
  }
  reply->set_cluster(controller_.config()->cluster_name);
  reply->set_start(request->start());
  reply->set_end(end);
  return grpc::Status::OK;
}

grpc::Status CtldService::GetQos(grpc::ServerContext* context, const v1::GetQosRequest* request,
                                 v1::GetQosReply* reply) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  for (const QosDefinition& qos : controller_.SnapshotQos(Names(request->names()))) {
    *reply->add_qos() = QosToProto(qos);
  }
  return grpc::Status::OK;
}

grpc::Status CtldService::UpdateQos(grpc::ServerContext* context,
                                    const v1::UpdateQosRequest* request,
                                    v1::UpdateQosReply* reply) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  absl::StatusOr<std::vector<std::string>> affected =
      controller_.UpdateQos(Caller{caller->uid, caller->gid}, QosUpdateFromProto(*request));
  if (!affected.ok()) return ToGrpcStatus(affected.status());
  for (const std::string& name : *affected) reply->add_affected(name);
  return grpc::Status::OK;
}

}  // namespace skiff::ctld
