// sacct's view of stored jobs: which records a GetAccountingRequest selects,
// and each job as an AcctJob with its steps. And the proto <-> plain
// conversions of sacctmgr's tables and of job steps (ctld/core/accounting):
// the RPC edge converts with them, and ctld/state/records.h stores the same
// messages. Pure (no clock, no I/O); the caller passes `now` and the node
// names it expanded.
#ifndef SKIFF_CTLD_RPC_ACCT_CONVERT_H_
#define SKIFF_CTLD_RPC_ACCT_CONVERT_H_

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "common/billing.h"
#include "common/config/config.h"
#include "ctld/core/accounting/accounts.h"
#include "ctld/core/accounting/accounts_snapshot.h"
#include "ctld/core/accounting/jobs_in_use.h"
#include "ctld/core/accounting/qos.h"
#include "ctld/core/accounting/step_book.h"
#include "ctld/core/accounting/tres_spec.h"
#include "ctld/core/job.h"
#include "ctld/core/node_table.h"
#include "proto/accounting.pb.h"
#include "proto/ctld.pb.h"

namespace skiff::ctld {

// The request's filters, resolved once.
struct AcctSelection {
  const v1::GetAccountingRequest* request = nullptr;
  std::set<std::string> nodes;  // -N, expanded; empty = any
  int64_t window_end = 0;       // request's window_end, or now
};

// True when `job` passes every filter of the request: -j ids (a job, an array's
// tasks, one task), users, groups, accounts and QOS (any case), names,
// partitions, nodes, and the window: without states a job is selected when it
// existed in [window_start, window_end]; with states, when it was in one of them
// during the window (PENDING: waiting then; RUNNING: running then; a final
// state: ended then).
bool AcctSelected(const Job& job, const AcctSelection& selection);

// The step ids a -j list names for `job` ("batch", "0"); empty = the job row and
// all its steps.
std::vector<std::string> AcctSelectedSteps(const Job& job, const v1::GetAccountingRequest& request);

// Slurm's sacct state name of a stored job (COMPLETING shows as its coming
// final state's name once known, CONFIGURING as RUNNING).
std::string AcctStateName(const Job& job);

// The trackable resources as sacct prints them, sorted by name:
// "billing=2,cpu=2,gres/gpu=1,mem=200M,node=1", and "bb/lua=2G" first when the
// job holds a burst buffer. ReqTRES's billing is what the request makes under
// `weights`, its partition's TRESBillingWeights (the CPU count without); AllocTRES is
// Job::alloc_tres (billing under the partition's TRESBillingWeights, and
// gres/gpu:TYPE beside gres/gpu for typed GPUs), or for a run stored before
// Skiff kept it, what the job's nodes and GPUs add up to with billing = CPUs.
std::string AcctReqTres(const Job& job, const BillingWeights& weights = {});
std::string AcctAllocTres(const Job& job);  // "" until allocated

// sreport's Planned (22.05's sreport.1: time eligible jobs waited): adds to
// `out`, per TRES the job asks for (cpu, mem in MiB, node, gres/gpu, and
// billing under `weights`), the count times its seconds inside [start, end)
// from its eligible time until it started (or ended unstarted, or `now`).
// Held jobs (no eligible time) and jobs that named a reservation add nothing.
void AddWaitingTres(const Job& job, int64_t start, int64_t end, int64_t now,
                    const BillingWeights& weights, std::map<std::string, double>* out);

// The cluster's TRES as Slurm's database lists them for sreport -T, in its
// order (TresBefore): the eight base TRES (cpu, mem in MiB, node, and billing
// counted; energy, fs/disk, vmem and pages 0), bb/lua when `burst_buffer`,
// then gres/gpu and gres/gpu:TYPE when any node has GPUs. A node's billing is
// the most any of its partitions' TRESBillingWeights make of it, as Slurm's
// controller.c sets it.
std::vector<std::pair<std::string, double>> ClusterTres(
    const std::vector<Node>& nodes, const std::vector<PartitionConfig>& partitions,
    bool burst_buffer);

// The record, with its batch step (BatchStep, when the script was launched)
// unless `with_steps` is false. `weights`: the job's partition's
// TRESBillingWeights, for ReqTRES's billing.
v1::AcctJob ToAcctJob(const Job& job, bool with_steps, const std::string& cluster, int64_t now,
                      const BillingWeights& weights = {});

// Raises `out`'s DerivedExitCode to the highest of the job's srun steps as their
// step managers reported them (stored records, in step order), and with
// `add_rows` appends them to its steps, settling the ones whose step manager
// never reported an end (SettleStep).
void AddStoredSteps(const Job& job, const std::vector<StepRecord>& stored, bool add_rows,
                    v1::AcctJob* out);

// ---- proto <-> plain. Every field is copied, and what the message may leave
// unset (a TRES, an association's limits and their TRES lists, the optional
// settings of requests) stays unset in the struct and back, so a QosInfo,
// AccountInfo, UserInfo, AssocInfo or AcctStep converted to its struct and
// back is the same message, byte for byte (a QosInfo: one with both TRES
// lists, as every QOS ctld has stored); records_test and acct_convert_test
// hold this.

v1::Tres TresToProto(const TresSpec& tres);
TresSpec TresFromProto(const v1::Tres& tres);

// A QOS always carries both TRES lists (as QosWithDefaults makes every QOS).
v1::QosInfo QosToProto(const QosDefinition& qos);
QosDefinition QosFromProto(const v1::QosInfo& info);
// An op this Skiff does not know reads as QosOp::kUnspecified (refused).
QosUpdate QosUpdateFromProto(const v1::UpdateQosRequest& request);

v1::AccountInfo AccountToProto(const Account& account);
Account AccountFromProto(const v1::AccountInfo& info);
v1::UserInfo AcctUserToProto(const AcctUser& user);
AcctUser AcctUserFromProto(const v1::UserInfo& info);
v1::AssocInfo AssocToProto(const Association& assoc);
Association AssocFromProto(const v1::AssocInfo& info);
// An op this Skiff does not know reads as AccountsOp::kUnspecified (refused).
AccountsUpdate AccountsUpdateFromProto(const v1::UpdateAccountsRequest& request);
v1::UpdateAccountsReply AccountsAffectedToProto(const AccountsAffected& affected);
v1::AssocKey AssocKeyToProto(const AssocKey& key);
// running_tres and running_tres_secs are always present, so that scontrol
// prints "(0)" as a count and not as "not known".
v1::JobsInUse JobsInUseToProto(const JobsInUse& in_use);
v1::GetAccountsReply AccountsSnapshotToProto(const AccountsSnapshot& snapshot);

v1::AcctStep StepToProto(const StepRecord& step);
StepRecord StepFromProto(const v1::AcctStep& step);
v1::StepInfo JobStepToProto(const JobStep& step);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_RPC_ACCT_CONVERT_H_
