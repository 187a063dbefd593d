#include "ctld/rpc/services.h"

#include <grp.h>
#include <pwd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <ctime>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/hostlist.h"
#include "common/rpc/auth_metadata.h"
#include "common/rpc/status.h"
#include "common/users.h"
#include "common/version.h"
#include "ctld/core/reservations/resv_usage.h"
#include "ctld/local_calendar.h"
#include "ctld/rpc/acct_convert.h"
#include "ctld/rpc/config_entries.h"
#include "ctld/rpc/convert.h"
#include "ctld/rpc/job_convert.h"
#include "ctld/rpc/private_data.h"
#include "ctld/rpc/resv_convert.h"
#include "ctld/state/job_spec_parts.h"

namespace skiff::ctld {
namespace {

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

std::vector<std::string> Names(const google::protobuf::RepeatedPtrField<std::string>& names) {
  return {names.begin(), names.end()};
}

std::vector<JobRef> Refs(const google::protobuf::RepeatedField<uint64_t>& ids,
                         const google::protobuf::RepeatedPtrField<v1::JobRef>& refs) {
  std::vector<JobRef> out;
  for (uint64_t id : ids) out.push_back({id, -1});
  for (const v1::JobRef& ref : refs) {
    out.push_back({ref.job_id(), ref.has_array_task_id() ? ref.array_task_id() : -1});
  }
  return out;
}

}  // namespace

CtldService::CtldService(Controller& controller, Authenticator& auth, ServedConfig* served,
                         const TokenIssuer* tokens)
    : controller_(controller), auth_(auth), served_(served), tokens_(tokens) {}

grpc::Status CtldService::Ping(grpc::ServerContext* context, const v1::PingRequest*,
                               v1::PingReply* reply) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  reply->set_cluster_name(controller_.config()->cluster_name);
  reply->set_version(kSkiffVersion);
  reply->set_start_time(controller_.start_time());
  reply->set_caller_uid(caller->uid);
  reply->set_caller_gid(caller->gid);
  return grpc::Status::OK;
}

namespace {

// The users of `group` (Slurm's get_groups_members): its listed members and
// the users whose primary group it is; nullopt when there is no such group.
// NSS lookups: call without ctld's lock.
std::optional<std::vector<std::string>> GroupMembers(const std::string& group) {
  struct group gr;
  struct group* found = nullptr;
  std::vector<char> buf(65536);
  if (getgrnam_r(group.c_str(), &gr, buf.data(), buf.size(), &found) != 0 || found == nullptr) {
    return std::nullopt;
  }
  std::vector<std::string> members;
  for (char** member = gr.gr_mem; member != nullptr && *member != nullptr; ++member) {
    members.emplace_back(*member);
  }
  const gid_t gid = gr.gr_gid;
  // setpwent/getpwent_r walk one process-wide cursor: one walk at a time.
  static std::mutex* const walk = new std::mutex();
  std::lock_guard<std::mutex> hold(*walk);
  struct passwd pw;
  struct passwd* next = nullptr;
  std::vector<char> pw_buf(16384);
  setpwent();
  while (getpwent_r(&pw, pw_buf.data(), pw_buf.size(), &next) == 0 && next != nullptr) {
    const std::string name = pw.pw_name;
    if (pw.pw_gid == gid && std::find(members.begin(), members.end(), name) == members.end()) {
      members.push_back(name);
    }
  }
  endpwent();
  return members;
}

// Marks the nodes an advance reservation holds whole now (sinfo's resv and
// maint states).
void MarkReserved(const std::vector<AdvanceReservation>& reservations, int64_t now,
                  v1::NodeInfo* node) {
  for (const AdvanceReservation& resv : reservations) {
    if (!resv.WholeNodes() || !ResvActive(resv, now, LocalCalendar())) continue;
    if (std::find(resv.nodes.begin(), resv.nodes.end(), node->name()) == resv.nodes.end()) {
      continue;
    }
    node->set_reserved(true);
    if (resv.HasFlag(kResvMaint)) node->set_maint(true);
  }
}

}  // namespace

grpc::Status CtldService::GetNodes(grpc::ServerContext* context, const v1::GetNodesRequest* request,
                                   v1::GetNodesReply* reply) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  const std::vector<AdvanceReservation> reservations = controller_.SnapshotReservations();
  const int64_t now = time(nullptr);
  for (const Node& node : controller_.SnapshotNodes(Names(request->names()))) {
    v1::NodeInfo* info = reply->add_nodes();
    NodeToProto(node, info);
    MarkReserved(reservations, now, info);
  }
  reply->set_now(now);
  return grpc::Status::OK;
}

grpc::Status CtldService::GetPartitions(grpc::ServerContext* context,
                                        const v1::GetPartitionsRequest* request,
                                        v1::GetPartitionsReply* reply) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  std::vector<std::string> node_names;
  for (const PartitionConfig& partition : controller_.SnapshotPartitions(Names(request->names()))) {
    PartitionToProto(partition, reply->add_partitions());
    node_names.insert(node_names.end(), partition.nodes.begin(), partition.nodes.end());
  }
  if (!node_names.empty()) {
    const std::vector<AdvanceReservation> reservations = controller_.SnapshotReservations();
    const int64_t now = time(nullptr);
    for (const Node& node : controller_.SnapshotNodes(node_names)) {
      v1::NodeInfo* info = reply->add_nodes();
      NodeToProto(node, info);
      MarkReserved(reservations, now, info);
    }
  }
  reply->set_now(time(nullptr));
  return grpc::Status::OK;
}

NodeService::NodeService(Controller& controller, Authenticator& auth, ServedConfig* served)
    : controller_(controller), auth_(auth), served_(served) {}

grpc::Status NodeService::AuthenticateNode(const grpc::ServerContext& context) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  if (!controller_.IsPrivileged(caller->uid)) {
    return grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                        absl::StrCat("uid ", caller->uid,
                                     " may not act as a node daemon (root or SlurmUser only)"));
  }
  return grpc::Status::OK;
}

grpc::Status NodeService::Register(grpc::ServerContext* context, const v1::RegisterRequest* request,
                                   v1::RegisterReply* reply) {
  if (grpc::Status auth = AuthenticateNode(*context); !auth.ok()) return auth;
  std::vector<NodeRunReport> reports;
  for (const v1::NodeJobReport& job : request->jobs()) reports.push_back(ReportFromProto(job));
  absl::StatusOr<Controller::Registration> registration =
      controller_.RegisterNode(RegistrationFromProto(*request), reports);
  if (!registration.ok()) return ToGrpcStatus(registration.status());
  reply->set_heartbeat_interval(registration->heartbeat_interval);
  for (uint64_t id : registration->jobs_to_terminate) reply->add_jobs_to_terminate(id);
  if (served_ != nullptr) reply->set_config_hash(served_->Hash());
  return grpc::Status::OK;
}

grpc::Status NodeService::Heartbeat(grpc::ServerContext* context,
                                    const v1::HeartbeatRequest* request,
                                    v1::HeartbeatReply* reply) {
  if (grpc::Status auth = AuthenticateNode(*context); !auth.ok()) return auth;
  ReportedLoad load;
  if (request->has_cpu_load()) load.cpu_load = request->cpu_load();
  if (request->has_free_memory_mb()) load.free_memory_mb = request->free_memory_mb();
  reply->set_registered(controller_.Heartbeat(request->node_name(), load));
  if (served_ != nullptr) reply->set_config_hash(served_->Hash());
  return grpc::Status::OK;
}

grpc::Status NodeService::JobComplete(grpc::ServerContext* context,
                                      const v1::JobCompleteRequest* request,
                                      v1::JobCompleteReply*) {
  if (grpc::Status auth = AuthenticateNode(*context); !auth.ok()) return auth;
  return ToGrpcStatus(
      controller_.JobComplete(request->node_name(), ReportFromProto(request->report())));
}

grpc::Status NodeService::ReportSteps(grpc::ServerContext* context,
                                      const v1::ReportStepsRequest* request,
                                      v1::ReportStepsReply*) {
  if (grpc::Status auth = AuthenticateNode(*context); !auth.ok()) return auth;
  std::vector<std::pair<uint64_t, StepRecord>> reports;
  for (const v1::StepReport& report : request->steps()) {
    reports.emplace_back(report.job_id(), StepFromProto(report.step()));
  }
  return ToGrpcStatus(controller_.ReportSteps(request->node_name(), reports));
}

grpc::Status CtldService::GetSteps(grpc::ServerContext* context, const v1::GetStepsRequest* request,
                                   v1::GetStepsReply* reply) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  const std::vector<JobRef> ids = Refs(request->job_ids(), {});
  const std::vector<std::string> users = Names(request->users());
  const std::vector<std::string> partitions = Names(request->partitions());
  auto wanted = [](const std::vector<std::string>& list, const std::string& value) {
    return list.empty() || std::find(list.begin(), list.end(), value) != list.end();
  };
  const bool own_only =
      controller_.config()->IsPrivate("jobs") && !controller_.IsPrivileged(caller->uid);
  for (const JobStep& step : controller_.SnapshotSteps(ids)) {
    if (own_only && step.uid != caller->uid) continue;
    if (!wanted(users, step.user) || !wanted(partitions, step.partition)) continue;
    *reply->add_steps() = JobStepToProto(step);
  }
  reply->set_now(time(nullptr));
  return grpc::Status::OK;
}

grpc::Status CtldService::SubmitJob(grpc::ServerContext* context,
                                    const v1::SubmitJobRequest* request,
                                    v1::SubmitJobReply* reply) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  // Names come from the credential's ids, never from the request.
  const Submitter submitter{caller->uid, caller->gid, UserNames().Name(caller->uid),
                            GroupNames().Name(caller->gid), controller_.IsPrivileged(caller->uid)};
  if (request->test_only()) {
    absl::StatusOr<Controller::WillRun> will =
        controller_.TestJob(SubmitRequestFromSpec(request->spec(), submitter));
    if (!will.ok()) return ToGrpcStatus(will.status());
    reply->set_job_id(will->job_id);
    reply->set_will_start(will->start);
    reply->set_will_nodes(CompressHostlist(will->nodes));
    reply->set_will_cpus(will->cpus);
    reply->set_will_partition(will->partition);
    for (const std::string& warning : will->warnings) reply->add_warnings(warning);
    return grpc::Status::OK;
  }
  std::vector<std::string> warnings;
  absl::StatusOr<uint64_t> id = controller_.SubmitJob(
      SubmitRequestFromSpec(request->spec(), submitter),
      [context] {
        return context->IsCancelled() || context->deadline() < std::chrono::system_clock::now();
      },
      &warnings);
  if (!id.ok()) return ToGrpcStatus(id.status());
  reply->set_job_id(*id);
  for (const std::string& warning : warnings) reply->add_warnings(warning);
  return grpc::Status::OK;
}

grpc::Status CtldService::GetJobs(grpc::ServerContext* context, const v1::GetJobsRequest* request,
                                  v1::GetJobsReply* reply) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  const std::vector<JobRef> ids = Refs(request->job_ids(), request->refs());
  const std::vector<std::string> users = Names(request->users());
  const std::vector<std::string> partitions = Names(request->partitions());
  const std::vector<std::string> names = Names(request->names());
  auto wanted = [](const std::vector<std::string>& list, const std::string& value) {
    return list.empty() || std::find(list.begin(), list.end(), value) != list.end();
  };
  // squeue's -A and -q compare without case (Slurm's _filter_job).
  auto wanted_nocase = [](const google::protobuf::RepeatedPtrField<std::string>& list,
                          const std::string& value) {
    if (list.empty()) return true;
    return std::any_of(list.begin(), list.end(), [&](const std::string& item) {
      return absl::EqualsIgnoreCase(item, value);
    });
  };
  // -w: every name must be a node; a job matches when it holds one of them.
  std::set<std::string> on_nodes;
  if (!request->nodes().empty()) {
    std::set<std::string> known;
    for (const Node& node : controller_.SnapshotNodes({})) known.insert(node.config.name);
    for (const std::string& expression : request->nodes()) {
      absl::StatusOr<std::vector<std::string>> expanded = ExpandHostlist(expression);
      if (!expanded.ok()) {
        return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                            absl::StrCat("'", expression, "' invalid entry for --nodelist"));
      }
      for (const std::string& name : *expanded) {
        if (known.count(name) == 0) {
          return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                              absl::StrCat("Invalid node name ", name));
        }
        on_nodes.insert(name);
      }
    }
  }
  const int64_t now = time(nullptr);
  const bool privileged = controller_.IsPrivileged(caller->uid);
  // PrivateData=jobs: users see only their own jobs (operators see all).
  const bool own_only = controller_.config()->IsPrivate("jobs") && !privileged;
  bool any_named = false;  // a job named by id exists (and may be seen)
  auto selected = [&](const Job& job) {
    if (own_only && job.uid != caller->uid) return false;
    // Slurm drops an array task cancelled alone before it started from the
    // array's pending record: scontrol, squeue (even -t all) no longer know
    // it; sacct still shows it CANCELLED. Cancelled with its whole array, it
    // stays in the array's record, now CANCELLED.
    if (job.array_task_id >= 0 && job.state == JobState::kCancelled && job.start_time == 0 &&
        !job.cancelled_with_array) {
      return false;
    }
    any_named = true;
    if (!wanted(users, job.user_name) || !wanted(partitions, job.request.partition) ||
        !wanted(names, job.name) || !wanted_nocase(request->accounts(), job.account) ||
        !wanted_nocase(request->qos(), job.qos)) {
      return false;
    }
    if (!on_nodes.empty() &&
        std::none_of(job.nodes.begin(), job.nodes.end(),
                     [&](const std::string& n) { return on_nodes.count(n); })) {
      return false;
    }
    return request->states().empty() ||
           std::find(request->states().begin(), request->states().end(), DisplayState(job)) !=
               request->states().end();
  };
  // What a user submitted goes only to them and to operators (job_convert.h).
  auto add = [&](const Job& job, JobInfoDetail detail) {
    v1::JobInfo* info = reply->add_jobs();
    const JobInfoReader reader = job.uid == caller->uid || privileged
                                     ? JobInfoReader::kOwnerOrOperator
                                     : JobInfoReader::kOtherUser;
    JobToInfo(job, now, info, reader, detail);
    return info;
  };
  if (request->summary()) {
    // What squeue shows is in memory: filtered and converted under ctld's lock,
    // without copying every Job first (the copy cost as much as the reply).
    // Pending tasks of one array, partition and reason: one record; so are
    // the tasks cancelled with the array before they started.
    std::map<std::tuple<uint64_t, v1::JobState, std::string, std::string>, v1::JobInfo*> groups;
    controller_.VisitJobs(ids, [&](const Job& job) {
      if (!selected(job)) return;
      const v1::JobState state = DisplayState(job);
      if (!request->collapse_pending_arrays() || job.array_job_id == 0 || job.array_task_id < 0 ||
          (state != v1::PENDING && !job.cancelled_with_array)) {
        add(job, JobInfoDetail::kSummary);
        return;
      }
      auto [group, first] = groups.try_emplace(
          std::make_tuple(job.array_job_id, state, job.request.partition, PendingReasonText(job)));
      if (first) group->second = add(job, JobInfoDetail::kSummary);
      group->second->add_collapsed_task_ids(job.array_task_id);
    });
  } else {
    std::vector<Job> jobs;
    controller_.VisitJobs(ids, [&](const Job& job) {
      if (selected(job)) jobs.push_back(job);
    });
    // Parsing specs, expanding paths and reading the store happen here, outside
    // ctld's lock, on the copies.
    for (const Job& job : jobs) {
      v1::JobInfo* info = add(job, JobInfoDetail::kWhole);
      if (!ids.empty() && job.state == JobState::kRunning && !job.nodes.empty()) {
        info->set_stepmgr_address(controller_.NodeAddress(job.nodes.front()));
      }
      if (request->with_details() && job.start_time != 0) {
        absl::StatusOr<std::vector<StepRecord>> stored = controller_.StoredSteps(job.id);
        if (stored.ok()) {
          v1::AcctJob derived;
          AddStoredSteps(job, *stored, /*add_rows=*/false, &derived);
          info->set_derived_exit_code(derived.derived_exit_code());
          info->set_derived_exit_signal(derived.derived_exit_signal());
        }
      }
      // Memory holds no job's script: it is read from the store for its owner and
      // operators when asked.
      if (request->with_script() && (job.uid == caller->uid || privileged)) {
        absl::StatusOr<std::string> stored = controller_.StoredSpec(job);
        if (stored.ok()) {
          const v1::JobSpec whole = JoinSpec(job.spec_blob, *stored);
          info->mutable_spec()->set_script(whole.script());
          *info->mutable_spec()->mutable_argv() = whole.argv();
          *info->mutable_spec()->mutable_environment() = whole.environment();
        }
      }
    }
  }
  if (!ids.empty() && !any_named) {
    return grpc::Status(grpc::StatusCode::NOT_FOUND, "Invalid job id specified");
  }
  reply->set_now(now);
  return grpc::Status::OK;
}

grpc::Status CtldService::CancelJobs(grpc::ServerContext* context,
                                     const v1::CancelJobsRequest* request,
                                     v1::CancelJobsReply* reply) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  for (const v1::StepRef& step : request->steps()) {
    const absl::Status status =
        controller_.SignalStep({caller->uid, caller->gid}, step.job_id(), step.step_id(),
                               request->signal() != 0 ? request->signal() : SIGKILL);
    v1::CancelJobResult* result = reply->add_results();
    result->set_job_id(step.job_id());
    result->set_is_step(true);
    result->set_step_id(step.step_id());
    result->set_code(static_cast<int>(status.code()));
    result->set_message(std::string(status.message()));
  }
  // Steps alone: no job is cancelled (an empty job list would mean "all").
  if (request->steps_size() > 0 && request->job_ids_size() == 0 && request->refs_size() == 0) {
    return grpc::Status::OK;
  }
  CancelSpec spec;
  spec.jobs = Refs(request->job_ids(), request->refs());
  spec.user = request->user();
  spec.name = request->name();
  for (int state : request->states()) {
    absl::StatusOr<JobState> s = FromProtoState(static_cast<v1::JobState>(state));
    if (!s.ok()) return ToGrpcStatus(s.status());
    spec.states.push_back(*s);
  }
  spec.partitions = Names(request->partitions());
  spec.signal = request->signal();
  spec.batch_only = request->batch_only();
  spec.full = request->full();
  spec.hurry = request->hurry();
  absl::StatusOr<std::vector<CancelOutcome>> outcomes =
      controller_.CancelJobs({caller->uid, caller->gid}, spec);
  if (!outcomes.ok()) return ToGrpcStatus(outcomes.status());
  for (const CancelOutcome& outcome : *outcomes) {
    v1::CancelJobResult* result = reply->add_results();
    result->set_job_id(outcome.job_id);
    result->set_code(static_cast<int>(outcome.status.code()));
    result->set_message(std::string(outcome.status.message()));
  }
  return grpc::Status::OK;
}

grpc::Status CtldService::UpdateJob(grpc::ServerContext* context,
                                    const v1::UpdateJobRequest* request, v1::UpdateJobReply*) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  JobUpdate update;
  update.job_id = request->job_id();
  if (request->has_held()) update.held = request->held();
  update.user_hold = request->user_hold();
  if (request->has_time_limit()) update.time_limit = request->time_limit();
  if (request->has_partition()) update.partition = request->partition();
  if (request->has_qos()) update.qos = request->qos();
  if (request->has_min_nodes()) update.min_nodes = request->min_nodes();
  if (request->has_name()) update.name = request->name();
  if (request->has_account()) update.account = request->account();
  if (request->has_comment()) update.comment = request->comment();
  if (request->has_reservation()) update.reservation = request->reservation();
  if (request->has_array_task_id()) update.array_task_id = request->array_task_id();
  if (request->has_nice()) update.nice = request->nice();
  if (request->has_begin_time()) update.begin_time = request->begin_time();
  if (request->has_priority()) update.priority = request->priority();
  if (request->has_array_task_throttle()) {
    update.array_task_throttle = request->array_task_throttle();
  }
  if (request->has_features()) {
    JobRequest parsed;
    if (absl::Status s = ParseConstraint(request->features(), parsed); !s.ok()) {
      return ToGrpcStatus(s);
    }
    update.features = parsed.features;
  }
  auto node_list = [](const std::string& text) -> absl::StatusOr<std::vector<std::string>> {
    if (text.empty()) return std::vector<std::string>();
    absl::StatusOr<std::vector<std::string>> names = ExpandHostlist(text);
    if (!names.ok()) return absl::InvalidArgumentError("Invalid node name specified");
    return names;
  };
  if (request->has_exc_node_list()) {
    absl::StatusOr<std::vector<std::string>> names = node_list(request->exc_node_list());
    if (!names.ok()) return ToGrpcStatus(names.status());
    update.exclude = *names;
  }
  if (request->has_req_node_list()) {
    absl::StatusOr<std::vector<std::string>> names = node_list(request->req_node_list());
    if (!names.ok()) return ToGrpcStatus(names.status());
    update.nodelist = *names;
  }
  if (request->top()) {
    std::vector<uint64_t> ids = {request->job_id()};
    ids.insert(ids.end(), request->more_top_jobs().begin(), request->more_top_jobs().end());
    return ToGrpcStatus(controller_.TopJobs({caller->uid, caller->gid}, ids));
  }
  if (request->has_suspend()) {
    return ToGrpcStatus(controller_.SuspendJob(
        {caller->uid, caller->gid},
        {request->job_id(), request->has_array_task_id() ? request->array_task_id() : -1},
        !request->suspend()));
  }
  if (request->requeue() || request->requeue_hold()) {
    update.requeue =
        request->requeue_hold() ? JobUpdate::Requeue::kRequeueHold : JobUpdate::Requeue::kRequeue;
  }
  return ToGrpcStatus(controller_.UpdateJob({caller->uid, caller->gid}, update));
}

grpc::Status CtldService::UpdateNode(grpc::ServerContext* context,
                                     const v1::UpdateNodeRequest* request, v1::UpdateNodeReply*) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  return ToGrpcStatus(controller_.UpdateNodes({caller->uid, caller->gid}, Names(request->names()),
                                              request->state(), request->reason()));
}

grpc::Status CtldService::UpdatePartition(grpc::ServerContext* context,
                                          const v1::UpdatePartitionRequest* request,
                                          v1::UpdatePartitionReply*) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  std::vector<std::pair<std::string, std::string>> settings;
  for (const v1::ConfigEntry& e : request->settings()) settings.emplace_back(e.key(), e.value());
  return ToGrpcStatus(
      controller_.UpdatePartition({caller->uid, caller->gid}, request->name(), settings));
}

grpc::Status CtldService::Reconfigure(grpc::ServerContext* context, const v1::ReconfigureRequest*,
                                      v1::ReconfigureReply* reply) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  absl::StatusOr<std::vector<std::string>> notes =
      controller_.Reconfigure({caller->uid, caller->gid});
  if (!notes.ok()) return ToGrpcStatus(notes.status());
  for (const std::string& note : *notes) reply->add_notes(note);
  // Configless nodes see the new hash in their next heartbeat answer and fetch.
  if (served_ != nullptr) {
    if (absl::Status s = served_->Reload(); !s.ok()) {
      reply->add_notes(absl::StrCat("configless: still serving the previous files: ", s.message()));
    }
  }
  return grpc::Status::OK;
}

grpc::Status CtldService::GetConfigFiles(grpc::ServerContext* context,
                                         const v1::GetConfigFilesRequest*,
                                         v1::GetConfigFilesReply* reply) {
  // Any authenticated caller, as slurmctld serves its config to any client:
  // the files hold no secrets (munge's key is not among them).
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  std::shared_ptr<const ConfigFileSet> files = served_ ? served_->Get() : nullptr;
  if (files == nullptr) {
    return ToGrpcStatus(absl::FailedPreconditionError(
        "this controller does not serve its configuration: configless is not enabled "
        "(SlurmctldParameters=enable_configless in skiff.conf, then restart ctld)"));
  }
  for (const ConfigFile& file : files->files) {
    v1::ConfigFileText* out = reply->add_files();
    out->set_name(file.name);
    out->set_text(file.text);
  }
  reply->set_hash(files->hash);
  return grpc::Status::OK;
}

grpc::Status CtldService::GetConfig(grpc::ServerContext* context, const v1::GetConfigRequest*,
                                    v1::GetConfigReply* reply) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  std::shared_ptr<const SkiffConfig> config = controller_.config();
  ConfigContext config_context;
  config_context.boot_time = controller_.start_time();
  config_context.next_job_id = controller_.NextJobId();
  config_context.conf_path = controller_.conf_path();
  config_context.slurm_user_uid = UidOf(config->slurm_user).value_or(0);
  for (const auto& [key, value] : ConfigEntries(*config, config_context)) {
    v1::ConfigEntry* entry = reply->add_entries();
    entry->set_key(key);
    entry->set_value(value);
  }
  return grpc::Status::OK;
}

}  // namespace skiff::ctld

namespace skiff::ctld {

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
      controller_.config()->IsPrivate("jobs") && !controller_.IsPrivileged(caller->uid);
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
  const PrivateAccountsData hidden{config.IsPrivate("users"), config.IsPrivate("accounts"),
                                   config.IsPrivate("usage")};
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

grpc::Status CtldService::NotifyJob(grpc::ServerContext* context,
                                    const v1::JobNotifyRequest* request, v1::JobNotifyReply*) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  return ToGrpcStatus(
      controller_.NotifyJob({caller->uid, caller->gid}, request->job_id(), request->message()));
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
  if (controller_.config()->IsPrivate("usage") && !controller_.IsPrivileged(caller->uid)) {
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

grpc::Status CtldService::GetReservations(grpc::ServerContext* context,
                                          const v1::GetReservationsRequest*,
                                          v1::GetReservationsReply* reply) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  const int64_t now = time(nullptr);
  std::map<std::string, const Node*> by_name;
  const std::vector<Node> nodes = controller_.SnapshotNodes({});
  for (const Node& node : nodes) by_name[node.config.name] = &node;
  // PrivateData=reservations: a user sees those they may use (by name, group
  // or an account of theirs); operators see all.
  const bool own_only =
      controller_.config()->IsPrivate("reservations") && !controller_.IsPrivileged(caller->uid);
  std::string viewer;
  std::set<std::string> viewer_accounts;
  if (own_only) {
    viewer = LookUpUserName(caller->uid).value_or("");
    for (const Association& assoc : controller_.SnapshotAccounts().assocs) {
      if (!viewer.empty() && assoc.user == viewer) viewer_accounts.insert(assoc.account);
    }
  }
  for (const AdvanceReservation& resv : controller_.SnapshotReservations()) {
    if (own_only && !ReservationVisibleTo(resv, viewer, viewer_accounts)) continue;
    v1::ReservationInfo* info = reply->add_reservations();
    *info = ResvToProto(resv);
    // The occurrence in force, or the next one, as Slurm shows a repeating
    // reservation (it moves its times on at each end).
    const ResvWindow window = WindowAt(resv, now, LocalCalendar());
    info->set_start_time(window.start);
    info->set_end_time(window.end);
    info->set_active(window.Contains(now));
    info->set_flags_text(ResvFlagsString(resv.flags));
    int64_t cpus = 0;
    if (resv.WholeNodes()) {
      for (const std::string& name : resv.nodes) {
        if (auto it = by_name.find(name); it != by_name.end()) cpus += it->second->config.cpus;
      }
      info->set_tres(absl::StrCat("cpu=", cpus));
    } else {
      info->set_tres(absl::StrCat("gres/gpu=", resv.Gpus()));
    }
    info->set_core_cnt(cpus);
  }
  reply->set_now(now);
  return grpc::Status::OK;
}

grpc::Status CtldService::UpdateReservation(grpc::ServerContext* context,
                                            const v1::UpdateReservationRequest* request,
                                            v1::UpdateReservationReply* reply) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  // User and group names resolved here, at the edge: NSS lookups never run
  // under ctld's lock.
  ResvLookups lookups;
  if (request->has_users()) {
    for (const std::string& name : request->users().items()) {
      if (UidOf(name)) lookups.known_users.insert(name);
    }
  }
  std::set<std::string> groups;
  if (request->has_groups())
    groups.insert(request->groups().items().begin(), request->groups().items().end());
  // An update that adds no users checks the ones it keeps: they were known.
  // Groups+= and Groups-= resolve the groups it keeps again.
  for (const AdvanceReservation& resv : controller_.SnapshotReservations()) {
    if (resv.name != request->name()) continue;
    for (const std::string& user : resv.users) lookups.known_users.insert(user);
    if (request->has_groups()) groups.insert(resv.groups.begin(), resv.groups.end());
  }
  for (const std::string& group : groups) {
    if (std::optional<std::vector<std::string>> members = GroupMembers(group)) {
      lookups.group_members[group] = std::move(*members);
    }
  }
  absl::StatusOr<std::string> name = controller_.UpdateReservation(
      Caller{caller->uid, caller->gid}, UserNames().Name(caller->uid),
      ResvOpFromProto(request->op()), ResvRequestFromProto(*request), lookups);
  if (!name.ok()) return ToGrpcStatus(name.status());
  reply->set_name(*name);
  return grpc::Status::OK;
}

grpc::Status CtldService::GetBurstBuffers(grpc::ServerContext* context,
                                          const v1::GetBurstBuffersRequest*,
                                          v1::GetBurstBuffersReply* reply) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  const Controller::BurstBufferSnapshot snapshot = controller_.SnapshotBurstBuffers();
  reply->set_enabled(snapshot.enabled);
  if (!snapshot.enabled) return grpc::Status::OK;
  for (const BbPool& pool : snapshot.pools) {
    v1::BbPoolInfo* info = reply->add_pools();
    info->set_name(pool.name);
    info->set_granularity(pool.granularity);
    info->set_total_bytes(pool.total);
    info->set_used_bytes(pool.Used());
  }
  const bool private_data = snapshot.config.HasFlag("PrivateData");
  for (size_t i = 0; i < snapshot.allocations.size(); ++i) {
    const BbAllocation& a = snapshot.allocations[i];
    // Flags=PrivateData: users see only their own buffers.
    if (private_data && a.user_id != caller->uid && !controller_.IsPrivileged(caller->uid)) {
      continue;
    }
    v1::BbAllocationInfo* info = reply->add_allocations();
    info->set_job_id(a.job_id);
    info->set_create_time(a.create_time);
    info->set_pool(a.pool);
    info->set_size_bytes(a.size);
    info->set_state("allocated");  // what Slurm shows for every buffer in the list
    info->set_user_id(a.user_id);
    info->set_user_name(snapshot.user_names[i]);
  }
  reply->set_flags(absl::StrJoin(snapshot.config.flags, ","));
  reply->set_stage_in_timeout(snapshot.config.stage_in_timeout);
  reply->set_stage_out_timeout(snapshot.config.stage_out_timeout);
  reply->set_validate_timeout(snapshot.config.validate_timeout);
  reply->set_other_timeout(snapshot.config.other_timeout);
  for (const std::string& u : snapshot.config.allow_users) reply->add_allow_users(u);
  for (const std::string& u : snapshot.config.deny_users) reply->add_deny_users(u);
  reply->set_default_pool(snapshot.config.default_pool);
  return grpc::Status::OK;
}

grpc::Status CtldService::GetBbStatus(grpc::ServerContext* context,
                                      const v1::GetBbStatusRequest* request,
                                      v1::GetBbStatusReply* reply) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  absl::StatusOr<std::string> output = controller_.BbStatus(
      Caller{caller->uid, caller->gid}, {request->args().begin(), request->args().end()});
  if (!output.ok()) return ToGrpcStatus(output.status());
  reply->set_output(*output);
  return grpc::Status::OK;
}

grpc::Status CtldService::ExplainJob(grpc::ServerContext* context,
                                     const v1::ExplainJobRequest* request,
                                     v1::ExplainJobReply* reply) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  absl::StatusOr<std::string> text = controller_.ExplainJob(request->job_id());
  if (!text.ok()) return ToGrpcStatus(text.status());
  reply->set_text(*text);
  return grpc::Status::OK;
}

grpc::Status CtldService::RequestToken(grpc::ServerContext* context,
                                       const v1::RequestTokenRequest* request,
                                       v1::RequestTokenReply* reply) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  const std::optional<uid_t> slurm_user = UidOf(controller_.config()->slurm_user);
  TokenCaller who;
  who.name = LookUpUserName(caller->uid).value_or("");
  who.slurm_user = caller->uid == 0 || (slurm_user && *slurm_user == caller->uid);
  const TokenIssuer off(TokenSettings{});
  absl::StatusOr<std::string> token =
      (tokens_ != nullptr ? *tokens_ : off)
          .Issue(who, request->username(), request->lifespan(), time(nullptr));
  if (!token.ok()) return ToGrpcStatus(token.status());
  reply->set_token(*token);
  return grpc::Status::OK;
}

grpc::Status CtldService::GetStats(grpc::ServerContext* context, const v1::GetStatsRequest* request,
                                   v1::GetStatsReply* reply) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  if (request->reset()) {
    if (absl::Status s = controller_.ResetStats(Caller{caller->uid, caller->gid}); !s.ok()) {
      return ToGrpcStatus(s);
    }
  }
  const DiagStats::Snapshot s = controller_.Stats();
  reply->set_req_time(s.req_time);
  reply->set_req_time_start(s.req_time_start);
  reply->set_server_thread_count(s.server_thread_count);
  reply->set_agent_queue_size(s.agents.queue_size);
  reply->set_agent_count(s.agents.count);
  reply->set_agent_thread_count(s.agents.thread_count);
  reply->set_dbd_agent_queue_size(0);  // no slurmdbd: ctld writes its own SQLite database
  reply->set_gettimeofday_latency(MeasureClockLatency());
  reply->set_jobs_submitted(s.jobs_submitted);
  reply->set_jobs_started(s.jobs_started);
  reply->set_jobs_completed(s.jobs_completed);
  reply->set_jobs_canceled(s.jobs_canceled);
  reply->set_jobs_failed(s.jobs_failed);
  reply->set_jobs_pending(s.jobs_pending);
  reply->set_jobs_running(s.jobs_running);
  reply->set_job_states_ts(s.job_states_ts);
  reply->set_schedule_cycle_max(s.schedule_cycle_max);
  reply->set_schedule_cycle_last(s.schedule_cycle_last);
  reply->set_schedule_cycle_sum(s.schedule_cycle_sum);
  reply->set_schedule_cycle_counter(s.schedule_cycle_counter);
  reply->set_schedule_cycle_depth(s.schedule_cycle_depth);
  reply->set_schedule_queue_len(s.schedule_queue_len);
  reply->set_bf_backfilled_jobs(s.bf_backfilled_jobs);
  reply->set_bf_last_backfilled_jobs(s.bf_last_backfilled_jobs);
  reply->set_bf_backfilled_het_jobs(0);  // Skiff has no heterogeneous jobs
  reply->set_bf_cycle_counter(s.bf_cycle_counter);
  reply->set_bf_cycle_sum(s.bf_cycle_sum);
  reply->set_bf_cycle_last(s.bf_cycle_last);
  reply->set_bf_cycle_max(s.bf_cycle_max);
  reply->set_bf_last_depth(s.bf_last_depth);
  reply->set_bf_last_depth_try(s.bf_last_depth_try);
  reply->set_bf_depth_sum(s.bf_depth_sum);
  reply->set_bf_depth_try_sum(s.bf_depth_try_sum);
  reply->set_bf_queue_len(s.bf_queue_len);
  reply->set_bf_queue_len_sum(s.bf_queue_len_sum);
  reply->set_bf_table_size(s.bf_table_size);
  reply->set_bf_table_size_sum(s.bf_table_size_sum);
  reply->set_bf_when_last_cycle(s.bf_when_last_cycle);
  reply->set_bf_active(false);  // statistics are taken between passes, never during one
  for (const DiagStats::RpcCount& rpc : s.rpcs_by_type) {
    v1::RpcTypeStat* out = reply->add_rpcs_by_type();
    out->set_name(rpc.type.name);
    out->set_type_id(rpc.type.id);
    out->set_count(rpc.count);
    out->set_total_time(rpc.total_micros);
  }
  for (const DiagStats::UserCount& user : s.rpcs_by_user) {
    v1::RpcUserStat* out = reply->add_rpcs_by_user();
    out->set_uid(user.uid);
    out->set_user(UserNames().Name(user.uid));
    out->set_count(user.count);
    out->set_total_time(user.total_micros);
  }
  auto fill = [](const DiagStats::CallTimes& in, v1::CallTimeStat* out) {
    out->set_name(in.name);
    out->set_count(in.count);
    out->set_total_time(in.total_micros);
    out->set_max_time(in.max_micros);
  };
  fill(s.job_start, reply->mutable_job_start_overhead());
  fill(s.job_end, reply->mutable_job_end_overhead());
  for (const DiagStats::CallTimes& script : s.scripts) fill(script, reply->add_scriptd_calls());
  return grpc::Status::OK;
}

// ---------------------------------------------------------------- strigger

grpc::Status CtldService::SetTrigger(grpc::ServerContext* context,
                                     const v1::SetTriggerRequest* request,
                                     v1::SetTriggerReply* reply) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  const v1::TriggerInfo& in = request->trigger();
  if (in.res_type() < 1 || in.res_type() > 7) {
    return ToGrpcStatus(absl::InvalidArgumentError(
        absl::StrCat("res_type ", in.res_type(), " is not a trigger resource type")));
  }
  if (in.flags() & ~static_cast<uint32_t>(kTriggerFlagPerm)) {
    return ToGrpcStatus(
        absl::InvalidArgumentError(absl::StrCat("flags ", in.flags(), ": only PERM (1) exists")));
  }
  if (in.program().empty() || in.program()[0] != '/') {
    return ToGrpcStatus(absl::InvalidArgumentError("The --program value must start with \"/\""));
  }
  TriggerRequest trigger;
  trigger.res_type = static_cast<TriggerResType>(in.res_type());
  trigger.res_id = in.res_id();
  trigger.type = in.trig_type();
  trigger.offset = in.offset();
  trigger.flags = static_cast<uint16_t>(in.flags());
  trigger.program = in.program();
  absl::StatusOr<uint32_t> id = controller_.SetTrigger(Caller{caller->uid, caller->gid}, trigger);
  if (!id.ok()) return ToGrpcStatus(id.status());
  reply->set_trig_id(*id);
  return grpc::Status::OK;
}

grpc::Status CtldService::GetTriggers(grpc::ServerContext* context, const v1::GetTriggersRequest*,
                                      v1::GetTriggersReply* reply) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  for (const Trigger& t : controller_.SnapshotTriggers()) {
    v1::TriggerInfo* out = reply->add_triggers();
    out->set_trig_id(t.id);
    out->set_res_type(static_cast<uint32_t>(t.res_type));
    out->set_res_id(t.res_id);
    out->set_trig_type(t.type);
    out->set_offset(t.offset);
    out->set_user_id(t.uid);
    out->set_flags(t.flags);
    out->set_program(t.program);
  }
  return grpc::Status::OK;
}

grpc::Status CtldService::ClearTriggers(grpc::ServerContext* context,
                                        const v1::ClearTriggersRequest* request,
                                        v1::ClearTriggersReply* reply) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  TriggerTable::ClearFilter filter;
  filter.id = request->trig_id();
  filter.job_id = request->job_id();
  if (request->has_user_id()) filter.user = request->user_id();
  absl::StatusOr<size_t> cleared =
      controller_.ClearTriggers(Caller{caller->uid, caller->gid}, filter);
  if (!cleared.ok()) return ToGrpcStatus(cleared.status());
  reply->set_cleared(static_cast<uint32_t>(*cleared));
  return grpc::Status::OK;
}

}  // namespace skiff::ctld
