// restd's Prometheus paths (issue 36): /metrics, /metrics/jobs,
// /metrics/nodes, /metrics/partitions, /metrics/scheduler and
// /metrics/jobs-users-accts (Slurm 25.11's paths; metrics_core.h says what
// each holds). Like every restd path they answer only an authenticated
// request (X-SLURM-USER-TOKEN, Authorization: Bearer, or the Unix socket's
// peer), and ctld answers each call as that request's user.
//
// The handlers make their ctld calls concurrently (one thread per call, the
// channel is thread-safe), so an answer takes the slowest call's time rather
// than their sum.
#ifndef SKIFF_RESTD_METRICS_METRICS_PATHS_H_
#define SKIFF_RESTD_METRICS_METRICS_PATHS_H_

#include "restd/router.h"

namespace skiff::restd {

void AddMetricsPaths(Router& router);

}  // namespace skiff::restd

#endif  // SKIFF_RESTD_METRICS_METRICS_PATHS_H_
