#include "noded/steps/step_record.h"

#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/hostlist.h"

namespace skiff::noded {
namespace {

// "100M", "2G": sacct's memory TRES.
std::string MemTres(uint64_t mb) {
  if (mb % (1024 * 1024) == 0) return absl::StrCat(mb / (1024 * 1024), "T");
  if (mb % 1024 == 0) return absl::StrCat(mb / 1024, "G");
  return absl::StrCat(mb, "M");
}

}  // namespace

v1::AcctStep StepRecordAtStart(const v1::StepRequest& request, const StepGrant& grant,
                               int64_t now) {
  v1::AcctStep record;
  record.set_step_id(std::to_string(grant.step_id));
  std::string name = request.name();
  if (name.empty() && request.argv_size() > 0) {
    const std::string& command = request.argv(0);
    name = command.substr(command.rfind('/') == std::string::npos ? 0 : command.rfind('/') + 1);
  }
  record.set_name(name);
  record.set_state("RUNNING");
  record.set_start_time(now);
  int cpus = 0, gpus = 0;
  uint64_t memory_mb = 0;
  std::vector<std::string> nodes;
  for (const StepNodeShare& share : grant.share.nodes) {
    cpus += share.cpus;
    gpus += static_cast<int>(share.gpus.size());
    memory_mb += share.memory_mb;
    nodes.push_back(grant.nodes[share.node].name);
  }
  record.set_alloc_cpus(cpus);
  record.set_num_nodes(static_cast<int>(nodes.size()));
  record.set_node_list(CompressHostlist(nodes));
  record.set_ntasks(request.ntasks());
  std::map<std::string, std::string> tres{{"cpu", std::to_string(cpus)},
                                          {"node", std::to_string(nodes.size())}};
  if (memory_mb > 0) tres["mem"] = MemTres(memory_mb);
  if (gpus > 0) tres["gres/gpu"] = std::to_string(gpus);
  std::vector<std::string> parts;
  for (const auto& [key, value] : tres) parts.push_back(absl::StrCat(key, "=", value));
  record.set_alloc_tres(absl::StrJoin(parts, ","));
  record.set_req_tres(record.alloc_tres());
  record.set_srun_host(request.srun_host());
  record.set_srun_pid(request.srun_pid());
  return record;
}

void StepOutcome::Add(int task_exit_code, int task_signal, bool task_failed) {
  if (task_exit_code > exit_code) exit_code = task_exit_code;
  if (task_signal != 0) signal = task_signal;
  failed = failed || task_failed;
}

void StepOutcome::AddUsage(int task_id, const std::string& node, int64_t task_user_cpu_usec,
                           int64_t task_system_cpu_usec, int64_t task_max_rss_kb) {
  ++tasks_measured;
  user_cpu_usec += task_user_cpu_usec;
  system_cpu_usec += task_system_cpu_usec;
  rss_total_kb += task_max_rss_kb;
  if (task_max_rss_kb > max_rss_kb) {
    max_rss_kb = task_max_rss_kb;
    max_rss_node = node;
    max_rss_task = task_id;
  }
}

void FinishStepRecord(const StepOutcome& outcome, int64_t now, v1::AcctStep* record) {
  record->set_end_time(now > record->start_time() ? now : record->start_time());
  if (outcome.tasks_measured > 0) {
    record->set_has_usage(true);
    record->set_user_cpu_usec(outcome.user_cpu_usec);
    record->set_system_cpu_usec(outcome.system_cpu_usec);
    record->set_max_rss_kb(outcome.max_rss_kb);
    record->set_max_rss_node(outcome.max_rss_node);
    record->set_max_rss_task(outcome.max_rss_task);
    record->set_ave_rss_kb(outcome.rss_total_kb / outcome.tasks_measured);
  }
  record->set_exit_code(outcome.exit_code);
  record->set_exit_signal(outcome.signal);
  if (outcome.timed_out) {
    record->set_state("TIMEOUT");
  } else if (outcome.cancelled) {
    record->set_state("CANCELLED");
  } else if (outcome.exit_code != 0 || outcome.signal != 0 || outcome.failed) {
    record->set_state("FAILED");
  } else {
    record->set_state("COMPLETED");
  }
}

}  // namespace skiff::noded
