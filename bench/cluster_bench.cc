// Benchmarks through a running local cluster (./skiff bench starts one):
//
//   submit     N sequential `sbatch` processes, then N SubmitJob calls through one
//              client connection (jobs held, then cancelled, so nothing runs),
//              one at a time and 16 in flight (--in-flight-only: just those).
//   e2e        N jobs of `true` from first submit to last completion, with
//              PrologSlurmctld/EpilogSlurmctld set to /bin/true in the cluster.
//
// Usage: cluster_bench --conf SKIFF_CONF --sbatch PATH [--submit N] [--e2e N]
// Prints one line per figure.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "client/ctld_client.h"

namespace skiff::cli {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

v1::JobSpec TrueJob(bool held) {
  v1::JobSpec spec;
  spec.set_name("bench");
  spec.set_script("#!/bin/sh\ntrue\n");
  spec.set_work_dir("/tmp");
  spec.set_submit_dir("/tmp");
  spec.set_stdout_pattern("/dev/null");
  spec.set_command("(wrap)");
  spec.set_hold(held);
  (*spec.mutable_environment())["PATH"] = "/usr/bin:/bin";
  return spec;
}

void CancelAll(client::CtldClient& client) {
  v1::CancelJobsRequest request;
  request.set_name("bench");
  v1::CancelJobsReply reply;
  client.Call(&v1::Ctld::Stub::CancelJobs, request, &reply);
}

int BenchInFlight(client::CtldClient& client, const v1::SubmitJobRequest& request, int count);

int BenchSubmit(client::CtldClient& client, const std::string& sbatch, int count,
                bool in_flight_only) {
  v1::SubmitJobRequest request;
  *request.mutable_spec() = TrueJob(/*held=*/true);
  if (in_flight_only) return BenchInFlight(client, request, count);
  // N separate sbatch processes: what a user's shell loop costs.
  const int processes = std::max(1, count / 10);
  auto start = Clock::now();
  for (int i = 0; i < processes; ++i) {
    std::string command =
        sbatch + " -J bench --hold -o /dev/null --wrap=true > /dev/null || exit 1";
    if (system(command.c_str()) != 0) {
      fprintf(stderr, "sbatch failed\n");
      return 1;
    }
  }
  double seconds = SecondsSince(start);
  printf("submit: %d sequential sbatch processes: %.2f s, %.0f jobs/s\n", processes, seconds,
         processes / seconds);

  // N submissions through one connection: the controller's own rate.
  start = Clock::now();
  for (int i = 0; i < count; ++i) {
    v1::SubmitJobReply reply;
    absl::Status status = client.Call(&v1::Ctld::Stub::SubmitJob, request, &reply);
    if (!status.ok()) {
      fprintf(stderr, "submit %d: %s\n", i, std::string(status.message()).c_str());
      return 1;
    }
  }
  seconds = SecondsSince(start);
  printf("submit: %d submissions through one connection, one at a time: %.2f s, %.0f jobs/s\n",
         count, seconds, count / seconds);
  return BenchInFlight(client, request, count);
}

int BenchInFlight(client::CtldClient& client, const v1::SubmitJobRequest& request, int count) {
  // The same through the same connection with kInFlight calls at a time (a
  // workflow manager's threads; HTTP/2 multiplexes them): what ctld sustains
  // when it can store several submissions in one commit.
  constexpr int kInFlight = 16;
  std::atomic<int> next{0};
  std::atomic<bool> failed{false};
  const auto start = Clock::now();
  std::vector<std::thread> callers;
  for (int t = 0; t < kInFlight; ++t) {
    callers.emplace_back([&] {
      while (next.fetch_add(1) < count && !failed) {
        v1::SubmitJobReply reply;
        absl::Status status = client.Call(&v1::Ctld::Stub::SubmitJob, request, &reply);
        if (!status.ok() || reply.job_id() == 0) {
          fprintf(stderr, "submit: %s\n", std::string(status.message()).c_str());
          failed = true;
        }
      }
    });
  }
  for (std::thread& caller : callers) caller.join();
  if (failed) return 1;
  const double seconds = SecondsSince(start);
  printf("submit: %d submissions through one connection, %d in flight: %.2f s, %.0f jobs/s\n",
         count, kInFlight, seconds, count / seconds);
  CancelAll(client);
  return 0;
}

int BenchEndToEnd(client::CtldClient& client, int count) {
  v1::SubmitJobRequest request;
  *request.mutable_spec() = TrueJob(/*held=*/false);
  const auto start = Clock::now();
  for (int i = 0; i < count; ++i) {
    v1::SubmitJobReply reply;
    absl::Status status = client.Call(&v1::Ctld::Stub::SubmitJob, request, &reply);
    if (!status.ok()) {
      fprintf(stderr, "submit %d: %s\n", i, std::string(status.message()).c_str());
      return 1;
    }
  }
  const double submitted = SecondsSince(start);
  for (;;) {
    v1::GetJobsRequest query;
    query.add_names("bench");
    for (v1::JobState state : {v1::PENDING, v1::CONFIGURING, v1::RUNNING, v1::COMPLETING}) {
      query.add_states(state);
    }
    v1::GetJobsReply reply;
    absl::Status status = client.Call(&v1::Ctld::Stub::GetJobs, query, &reply);
    if (!status.ok()) {
      fprintf(stderr, "query: %s\n", std::string(status.message()).c_str());
      return 1;
    }
    if (reply.jobs().empty()) break;
    if (SecondsSince(start) > 600) {
      fprintf(stderr, "e2e: %d jobs still not done after 600 s\n", reply.jobs_size());
      return 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const double seconds = SecondsSince(start);
  v1::GetJobsRequest failed_query;
  failed_query.add_names("bench");
  failed_query.add_states(v1::FAILED);
  failed_query.add_states(v1::NODE_FAIL);
  v1::GetJobsReply failed;
  client.Call(&v1::Ctld::Stub::GetJobs, failed_query, &failed);
  printf(
      "e2e: %d jobs of `true` (prolog+epilog /bin/true): submitted in %.2f s, all done in "
      "%.2f s (%.0f jobs/s), %d failed\n",
      count, submitted, seconds, count / seconds, failed.jobs_size());
  return 0;
}

}  // namespace
}  // namespace skiff::cli

int main(int argc, char** argv) {
  CLI::App app{"cluster_bench: submit throughput and end-to-end job throughput"};
  std::string conf;
  std::string sbatch = "sbatch";
  int submit = 0;
  int e2e = 0;
  bool in_flight_only = false;
  app.add_option("--conf", conf, "skiff.conf of a running cluster")->required();
  app.add_option("--sbatch", sbatch, "sbatch binary");
  app.add_option("--submit", submit, "jobs for the submit benchmark");
  app.add_option("--e2e", e2e, "jobs for the end-to-end benchmark");
  app.add_flag("--in-flight-only", in_flight_only,
               "submit benchmark: only the submissions with several calls in flight (profiling)");
  CLI11_PARSE(app, argc, argv);
  // One connection for every call (gRPC's channel), as the header says: the
  // commands' direct calls would each open their own.
  auto client = skiff::client::CtldClient::Connect(conf, skiff::client::CtldCalls::kChannel);
  if (!client.ok()) {
    fprintf(stderr, "%s\n", std::string(client.status().message()).c_str());
    return 1;
  }
  if (submit > 0 && skiff::cli::BenchSubmit(**client, sbatch, submit, in_flight_only) != 0)
    return 1;
  if (e2e > 0 && skiff::cli::BenchEndToEnd(**client, e2e) != 0) return 1;
  return 0;
}
