// Job steps as ctld knows them: what the jobs' step managers (noded on each
// job's first node) reported. ctld is told about steps after the fact, for
// display (squeue -s, scontrol show step) and accounting (sacct); it never
// decides anything about them (seed 003: steps are managed in the job).
//
// Every report is stored as a record (kind kStepRecordKind, key StepRecordKey)
// before the book takes it; the book keeps only the steps still running.
//
// Pure; not thread-safe: the Controller guards its book with steps_mu_.
#ifndef SKIFF_CTLD_STEP_BOOK_H_
#define SKIFF_CTLD_STEP_BOOK_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ctld/core/lifecycle/effects.h"
#include "proto/accounting.pb.h"

namespace skiff {

inline constexpr char kStepRecordKind[] = "step";

// "00000000000000000042.0000000003": sorts by job, then by step number, so that
// one job's steps are a key range (StepRecordRange). Named steps ("extern")
// sort after numbered ones.
std::string StepRecordKey(uint64_t job_id, const std::string& step_id);
// [from, to): every step record of `job_id`.
std::pair<std::string, std::string> StepRecordRange(uint64_t job_id);

RecordRow StepRecordRow(uint64_t job_id, const v1::AcctStep& step);
// The steps of stored records, in key order; records that do not parse are skipped.
std::vector<v1::AcctStep> StepsFromRecords(const std::vector<std::string>& blobs);

// A stored step as sacct shows it once its job is over: a step still RUNNING
// in the record of a job that ended lost its step manager (noded died, or the
// node) and ends FAILED when the job ended.
v1::AcctStep SettleStep(v1::AcctStep step, bool job_done, int64_t job_end_time);

class StepBook {
 public:
  // A stored report: a running step is kept (replacing its earlier report), an
  // ended one forgotten.
  void Apply(uint64_t job_id, const v1::AcctStep& step);
  // The running steps of these jobs (all jobs when `jobs` is null), by job
  // then step.
  std::vector<std::pair<uint64_t, v1::AcctStep>> Running(const std::set<uint64_t>* jobs) const;
  // Forgets the steps of jobs not in `running_jobs` (their step manager's end
  // report never came).
  void Retain(const std::set<uint64_t>& running_jobs);
  size_t size() const { return steps_.size(); }

 private:
  std::map<std::string, std::pair<uint64_t, v1::AcctStep>> steps_;  // by StepRecordKey
};

}  // namespace skiff

#endif  // SKIFF_CTLD_STEP_BOOK_H_
