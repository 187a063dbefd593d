// The job store's submit path alone: saving newly submitted jobs (a 3 KB spec
// each) in groups of 100, as concurrent sbatch calls are grouped. Compiled
// against an older job store too, it shows what keeping sacct's records costs
// the submit path (issue 11).
//
// Then the sweep that drops the specs of an ended array's tasks (ForgetSpecs).
//
// Usage: store_submit_bench [--jobs N] [--array TASKS] [--dir DIR]
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ctld/state/job_store.h"

int main(int argc, char** argv) {
  int jobs = 100000;
  int array = 10000;
  std::string dir = "/tmp";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--jobs") == 0) jobs = atoi(argv[i + 1]);
    if (strcmp(argv[i], "--dir") == 0) dir = argv[i + 1];
    if (strcmp(argv[i], "--array") == 0) array = atoi(argv[i + 1]);
  }
  const std::string path = dir + "/store_submit_bench.db";
  for (const char* suffix : {"", "-wal", "-shm"}) unlink((path + suffix).c_str());
  auto store = skiff::ctld::SqliteJobStore::Open(path);
  if (!store.ok()) return 1;
  const auto start = std::chrono::steady_clock::now();
  for (int first = 1; first <= jobs; first += 100) {
    std::vector<skiff::ctld::Job> batch;
    for (int id = first; id < first + 100 && id <= jobs; ++id) {
      skiff::ctld::Job job;
      job.id = static_cast<uint64_t>(id);
      job.version = 1;
      job.uid = 1000 + id % 14;
      job.user_name = "user" + std::to_string(id % 14);
      job.name = "train.sh";
      job.account = "lab";
      job.qos = "normal";
      job.request.partition = "gpu";
      job.submit_time = 1800000000 + id;
      job.spec_blob.assign(3000, 'x');
      batch.push_back(std::move(job));
    }
    if (!(*store)->Save(std::move(batch)).ok()) return 1;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  printf("submit path (job store): %d jobs in %.2f s, %.1f us per job, %.0f jobs/s\n", jobs,
         seconds, seconds * 1e6 / jobs, jobs / seconds);

  // An array of `array` tasks that all ended (cancelled, say): the sweep that
  // drops their specs after MinJobAge, which holds the store while it runs.
  const uint64_t array_id = static_cast<uint64_t>(jobs) + 1;
  for (int first = 0; first < array; first += 1000) {
    std::vector<skiff::ctld::Job> batch;
    for (int task = first; task < first + 1000 && task < array; ++task) {
      skiff::ctld::Job job;
      job.id = array_id + static_cast<uint64_t>(task);
      job.version = 1;
      job.user_name = "user";
      job.array_job_id = array_id;
      job.array_task_id = task;
      job.state = skiff::ctld::JobState::kCancelled;
      job.submit_time = 1800000000;
      job.end_time = 1800000100;
      if (task == 0) job.spec_blob.assign(3000, 'x');
      batch.push_back(std::move(job));
    }
    if (!(*store)->Save(std::move(batch)).ok()) return 1;
  }
  const auto sweep = std::chrono::steady_clock::now();
  if (!(*store)->ForgetSpecs(1800000200).ok()) return 1;
  printf("forget the specs of an ended array of %d tasks: %.3f s\n", array,
         std::chrono::duration<double>(std::chrono::steady_clock::now() - sweep).count());
  store->reset();
  for (const char* suffix : {"", "-wal", "-shm"}) unlink((path + suffix).c_str());
  return 0;
}
