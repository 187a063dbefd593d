// CtldService's RPCs for watching the controller: sdiag's statistics and
// strigger's event triggers.
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "common/rpc/auth_metadata.h"
#include "common/rpc/status.h"
#include "common/users.h"
#include "ctld/diag_stats.h"
#include "ctld/rpc/services.h"

namespace skiff::ctld {

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
