// The job store's submit path alone: saving newly submitted jobs (a 3 KB spec
// each) in groups of 100, as concurrent sbatch calls are grouped. Compiled
// against an older job store too, it shows what keeping sacct's records costs
// the submit path (issue 11).
//
// Usage: store_submit_bench [--jobs N] [--dir DIR]
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
  std::string dir = "/tmp";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--jobs") == 0) jobs = atoi(argv[i + 1]);
    if (strcmp(argv[i], "--dir") == 0) dir = argv[i + 1];
  }
  const std::string path = dir + "/store_submit_bench.db";
  for (const char* suffix : {"", "-wal", "-shm"}) unlink((path + suffix).c_str());
  auto store = skiff::SqliteJobStore::Open(path);
  if (!store.ok()) return 1;
  const auto start = std::chrono::steady_clock::now();
  for (int first = 1; first <= jobs; first += 100) {
    std::vector<skiff::Job> batch;
    for (int id = first; id < first + 100 && id <= jobs; ++id) {
      skiff::Job job;
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
  store->reset();
  for (const char* suffix : {"", "-wal", "-shm"}) unlink((path + suffix).c_str());
  return 0;
}
