#include "cli/sdiag/sdiag_format.h"

#include <cinttypes>
#include <cstdint>
#include <ctime>
#include <functional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/json_writer.h"

namespace skiff::cli {
namespace {

// Slurm's slurm_ctime2: "Fri Nov 27 18:35:53 2026" in local time.
std::string Ctime(int64_t seconds) {
  const time_t t = static_cast<time_t>(seconds);
  struct tm tm;
  localtime_r(&t, &tm);
  char text[32];
  strftime(text, sizeof(text), "%a %b %d %T %Y", &tm);
  return text;
}

uint64_t Average(uint64_t total, uint64_t count) { return count == 0 ? 0 : total / count; }

// Slurm's _sort_rpc: for each position, every later entry whose key beats it
// is swapped in. Not stable; kept exactly so that ties come out as in Slurm.
template <typename Entry>
void SwapSort(google::protobuf::RepeatedPtrField<Entry>* entries,
              const std::function<bool(const Entry& here, const Entry& later)>& keep) {
  for (int i = 0; i < entries->size(); ++i) {
    for (int j = i + 1; j < entries->size(); ++j) {
      if (keep(entries->Get(i), entries->Get(j))) continue;
      entries->SwapElements(i, j);
    }
  }
}

template <typename Entry>
void SortEntries(google::protobuf::RepeatedPtrField<Entry>* entries, SdiagSort sort,
                 const std::function<uint32_t(const Entry&)>& id) {
  switch (sort) {
    case SdiagSort::kId:
      SwapSort<Entry>(entries, [&](const Entry& a, const Entry& b) { return id(a) <= id(b); });
      return;
    case SdiagSort::kTime:
      SwapSort<Entry>(
          entries, [](const Entry& a, const Entry& b) { return a.total_time() >= b.total_time(); });
      return;
    case SdiagSort::kTime2:
      SwapSort<Entry>(entries, [](const Entry& a, const Entry& b) {
        return Average(a.total_time(), a.count()) >= Average(b.total_time(), b.count());
      });
      return;
    case SdiagSort::kCount:
      SwapSort<Entry>(entries,
                      [](const Entry& a, const Entry& b) { return a.count() >= b.count(); });
      return;
  }
}

std::string UserName(const v1::RpcUserStat& user) {
  return user.user().empty() ? std::to_string(user.uid()) : user.user();
}

}  // namespace

void SortSdiagRpcs(v1::GetStatsReply* stats, SdiagSort sort) {
  SortEntries<v1::RpcTypeStat>(stats->mutable_rpcs_by_type(), sort,
                               [](const v1::RpcTypeStat& t) { return t.type_id(); });
  SortEntries<v1::RpcUserStat>(stats->mutable_rpcs_by_user(), sort,
                               [](const v1::RpcUserStat& u) { return u.uid(); });
}

std::string FormatSdiag(const v1::GetStatsReply& s) {
  std::string out;
  absl::StrAppend(&out, "*******************************************************\n");
  absl::StrAppendFormat(&out, "sdiag output at %s (%d)\n", Ctime(s.req_time()), s.req_time());
  absl::StrAppendFormat(&out, "Data since      %s (%d)\n", Ctime(s.req_time_start()),
                        s.req_time_start());
  absl::StrAppend(&out, "*******************************************************\n");
  absl::StrAppendFormat(&out, "Server thread count:  %d\n", s.server_thread_count());
  absl::StrAppendFormat(&out, "Agent queue size:     %d\n", s.agent_queue_size());
  absl::StrAppendFormat(&out, "Agent count:          %d\n", s.agent_count());
  absl::StrAppendFormat(&out, "Agent thread count:   %d\n", s.agent_thread_count());
  absl::StrAppendFormat(&out, "DBD Agent queue size: %d\n\n", s.dbd_agent_queue_size());

  absl::StrAppendFormat(&out, "Jobs submitted: %d\n", s.jobs_submitted());
  absl::StrAppendFormat(&out, "Jobs started:   %d\n", s.jobs_started());
  absl::StrAppendFormat(&out, "Jobs completed: %d\n", s.jobs_completed());
  absl::StrAppendFormat(&out, "Jobs canceled:  %d\n", s.jobs_canceled());
  absl::StrAppendFormat(&out, "Jobs failed:    %d\n\n", s.jobs_failed());

  absl::StrAppendFormat(&out, "Job states ts:  %s (%d)\n", Ctime(s.job_states_ts()),
                        s.job_states_ts());
  absl::StrAppendFormat(&out, "Jobs pending:   %d\n", s.jobs_pending());
  absl::StrAppendFormat(&out, "Jobs running:   %d\n", s.jobs_running());

  absl::StrAppend(&out, "\nMain schedule statistics (microseconds):\n");
  absl::StrAppendFormat(&out, "\tLast cycle:   %u\n", s.schedule_cycle_last());
  absl::StrAppendFormat(&out, "\tMax cycle:    %u\n", s.schedule_cycle_max());
  absl::StrAppendFormat(&out, "\tTotal cycles: %u\n", s.schedule_cycle_counter());
  if (s.schedule_cycle_counter() > 0) {
    absl::StrAppendFormat(&out, "\tMean cycle:   %u\n",
                          s.schedule_cycle_sum() / s.schedule_cycle_counter());
    absl::StrAppendFormat(&out, "\tMean depth cycle:  %u\n",
                          s.schedule_cycle_depth() / s.schedule_cycle_counter());
  }
  const int64_t span = s.req_time() - s.req_time_start();
  if (span > 60) {
    absl::StrAppendFormat(&out, "\tCycles per minute: %u\n",
                          static_cast<uint32_t>(s.schedule_cycle_counter() / (span / 60)));
  }
  absl::StrAppendFormat(&out, "\tLast queue length: %u\n", s.schedule_queue_len());

  if (s.bf_active()) {
    absl::StrAppend(&out,
                    "\nBackfilling stats (WARNING: data obtained in the middle of backfilling "
                    "execution.)\n");
  } else {
    absl::StrAppend(&out, "\nBackfilling stats\n");
  }
  absl::StrAppendFormat(&out, "\tTotal backfilled jobs (since last slurm start): %u\n",
                        s.bf_backfilled_jobs());
  absl::StrAppendFormat(&out, "\tTotal backfilled jobs (since last stats cycle start): %u\n",
                        s.bf_last_backfilled_jobs());
  absl::StrAppendFormat(&out, "\tTotal backfilled heterogeneous job components: %u\n",
                        s.bf_backfilled_het_jobs());
  absl::StrAppendFormat(&out, "\tTotal cycles: %u\n", s.bf_cycle_counter());
  if (s.bf_when_last_cycle() > 0) {
    absl::StrAppendFormat(&out, "\tLast cycle when: %s (%d)\n", Ctime(s.bf_when_last_cycle()),
                          s.bf_when_last_cycle());
  } else {
    absl::StrAppend(&out, "\tLast cycle when: N/A\n");
  }
  absl::StrAppendFormat(&out, "\tLast cycle: %u\n", s.bf_cycle_last());
  absl::StrAppendFormat(&out, "\tMax cycle:  %u\n", s.bf_cycle_max());
  const uint64_t bf_cycles = s.bf_cycle_counter();
  if (bf_cycles > 0) {
    absl::StrAppendFormat(&out, "\tMean cycle: %u\n", s.bf_cycle_sum() / bf_cycles);
  }
  absl::StrAppendFormat(&out, "\tLast depth cycle: %u\n", s.bf_last_depth());
  absl::StrAppendFormat(&out, "\tLast depth cycle (try sched): %u\n", s.bf_last_depth_try());
  if (bf_cycles > 0) {
    absl::StrAppendFormat(&out, "\tDepth Mean: %u\n", s.bf_depth_sum() / bf_cycles);
    absl::StrAppendFormat(&out, "\tDepth Mean (try depth): %u\n", s.bf_depth_try_sum() / bf_cycles);
  }
  absl::StrAppendFormat(&out, "\tLast queue length: %u\n", s.bf_queue_len());
  if (bf_cycles > 0) {
    absl::StrAppendFormat(&out, "\tQueue length mean: %u\n", s.bf_queue_len_sum() / bf_cycles);
  }
  absl::StrAppendFormat(&out, "\tLast table size: %u\n", s.bf_table_size());
  if (bf_cycles > 0) {
    absl::StrAppendFormat(&out, "\tMean table size: %u\n", s.bf_table_size_sum() / bf_cycles);
  }

  absl::StrAppendFormat(&out, "\nLatency for 1000 calls to gettimeofday(): %d microseconds\n",
                        s.gettimeofday_latency());

  absl::StrAppend(&out, "\nRemote Procedure Call statistics by message type\n");
  for (const v1::RpcTypeStat& rpc : s.rpcs_by_type()) {
    absl::StrAppendFormat(&out, "\t%-40s(%5u) count:%-6u ave_time:%-6u total_time:%u\n", rpc.name(),
                          rpc.type_id(), rpc.count(), Average(rpc.total_time(), rpc.count()),
                          rpc.total_time());
  }
  absl::StrAppend(&out, "\nRemote Procedure Call statistics by user\n");
  for (const v1::RpcUserStat& user : s.rpcs_by_user()) {
    absl::StrAppendFormat(&out, "\t%-16s(%8u) count:%-6u ave_time:%-6u total_time:%u\n",
                          UserName(user), user.uid(), user.count(),
                          Average(user.total_time(), user.count()), user.total_time());
  }
  // Skiff queues no RPCs for later: each is handled as it arrives.
  absl::StrAppend(&out, "\nPending RPC statistics\n\tNo pending RPCs\n");

  // Skiff's own sections, after all of Slurm's (issue 48): what Skiff adds
  // around a job's run, and each script and burst_buffer.lua hook by name.
  auto times = [&out](const std::string& label, const v1::CallTimeStat& call) {
    absl::StrAppendFormat(&out, "\t%-40s count:%-6u ave_time:%-8u max_time:%-8u total_time:%u\n",
                          label, call.count(), Average(call.total_time(), call.count()),
                          call.max_time(), call.total_time());
  };
  absl::StrAppend(&out, "\nJob overhead statistics (microseconds)\n");
  times("Start (allocated to launched)", s.job_start_overhead());
  times("End (ended on node to final state)", s.job_end_overhead());
  absl::StrAppend(&out, "\nScript daemon call statistics (microseconds)\n");
  if (s.scriptd_calls().empty()) absl::StrAppend(&out, "\tNo calls\n");
  for (const v1::CallTimeStat& call : s.scriptd_calls()) times(call.name(), call);
  return out;
}

std::string FormatSdiagJson(const v1::GetStatsReply& s) {
  client::Json document = client::SlurmJsonEnvelope();
  client::Json statistics = client::Json::Object();
  // slurmrestd sets the two lists first, then the figures, in this order.
  client::Json by_type = client::Json::Array();
  for (const v1::RpcTypeStat& rpc : s.rpcs_by_type()) {
    client::Json entry = client::Json::Object();
    entry.Add("message_type", rpc.name());
    entry.Add("type_id", rpc.type_id());
    entry.Add("count", rpc.count());
    entry.Add("average_time", Average(rpc.total_time(), rpc.count()));
    entry.Add("total_time", rpc.total_time());
    by_type.Push(std::move(entry));
  }
  client::Json by_user = client::Json::Array();
  for (const v1::RpcUserStat& user : s.rpcs_by_user()) {
    client::Json entry = client::Json::Object();
    entry.Add("user", UserName(user));
    entry.Add("user_id", user.uid());
    entry.Add("count", user.count());
    entry.Add("average_time", Average(user.total_time(), user.count()));
    entry.Add("total_time", user.total_time());
    by_user.Push(std::move(entry));
  }
  statistics.Add("rpcs_by_message_type", std::move(by_type));
  statistics.Add("rpcs_by_user", std::move(by_user));
  const uint64_t cycles = s.schedule_cycle_counter();
  const uint64_t bf_cycles = s.bf_cycle_counter();
  const int64_t span = s.req_time() - s.req_time_start();
  statistics.Add("parts_packed", 1);
  statistics.Add("req_time", s.req_time());
  statistics.Add("req_time_start", s.req_time_start());
  statistics.Add("server_thread_count", s.server_thread_count());
  statistics.Add("agent_queue_size", s.agent_queue_size());
  statistics.Add("agent_count", s.agent_count());
  statistics.Add("agent_thread_count", s.agent_thread_count());
  statistics.Add("dbd_agent_queue_size", s.dbd_agent_queue_size());
  statistics.Add("gettimeofday_latency", s.gettimeofday_latency());
  statistics.Add("schedule_cycle_max", s.schedule_cycle_max());
  statistics.Add("schedule_cycle_last", s.schedule_cycle_last());
  statistics.Add("schedule_cycle_total", s.schedule_cycle_counter());
  statistics.Add("schedule_cycle_mean", Average(s.schedule_cycle_sum(), cycles));
  statistics.Add("schedule_cycle_mean_depth", Average(s.schedule_cycle_depth(), cycles));
  statistics.Add("schedule_cycle_per_minute",
                 span > 60 ? static_cast<uint32_t>(cycles / (span / 60)) : 0u);
  statistics.Add("schedule_queue_length", s.schedule_queue_len());
  statistics.Add("jobs_submitted", s.jobs_submitted());
  statistics.Add("jobs_started", s.jobs_started());
  statistics.Add("jobs_completed", s.jobs_completed());
  statistics.Add("jobs_canceled", s.jobs_canceled());
  statistics.Add("jobs_failed", s.jobs_failed());
  statistics.Add("jobs_pending", s.jobs_pending());
  statistics.Add("jobs_running", s.jobs_running());
  statistics.Add("job_states_ts", s.job_states_ts());
  statistics.Add("bf_backfilled_jobs", s.bf_backfilled_jobs());
  statistics.Add("bf_last_backfilled_jobs", s.bf_last_backfilled_jobs());
  statistics.Add("bf_backfilled_het_jobs", s.bf_backfilled_het_jobs());
  statistics.Add("bf_cycle_counter", s.bf_cycle_counter());
  statistics.Add("bf_cycle_mean", Average(s.bf_cycle_sum(), bf_cycles));
  statistics.Add("bf_depth_mean", Average(s.bf_depth_sum(), bf_cycles));
  statistics.Add("bf_depth_mean_try", Average(s.bf_depth_try_sum(), bf_cycles));
  statistics.Add("bf_cycle_last", s.bf_cycle_last());
  statistics.Add("bf_cycle_max", s.bf_cycle_max());
  statistics.Add("bf_queue_len", s.bf_queue_len());
  statistics.Add("bf_queue_len_mean", Average(s.bf_queue_len_sum(), bf_cycles));
  statistics.Add("bf_table_size", s.bf_table_size());
  statistics.Add("bf_table_size_mean", Average(s.bf_table_size_sum(), bf_cycles));
  statistics.Add("bf_when_last_cycle", s.bf_when_last_cycle());
  statistics.Add("bf_active", s.bf_active());
  document.Add("statistics", std::move(statistics));
  return document.Dump();
}

}  // namespace skiff::cli
