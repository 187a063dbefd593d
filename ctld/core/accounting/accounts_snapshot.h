// What sacctmgr show, sshare and scontrol show assoc_mgr read of the accounts:
// the tables, and the usage and in-use figures the Controller adds from the
// core (ctld/rpc/acct_convert.h makes the GetAccountsReply of it).
//
// Threads: none; a plain value the caller owns.
#ifndef SKIFF_CTLD_CORE_ACCOUNTING_ACCOUNTS_SNAPSHOT_H_
#define SKIFF_CTLD_CORE_ACCOUNTING_ACCOUNTS_SNAPSHOT_H_

#include <map>
#include <string>
#include <vector>

#include "ctld/core/accounting/accounts.h"
#include "ctld/core/accounting/jobs_in_use.h"
#include "ctld/core/budget.h"

namespace skiff::ctld {

struct AccountsSnapshot {
  std::string cluster;
  std::vector<Account> accounts;    // by name
  std::vector<AcctUser> users;      // by name
  std::vector<Association> assocs;  // AssocsDepthFirst
  // Service units (GrpTRESMins=billing): billing-minutes used by ended runs and
  // held by jobs not yet ended. Keyed by account (its whole subtree) and by
  // "account|user" (that user's own jobs in it).
  std::map<std::string, double> used_billing_mins;
  std::map<std::string, double> held_billing_mins;
  // The same for every budget TRES (GrpTRESMins, ctld/core/budget.h).
  std::map<std::string, TresMinutes> used_budget_mins;
  std::map<std::string, TresMinutes> held_budget_mins;
  // sshare's RawUsage, decayed to now, by "account|user".
  std::map<std::string, double> raw_usage;
  // sshare's GrpTRESRaw: TRES-minutes of ended runs per TRES name, by
  // "account|user" (the caller fills it from the job store, outside the lock).
  std::map<std::string, std::map<std::string, double>> used_tres_mins;
  // sshare's NormShares by AssocKey (NormalizedShares).
  std::map<std::string, double> norm_shares;
  // What the jobs not yet ended hold (CountJobsInUse).
  std::map<std::string, JobsInUse> assoc_in_use;
  std::map<std::string, JobsInUse> qos_in_use;
};

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_ACCOUNTING_ACCOUNTS_SNAPSHOT_H_
