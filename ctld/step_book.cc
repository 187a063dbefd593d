#include "ctld/step_book.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>

namespace skiff {

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

RecordRow StepRecordRow(uint64_t job_id, const v1::AcctStep& step) {
  return RecordRow{kStepRecordKind, StepRecordKey(job_id, step.step_id()),
                   step.SerializeAsString()};
}

std::vector<v1::AcctStep> StepsFromRecords(const std::vector<std::string>& blobs) {
  std::vector<v1::AcctStep> steps;
  for (const std::string& blob : blobs) {
    v1::AcctStep step;
    if (step.ParseFromString(blob)) steps.push_back(std::move(step));
  }
  return steps;
}

v1::AcctStep SettleStep(v1::AcctStep step, bool job_done, int64_t job_end_time) {
  if (job_done && step.end_time() == 0) {
    step.set_state("FAILED");
    step.set_end_time(job_end_time > step.start_time() ? job_end_time : step.start_time());
    if (step.exit_code() == 0 && step.exit_signal() == 0) step.set_exit_code(1);
  }
  return step;
}

void StepBook::Apply(uint64_t job_id, const v1::AcctStep& step) {
  const std::string key = StepRecordKey(job_id, step.step_id());
  if (step.end_time() != 0) {
    steps_.erase(key);
  } else {
    steps_[key] = {job_id, step};
  }
}

std::vector<std::pair<uint64_t, v1::AcctStep>> StepBook::Running(
    const std::set<uint64_t>* jobs) const {
  std::vector<std::pair<uint64_t, v1::AcctStep>> out;
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

}  // namespace skiff
