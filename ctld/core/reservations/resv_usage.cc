#include "ctld/core/reservations/resv_usage.h"

#include <algorithm>
#include <map>
#include <utility>

namespace skiff::ctld {

std::vector<ResvPeriod> ResvPeriods(std::vector<ResvEvent> events) {
  std::stable_sort(events.begin(), events.end(), [](const ResvEvent& a, const ResvEvent& b) {
    return a.name != b.name ? a.name < b.name : a.time < b.time;
  });
  std::vector<ResvPeriod> out;
  for (size_t i = 0; i < events.size(); ++i) {
    ResvEvent& event = events[i];
    if (!event.resv) continue;
    ResvPeriod period;
    period.from = event.created ? std::min(event.time, event.resv->start) : event.time;
    if (i + 1 < events.size() && events[i + 1].name == event.name) {
      period.until = events[i + 1].time;
    }
    period.resv = std::move(*event.resv);
    period.tres = std::move(event.tres);
    out.push_back(std::move(period));
  }
  return out;
}

TresCounts ResvTres(const AdvanceReservation& resv, const std::vector<ResvNodeTres>& nodes) {
  std::map<std::string, const ResvNodeTres*> by_name;
  for (const ResvNodeTres& node : nodes) by_name[node.name] = &node;
  TresCounts out;
  for (size_t k = 0; k < resv.nodes.size(); ++k) {
    auto it = by_name.find(resv.nodes[k]);
    if (it == by_name.end()) continue;
    const ResvNodeTres& node = *it->second;
    double gpus = node.gpus;
    if (resv.WholeNodes()) {
      out["cpu"] += node.cpus;
      if (node.mem_mb > 0) out["mem"] += node.mem_mb;
      out["node"] += 1;
    } else {
      gpus = k < resv.node_gpus.size() ? resv.node_gpus[k] : 0;
    }
    if (gpus <= 0) continue;
    out["gres/gpu"] += gpus;
    if (!node.gpu_type.empty()) out["gres/gpu:" + node.gpu_type] += gpus;
  }
  return out;
}

ResvUsage SumResvUsage(const std::vector<ResvPeriod>& periods, const std::vector<ResvJobRun>& runs,
                       int64_t start, int64_t end, int64_t now, const ResvCalendar& calendar) {
  std::multimap<std::string, const ResvJobRun*> runs_in;
  for (const ResvJobRun& run : runs) {
    if (!run.reservation.empty()) runs_in.emplace(run.reservation, &run);
  }
  ResvUsage usage;
  for (const ResvPeriod& period : periods) {
    const AdvanceReservation& resv = period.resv;
    // IGNORE_JOBS: jobs outside it may run on what it holds, so its time says
    // nothing about use; its jobs count as any other's (Slurm's rollup).
    if (resv.HasFlag(kResvIgnoreJobs) || resv.HasFlag(kResvTimeFloat)) continue;
    const int64_t lo = std::max(start, period.from);
    const int64_t hi = std::min({end, period.until, now});
    if (hi <= lo) continue;
    TresCounts& held = resv.HasFlag(kResvMaint) ? usage.planned_down : usage.allocated;
    const auto [first_run, last_run] = runs_in.equal_range(resv.name);
    for (const ResvWindow& window : WindowsBetween(resv, lo, hi, calendar)) {
      const int64_t from = std::max(window.start, lo);
      const int64_t to = std::min(window.end, hi);
      if (to <= from) continue;
      AddTresUsage(period.tres, static_cast<double>(to - from), &held);
      for (auto it = first_run; it != last_run; ++it) {
        const ResvJobRun& run = *it->second;
        const int64_t run_from = std::max(from, run.start);
        const int64_t run_to = std::min(to, run.end == 0 ? now : run.end);
        if (run.start > 0 && run_to > run_from) {
          AddTresUsage(run.tres, static_cast<double>(run_to - run_from), &usage.bundled);
        }
      }
    }
  }
  return usage;
}

}  // namespace skiff::ctld
