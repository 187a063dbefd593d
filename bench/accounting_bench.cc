// sacct's server side on a large history (issue 11): a job store holding
// 1,000,000 finished jobs (14 users over 50 days, so a user's week is about
// 10,000 jobs), then the reads sacct makes, timed through the same code ctld
// runs (JobStore::QueryJobs, AcctSelected, ToAcctJob). Also the database's size
// per job and what writing records costs.
//
// Prints one line per figure. Usage: accounting_bench [--jobs N] [--dir DIR]
//   bazel run -c opt //bench:accounting_bench -- --jobs 1000000
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ctld/rpc/acct_convert.h"
#include "ctld/state/job_store.h"

namespace skiff::ctld {
namespace {

using Clock = std::chrono::steady_clock;

double MillisSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

constexpr int kUsers = 14;
constexpr int64_t kDay = 86400;
constexpr int64_t kNow = 1800000000;
constexpr int64_t kSpan = 50 * kDay;

Job FinishedJob(uint64_t id, std::mt19937_64& rng) {
  Job job;
  job.id = id;
  job.version = 5;
  job.uid = 1000 + static_cast<uid_t>(id % kUsers);
  job.gid = 1000;
  job.user_name = "user" + std::to_string(id % kUsers);
  job.group_name = "lab";
  job.name = "train_resnet50.sh";
  job.account = id % 3 == 0 ? "vision" : "nlp";
  job.qos = "normal";
  job.request.partition = id % 2 == 0 ? "gpu" : "debug";
  job.request.ntasks = 1;
  job.request.cpus_per_task = 4;
  job.request.mem_per_node_mb = 16000;
  job.request.gpus_per_node = 1;
  job.request.time_limit = 4 * 3600;
  job.state = id % 10 == 0 ? JobState::kFailed : JobState::kCompleted;
  job.exit_code = id % 10 == 0 ? 1 : 0;
  // Evenly over the last 50 days, in id order, as a real history is.
  const int64_t end = kNow - kSpan + static_cast<int64_t>(id) * kSpan / 1000000;
  job.submit_time = end - 600 - static_cast<int64_t>(rng() % 3600);
  job.eligible_time = job.submit_time;
  job.start_time = end - 300;
  job.end_time = end;
  job.nodes = {"gpu" + std::to_string(id % 16)};
  job.cpus_by_node = {4};
  job.mem_by_node_mb = {16000};
  job.gpu_indices = {static_cast<int>(id % 4)};
  job.gpus_by_node = {job.gpu_indices};
  job.progress.launched = true;
  job.progress.prolog_done = true;
  job.work_dir = "/home/" + job.user_name + "/experiments/imagenet";
  job.spec_blob.assign(3000, 'x');  // script + environment, dropped once purged
  return job;
}

int64_t FileSize(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_size) : 0;
}

int Run(int jobs, const std::string& dir) {
  const std::string path = dir + "/accounting_bench.db";
  for (const char* suffix : {"", "-wal", "-shm"}) unlink((path + suffix).c_str());
  auto store = SqliteJobStore::Open(path);
  if (!store.ok()) {
    fprintf(stderr, "%s\n", std::string(store.status().message()).c_str());
    return 1;
  }
  std::mt19937_64 rng(42);
  const auto fill_start = Clock::now();
  constexpr int kBatch = 5000;
  for (int first = 1; first <= jobs; first += kBatch) {
    std::vector<Job> batch;
    for (int id = first; id < first + kBatch && id <= jobs; ++id) {
      batch.push_back(FinishedJob(static_cast<uint64_t>(id), rng));
    }
    if (absl::Status s = (*store)->Save(std::move(batch)); !s.ok()) {
      fprintf(stderr, "save: %s\n", std::string(s.message()).c_str());
      return 1;
    }
  }
  printf("stored %d finished jobs in %.1f s (batches of %d)\n", jobs,
         MillisSince(fill_start) / 1000, kBatch);
  // What ctld's housekeeping does once they are purged: the specs go.
  const auto forget_start = Clock::now();
  (void)(*store)->ForgetSpecs(kNow + 1);
  printf("dropped their specs in %.1f s\n", MillisSince(forget_start) / 1000);
  // Reclaim the freed pages so the file shows what the records take.
  store->reset();
  {
    auto vacuum = SqliteJobStore::Open(path);
    (void)vacuum;
  }
  std::string cmd = "sqlite3 '" + path + "' 'PRAGMA wal_checkpoint(TRUNCATE); VACUUM;' 2>/dev/null";
  const bool vacuumed = system(cmd.c_str()) == 0;
  const int64_t bytes = FileSize(path) + FileSize(path + "-wal");
  printf("database: %.1f MiB, %.0f bytes per job record%s\n", bytes / 1048576.0,
         static_cast<double>(bytes) / jobs, vacuumed ? "" : " (not vacuumed: no sqlite3 CLI)");
  store = SqliteJobStore::Open(path);

  // sacct -j ID: one job with its batch step.
  v1::GetAccountingRequest by_id;
  by_id.set_steps(true);
  by_id.add_jobs()->set_job_id(1);
  by_id.mutable_jobs(0)->set_array_task_id(-1);
  constexpr int kLookups = 1000;
  const auto id_start = Clock::now();
  size_t rows = 0;
  for (int i = 0; i < kLookups; ++i) {
    const uint64_t id = 1 + rng() % static_cast<uint64_t>(jobs);
    by_id.mutable_jobs(0)->set_job_id(id);
    JobQuery query;
    query.ids = {id};
    auto found = (*store)->QueryJobs(query);
    if (!found.ok()) return 1;
    AcctSelection selection{&by_id, {}, kNow};
    for (const Job& job : *found) {
      if (AcctSelected(job, selection)) rows += ToAcctJob(job, true, "lab", kNow).steps_size() + 1;
    }
  }
  printf("sacct -j ID: %.3f ms per call (%d calls, %zu rows)\n", MillisSince(id_start) / kLookups,
         kLookups, rows);

  // sacct -u USER -S <a week ago>.
  v1::GetAccountingRequest week;
  week.add_uids(1003);
  week.set_window_start(kNow - 7 * kDay);
  week.set_steps(true);
  for (int round = 0; round < 2; ++round) {  // the second with a warm page cache
    const auto week_start = Clock::now();
    JobQuery query;
    query.uids = {1003};
    query.done_since = week.window_start();
    auto found = (*store)->QueryJobs(query);
    if (!found.ok()) return 1;
    AcctSelection selection{&week, {}, kNow};
    v1::GetAccountingReply reply;
    for (const Job& job : *found) {
      if (AcctSelected(job, selection)) *reply.add_jobs() = ToAcctJob(job, true, "lab", kNow);
    }
    printf("sacct -u USER -S now-7days%s: %d jobs (%d rows with steps) in %.1f ms\n",
           round == 0 ? " (cold)" : "", reply.jobs_size(), reply.jobs_size() * 2,
           MillisSince(week_start));
  }

  // sreport's read: a month of every user's jobs summed in SQL per account and user.
  for (int round = 0; round < 2; ++round) {
    const auto sum_start = Clock::now();
    auto sums = (*store)->SumUsage(kNow - 30 * kDay, kNow, kNow);
    if (!sums.ok()) return 1;
    double sum_hours = 0;
    for (const JobStore::UsageSum& sum : *sums) sum_hours += sum.cpu_seconds / 3600;
    printf("sreport's sums over a month%s: %zu account/user rows, %.0f CPU-hours, in %.1f ms\n",
           round == 0 ? " (cold)" : "", sums->size(), sum_hours, MillisSince(sum_start));
  }

  // The submit path: what saving a pending job costs now that its record is
  // also sacct's (one row plus the spec, once).
  const auto submit_start = Clock::now();
  constexpr int kSubmits = 20000;
  for (int first = 0; first < kSubmits; first += 100) {
    std::vector<Job> batch;
    for (int k = 0; k < 100; ++k) {
      Job job = FinishedJob(static_cast<uint64_t>(jobs + 1 + first + k), rng);
      job.state = JobState::kPending;
      job.end_time = 0;
      batch.push_back(std::move(job));
    }
    if (!(*store)->Save(std::move(batch)).ok()) return 1;
  }
  printf("submit path: %.1f us per job stored (%d jobs in groups of 100)\n",
         MillisSince(submit_start) * 1000 / kSubmits, kSubmits);
  store->reset();
  for (const char* suffix : {"", "-wal", "-shm"}) unlink((path + suffix).c_str());
  return 0;
}

}  // namespace
}  // namespace skiff::ctld

int main(int argc, char** argv) {
  int jobs = 1000000;
  std::string dir = "/tmp";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--jobs") == 0) jobs = atoi(argv[i + 1]);
    if (strcmp(argv[i], "--dir") == 0) dir = argv[i + 1];
  }
  return skiff::ctld::Run(jobs, dir);
}
