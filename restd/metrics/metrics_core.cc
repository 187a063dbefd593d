#include "restd/metrics/metrics_core.h"

#include <string>
#include <vector>

#include "restd/metrics/exposition.h"
#include "restd/metrics/metrics_internal.h"

namespace skiff::restd {
namespace {

void AddRoundTrips(const std::vector<CtldRoundTrip>& round_trips, Exposition& out) {
  constexpr char kHelp[] = "restd's round trip to ctld for this answer's calls, by RPC";
  out.Declare("skiff_restd_ctld_round_trip_seconds", kHelp, MetricType::kGauge);
  for (const CtldRoundTrip& trip : round_trips) {
    out.Gauge("skiff_restd_ctld_round_trip_seconds", kHelp, trip.seconds, {{"rpc", trip.rpc}});
  }
}

}  // namespace

MetricsNeeds NeedsOf(MetricsEndpoint endpoint) {
  MetricsNeeds needs;
  switch (endpoint) {
    case MetricsEndpoint::kAll:
      needs.jobs = needs.nodes = needs.partitions = needs.stats = needs.accounts = needs.qos = true;
      break;
    case MetricsEndpoint::kJobs:
    case MetricsEndpoint::kJobsUsersAccts:
      needs.jobs = true;
      break;
    case MetricsEndpoint::kNodes:
      needs.nodes = needs.completing_jobs = true;
      break;
    case MetricsEndpoint::kPartitions:
      needs.partitions = needs.jobs = true;
      break;
    case MetricsEndpoint::kScheduler:
      needs.stats = true;
      break;
  }
  return needs;
}

std::string MetricsFrom(MetricsEndpoint endpoint, const MetricsSnapshot& snapshot) {
  Exposition out;
  const bool all = endpoint == MetricsEndpoint::kAll;
  if ((all || endpoint == MetricsEndpoint::kJobs) && snapshot.jobs) {
    metrics_internal::AddJobMetrics(*snapshot.jobs, out);
  }
  if ((all || endpoint == MetricsEndpoint::kNodes) && snapshot.nodes) {
    metrics_internal::AddNodeMetrics(*snapshot.nodes, snapshot, out);
  }
  if ((all || endpoint == MetricsEndpoint::kPartitions) && snapshot.partitions) {
    metrics_internal::AddPartitionMetrics(*snapshot.partitions, snapshot, out);
  }
  if ((all || endpoint == MetricsEndpoint::kScheduler) && snapshot.stats) {
    metrics_internal::AddSchedulerMetrics(*snapshot.stats, out);
  }
  if ((all || endpoint == MetricsEndpoint::kJobsUsersAccts) && snapshot.jobs) {
    metrics_internal::AddUserAccountMetrics(*snapshot.jobs, out);
  }
  if (all) {
    metrics_internal::AddGpuMetrics(snapshot, out);
    if (snapshot.accounts) {
      metrics_internal::AddAccountGpuMetrics(*snapshot.accounts,
                                             snapshot.qos ? &*snapshot.qos : nullptr, out);
    }
    if (snapshot.jobs) {
      metrics_internal::AddPendingReasons(*snapshot.jobs, out);
      metrics_internal::AddJobGpuMetrics(*snapshot.jobs, out);
    }
    if (snapshot.stats) metrics_internal::AddSkiffSchedulerMetrics(*snapshot.stats, out);
    AddRoundTrips(snapshot.round_trips, out);
  }
  return out.Text();
}

}  // namespace skiff::restd
