// Accounts and associations as the core enforces them (AccountingStorageEnforce):
// plain structs built by ctld from sacctmgr's tables (ctld/core/accounting), with each
// association's limits already resolved through Slurm's inheritance (a limit
// not set on a user's association comes from its account's, then that
// account's parent's, up to root).
//
// Threads: none; pure functions. The Lifecycle owns its AccountPolicy under the
// Controller's mutex.
#ifndef SKIFF_CTLD_CORE_ACCOUNT_POLICY_H_
#define SKIFF_CTLD_CORE_ACCOUNT_POLICY_H_

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/assoc_key.h"
#include "common/config/parameters.h"
#include "ctld/core/budget.h"
#include "ctld/core/job.h"

namespace skiff::ctld {

// AccountingStorageEnforce, as skiff.conf's loader parsed it: Enforcement
// (common/config/parameters.h).

inline constexpr int64_t kNoAssocLimit = -1;

struct AssocTres {  // kNoAssocLimit where unlimited
  int64_t cpus = kNoAssocLimit;
  int64_t mem_mb = kNoAssocLimit;
  int64_t nodes = kNoAssocLimit;
  int64_t gpus = kNoAssocLimit;
};

// One user association (account, user[, partition]) with its effective limits.
struct UserAssoc {
  std::string account;
  std::string user;
  std::string partition;                    // "" = every partition
  int64_t max_jobs = kNoAssocLimit;         // running
  int64_t max_submit_jobs = kNoAssocLimit;  // pending + running
  int64_t max_wall = kNoAssocLimit;         // seconds
  AssocTres max_tres_per_job;
  AssocTres max_tres_mins_per_job;  // MaxTRESMinsPerJob: TRES-minutes (mem: MB-minutes)
  // This association's own GrpTRESMins and GrpTRESRunMins (budget.h; Grp
  // limits are not inherited: an account's hold over its whole subtree).
  TresMinutes grp_tres_mins = kNoBudget;
  TresMinutes grp_tres_run_mins = kNoBudget;
  std::vector<std::string> qos;  // allowed QOS (effective)
  std::string default_qos;       // "" = none
};

// An account's own association: limits over its whole subtree.
struct AccountAssoc {
  std::string parent;  // "" for root
  int64_t grp_jobs = kNoAssocLimit;
  int64_t grp_submit_jobs = kNoAssocLimit;
  AssocTres grp_tres;
  // GrpTRESMins: TRES-minutes the subtree may use in all (budget.h), ended
  // runs plus what running (and, with `safe`, pending) jobs hold.
  TresMinutes grp_tres_mins = kNoBudget;
  // GrpTRESRunMins: what the subtree's running jobs may still use (budget.h).
  TresMinutes grp_tres_run_mins = kNoBudget;
};

struct AccountPolicy {
  Enforcement enforce;
  std::map<std::string, std::string> default_account;  // user -> DefaultAccount
  std::vector<UserAssoc> users;                        // any order
  std::map<std::string, AccountAssoc> accounts;        // by account name
  // Each user's normalized shares from the tree (Fairshare= of every level:
  // an association's shares over its siblings', times its parent's), summed
  // over the user's associations: the fair-share factor's S.
  std::map<std::string, double> user_shares;
  // QOS with a budget (GrpTRESMins naming any TRES): only associations whose
  // QOS list allows one may spend it, with or without
  // AccountingStorageEnforce=qos (Lifecycle fills it from its QOS table).
  std::set<std::string> budget_qos;

  // The association a job of `user` in `account` and `partition` runs under: one
  // for that partition first, else the partition-less one. nullptr = none.
  const UserAssoc* Find(const std::string& user, const std::string& account,
                        const std::string& partition) const;
  // `account` and its ancestors up to root, nearest first.
  std::vector<std::string> Lineage(const std::string& account) const;
};

// Fills in what the submission left out: the user's DefaultAccount when no
// account was named (when the user has one), then the association's DefaultQOS
// when no QOS was named. Names are compared in lower case, as Slurm's database
// keeps them.
void FillAccountDefaults(const AccountPolicy& policy, const std::string& user_name,
                         std::string* account, std::string* qos);

// Checks a built job against the enforced policy (REQUIRES: the job's account,
// QOS and partition are resolved). `counts` gives, per user in an account
// and per account, the jobs not yet final (pending + running),
// including those being admitted with this one.
// Errors (InvalidArgument, Slurm's texts): no association for the user and
// account ("Invalid account or account/partition combination specified"), a QOS
// the association does not allow ("Invalid qos specification"; for a QOS in
// `budget_qos` even without enforce.qos, naming the QOS), a job over
// MaxWall, MaxTRESPerJob, MaxSubmitJobs or GrpSubmitJobs ("Job violates
// accounting/QOS policy (job submit limit, user's size and/or time limits)").
struct SubmitCounts {
  std::map<AssocKey, int64_t> by_assoc;       // a user's jobs in an account
  std::map<std::string, int64_t> by_account;  // the account's subtree
  // `n` more jobs of `user` in `account` (and so in its ancestors).
  void Add(const AccountPolicy& policy, const std::string& account, const std::string& user,
           int64_t n);
};
// What CheckAssociation checks: everything (a submission, a user's update of
// their job), or only that the association exists (an operator's update: Slurm
// lets operators past the association's QOS list and limits, never past a
// missing association; _update_job's `operator`).
enum class AssocChecks { kAll, kExistence };
absl::Status CheckAssociation(const AccountPolicy& policy, const Job& job, int64_t admitting,
                              const SubmitCounts& counts, AssocChecks checks = AssocChecks::kAll);

// The counts CheckAssociation needs, from the jobs not yet final.
SubmitCounts CountSubmitted(const AccountPolicy& policy, const std::vector<const Job*>& live);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_ACCOUNT_POLICY_H_
