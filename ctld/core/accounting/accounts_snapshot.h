// What sacctmgr show, sshare and scontrol show assoc_mgr read of the accounts:
// the tables, and the usage and in-use figures the Controller adds from the
// core (ctld/rpc/acct_convert.h makes the GetAccountsReply of it).
//
// Threads: none; a plain value the caller owns.
#ifndef SKIFF_CTLD_CORE_ACCOUNTING_ACCOUNTS_SNAPSHOT_H_
#define SKIFF_CTLD_CORE_ACCOUNTING_ACCOUNTS_SNAPSHOT_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ctld/core/accounting/accounts.h"
#include "ctld/core/accounting/jobs_in_use.h"
#include "ctld/core/budget.h"

namespace skiff::ctld {

// ctld's figures for one association (accounts_snapshot's by_assoc): under an
// account's own key its subtree's bank and jobs in use; per user in an
// account its own. NormShares is per association (partition included); the
// rest is kept per account and user.
struct AssocFigures {
  double norm_shares = 0;
  // GrpTRESMins (billing = service units): used by ended runs, held by jobs
  // not yet ended; nullopt where the bank keeps no balance.
  std::optional<TresMinutes> used_budget_mins;
  std::optional<TresMinutes> held_budget_mins;
  // sshare's RawUsage, decayed to now (users' keys).
  double raw_usage = 0;
  // sshare's GrpTRESRaw: TRES-minutes of ended runs per TRES name (users' keys;
  // the caller fills it from the job store, outside the lock).
  std::map<std::string, double> used_tres_mins;
  // What the jobs not yet ended hold (CountJobsInUse); nullopt: none.
  std::optional<JobsInUse> in_use;
};

struct QosFigures {
  std::optional<JobsInUse> in_use;
  // The QOS's own GrpTRESMins balance (user "" only).
  std::optional<TresMinutes> used_budget_mins;
  std::optional<TresMinutes> held_budget_mins;
};

struct AccountsSnapshot {
  std::string cluster;
  std::vector<Account> accounts;    // by name
  std::vector<AcctUser> users;      // by name
  std::vector<Association> assocs;  // AssocsDepthFirst
  std::map<AssocKey, AssocFigures> by_assoc;
  std::map<QosKey, QosFigures> by_qos;
};

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_ACCOUNTING_ACCOUNTS_SNAPSHOT_H_
