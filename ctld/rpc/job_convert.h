// The job edge: turns a submitted v1::JobSpec into the core's plain
// SubmitRequest (admission itself is ctld/core/lifecycle/admission.h), and Jobs
// back into v1::JobInfo for squeue/scontrol. Pure apart from user/group name
// lookups (done by the caller and passed in).
#ifndef SKIFF_CTLD_RPC_JOB_CONVERT_H_
#define SKIFF_CTLD_RPC_JOB_CONVERT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/config/config.h"
#include "ctld/core/job.h"
#include "ctld/core/lifecycle/admission.h"
#include "ctld/core/resources.h"
#include "proto/job.pb.h"

namespace skiff::ctld {

struct Submitter {
  uid_t uid = 0;
  gid_t gid = 0;
  std::string user_name;
  std::string group_name;
  bool privileged =
      false;  // root, SlurmUser, SkiffOperators or an admin (Controller::IsPrivileged)
};

// sbatch's spec as plain data, with the caller's identity from its credential.
SubmitRequest SubmitRequestFromSpec(const v1::JobSpec& spec, const Submitter& submitter);

// SubmitRequestFromSpec + JobFromRequest: the spec's own admission checks
// against the configuration and the nodes' capacities; returns the Job to
// submit (no id yet). InvalidArgument carries Slurm's message, e.g.
// "Invalid partition name specified", "Requested time limit is invalid (missing
// or exceeds some limit)", "Invalid generic resource (gres) specification",
// "Requested node configuration is not available".
// `qos_names`: the QOS a job may ask for ("Invalid qos specification" otherwise).
absl::StatusOr<Job> JobFromSpec(const v1::JobSpec& spec, const Submitter& submitter,
                                const SkiffConfig& config, const std::vector<NodeCapacity>& nodes,
                                const std::vector<std::string>& qos_names = {"normal"});

v1::JobState ToProtoState(JobState state);
// What commands are shown: ToProtoState, except STAGE_OUT for a COMPLETING job
// whose burst buffer is staging out (post_run or data_out running), as Slurm.
v1::JobState DisplayState(const Job& job);

// squeue's REASON for `job` as JobToInfo describes it: its state description
// (the reason's detail, or the scheduler's words for Resources and
// ReqNodeNotAvail), else its reason, else "None".
std::string PendingReasonText(const Job& job);
// STAGE_OUT reads as COMPLETING.
absl::StatusOr<JobState> FromProtoState(v1::JobState state);

// How much of a job JobToInfo writes: everything, or what ctld keeps in
// memory (GetJobsRequest.summary: no stored spec is parsed, no output path
// expanded).
enum class JobInfoDetail { kWhole, kSummary };

// Who a JobInfo is for. Everything a user submits is private to them and to
// operators, except what Slurm shows every user of another user's job
// (scontrol show job, squeue: name, command, working directory, output
// paths, resources, ...). Another user gets the spec without its private
// fields (WithholdPrivateSpecFields): the script, its arguments, the environment, the
// --export list with its values, the submit directory, --open-mode.
enum class JobInfoReader { kOwnerOrOperator, kOtherUser };

// `now` fills JobInfo.now (for squeue's TIME column).
void JobToInfo(const Job& job, int64_t now, v1::JobInfo* out, JobInfoReader reader,
               JobInfoDetail detail = JobInfoDetail::kWhole);

// Clears from `spec` the fields only a job's owner and operators receive:
// every field but those Slurm shows to all, which are copied one by one, so
// that a field added to JobSpec later is private until someone decides
// otherwise.
void WithholdPrivateSpecFields(v1::JobSpec* spec);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_RPC_JOB_CONVERT_H_
