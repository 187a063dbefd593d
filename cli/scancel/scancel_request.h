// scancel as pure functions: from its options to a CancelJobsRequest, and from
// ctld's per-job results to what Slurm 22.05 prints and exits with (see
// shared/reference/scancel_*.txt).
#ifndef SKIFF_CLI_SCANCEL_SCANCEL_REQUEST_H_
#define SKIFF_CLI_SCANCEL_SCANCEL_REQUEST_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/ctld.pb.h"

namespace skiff::cli {

// The command line as CLI11 collected it, before validation.
struct ScancelArgs {
  std::vector<std::string> job_ids;  // positional; each may be a comma list, "42_7", "42_[1-3]"
  std::string user;                  // -u, a name or uid
  std::string name;                  // -n
  std::string states;                // -t, comma list: PENDING/PD, RUNNING/R
  std::string partitions;            // -p, comma list
  std::string signal;                // -s: name or number; empty = cancel
  bool batch = false;                // -b
  bool full = false;                 // -f
  bool hurry = false;                // --hurry
  int verbose = 0;                   // -v, counted
};

// Slurm's SCANCEL_* input variables (BATCH, FULL, HURRY, NAME, PARTITION,
// STATE, USER, VERBOSE) into `args`, before the command line overrides them.
// `getenv` returns null for an unset variable. A boolean that is none of
// true/T/false/F (any case) leaves the option alone and adds Slurm's
// "Unrecognized SCANCEL_X value: V" to `errors`.
void ApplyScancelEnvironment(const std::function<const char*(const char*)>& getenv,
                             ScancelArgs* args, std::vector<std::string>* errors);

struct ScancelCommand {
  v1::CancelJobsRequest request;
  int verbose = 0;
  int signal = 0;  // as named by -s (9 for KILL), 0 when cancelling
};

// Validates and converts. Plain ids go to request.job_ids (an array's base id
// names the whole array), array tasks ("42_7", "42_[1-3]") to request.refs.
// Errors (InvalidArgument, Slurm's wording):
//   "No job identification provided" when there is neither a job id nor a filter;
//   "Invalid job id: x"; steps ("42.3", or a plain list of them) go to
//   request.steps, "Invalid job id 42.x" for a bad one;
//   "Invalid job state specified: x" + "Valid job states are PENDING and RUNNING";
//   "Unknown job signal: x"; "Invalid user: x".
// -s KILL cancels, as in Slurm (the request's signal stays 0).
absl::StatusOr<ScancelCommand> BuildScancelCommand(const ScancelArgs& args);

struct ScancelOutcome {
  std::string stderr_text;  // newline-terminated lines, possibly empty
  int exit_code = 0;
};

// How to print a job id in messages: job id -> "15400_2" for array tasks. Ids
// missing from the map print as plain numbers.
using JobNames = std::map<uint64_t, std::string>;

// What scancel prints for ctld's results, and its exit status (N is the job's
// name from `names`, "15400_2" for an array task, else its id):
//   -v: "scancel: Terminating job N" (or "scancel: Signal S to job N") per job;
//   another user's job: "scancel: error: Kill job error on job id N:
//     Access/permission denied", exit 210 (Slurm's ESLURM_ACCESS_DENIED & 0xff);
//   an unknown or finished job: silent and exit 0, unless -v, which prints the error;
//   any other failure: the error with ctld's message, exit 1.
//   a signal to a job not running yet, still so after scancel's tries (below):
//     "scancel: error: Kill job error on job id N: Job can not be altered now,
//     try again later", exit 228; with -v each try said first as "scancel: Job
//     is in transitional state, retrying" (`retries`: tries per job id);
//   a signal (not KILL) to a finished job: exit 229, silent unless -v.
// The exit status is the largest of Slurm's error numbers met, on 8 bits.
ScancelOutcome DescribeCancelResults(const v1::CancelJobsReply& reply,
                                     const ScancelCommand& command, const JobNames& names = {},
                                     const std::map<uint64_t, int>& retries = {});

// Slurm's scancel tries a signal again while ctld answers that the job cannot
// be altered yet (pending, configuring, suspended: UNAVAILABLE), up to 10
// times, sleeping 5 s, 6 s, ... 14 s before each (_cancel_job_id).
inline constexpr int kTransitionalTries = 10;
inline int TransitionalDelaySeconds(int attempt) { return 5 + attempt; }
// The jobs whose result asks to try again.
std::vector<uint64_t> StillTransitional(const v1::CancelJobsReply& reply);
// `request` again for these jobs only.
v1::CancelJobsRequest RetryRequest(const v1::CancelJobsRequest& request,
                                   const std::vector<uint64_t>& job_ids);
// Replaces the results in `reply` of the jobs `retried` answers for.
void TakeRetried(const v1::CancelJobsReply& retried, v1::CancelJobsReply* reply);

// The existing jobs DescribeCancelResults will print a line about, whose names
// main should look up (CancelJobResult carries only the job id, so an array task
// is known by its own job id). Unknown jobs (NOT_FOUND) are left out: their id
// names no record to look up.
std::vector<uint64_t> JobsToName(const v1::CancelJobsReply& reply, const ScancelCommand& command);

// Names for the jobs in a GetJobs reply: "15400_2" for array tasks, the id otherwise.
JobNames NamesOf(const v1::GetJobsReply& jobs);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_SCANCEL_SCANCEL_REQUEST_H_
