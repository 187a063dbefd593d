#include "ctld/core/accounting/step_book.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>

namespace skiff::ctld {

bool operator==(const StepRecord& a, const StepRecord& b) {
  return a.step_id == b.step_id && a.name == b.name && a.state == b.state &&
         a.exit_code == b.exit_code && a.exit_signal == b.exit_signal &&
         a.start_time == b.start_time && a.end_time == b.end_time && a.alloc_cpus == b.alloc_cpus &&
         a.num_nodes == b.num_nodes && a.node_list == b.node_list && a.ntasks == b.ntasks &&
         a.alloc_tres == b.alloc_tres && a.req_tres == b.req_tres && a.suspended == b.suspended &&
         a.srun_host == b.srun_host && a.srun_pid == b.srun_pid && a.has_usage == b.has_usage &&
         a.user_cpu_usec == b.user_cpu_usec && a.system_cpu_usec == b.system_cpu_usec &&
         a.max_rss_kb == b.max_rss_kb && a.max_rss_node == b.max_rss_node &&
         a.max_rss_task == b.max_rss_task && a.ave_rss_kb == b.ave_rss_kb;
}

std::string StepRecordKey(uint64_t job_id, const std::string& step_id) {
  char key[64];
  char* end = nullptr;
  const unsigned long number = std::strtoul(step_id.c_str(), &end, 10);
  if (!step_id.empty() && end != nullptr && *end == '\0') {
    std::snprintf(key, sizeof(key), "%020" PRIu64 ".%010lu", job_id, number);
    return key;
  }
  std::snprintf(key, sizeof(key), "%020" PRIu64 ".", job_id);
  return std::string(key) + "~" + step_id;  // '~' sorts after the digits
}

std::pair<std::string, std::string> StepRecordRange(uint64_t job_id) {
  char from[32], to[32];
  std::snprintf(from, sizeof(from), "%020" PRIu64 ".", job_id);
  std::snprintf(to, sizeof(to), "%020" PRIu64 "/", job_id);  // '/' follows '.'
  return {from, to};
}

StepRecord SettleStep(StepRecord step, bool job_done, int64_t job_end_time) {
  if (job_done && step.end_time == 0) {
    step.state = "FAILED";
    step.end_time = job_end_time > step.start_time ? job_end_time : step.start_time;
    if (step.exit_code == 0 && step.exit_signal == 0) step.exit_code = 1;
  }
  return step;
}

void StepBook::Apply(uint64_t job_id, const StepRecord& step) {
  const std::string key = StepRecordKey(job_id, step.step_id);
  if (step.end_time != 0) {
    steps_.erase(key);
  } else {
    steps_[key] = {job_id, step};
  }
}

std::vector<std::pair<uint64_t, StepRecord>> StepBook::Running(
    const std::set<uint64_t>* jobs) const {
  std::vector<std::pair<uint64_t, StepRecord>> out;
  for (const auto& [key, entry] : steps_) {
    if (jobs == nullptr || jobs->count(entry.first) != 0) out.push_back(entry);
  }
  return out;
}

void StepBook::Retain(const std::set<uint64_t>& running_jobs) {
  for (auto it = steps_.begin(); it != steps_.end();) {
    if (running_jobs.count(it->second.first) == 0) {
      it = steps_.erase(it);
    } else {
      ++it;
    }
  }
}

std::optional<StepBook::Entry> StepBook::Find(const std::string& key) const {
  auto it = steps_.find(key);
  if (it == steps_.end()) return std::nullopt;
  return it->second;
}

void StepBook::Restore(const std::string& key, std::optional<Entry> entry) {
  if (entry) {
    steps_[key] = std::move(*entry);
  } else {
    steps_.erase(key);
  }
}

}  // namespace skiff::ctld
