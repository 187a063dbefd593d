// sacct's view of stored jobs: which records a GetAccountingRequest selects,
// and each job as an AcctJob with its steps. Pure (no clock, no I/O); the
// caller passes `now` and the node names it expanded.
#ifndef SKIFF_CTLD_RPC_ACCT_CONVERT_H_
#define SKIFF_CTLD_RPC_ACCT_CONVERT_H_

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "ctld/core/job.h"
#include "proto/accounting.pb.h"

namespace skiff {

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
// job holds a burst buffer. Billing is the CPU count (no TRESBillingWeights).
std::string AcctReqTres(const Job& job);
std::string AcctAllocTres(const Job& job);  // "" until allocated

// The record, with its batch step (when the script was launched) unless
// `with_steps` is false.
v1::AcctJob ToAcctJob(const Job& job, bool with_steps, const std::string& cluster, int64_t now);

// The batch step of a launched batch job (`suspended`: seconds so far).
v1::AcctStep AcctBatchStep(const Job& job, int64_t suspended);

// Raises `out`'s DerivedExitCode to the highest of the job's srun steps as their
// step managers reported them (stored records, in step order), and with
// `add_rows` appends them to its steps, settling the ones whose step manager
// never reported an end (SettleStep).
void AddStoredSteps(const Job& job, const std::vector<v1::AcctStep>& stored, bool add_rows,
                    v1::AcctJob* out);

}  // namespace skiff

#endif  // SKIFF_CTLD_RPC_ACCT_CONVERT_H_
