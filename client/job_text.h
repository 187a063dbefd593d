// Words the job commands share, spelled as Slurm 22.05 spells them: job state
// names and compact codes, signal names, job id lists, user and group names, and
// Slurm's error texts for the job RPCs. One place, used by sbatch, squeue, scancel
// and scontrol.
//
// Pure functions and thread-safe, except the user/group lookups, which read the
// passwd and group databases (getpwnam_r and friends).
#ifndef SKIFF_CLIENT_JOB_TEXT_H_
#define SKIFF_CLIENT_JOB_TEXT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "proto/job.pb.h"

namespace skiff::client {

// ---- Job states -----------------------------------------------------------

// Slurm's long name (squeue %T, scontrol JobState=): "PENDING", "RUNNING",
// "COMPLETING", "OUT_OF_MEMORY", ... ; "UNKNOWN" for JOB_STATE_UNSPECIFIED.
std::string JobStateName(v1::JobState state);

// Slurm's compact code (squeue %t): PD CF R CG CD F CA TO NF OOM PR RQ; "?" for
// JOB_STATE_UNSPECIFIED.
std::string JobStateCode(v1::JobState state);

// Every state Skiff has, in Slurm's order.
std::vector<v1::JobState> AllJobStates();

// What squeue shows when -t is not given: PENDING, CONFIGURING, RUNNING,
// COMPLETING (and STAGE_OUT, SUSPENDED).
std::vector<v1::JobState> ActiveJobStates();
bool IsActiveJobState(v1::JobState state);

// One state by long name or compact code, any case: "PD", "pending", "r", "CG".
// Error: InvalidArgument "Invalid job state specified: <text>".
absl::StatusOr<v1::JobState> ParseJobState(std::string_view text);

// A comma-separated list of states; "all" (any case) stands for every state.
// Duplicates are dropped, order kept. Errors as ParseJobState; an empty list is
// InvalidArgument too.
absl::StatusOr<std::vector<v1::JobState>> ParseJobStateList(std::string_view text);

// ---- Signals ---------------------------------------------------------------

// A signal as scancel --signal takes it: a name with or without "SIG", any case
// ("USR1", "SIGusr1", "term"), or a number 1..64.
// Error: InvalidArgument "Unknown job signal: <text>".
absl::StatusOr<int> ParseSignal(std::string_view text);

// A signal's name as Slurm's sig_num2name gives it, without "SIG": 10 ->
// "USR1"; a number it has no name for prints as the number.
std::string SignalName(int number);

// ---- Job ids ---------------------------------------------------------------

// A plain job id ("42"), for commands that take no array task. Array forms
// ("42_7", "42_[1-3]") are InvalidArgument saying to give the plain job id, step
// forms ("42.0") InvalidArgument saying to give the job; anything else is
// InvalidArgument "Invalid job id: <text>".
absl::StatusOr<uint64_t> ParseJobId(std::string_view text);

// Most array tasks one "42_[a-b]" may name; guards against a typo like
// "42_[1-999999999]" exhausting memory.
inline constexpr int64_t kMaxArrayTaskRefs = 1 << 20;

// One job as Slurm's job commands take it, as JobRefs for a request's `refs`:
//   "42"            -> {42}            (an array's base id names the whole array)
//   "42_7"          -> {42, task 7}
//   "42_[1-3,7]"    -> 42_1 42_2 42_3 42_7 (ranges may step: "[0-15:4]")
// Step forms ("42.0", "42_7.1") are InvalidArgument "Invalid job id 42.0: this
// command acts on jobs, not steps; give the job id"; anything else "Invalid job
// id: <text>".
absl::StatusOr<std::vector<v1::JobRef>> ParseJobRef(std::string_view text);

// A comma-separated list of ParseJobRef forms; commas inside [] belong to the
// range ("1,42_[1,3],7"). Empty entries are skipped; errors as ParseJobRef; a list
// naming no job at all is InvalidArgument.
absl::StatusOr<std::vector<v1::JobRef>> ParseJobRefList(std::string_view text);

// "42" or "42_7", as Slurm prints a job reference.
std::string JobRefText(const v1::JobRef& ref);

// True for a task of a job array (array_job_id set and a task id >= 0).
bool IsArrayTask(const v1::JobInfo& job);

// The job's id as Slurm's commands print it: "42", or "42_7" for task 7 of array 42.
std::string JobIdText(const v1::JobInfo& job);

// A set of array task ids as Slurm prints one ("15400_[1-5]", sacct, squeue):
// sorted, duplicates dropped, runs of consecutive ids folded: {5,1,2,3,9} ->
// "1-3,5,9"; empty -> "".
std::string FormatTaskRanges(std::vector<int32_t> task_ids);

// Comma-separated job ids ("1,2,3"); empty entries are skipped. Errors as ParseJobId;
// a list with no ids at all is InvalidArgument.
absl::StatusOr<std::vector<uint64_t>> ParseJobIdList(std::string_view text);

// ---- Users and groups ------------------------------------------------------

// The account name of `uid`, or the number as text when it has none.
std::string UserNameOf(uint32_t uid);
// The group name of `gid`, or the number as text when it has none.
std::string GroupNameOf(uint32_t gid);

// A user given by name or by numeric uid, as -u takes it, returned as a name.
// Error: InvalidArgument "Invalid user: <text>" when no such user exists.
absl::StatusOr<std::string> ResolveUserName(std::string_view text);

// ---- Sizes -----------------------------------------------------------------

// Mebibytes as Slurm prints memory in job records and TRES: 100 -> "100M",
// 4096 -> "4G", 4821 -> "4821M", 0 -> "0".
std::string FormatMemoryMb(uint64_t mb);

// ---- Sharing ---------------------------------------------------------------

// A job's OverSubscribe= as Slurm's job_share_string shows it (scontrol show
// job, squeue %h): "NO" for --exclusive (and OverSubscribe=EXCLUSIVE
// partitions, whose jobs ctld sends as exclusive), "USER" / "MCS" for
// --exclusive=user / =mcs, "YES" for -s, else "OK".
std::string JobOverSubscribeText(const v1::JobSpec& spec);

// ---- Errors ----------------------------------------------------------------

// Slurm's error text (slurm_strerror) for what a job RPC answered: NotFound ->
// "Invalid job id specified", PermissionDenied -> "Access/permission denied" (or
// "Invalid user id" for updates, as Slurm's update_job says), FailedPrecondition
// with an empty message -> "Job/step already completing or completed". Any other
// status keeps ctld's own message.
enum class JobRpc { kCancel, kUpdate };
std::string SlurmJobErrorText(const absl::Status& status, JobRpc rpc);

// Splits on ',' and drops empty entries.
std::vector<std::string> SplitCommaList(std::string_view text);

// A state as sacct -s and restd's /slurmdb jobs?state= read it: "CA" ->
// "CANCELLED", "completed" -> "COMPLETED"; nullopt when unknown.
std::optional<std::string> SacctStateName(const std::string& text);

}  // namespace skiff::client

#endif  // SKIFF_CLIENT_JOB_TEXT_H_
