#include "ctld/core/gpu_idle/gpu_watch.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace skiff::ctld {
namespace {

// "30 min", or "15 s" for a time that is not whole minutes.
std::string Duration(int64_t seconds) {
  return seconds % 60 == 0 ? absl::StrCat(seconds / 60, " min") : absl::StrCat(seconds, " s");
}

}  // namespace

void ObserveGpus(const JobGpuReport& report, int threshold_percent, int64_t now, GpuWatch* watch) {
  std::vector<GpuUsage>& usage = watch->usage;
  usage.erase(std::remove_if(usage.begin(), usage.end(),
                             [&](const GpuUsage& g) { return g.node == report.node; }),
              usage.end());
  for (GpuUsage gpu : report.gpus) {
    gpu.node = report.node;
    usage.push_back(std::move(gpu));
  }
  const int64_t previous = watch->last_report != 0 ? watch->last_report : now;
  if (report.batch_host) watch->last_report = now;
  if (threshold_percent <= 0 || report.recent_peaks.empty()) return;
  bool all_sampled = true;
  for (int peak : report.recent_peaks) {
    if (peak >= threshold_percent) {
      watch->idle_since = 0;  // busy: whatever was warned is forgotten
      watch->warned_at = 0;
      watch->last_busy = now;
      return;
    }
    if (peak < 0) all_sampled = false;
  }
  if (report.batch_host && all_sampled && watch->idle_since == 0) {
    watch->idle_since = std::max(previous, watch->last_busy);
  }
}

IdleStep NextIdleStep(const GpuIdlePolicy& policy, const GpuWatch& watch, int64_t now) {
  if (!policy.enabled || watch.idle_since == 0) return IdleStep::kNone;
  if (watch.warned_at == 0) {
    return now - watch.idle_since >= policy.window_seconds ? IdleStep::kWarn : IdleStep::kNone;
  }
  if (policy.action == GpuIdlePolicy::Action::kNotify) return IdleStep::kNone;
  return now - watch.warned_at >= policy.grace_seconds ? IdleStep::kAct : IdleStep::kNone;
}

const GpuIdlePolicy* GpuIdlePolicyFor(const SkiffConfig& config, const std::string& partition,
                                      const std::string& qos) {
  const GpuIdlePolicy* policy = &config.gpu_idle_policy;
  for (const PartitionConfig& p : config.partitions) {
    if (p.name == partition && p.gpu_idle_policy) policy = &*p.gpu_idle_policy;
  }
  if (!policy->enabled) return nullptr;
  if (std::find(policy->exempt_qos.begin(), policy->exempt_qos.end(), qos) !=
      policy->exempt_qos.end()) {
    return nullptr;
  }
  return policy;
}

std::string GpuIdleWarning(const GpuIdlePolicy& policy, const GpuWatch& watch,
                           std::string (*format_time)(int64_t)) {
  std::string text =
      absl::StrCat("GPUs idle: every GPU of the job under ", policy.threshold_percent, "% since ",
                   format_time(watch.idle_since));
  const int64_t at = watch.warned_at + policy.grace_seconds;
  switch (policy.action) {
    case GpuIdlePolicy::Action::kNotify:
      return text;
    case GpuIdlePolicy::Action::kRequeue:
      return absl::StrCat(text, "; it will be requeued at ", format_time(at),
                          " unless one is used");
    case GpuIdlePolicy::Action::kCancel:
      return absl::StrCat(text, "; it will be cancelled at ", format_time(at),
                          " unless one is used");
  }
  return text;
}

std::string GpuIdleReason(const GpuIdlePolicy& policy) {
  return absl::StrCat("GPUs idle under ", policy.threshold_percent, "% for ",
                      Duration(policy.window_seconds + policy.grace_seconds));
}

}  // namespace skiff::ctld
