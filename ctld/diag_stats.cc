#include "ctld/diag_stats.h"

#include <sys/time.h>

#include <algorithm>
#include <chrono>
#include <optional>

namespace skiff::ctld {
namespace {

constexpr int64_t kDay = 86400;

// The next midnight UTC after `now` (Slurm's "now - (now % 86400) + 86400").
int64_t NextMidnight(int64_t now) { return now - (now % kDay) + kDay; }

uint32_t Clamp32(int64_t value) {
  if (value < 0) return 0;
  return static_cast<uint32_t>(std::min<int64_t>(value, UINT32_MAX));
}

}  // namespace

DiagStats::DiagStats(int64_t now) {
  absl::MutexLock lock(&mu_);
  data_.req_time_start = now;
  next_daily_reset_ = NextMidnight(now);
  // As slurmctld's table: root's entry is always there, first.
  data_.rpcs_by_user.push_back({0, 0, 0});
  user_index_[0] = 0;
}

void DiagStats::JobsSubmitted(uint32_t count) {
  absl::MutexLock lock(&mu_);
  data_.jobs_submitted += count;
}

void DiagStats::CountJobs(const JobTally& tally) {
  if (tally.empty()) return;
  absl::MutexLock lock(&mu_);
  data_.jobs_started += tally.started;
  data_.jobs_completed += tally.completed;
  data_.jobs_canceled += tally.canceled;
  data_.jobs_failed += tally.failed;
  data_.bf_backfilled_jobs += tally.backfilled;
  data_.bf_last_backfilled_jobs += tally.backfilled;
}

void DiagStats::SetJobStates(uint32_t pending, uint32_t running, int64_t when) {
  absl::MutexLock lock(&mu_);
  data_.jobs_pending = pending;
  data_.jobs_running = running;
  data_.job_states_ts = when;
}

void DiagStats::MainCycle(int64_t micros, uint32_t depth, uint32_t queue_length) {
  const uint32_t us = Clamp32(micros);
  absl::MutexLock lock(&mu_);
  data_.schedule_cycle_max = std::max(data_.schedule_cycle_max, us);
  data_.schedule_cycle_last = us;
  data_.schedule_cycle_sum += us;
  ++data_.schedule_cycle_counter;
  data_.schedule_cycle_depth += depth;
  data_.schedule_queue_len = queue_length;
}

void DiagStats::BackfillCycle(const BackfillCycleStats& cycle) {
  const uint32_t us = Clamp32(cycle.micros);
  absl::MutexLock lock(&mu_);
  ++data_.bf_cycle_counter;
  data_.bf_cycle_sum += us;
  data_.bf_cycle_last = us;
  data_.bf_cycle_max = std::max(data_.bf_cycle_max, us);
  data_.bf_last_depth = cycle.depth;
  data_.bf_last_depth_try = cycle.tried;
  data_.bf_depth_sum += cycle.depth;
  data_.bf_depth_try_sum += cycle.tried;
  data_.bf_queue_len = cycle.queue_length;
  data_.bf_queue_len_sum += cycle.queue_length;
  data_.bf_table_size = cycle.table_size;
  data_.bf_table_size_sum += cycle.table_size;
  data_.bf_when_last_cycle = cycle.when;
}

void DiagStats::RpcStarted() { rpcs_in_progress_.fetch_add(1, std::memory_order_relaxed); }

void DiagStats::RpcFinished(const RpcType& type, int64_t uid, int64_t micros) {
  rpcs_in_progress_.fetch_sub(1, std::memory_order_relaxed);
  if (uid < 0) return;
  const uint64_t us = micros > 0 ? static_cast<uint64_t>(micros) : 0;
  absl::MutexLock lock(&mu_);
  auto type_it = type_index_.find(type.name);
  if (type_it == type_index_.end()) {
    type_it = type_index_.emplace(type.name, data_.rpcs_by_type.size()).first;
    data_.rpcs_by_type.push_back({type, 0, 0});
  }
  RpcCount& by_type = data_.rpcs_by_type[type_it->second];
  ++by_type.count;
  by_type.total_micros += us;
  const uint32_t user = static_cast<uint32_t>(uid);
  auto user_it = user_index_.find(user);
  if (user_it == user_index_.end()) {
    user_it = user_index_.emplace(user, data_.rpcs_by_user.size()).first;
    data_.rpcs_by_user.push_back({user, 0, 0});
  }
  UserCount& by_user = data_.rpcs_by_user[user_it->second];
  ++by_user.count;
  by_user.total_micros += us;
}

void DiagStats::CallTimes::Add(uint64_t micros) {
  ++count;
  total_micros += micros;
  max_micros = std::max(max_micros, micros);
}

void DiagStats::ScriptFinished(const std::string& name, int64_t micros) {
  const uint64_t us = micros > 0 ? static_cast<uint64_t>(micros) : 0;
  absl::MutexLock lock(&mu_);
  auto it = script_index_.find(name);
  if (it == script_index_.end()) {
    it = script_index_.emplace(name, data_.scripts.size()).first;
    data_.scripts.push_back({name});
  }
  data_.scripts[it->second].Add(us);
}

void DiagStats::JobTransitions(const std::vector<JobTransition>& transitions, int64_t micros_now) {
  if (transitions.empty()) return;
  absl::MutexLock lock(&mu_);
  for (const JobTransition& t : transitions) {
    auto took = [&](std::map<uint64_t, int64_t>& since) -> std::optional<uint64_t> {
      auto it = since.find(t.job_id);
      if (it == since.end()) return std::nullopt;
      const int64_t micros = std::max<int64_t>(0, micros_now - it->second);
      since.erase(it);
      return static_cast<uint64_t>(micros);
    };
    if (t.from == JobState::kPending && t.to == JobState::kConfiguring) {
      starting_since_[t.job_id] = micros_now;
    } else if (t.from == JobState::kConfiguring && t.to == JobState::kRunning) {
      if (std::optional<uint64_t> us = took(starting_since_)) data_.job_start.Add(*us);
    } else if (t.to == JobState::kCompleting) {
      starting_since_.erase(t.job_id);
      ending_since_[t.job_id] = micros_now;
    } else if (IsFinal(t.to)) {
      starting_since_.erase(t.job_id);
      if (std::optional<uint64_t> us = took(ending_since_)) data_.job_end.Add(*us);
    } else if (t.to == JobState::kPending) {  // requeued
      starting_since_.erase(t.job_id);
      ending_since_.erase(t.job_id);
    }
  }
}

DiagStats::Snapshot DiagStats::Get(int64_t now) const {
  Snapshot out;
  {
    absl::MutexLock lock(&mu_);
    out = data_;
  }
  out.req_time = now;
  out.server_thread_count = Clamp32(rpcs_in_progress_.load(std::memory_order_relaxed));
  return out;
}

void DiagStats::ResetCountersLocked(int64_t now) {
  // Slurm's reset_stats(): the last cycle's time and queue length, the job
  // state counts and backfill's last start and table size stay.
  data_.schedule_cycle_max = 0;
  data_.schedule_cycle_sum = 0;
  data_.schedule_cycle_counter = 0;
  data_.schedule_cycle_depth = 0;
  data_.jobs_submitted = 0;
  data_.jobs_started = 0;
  data_.jobs_completed = 0;
  data_.jobs_canceled = 0;
  data_.jobs_failed = 0;
  data_.bf_last_backfilled_jobs = 0;
  data_.bf_cycle_counter = 0;
  data_.bf_cycle_sum = 0;
  data_.bf_cycle_last = 0;
  data_.bf_depth_sum = 0;
  data_.bf_depth_try_sum = 0;
  data_.bf_queue_len = 0;
  data_.bf_queue_len_sum = 0;
  data_.bf_table_size_sum = 0;
  data_.bf_cycle_max = 0;
  data_.bf_last_depth = 0;
  data_.bf_last_depth_try = 0;
  data_.job_start = {"start"};
  data_.job_end = {"end"};
  data_.scripts.clear();
  script_index_.clear();
  data_.req_time_start = now;
}

void DiagStats::Reset(int64_t now) {
  absl::MutexLock lock(&mu_);
  ResetCountersLocked(now);
  data_.bf_backfilled_jobs = 0;  // only an explicit reset clears the total
  data_.rpcs_by_type.clear();
  type_index_.clear();
  data_.rpcs_by_user.assign(1, {0, 0, 0});
  user_index_.clear();
  user_index_[0] = 0;
}

bool DiagStats::DailyReset(int64_t now) {
  absl::MutexLock lock(&mu_);
  if (now < next_daily_reset_) return false;
  next_daily_reset_ = NextMidnight(now);
  ResetCountersLocked(now);
  return true;
}

uint32_t MeasureClockLatency() {
  const auto start = std::chrono::steady_clock::now();
  struct timeval tv;
  for (int i = 0; i < 1000; ++i) gettimeofday(&tv, nullptr);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  return Clamp32(std::chrono::duration_cast<std::chrono::microseconds>(elapsed).count());
}

}  // namespace skiff::ctld
