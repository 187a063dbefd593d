// Job records as data_parser v0.0.42 writes slurmdbd's (JOB, STEP:
// /slurmdb/{version}/jobs and job/{job_id}), from ctld's accounting records
// (the ones sacct prints). Fields Skiff has no record of (wckey, licenses,
// MCS, heterogeneous jobs, energy, CPU frequency, the batch script) are left
// out rather than given made-up values; the schema requires none of them.
//
// Written as client::Json, restd's one writer. Pure; thread-safe.
#ifndef SKIFF_RESTD_SLURMDB_JOBS_JSON_H_
#define SKIFF_RESTD_SLURMDB_JOBS_JSON_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "client/json_writer.h"
#include "common/assoc_key.h"
#include "proto/accounting.pb.h"
#include "proto/ctld.pb.h"

namespace skiff::restd {

struct SlurmdbJobContext {
  int64_t now = 0;  // for the elapsed time of jobs and steps still running
  // Association ids by key (AssocIdsOf).
  std::map<AssocKey, uint64_t> assoc_ids;
  // The name of a uid (kill_request_user).
  std::function<std::string(uint32_t)> user_name;
};

// Every association's id by "account|user|partition".
std::map<AssocKey, uint64_t> AssocIdsOf(const v1::GetAccountsReply& accounts);

// ctld's TRES text ("billing=2,cpu=2,gres/gpu:a100=1,mem=1G,node=1") as
// counts by Slurm's TRES name, memory (and burst buffer) in MiB. Entries
// that do not parse are left out.
std::map<std::string, int64_t> TresCountsOf(const std::string& text);

client::Json SlurmdbJobJson(const v1::AcctJob& job, const SlurmdbJobContext& context);

}  // namespace skiff::restd

#endif  // SKIFF_RESTD_SLURMDB_JOBS_JSON_H_
