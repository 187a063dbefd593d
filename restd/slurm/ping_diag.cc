// /slurm/{version}/ping (CONTROLLER_PING) and /diag (STATS_MSG: sdiag's
// figures, from ctld's GetStats).
#include <chrono>

#include "restd/data_parser/values.h"
#include "restd/slurm/slurm_paths.h"

namespace skiff::restd {
namespace {

HttpResponse Ping(RestCall& call) {
  v1::PingReply reply;
  const auto start = std::chrono::steady_clock::now();
  const absl::Status status = call.Call(&v1::Ctld::Stub::Ping, v1::PingRequest(), &reply);
  const int64_t latency = std::chrono::duration_cast<std::chrono::microseconds>(
                              std::chrono::steady_clock::now() - start)
                              .count();
  if (absl::IsUnauthenticated(status) || absl::IsPermissionDenied(status)) {
    return Failure(call, status, {{"pings", Json::Array()}});
  }
  const bool up = status.ok();
  Json body = {{"pings", Json::Array({{{"hostname", call.ctld.config().skiff.ctld_host},
                                       {"pinged", up ? "UP" : "DOWN"},
                                       {"responding", up},
                                       {"latency", latency},
                                       {"mode", "primary"},
                                       {"primary", true}}})}};
  // With a standby over etcd (issue 53): each controller, as Slurm's
  // ping_all_controllers lists them ("mode" by place, "primary" the first).
  const std::vector<ControllerHost>& hosts = call.ctld.config().skiff.ctld_hosts;
  if (up && hosts.size() > 1) {
    Json pings = Json::Array();
    for (size_t i = 0; i < hosts.size(); ++i) {
      v1::PingReply each;
      const auto sent = std::chrono::steady_clock::now();
      const bool answered = call.ctld.PingController(i, &each).ok();
      pings.Push({{"hostname", hosts[i].name},
                  {"pinged", answered ? "UP" : "DOWN"},
                  {"responding", answered},
                  {"latency", std::chrono::duration_cast<std::chrono::microseconds>(
                                  std::chrono::steady_clock::now() - sent)
                                  .count()},
                  {"mode", ControllerMode(i, hosts.size())},
                  {"primary", i == 0}});
    }
    body["pings"] = std::move(pings);
  }
  if (!up) {
    body["errors"] = Json::Array({{{"description", std::string(status.message())},
                                   {"error_number", static_cast<int>(status.code())},
                                   {"error", "Unable to contact slurm controller"},
                                   {"source", "restd"}}});
  }
  return Answer(call, std::move(body), up ? 200 : 503);
}

int64_t MeanOf(uint64_t sum, uint64_t count) { return count == 0 ? 0 : sum / count; }

HttpResponse Diag(RestCall& call) {
  v1::GetStatsReply s;
  if (absl::Status status = call.Call(&v1::Ctld::Stub::GetStats, v1::GetStatsRequest(), &s);
      !status.ok()) {
    return Failure(call, status, {{"statistics", Json::Object()}});
  }
  const int64_t minutes = std::max<int64_t>(1, (s.req_time() - s.req_time_start()) / 60);
  Json by_type = Json::Array();
  for (const v1::RpcTypeStat& rpc : s.rpcs_by_type()) {
    by_type.Push({{"type_id", rpc.type_id()},
                  {"message_type", rpc.name()},
                  {"count", rpc.count()},
                  {"queued", 0},
                  {"dropped", 0},
                  {"cycle_last", 0},
                  {"cycle_max", 0},
                  {"total_time", rpc.total_time()},
                  {"average_time", Number(MeanOf(rpc.total_time(), rpc.count()))}});
  }
  Json by_user = Json::Array();
  for (const v1::RpcUserStat& rpc : s.rpcs_by_user()) {
    by_user.Push({{"user_id", rpc.uid()},
                  {"user", rpc.user()},
                  {"count", rpc.count()},
                  {"total_time", rpc.total_time()},
                  {"average_time", Number(MeanOf(rpc.total_time(), rpc.count()))}});
  }
  Json statistics = {
      {"parts_packed", 1},
      {"req_time", Time(s.req_time())},
      {"req_time_start", Time(s.req_time_start())},
      {"server_thread_count", s.server_thread_count()},
      {"agent_queue_size", s.agent_queue_size()},
      {"agent_count", s.agent_count()},
      {"agent_thread_count", s.agent_thread_count()},
      {"dbd_agent_queue_size", s.dbd_agent_queue_size()},
      {"gettimeofday_latency", s.gettimeofday_latency()},
      {"schedule_cycle_max", s.schedule_cycle_max()},
      {"schedule_cycle_last", s.schedule_cycle_last()},
      {"schedule_cycle_sum", s.schedule_cycle_sum()},
      {"schedule_cycle_total", s.schedule_cycle_counter()},
      {"schedule_cycle_mean", MeanOf(s.schedule_cycle_sum(), s.schedule_cycle_counter())},
      {"schedule_cycle_mean_depth", MeanOf(s.schedule_cycle_depth(), s.schedule_cycle_counter())},
      {"schedule_cycle_per_minute", s.schedule_cycle_counter() / minutes},
      {"schedule_cycle_depth", s.schedule_cycle_depth()},
      {"schedule_queue_length", s.schedule_queue_len()},
      {"jobs_submitted", s.jobs_submitted()},
      {"jobs_started", s.jobs_started()},
      {"jobs_completed", s.jobs_completed()},
      {"jobs_canceled", s.jobs_canceled()},
      {"jobs_failed", s.jobs_failed()},
      {"jobs_pending", s.jobs_pending()},
      {"jobs_running", s.jobs_running()},
      {"job_states_ts", Time(s.job_states_ts())},
      {"bf_backfilled_jobs", s.bf_backfilled_jobs()},
      {"bf_last_backfilled_jobs", s.bf_last_backfilled_jobs()},
      {"bf_backfilled_het_jobs", s.bf_backfilled_het_jobs()},
      {"bf_cycle_counter", s.bf_cycle_counter()},
      {"bf_cycle_mean", MeanOf(s.bf_cycle_sum(), s.bf_cycle_counter())},
      {"bf_depth_mean", MeanOf(s.bf_depth_sum(), s.bf_cycle_counter())},
      {"bf_depth_mean_try", MeanOf(s.bf_depth_try_sum(), s.bf_cycle_counter())},
      {"bf_cycle_sum", s.bf_cycle_sum()},
      {"bf_cycle_last", s.bf_cycle_last()},
      {"bf_cycle_max", s.bf_cycle_max()},
      {"bf_last_depth", s.bf_last_depth()},
      {"bf_last_depth_try", s.bf_last_depth_try()},
      {"bf_depth_sum", s.bf_depth_sum()},
      {"bf_depth_try_sum", s.bf_depth_try_sum()},
      {"bf_queue_len", s.bf_queue_len()},
      {"bf_queue_len_mean", MeanOf(s.bf_queue_len_sum(), s.bf_cycle_counter())},
      {"bf_queue_len_sum", s.bf_queue_len_sum()},
      {"bf_table_size", s.bf_table_size()},
      {"bf_table_size_sum", s.bf_table_size_sum()},
      {"bf_table_size_mean", MeanOf(s.bf_table_size_sum(), s.bf_cycle_counter())},
      {"bf_when_last_cycle", Time(s.bf_when_last_cycle())},
      {"bf_active", s.bf_active()},
      {"rpcs_by_message_type", std::move(by_type)},
      {"rpcs_by_user", std::move(by_user)},
      {"pending_rpcs", Json::Array()},
      {"pending_rpcs_by_hostlist", Json::Array()}};
  return Answer(call, {{"statistics", std::move(statistics)}});
}

}  // namespace

void AddPingAndDiagPaths(Router& router) {
  router.Add("GET", "/slurm/{version}/ping", Ping);
  router.Add("GET", "/slurm/{version}/diag", Diag);
}

}  // namespace skiff::restd
