// CtldService's construction and its RPCs for nodes, partitions, jobs, steps,
// configuration and tokens. Accounting, reservations and monitoring RPCs are in
// services_accounting.cc, services_reservations.cc and services_monitoring.cc.
#include "ctld/rpc/services.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <ctime>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/hostlist.h"
#include "common/rpc/auth_metadata.h"
#include "common/rpc/status.h"
#include "common/users.h"
#include "common/version.h"
#include "ctld/core/reservations/reservation.h"
#include "ctld/local_calendar.h"
#include "ctld/rpc/acct_convert.h"
#include "ctld/rpc/config_entries.h"
#include "ctld/rpc/convert.h"
#include "ctld/rpc/gpu_usage_convert.h"
#include "ctld/rpc/job_convert.h"
#include "ctld/rpc/services_internal.h"
#include "ctld/state/job_spec_parts.h"

namespace skiff::ctld {
namespace {

using services_internal::Names;

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

grpc::Status CtldService::Takeover(grpc::ServerContext* context, const v1::TakeoverRequest*,
                                   v1::TakeoverReply*) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  if (!controller_.IsPrivileged(caller->uid)) {
    return ToGrpcStatus(absl::PermissionDeniedError("Access/permission denied"));
  }
  if (!hand_over_) {
    return ToGrpcStatus(absl::FailedPreconditionError(
        "No backup controller to take over: a standby needs a second SlurmctldHost line and "
        "EtcdEndpoints"));
  }
  return ToGrpcStatus(hand_over_());
}

namespace {

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
      controller_.config()->private_data.jobs && !controller_.IsPrivileged(caller->uid);
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
  const bool own_only = controller_.config()->private_data.jobs && !privileged;
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
  // The running jobs' GPUs, copied before the jobs are visited under ctld's lock.
  const std::map<uint64_t, std::vector<GpuUsage>> live_gpus = controller_.SnapshotJobGpus();
  // What a user submitted goes only to them and to operators (job_convert.h).
  auto add = [&](const Job& job, JobInfoDetail detail) {
    v1::JobInfo* info = reply->add_jobs();
    const JobInfoReader reader = job.uid == caller->uid || privileged
                                     ? JobInfoReader::kOwnerOrOperator
                                     : JobInfoReader::kOtherUser;
    JobToInfo(job, now, info, reader, detail);
    // How much of its GPUs a job uses: for its owner and operators, as the
    // dashboard shows it (the queue's figures for admins).
    if (reader != JobInfoReader::kOwnerOrOperator) return info;
    auto live = live_gpus.find(job.id);
    for (const GpuUsage& gpu : live != live_gpus.end() && job.state == JobState::kRunning
                                   ? live->second
                                   : job.gpu_usage) {
      GpuUsageToProto(gpu, info->add_gpus());
    }
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
  if (request->has_licenses()) update.licenses = request->licenses();
  if (request->has_prefer()) {
    JobRequest parsed;
    if (absl::Status s = ParseConstraint(request->prefer(), parsed); !s.ok()) {
      return ToGrpcStatus(s);
    }
    update.prefer = parsed.features;
  }
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

grpc::Status CtldService::DeleteNodes(grpc::ServerContext* context,
                                      const v1::DeleteNodesRequest* request,
                                      v1::DeleteNodesReply*) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  return ToGrpcStatus(controller_.DeleteNodes({caller->uid, caller->gid}, Names(request->names())));
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

grpc::Status CtldService::NotifyJob(grpc::ServerContext* context,
                                    const v1::JobNotifyRequest* request, v1::JobNotifyReply*) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  return ToGrpcStatus(
      controller_.NotifyJob({caller->uid, caller->gid}, request->job_id(), request->message()));
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

}  // namespace skiff::ctld
