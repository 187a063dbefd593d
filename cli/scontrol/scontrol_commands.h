// scontrol's command language as pure functions: keyword abbreviations, the
// "update JobId=... Key=value" and "update NodeName=... State=..." forms, job id
// lists for hold/uhold/release/requeue, and Slurm's error lines for failed job
// updates (see shared/reference/scontrol_hold_*.txt, scontrol_update_*.txt).
#ifndef SKIFF_CLI_SCONTROL_SCONTROL_COMMANDS_H_
#define SKIFF_CLI_SCONTROL_SCONTROL_COMMANDS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "proto/ctld.pb.h"

namespace skiff::cli {

// The keyword `word` abbreviates, case-insensitively: an exact match, else the one
// keyword it is a prefix of. A trailing 's' is forgiven ("jobs" -> "job").
// Errors: InvalidArgument "invalid keyword: <word>" or "ambiguous keyword: <word>".
absl::StatusOr<std::string> MatchKeyword(std::string_view word,
                                         const std::vector<std::string>& keywords);

// What "scontrol update ..." asks for: job updates (one per id in JobId=) or a
// node update.
struct UpdateCommand {
  std::vector<v1::UpdateJobRequest> jobs;
  bool is_node = false;
  v1::UpdateNodeRequest node;
  bool is_partition = false;
  v1::UpdatePartitionRequest partition;  // ctld checks the keys and values
};

// Parses the Key=value words after "update". Keys are case-insensitive.
// Jobs: JobId (comma list of ids, array tasks 42_7 and 42_[1-3]), TimeLimit,
// Partition, QOS, NumNodes (N or MIN-MAX; the minimum is sent), Name/JobName,
// Account, Comment, Nice (alone: 100), Priority, StartTime (--begin's forms),
// Features, ExcNodeList, ReqNodeList ("(null)" clears these three),
// ArrayTaskThrottle.
// Nodes: NodeName (hostlist expression), State (DRAIN, DOWN, RESUME, IDLE,
// UNDRAIN), Reason (required for DRAIN and DOWN).
// Partitions: PartitionName (abbreviated to two letters, as Slurm) and at
// least one other Key=Value ("No changes specified" otherwise); ctld checks
// the keys and values.
// Errors (InvalidArgument) use Slurm's wording where it has one:
//   "Update of this parameter is not supported: <word>\nRequest aborted",
//   "No changes specified", "Invalid TimeLimit value: <v>",
//   "You must specify a reason when DOWNING or DRAINING a node. Request denied",
//   "No valid entity in update command\n...".
absl::StatusOr<UpdateCommand> ParseUpdate(const std::vector<std::string>& args);

// Jobs for hold/uhold/release/requeue/requeuehold: each word may be a comma
// list of ids and array tasks (ParseJobRefList). Error: InvalidArgument from
// ParseJobRefList, or "No job id given" for none.
absl::StatusOr<std::vector<v1::JobRef>> ParseJobIdArgs(const std::vector<std::string>& args);

// What "show job ID" asks ctld for: a plain id ("42"; an array's base id names
// the whole array) or one array task ("42_7", as a JobRef).
// Error: InvalidArgument, with ParseJobId's message for anything else.
absl::StatusOr<v1::GetJobsRequest> ShowJobRequest(const std::string& text);

// `show hostnames [LIST]`: one name per line, in the order written (LIST empty:
// none given; the caller passes $SLURM_NODELIST). Errors, as Slurm prints them:
// "host list is empty", "Invalid hostlist: LIST".
absl::StatusOr<std::string> ShowHostnames(const std::string& list);

// `show hostlist LIST` and `show hostlistsorted LIST`: the names as one
// hostlist expression, followed by a newline. Unsorted keeps the order written
// and folds only runs of consecutive numbers ("n3,n1,n2" -> "n[3,1-2]"); sorted
// sorts, removes duplicates and folds (CompressHostlist). LIST may also be
// names separated by newlines, as read from a file. Error: "Invalid hostlist: LIST".
absl::StatusOr<std::string> EncodeHostlist(const std::string& list, bool sorted);

// The request for `command` (hold, uhold, release, requeue, requeuehold) on one job.
v1::UpdateJobRequest JobCommandRequest(const v1::JobRef& job, const std::string& command);

// What scontrol prints on stderr when UpdateJob fails for `job_id`:
//   "<text> for job <id>\n", and for hold/uhold/release also
//   "slurm_suspend error: <text>\n" (Slurm's wording, kept as is),
// where <text> is SlurmJobErrorText(status, kUpdate).
std::string DescribeUpdateError(const std::string& job_id, const absl::Status& status,
                                const std::string& command);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_SCONTROL_SCONTROL_COMMANDS_H_
