// The query of /slurmdb/{version}/jobs and the {job_id} of
// /slurmdb/{version}/job/{job_id} (openapi/slurmdbd, issue 36) as the
// GetAccountingRequest sacct would send for the same selection.
//
// Parameters honoured (comma lists, as Slurm's JOB_CONDITION reads them):
// users, account, partition, qos, state, job_name, groups, node, step,
// start_time, end_time, skip_steps. Others the document lists (wckey,
// reservation, constraints, flags such as show_duplicates) name things Skiff
// does not keep or that change nothing here; they are ignored, as slurmrestd
// ignores what its plugins do not support. Windows as slurmrestd's: with no
// query at all every job; with one, sacct's defaults (since midnight; with
// state, at start_time or now; with step, from the epoch).
//
// Pure (the caller passes the time and the name lookups); thread-safe.
#ifndef SKIFF_RESTD_SLURMDB_JOBS_QUERY_H_
#define SKIFF_RESTD_SLURMDB_JOBS_QUERY_H_

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "proto/accounting.pb.h"

namespace skiff::restd {

struct JobsQueryContext {
  int64_t now = 0;
  // Local midnight of `now`: sacct's default window start.
  int64_t midnight = 0;
  // A user or group name (or number) to its id; nullopt when unknown.
  std::function<std::optional<uid_t>(const std::string&)> uid_of;
  std::function<std::optional<gid_t>(const std::string&)> gid_of;
};

// Errors (InvalidArgument, naming the parameter): a time that is neither unix
// seconds nor Slurm's time forms ("start_time: Invalid time specification
// 'x'"), an unknown state, user or group, a malformed step, start after end.
absl::StatusOr<v1::GetAccountingRequest> JobsRequestOf(
    const std::map<std::string, std::string>& query, const JobsQueryContext& context);

// "42", "42_7", "42.batch", "42_7.0" as one selector.
// Error: InvalidArgument "Invalid job id: X".
absl::StatusOr<v1::AcctJobSelector> JobSelectorOf(const std::string& text);

// The request for /slurmdb/{version}/job/{job_id}: that job (or array, or
// step) with its steps, from the epoch to now.
absl::StatusOr<v1::GetAccountingRequest> JobRequestOf(const std::string& job_id);

}  // namespace skiff::restd

#endif  // SKIFF_RESTD_SLURMDB_JOBS_QUERY_H_
