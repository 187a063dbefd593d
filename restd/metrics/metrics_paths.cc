#include "restd/metrics/metrics_paths.h"

#include <chrono>
#include <functional>
#include <future>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "restd/metrics/exposition.h"
#include "restd/metrics/metrics_core.h"

namespace skiff::restd {
namespace {

// A snapshot's ctld calls, each on its own thread.
class SnapshotFetcher {
 public:
  explicit SnapshotFetcher(RestCall& call) : call_(call) {}

  // Starts `method` with `request`; its reply goes into `reply` (engaged now).
  // `reply` must outlive Finish.
  template <typename Request, typename Reply>
  void Start(const char* rpc,
             grpc::Status (v1::Ctld::Stub::*method)(grpc::ClientContext*, const Request&, Reply*),
             Request request, std::optional<Reply>& reply) {
    Reply* out = &reply.emplace();
    RestCall& call = call_;
    calls_.push_back(
        Call{rpc, [&reply] { reply.reset(); },
             std::async(std::launch::async, [&call, method, request = std::move(request), out]() {
               const auto start = std::chrono::steady_clock::now();
               absl::Status status = call.Call(method, request, out);
               return std::make_pair(
                   std::move(status),
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
             })});
  }

  // Waits for every call, in the order started, and notes each one's round
  // trip in `snapshot`. The first failure other than PermissionDenied is the
  // answer's; a call ctld refuses this user leaves its reply out (unset).
  absl::Status Finish(MetricsSnapshot& snapshot) {
    absl::Status failure;
    for (size_t i = 0; i < calls_.size(); ++i) {
      auto [status, seconds] = calls_[i].result.get();
      if (status.ok()) {
        snapshot.round_trips.push_back({calls_[i].rpc, seconds});
      } else if (absl::IsPermissionDenied(status)) {
        calls_[i].drop();
      } else if (failure.ok()) {
        failure = std::move(status);
      }
    }
    return failure;
  }

 private:
  struct Call {
    std::string rpc;
    std::function<void()> drop;                           // unsets the call's reply
    std::future<std::pair<absl::Status, double>> result;  // the status, the round trip's seconds
  };

  RestCall& call_;
  std::vector<Call> calls_;
};

HttpResponse Serve(RestCall& call, MetricsEndpoint endpoint) {
  const MetricsNeeds needs = NeedsOf(endpoint);
  MetricsSnapshot snapshot;
  SnapshotFetcher fetcher(call);
  if (needs.jobs || needs.completing_jobs) {
    v1::GetJobsRequest request;
    // What squeue reads: ctld's memory only, an array's pending tasks as one record.
    request.set_summary(true);
    request.set_collapse_pending_arrays(true);
    if (!needs.jobs) {
      request.add_states(v1::COMPLETING);
      request.add_states(v1::STAGE_OUT);
    }
    fetcher.Start("GetJobs", &v1::Ctld::Stub::GetJobs, std::move(request), snapshot.jobs);
  }
  if (needs.nodes) {
    fetcher.Start("GetNodes", &v1::Ctld::Stub::GetNodes, v1::GetNodesRequest(), snapshot.nodes);
  }
  if (needs.partitions) {
    fetcher.Start("GetPartitions", &v1::Ctld::Stub::GetPartitions, v1::GetPartitionsRequest(),
                  snapshot.partitions);
  }
  if (needs.stats) {
    fetcher.Start("GetStats", &v1::Ctld::Stub::GetStats, v1::GetStatsRequest(), snapshot.stats);
  }
  if (needs.accounts) {
    fetcher.Start("GetAccounts", &v1::Ctld::Stub::GetAccounts, v1::GetAccountsRequest(),
                  snapshot.accounts);
  }
  if (needs.qos) {
    fetcher.Start("GetQos", &v1::Ctld::Stub::GetQos, v1::GetQosRequest(), snapshot.qos);
  }
  if (absl::Status status = fetcher.Finish(snapshot); !status.ok()) {
    return Failure(call, status);
  }
  HttpResponse response;
  response.content_type = kExpositionContentType;
  response.body = MetricsFrom(endpoint, snapshot);
  return response;
}

}  // namespace

void AddMetricsPaths(Router& router) {
  const std::pair<const char*, MetricsEndpoint> paths[] = {
      {"/metrics", MetricsEndpoint::kAll},
      {"/metrics/jobs", MetricsEndpoint::kJobs},
      {"/metrics/nodes", MetricsEndpoint::kNodes},
      {"/metrics/partitions", MetricsEndpoint::kPartitions},
      {"/metrics/scheduler", MetricsEndpoint::kScheduler},
      {"/metrics/jobs-users-accts", MetricsEndpoint::kJobsUsersAccts},
  };
  for (const auto& [path, endpoint] : paths) {
    router.Add("GET", path,
               [endpoint = endpoint](RestCall& call) { return Serve(call, endpoint); });
  }
}

}  // namespace skiff::restd
