// Slurm's scheduler families (/metrics/scheduler, sdiag's numbers) and
// Skiff's own timing of scheduler cycles, ctld's RPCs, job overheads and
// scriptd's calls.
#include <cstdint>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "restd/metrics/metrics_internal.h"

namespace skiff::restd::metrics_internal {
namespace {

double MeanOf(uint64_t sum, uint64_t count) {
  // Slurm's means are integer divisions of its counters.
  return count == 0 ? 0 : static_cast<double>(sum / count);
}

// Microseconds (ctld's unit for cycles and RPCs) in seconds; a division, so
// that 1500 us is exactly the double nearest 0.0015.
double Seconds(double microseconds) { return microseconds / 1e6; }

}  // namespace

void AddSchedulerMetrics(const v1::GetStatsReply& s, Exposition& out) {
  const uint64_t bf = s.bf_cycle_counter();
  const std::pair<const char*, std::pair<double, const char*>> rows[] = {
      {"agent_cnt", {s.agent_count(), "Number of agent threads"}},
      {"agent_queue_size", {s.agent_queue_size(), "Outgoing RPC retry queue length"}},
      {"agent_thread_cnt", {s.agent_thread_count(), "Total active agent-created threads"}},
      {"bf_depth_mean", {MeanOf(s.bf_depth_sum(), bf), "Mean backfill cycle depth"}},
      {"bf_mean_cycle", {MeanOf(s.bf_cycle_sum(), bf), "Mean backfill cycle time"}},
      {"bf_mean_table_sz", {MeanOf(s.bf_table_size_sum(), bf), "Mean backfill table size"}},
      {"bf_queue_len_mean", {MeanOf(s.bf_queue_len_sum(), bf), "Mean backfill queue length"}},
      {"bf_try_depth_mean", {MeanOf(s.bf_depth_try_sum(), bf), "Mean depth attempts in backfill"}},
      {"backfilled_het_jobs", {s.bf_backfilled_het_jobs(), "Heterogeneous components backfilled"}},
      {"backfilled_jobs", {s.bf_backfilled_jobs(), "Total backfilled jobs since reset"}},
      {"bf_active", {s.bf_active() ? 1 : 0, "Backfill scheduler active jobs"}},
      {"bf_cycle_cnt", {bf, "Backfill cycle count"}},
      {"bf_cycle_last", {s.bf_cycle_last(), "Last backfill cycle time"}},
      {"bf_cycle_max", {s.bf_cycle_max(), "Max backfill cycle time"}},
      {"bf_cycle_tot", {static_cast<double>(s.bf_cycle_sum()), "Sum of backfill cycle times"}},
      {"bf_depth_tot", {static_cast<double>(s.bf_depth_sum()), "Sum of backfill job depths"}},
      {"bf_depth_try_tot",
       {static_cast<double>(s.bf_depth_try_sum()), "Sum of backfill depth attempts"}},
      {"bf_last_depth", {s.bf_last_depth(), "Last backfill depth"}},
      {"bf_last_depth_try", {s.bf_last_depth_try(), "Last backfill depth attempts"}},
      {"bf_queue_len", {s.bf_queue_len(), "Backfill queue length"}},
      {"bf_queue_len_tot",
       {static_cast<double>(s.bf_queue_len_sum()), "Sum of backfill queue lengths"}},
      {"bf_table_size", {s.bf_table_size(), "Backfill table size"}},
      {"bf_table_size_tot",
       {static_cast<double>(s.bf_table_size_sum()), "Sum of backfill table sizes"}},
      {"bf_when_last_cycle",
       {static_cast<double>(s.bf_when_last_cycle()), "Timestamp of last backfill cycle"}},
      {"sdiag_jobs_canceled", {s.jobs_canceled(), "Jobs canceled since reset"}},
      {"sdiag_jobs_completed", {s.jobs_completed(), "Jobs completed since reset"}},
      {"sdiag_jobs_failed", {s.jobs_failed(), "Jobs failed since reset"}},
      {"sdiag_jobs_pending", {s.jobs_pending(), "Jobs pending at timestamp"}},
      {"sdiag_jobs_running", {s.jobs_running(), "Jobs running at timestamp"}},
      {"sdiag_jobs_started", {s.jobs_started(), "Jobs started since reset"}},
      {"sdiag_jobs_submitted", {s.jobs_submitted(), "Jobs submitted since reset"}},
      {"sdiag_job_states_ts", {static_cast<double>(s.job_states_ts()), "Job states timestamp"}},
      {"last_backfilled_jobs", {s.bf_last_backfilled_jobs(), "Backfilled jobs since last cycle"}},
      {"sdiag_latency", {s.gettimeofday_latency(), "Measurement latency"}},
      {"schedule_cycle_cnt", {s.schedule_cycle_counter(), "Scheduling cycle count"}},
      {"schedule_cycle_depth",
       {static_cast<double>(s.schedule_cycle_depth()), "Processed jobs depth total"}},
      {"schedule_cycle_last", {s.schedule_cycle_last(), "Last scheduling cycle time"}},
      {"schedule_cycle_max", {s.schedule_cycle_max(), "Max scheduling cycle time"}},
      {"schedule_cycle_tot",
       {static_cast<double>(s.schedule_cycle_sum()), "Sum of scheduling cycle times"}},
      {"schedule_queue_len", {s.schedule_queue_len(), "Jobs pending queue length"}},
      {"sched_mean_cycle",
       {MeanOf(s.schedule_cycle_sum(), s.schedule_cycle_counter()), "Mean scheduling cycle time"}},
      {"sched_mean_depth_cycle",
       {MeanOf(s.schedule_cycle_depth(), s.schedule_cycle_counter()),
        "Mean depth of scheduling cycles"}},
      {"server_thread_cnt", {s.server_thread_count(), "Active slurmctld threads count"}},
      {"slurmdbd_queue_size", {s.dbd_agent_queue_size(), "Queued messages to SlurmDBD"}},
      {"last_proc_req_start",
       {static_cast<double>(s.req_time_start()), "Timestamp of last process request start"}},
      {"sched_stats_timestamp",
       {static_cast<double>(s.req_time()), "Statistics snapshot timestamp"}},
  };
  for (const auto& [name, value_help] : rows) {
    out.Gauge(absl::StrCat("slurm_", name), value_help.second, value_help.first);
  }
}

void AddSkiffSchedulerMetrics(const v1::GetStatsReply& s, Exposition& out) {
  struct Cycle {
    const char* scheduler;
    double last, max, sum, count;
  };
  const Cycle cycles[] = {
      {"main", static_cast<double>(s.schedule_cycle_last()),
       static_cast<double>(s.schedule_cycle_max()), static_cast<double>(s.schedule_cycle_sum()),
       static_cast<double>(s.schedule_cycle_counter())},
      {"backfill", static_cast<double>(s.bf_cycle_last()), static_cast<double>(s.bf_cycle_max()),
       static_cast<double>(s.bf_cycle_sum()), static_cast<double>(s.bf_cycle_counter())},
  };
  for (const Cycle& c : cycles) {
    out.Gauge("skiff_scheduler_cycle_last_seconds", "Duration of the scheduler's last cycle",
              Seconds(c.last), {{"scheduler", c.scheduler}});
  }
  for (const Cycle& c : cycles) {
    out.Gauge("skiff_scheduler_cycle_max_seconds",
              "Longest scheduler cycle since ctld's start, midnight UTC or sdiag --reset",
              Seconds(c.max), {{"scheduler", c.scheduler}});
  }
  for (const Cycle& c : cycles) {
    out.Gauge("skiff_scheduler_cycle_mean_seconds",
              "Mean scheduler cycle since ctld's start, midnight UTC or sdiag --reset",
              c.count == 0 ? 0 : Seconds(c.sum / c.count), {{"scheduler", c.scheduler}});
  }
  for (const Cycle& c : cycles) {
    out.Add("skiff_scheduler_cycles_total", "Scheduler cycles run", MetricType::kCounter, c.count,
            {{"scheduler", c.scheduler}});
  }
  for (const Cycle& c : cycles) {
    out.Add("skiff_scheduler_cycle_seconds_total", "Time spent in scheduler cycles",
            MetricType::kCounter, Seconds(c.sum), {{"scheduler", c.scheduler}});
  }

  constexpr char kRpcsHelp[] = "RPCs ctld served, by message type";
  constexpr char kRpcSecondsHelp[] = "Time ctld spent serving RPCs, by message type";
  constexpr char kRpcAverageHelp[] = "Mean time ctld took to serve an RPC, by message type";
  out.Declare("skiff_ctld_rpcs_total", kRpcsHelp, MetricType::kCounter);
  for (const v1::RpcTypeStat& rpc : s.rpcs_by_type()) {
    out.Add("skiff_ctld_rpcs_total", kRpcsHelp, MetricType::kCounter, rpc.count(),
            {{"rpc", rpc.name()}});
  }
  out.Declare("skiff_ctld_rpc_seconds_total", kRpcSecondsHelp, MetricType::kCounter);
  for (const v1::RpcTypeStat& rpc : s.rpcs_by_type()) {
    out.Add("skiff_ctld_rpc_seconds_total", kRpcSecondsHelp, MetricType::kCounter,
            Seconds(static_cast<double>(rpc.total_time())), {{"rpc", rpc.name()}});
  }
  out.Declare("skiff_ctld_rpc_average_seconds", kRpcAverageHelp, MetricType::kGauge);
  for (const v1::RpcTypeStat& rpc : s.rpcs_by_type()) {
    out.Gauge("skiff_ctld_rpc_average_seconds", kRpcAverageHelp,
              rpc.count() == 0 ? 0 : Seconds(static_cast<double>(rpc.total_time()) / rpc.count()),
              {{"rpc", rpc.name()}});
  }
  constexpr char kUserRpcsHelp[] = "RPCs ctld served, by user";
  constexpr char kUserSecondsHelp[] = "Time ctld spent serving RPCs, by user";
  out.Declare("skiff_ctld_user_rpcs_total", kUserRpcsHelp, MetricType::kCounter);
  for (const v1::RpcUserStat& rpc : s.rpcs_by_user()) {
    const std::string user = rpc.user().empty() ? absl::StrCat(rpc.uid()) : rpc.user();
    out.Add("skiff_ctld_user_rpcs_total", kUserRpcsHelp, MetricType::kCounter, rpc.count(),
            {{"user", user}});
  }
  out.Declare("skiff_ctld_user_rpc_seconds_total", kUserSecondsHelp, MetricType::kCounter);
  for (const v1::RpcUserStat& rpc : s.rpcs_by_user()) {
    const std::string user = rpc.user().empty() ? absl::StrCat(rpc.uid()) : rpc.user();
    out.Add("skiff_ctld_user_rpc_seconds_total", kUserSecondsHelp, MetricType::kCounter,
            Seconds(static_cast<double>(rpc.total_time())), {{"user", user}});
  }

  // What Skiff adds around each job's run, and each scriptd call by name.
  constexpr char kOverheadsHelp[] =
      "Jobs timed from allocation to launch on the node (start), or from their end on the node "
      "to their final state (end)";
  constexpr char kOverheadSecondsHelp[] = "Total of those jobs' start or end overheads";
  constexpr char kOverheadMaxHelp[] = "Longest start or end overhead of one job";
  const v1::CallTimeStat* overheads[] = {&s.job_start_overhead(), &s.job_end_overhead()};
  const char* phases[] = {"start", "end"};
  for (int i = 0; i < 2; ++i) {
    out.Add("skiff_job_overheads_total", kOverheadsHelp, MetricType::kCounter,
            overheads[i]->count(), {{"phase", phases[i]}});
  }
  for (int i = 0; i < 2; ++i) {
    out.Add("skiff_job_overhead_seconds_total", kOverheadSecondsHelp, MetricType::kCounter,
            Seconds(static_cast<double>(overheads[i]->total_time())), {{"phase", phases[i]}});
  }
  for (int i = 0; i < 2; ++i) {
    out.Gauge("skiff_job_overhead_max_seconds", kOverheadMaxHelp,
              Seconds(static_cast<double>(overheads[i]->max_time())), {{"phase", phases[i]}});
  }
  constexpr char kScriptsHelp[] =
      "Scripts and burst_buffer.lua hooks scriptd ran for ctld, by name";
  constexpr char kScriptSecondsHelp[] = "Time those calls took, from ctld's call to the answer";
  constexpr char kScriptMaxHelp[] = "Longest such call, by name";
  out.Declare("skiff_scriptd_calls_total", kScriptsHelp, MetricType::kCounter);
  for (const v1::CallTimeStat& call : s.scriptd_calls()) {
    out.Add("skiff_scriptd_calls_total", kScriptsHelp, MetricType::kCounter, call.count(),
            {{"call", call.name()}});
  }
  out.Declare("skiff_scriptd_call_seconds_total", kScriptSecondsHelp, MetricType::kCounter);
  for (const v1::CallTimeStat& call : s.scriptd_calls()) {
    out.Add("skiff_scriptd_call_seconds_total", kScriptSecondsHelp, MetricType::kCounter,
            Seconds(static_cast<double>(call.total_time())), {{"call", call.name()}});
  }
  out.Declare("skiff_scriptd_call_max_seconds", kScriptMaxHelp, MetricType::kGauge);
  for (const v1::CallTimeStat& call : s.scriptd_calls()) {
    out.Gauge("skiff_scriptd_call_max_seconds", kScriptMaxHelp,
              Seconds(static_cast<double>(call.max_time())), {{"call", call.name()}});
  }
}

}  // namespace skiff::restd::metrics_internal
