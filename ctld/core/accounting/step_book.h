// Job steps as ctld knows them: what the jobs' step managers (noded on each
// job's first node) reported. ctld is told about steps after the fact, for
// display (squeue -s, scontrol show step) and accounting (sacct); it never
// decides anything about them (seed 003: steps are managed in the job).
//
// Every report is stored as a record (ctld/state/records.h: kind "step", key
// StepRecordKey) before the book takes it; the book keeps only the steps still
// running.
//
// Threads: none; pure, and StepBook is not thread-safe: the Controller guards
// its book with steps_mu_.
#ifndef SKIFF_CTLD_CORE_ACCOUNTING_STEP_BOOK_H_
#define SKIFF_CTLD_CORE_ACCOUNTING_STEP_BOOK_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace skiff::ctld {

// One step of a job as sacct shows it: the batch script (step "batch") and
// srun's steps.
struct StepRecord {
  std::string step_id;  // "batch", "extern", "0", "1", ...
  std::string name;     // "batch" for the batch step; srun's -J for others
  std::string state;    // Slurm's name: COMPLETED, FAILED, CANCELLED, RUNNING, OUT_OF_MEMORY, ...
  int32_t exit_code = 0;
  int32_t exit_signal = 0;
  int64_t start_time = 0;
  int64_t end_time = 0;  // 0 while running
  int32_t alloc_cpus = 0;
  int32_t num_nodes = 0;
  std::string node_list;  // compressed hostlist
  int32_t ntasks = 0;
  std::string alloc_tres;  // "cpu=1,gres/gpu=1,mem=100M,node=1"
  std::string req_tres;
  int64_t suspended = 0;  // seconds spent suspended
  std::string srun_host;  // srun steps: where srun runs, and its pid
  int32_t srun_pid = 0;
  // Usage at the step's end, from its tasks' rusage (sacct TotalCPU, UserCPU,
  // SystemCPU, MaxRSS, MaxRSSNode, MaxRSSTask, AveRSS); has_usage: measured.
  bool has_usage = false;
  int64_t user_cpu_usec = 0;  // summed over the tasks
  int64_t system_cpu_usec = 0;
  int64_t max_rss_kb = 0;  // the largest task's
  std::string max_rss_node;
  int32_t max_rss_task = 0;
  int64_t ave_rss_kb = 0;  // over the tasks
};

bool operator==(const StepRecord& a, const StepRecord& b);
inline bool operator!=(const StepRecord& a, const StepRecord& b) { return !(a == b); }

// A step with the fields of its job that squeue -s and scontrol show step print.
struct JobStep {
  uint64_t job_id = 0;
  uint64_t array_job_id = 0;  // 0 = not an array task
  int32_t array_task_id = -1;
  uint32_t uid = 0;
  std::string user;
  std::string partition;
  StepRecord step;
};

// "00000000000000000042.0000000003": sorts by job, then by step number, so that
// one job's steps are a key range (StepRecordRange). Named steps ("extern")
// sort after numbered ones.
std::string StepRecordKey(uint64_t job_id, const std::string& step_id);
// [from, to): every step record of `job_id`.
std::pair<std::string, std::string> StepRecordRange(uint64_t job_id);

// A stored step as sacct shows it once its job is over: a step still RUNNING
// in the record of a job that ended lost its step manager (noded died, or the
// node) and ends FAILED when the job ended.
StepRecord SettleStep(StepRecord step, bool job_done, int64_t job_end_time);

class StepBook {
 public:
  // One running step: its job and its last report.
  using Entry = std::pair<uint64_t, StepRecord>;

  // A stored report: a running step is kept (replacing its earlier report), an
  // ended one forgotten.
  void Apply(uint64_t job_id, const StepRecord& step);
  // The running steps of these jobs (all jobs when `jobs` is null), by job
  // then step.
  std::vector<std::pair<uint64_t, StepRecord>> Running(const std::set<uint64_t>* jobs) const;
  // Forgets the steps of jobs not in `running_jobs` (their step manager's end
  // report never came).
  void Retain(const std::set<uint64_t>& running_jobs);
  size_t size() const { return steps_.size(); }
  // The entry under `key` (StepRecordKey), for an undo journal; nullopt: none.
  std::optional<Entry> Find(const std::string& key) const;
  // Puts `entry` back under `key`, or removes the key for nullopt.
  void Restore(const std::string& key, std::optional<Entry> entry);

 private:
  std::map<std::string, Entry> steps_;  // by StepRecordKey
};

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_ACCOUNTING_STEP_BOOK_H_
