// Benchmark of the pure scheduler (ctld/core/scheduler) on a large lab cluster:
// 1,000 nodes (200 with 8 GPUs), 50 users, QOS limits on, a busy cluster, and
// 10k / 100k / 1M pending jobs of mixed shapes. Prints, per queue size, the time
// of the priority sort, the main pass, backfill over the first 10,000 jobs and
// the whole Schedule(), and the bytes per pending job.
//
// Run with `bazel run -c opt //bench:scheduler_bench` (or ./skiff bench).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "ctld/core/scheduler/scheduler.h"

namespace skiff::ctld {
namespace {

using Clock = std::chrono::steady_clock;

double MillisSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

constexpr int kNodes = 1000;
constexpr int kGpuNodes = 200;
constexpr int kUsers = 50;
constexpr int64_t kNow = 1'700'000'000;

// Partitions: 0 "cpu" (CPU nodes), 1 "gpu" (GPU nodes), 2 "all" (every node, low tier).
ClusterView MakeCluster() {
  ClusterView view;
  view.gpu_types = {"a100", "h100"};
  view.features = {"ib", "avx512"};
  view.accounts = {"lab"};
  view.groups = {"lab"};
  SchedPartition cpu, gpu, all;
  cpu.name = "cpu";
  cpu.priority_tier = 2;
  gpu.name = "gpu";
  gpu.priority_tier = 2;
  gpu.max_time = 2 * 24 * 3600;
  all.name = "all";
  all.priority_tier = 1;
  for (int n = 0; n < kNodes; ++n) {
    SchedNode node;
    node.name = "node" + std::to_string(n);
    node.usable = n % 97 != 0;  // a few down
    node.cpus = 64;
    node.memory_mb = 512000;
    if (n < kGpuNodes) {
      node.gpu_count = 8;
      node.gpu_type = n % 2;
      gpu.nodes.push_back(n);
    } else {
      cpu.nodes.push_back(n);
    }
    if (n % 3 == 0) node.features = {0};
    all.nodes.push_back(n);
    view.nodes.push_back(std::move(node));
  }
  view.partitions = {cpu, gpu, all};
  Qos normal;
  normal.name = "normal";
  normal.max_tres_per_user.gpus = 16;
  normal.max_tres_per_user.cpus = 1024;
  normal.max_jobs_per_user = 300;
  normal.max_wall = 3 * 24 * 3600;
  Qos high;
  high.name = "high";
  high.priority = 100;
  high.max_tres_per_user.gpus = 8;
  high.max_jobs_per_user = 20;
  view.qos = {normal, high};
  for (int u = 0; u < kUsers; ++u) {
    SchedUser user;
    user.name = "user" + std::to_string(u);
    user.usage = 1000.0 * (u % 7) * (u % 5);
    user.usage_as_of = kNow - 3600 * u;
    view.users.push_back(std::move(user));
  }
  return view;
}

PendingJob MakeJob(std::mt19937_64& rng, uint64_t id) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  PendingJob job;
  job.id = id;
  job.user = pick(0, kUsers - 1);
  job.account = 0;
  job.group = 0;
  job.qos = pick(0, 9) == 0 ? 1 : 0;
  job.submit_time = kNow - pick(0, 7 * 24 * 3600);
  job.eligible_time = job.submit_time;
  job.time_limit = 60 * pick(10, 24 * 60);
  switch (pick(0, 5)) {
    case 0:  // one GPU
      job.partition = 1;
      job.cpus_per_node = 8;
      job.mem_per_node_mb = 64000;
      job.gpus_per_node = 1;
      break;
    case 1:  // a typed GPU node share
      job.partition = 1;
      job.cpus_per_node = 16;
      job.mem_per_node_mb = 128000;
      job.gpus_per_node = pick(2, 4);
      job.gpu_type = pick(0, 1);
      break;
    case 2:  // multi-node GPU
      job.partition = 1;
      job.num_nodes = pick(2, 4);
      job.cpus_per_node = 32;
      job.mem_per_node_mb = 256000;
      job.gpus_per_node = 8;
      break;
    case 3:  // small CPU
      job.partition = 0;
      job.cpus_per_node = pick(1, 8);
      job.mem_per_node_mb = 4000 * pick(1, 4);
      break;
    case 4:  // wide CPU, some exclusive / with features
      job.partition = 0;
      job.num_nodes = pick(1, 16);
      job.cpus_per_node = 64;
      job.mem_per_node_mb = 100000;
      job.exclusive = pick(0, 3) == 0;
      if (pick(0, 3) == 0) job.features = {0};
      break;
    default:  // anywhere
      job.partition = 2;
      job.cpus_per_node = pick(1, 32);
      job.mem_per_node_mb = 2000 * pick(1, 16);
      break;
  }
  return job;
}

// Busies the cluster: schedules a batch of jobs started over the last day.
void FillCluster(ClusterView& view, std::mt19937_64& rng) {
  uint64_t id = 10'000'000;
  for (int round = 0; round < 8; ++round) {
    const int64_t when = kNow - 3600 * (8 - round);
    std::vector<PendingJob> batch;
    for (int i = 0; i < 4000; ++i) batch.push_back(MakeJob(rng, id++));
    for (PendingJob& job : batch) job.eligible_time = job.submit_time = when - 10;
    SchedulerOptions options;
    options.backfill = false;
    SchedulePlan plan = Schedule(view, batch, options, when);
    view = WithStarts(view, batch, plan.starts, when);
  }
  std::vector<RunningJob> still;
  for (RunningJob& job : view.running) {
    if (job.ExpectedEnd() > kNow) still.push_back(std::move(job));
  }
  view.running = std::move(still);
}

void Bench(const ClusterView& view, int jobs) {
  std::mt19937_64 rng(jobs);
  std::vector<PendingJob> pending;
  pending.reserve(jobs);
  for (int i = 0; i < jobs; ++i) pending.push_back(MakeJob(rng, i + 1));

  SchedulerOptions options;
  options.weights = {/*age=*/1000, /*fairshare=*/10000, /*job_size=*/100, /*partition=*/1000,
                     /*qos=*/2000};
  options.bf_max_job_test = 10000;

  auto start = Clock::now();
  std::vector<int64_t> priorities;
  const std::vector<uint32_t> order = OrderQueue(view, pending, options.weights, kNow, &priorities);
  const double order_ms = MillisSince(start);
  start = Clock::now();
  MainPassResult main = MainPass(view, pending, order, kNow);
  const double main_ms = MillisSince(start);
  start = Clock::now();
  BackfillResult backfill = Backfill(view, pending, order, main, options, kNow);
  const double backfill_ms = MillisSince(start);
  start = Clock::now();
  SchedulePlan plan = Schedule(view, pending, options, kNow);
  const double total_ms = MillisSince(start);

  size_t heap = 0;
  for (const PendingJob& job : pending) {
    heap += (job.nodelist.capacity() + job.exclude.capacity() + job.features.capacity()) *
            sizeof(int32_t);
  }
  // Per pending job while a pass runs: order (4), priority (8), reason (1), sort key (32).
  const size_t pass_bytes = sizeof(uint32_t) + sizeof(int64_t) + sizeof(WaitReason) + 32;
  int blocked_limits = 0;
  for (WaitReason reason : plan.reasons) {
    if (reason >= WaitReason::kQosMaxWallDurationPerJobLimit) ++blocked_limits;
  }
  printf(
      "%8d pending jobs: priority+sort %8.1f ms | main pass %7.1f ms (%zu started) | "
      "backfill %7.1f ms (%d tested, %zu started, %zu reservations) | Schedule() %8.1f ms\n",
      jobs, order_ms, main_ms, main.starts.size(), backfill_ms, backfill.tested,
      backfill.starts.size(), backfill.reservations.size(), total_ms);
  printf(
      "%8s bytes per pending job: sizeof %zu + heap %.1f + per-pass %zu = %.1f; "
      "%d pending on QOS limits\n",
      "", sizeof(PendingJob), static_cast<double>(heap) / jobs, pass_bytes,
      sizeof(PendingJob) + static_cast<double>(heap) / jobs + pass_bytes, blocked_limits);
}

}  // namespace
}  // namespace skiff::ctld

int main(int argc, char** argv) {
  using namespace skiff::ctld;
  std::mt19937_64 rng(42);
  ClusterView view = MakeCluster();
  FillCluster(view, rng);
  int64_t used_gpus = 0, used_cpus = 0, cpus = 0;
  for (const SchedNode& node : view.nodes) cpus += node.cpus;
  for (const RunningJob& job : view.running) {
    used_cpus += static_cast<int64_t>(job.nodes.size()) * job.cpus_per_node;
    for (const auto& g : job.gpu_indices) used_gpus += g.size();
  }
  printf(
      "cluster: %d nodes (%d with 8 GPUs), %d users, %zu running jobs, %lld/%lld CPUs and "
      "%lld/%d GPUs busy\n",
      kNodes, kGpuNodes, kUsers, view.running.size(), static_cast<long long>(used_cpus),
      static_cast<long long>(cpus), static_cast<long long>(used_gpus), kGpuNodes * 8);
  const bool big = argc < 2 || std::string(argv[1]) != "--small";
  for (int jobs : {10'000, 100'000, 1'000'000}) {
    if (jobs == 1'000'000 && !big) break;
    Bench(view, jobs);
  }
  // The same without per-user QOS limits: far more jobs reach placement and backfill.
  printf("without per-user QOS limits (stress for placement and backfill):\n");
  ClusterView open = view;
  for (Qos& qos : open.qos) {
    qos.max_tres_per_user = TresCaps{};
    qos.max_jobs_per_user = kNoLimit;
  }
  for (int jobs : {10'000, 100'000}) Bench(open, jobs);
  return 0;
}
