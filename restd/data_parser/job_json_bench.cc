// How long restd takes to write GET /slurm/.../jobs and GET /slurmdb/.../jobs
// bodies for a large queue, in process (no ctld, no HTTP): the JSON writing
// alone. bench/restd_bench.sh times the same paths end to end on a cluster.
//
// Usage: bazel run -c opt //restd/data_parser:job_json_bench [-- JOBS...]
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "restd/data_parser/job_json.h"
#include "restd/slurmdb/jobs_json.h"

namespace skiff::restd {
namespace {

// A queue as a busy lab's: a third running on one of 64 GPU nodes, the rest pending.
v1::GetJobsReply Queue(int count) {
  v1::GetJobsReply reply;
  for (int i = 0; i < count; ++i) {
    v1::JobInfo& job = *reply.add_jobs();
    job.set_job_id(1000 + i);
    job.set_user_name("user" + std::to_string(i % 40));
    job.set_user_id(1000 + i % 40);
    job.set_group_name("lab");
    job.set_account("physics");
    job.set_partition(i % 2 ? "gpu" : "cpu");
    job.set_qos("normal");
    job.set_submit_time(1760000000 + i);
    job.set_eligible_time(1760000000 + i);
    job.set_time_limit(3600);
    job.set_num_cpus(4);
    job.set_num_nodes(1);
    job.set_num_tasks(1);
    job.set_priority(10000 - i % 1000);
    job.set_array_task_id(-1);
    job.set_now(1760100000);
    job.set_stdout_path("/home/user/slurm-" + std::to_string(1000 + i) + ".out");
    v1::JobSpec& spec = *job.mutable_spec();
    spec.set_name("train-" + std::to_string(i));
    spec.set_command("/home/user/train.sh");
    spec.set_work_dir("/home/user");
    spec.add_gres("gpu:1");
    if (i % 3 == 0) {
      job.set_state(v1::RUNNING);
      job.set_start_time(1760050000);
      job.add_nodes("g" + std::to_string(i % 64));
      job.set_mem_per_node_mb(16384);
      v1::JobNodeResources& resources = *job.add_node_resources();
      for (int cpu = 0; cpu < 4; ++cpu) resources.add_cpu_ids(cpu + 4 * (i % 4));
      resources.add_gpu_indices(i % 4);
    } else {
      job.set_state(v1::PENDING);
      job.set_state_reason("Priority");
    }
  }
  return reply;
}

v1::GetAccountingReply Records(int count) {
  v1::GetAccountingReply reply;
  for (int i = 0; i < count; ++i) {
    v1::AcctJob& job = *reply.add_jobs();
    job.set_job_id(1000 + i);
    job.set_array_task_id(-1);
    job.set_name("train-" + std::to_string(i));
    job.set_user("user" + std::to_string(i % 40));
    job.set_group("lab");
    job.set_account("physics");
    job.set_partition("gpu");
    job.set_qos("normal");
    job.set_state("COMPLETED");
    job.set_submit_time(1760000000 + i);
    job.set_eligible_time(1760000000 + i);
    job.set_start_time(1760000100 + i);
    job.set_end_time(1760003700 + i);
    job.set_time_limit(3600);
    job.set_node_list("g" + std::to_string(i % 64));
    job.set_alloc_tres("billing=4,cpu=4,gres/gpu=1,mem=16G,node=1");
    job.set_req_tres("billing=4,cpu=4,gres/gpu=1,mem=16G,node=1");
    job.set_work_dir("/home/user");
    for (const char* id : {"batch", "0"}) {
      v1::AcctStep& step = *job.add_steps();
      step.set_step_id(id);
      step.set_name(id);
      step.set_state("COMPLETED");
      step.set_start_time(1760000100 + i);
      step.set_end_time(1760003700 + i);
      step.set_num_nodes(1);
      step.set_ntasks(1);
      step.set_node_list(job.node_list());
      step.set_alloc_tres("cpu=4,mem=16G,node=1");
    }
  }
  return reply;
}

double ThreadCpuMs() {
  timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return now.tv_sec * 1e3 + now.tv_nsec / 1e6;
}

// The best of five runs of `write`, in milliseconds of wall and of CPU time
// (steadier on a shared machine), and the body's size.
template <typename Write>
void Time(const char* what, int count, Write write) {
  double best_wall = 1e18;
  double best_cpu = 1e18;
  size_t bytes = 0;
  for (int run = 0; run < 5; ++run) {
    const auto start = std::chrono::steady_clock::now();
    const double cpu_start = ThreadCpuMs();
    const std::string body = write();
    best_cpu = std::min(best_cpu, ThreadCpuMs() - cpu_start);
    best_wall =
        std::min(best_wall,
                 std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count());
    bytes = body.size();
  }
  std::printf("%s, %d jobs: best %.1f ms (%.1f ms CPU), %zu KiB\n", what, count, best_wall,
              best_cpu, bytes / 1024);
}

}  // namespace
}  // namespace skiff::restd

int main(int argc, char** argv) {
  using namespace skiff::restd;
  std::vector<int> counts;
  for (int i = 1; i < argc; ++i) counts.push_back(std::atoi(argv[i]));
  if (counts.empty()) counts = {10000, 100000};
  for (int count : counts) {
    const skiff::v1::GetJobsReply queue = Queue(count);
    std::vector<skiff::v1::NodeInfo> nodes(64);
    JobJsonContext context;
    context.cluster = "lab";
    for (int i = 0; i < 64; ++i) {
      nodes[i].set_name("g" + std::to_string(i));
      nodes[i].set_sockets(2);
      nodes[i].set_cores_per_socket(8);
      nodes[i].set_threads_per_core(1);
      skiff::v1::Gres* gres = nodes[i].add_gres();
      gres->set_name("gpu");
      gres->set_type("a100");
      gres->set_count(4);
      context.nodes[nodes[i].name()] = &nodes[i];
    }
    // As restd/slurm/job_paths.cc and slurmdb/jobs_paths.cc write them
    // (kListStyle, restd/rest_call.h): one job's tree at a time, compact.
    const skiff::client::JsonStyle compact = {/*indented=*/false, /*point_in_whole_doubles=*/true};
    Time("GET /slurm/v0.0.42/jobs", count, [&] {
      std::string body;
      skiff::client::Json::WriteWithElements(
          {{"jobs", skiff::client::Json::Array()}}, "jobs", queue.jobs_size(),
          [&](size_t i) { return JobJson(queue.jobs(static_cast<int>(i)), context); },
          [&](std::string_view piece) { body.append(piece); }, compact);
      return body;
    });
    const skiff::v1::GetAccountingReply records = Records(count);
    SlurmdbJobContext db;
    db.now = 1760100000;
    Time("GET /slurmdb/v0.0.42/jobs", count, [&] {
      std::string body;
      skiff::client::Json::WriteWithElements(
          {{"jobs", skiff::client::Json::Array()}}, "jobs", records.jobs_size(),
          [&](size_t i) { return SlurmdbJobJson(records.jobs(static_cast<int>(i)), db); },
          [&](std::string_view piece) { body.append(piece); }, compact);
      return body;
    });
  }
  return 0;
}
