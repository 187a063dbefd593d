// sacctmgr's accounts, users and associations as ctld keeps them (the rows
// the store keeps, kinds "account", "acct_user" and "assoc": see
// ctld/state/records.h), and pure functions that apply one add/modify/delete
// to a copy, say which rows changed, and derive the core's AccountPolicy
// (limits resolved through inheritance).
//
// Threads: none; pure functions over plain values. The Controller owns its
// AccountsTable under its mutex and serializes updates.
#ifndef SKIFF_CTLD_CORE_ACCOUNTING_ACCOUNTS_H_
#define SKIFF_CTLD_CORE_ACCOUNTING_ACCOUNTS_H_

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/assoc_key.h"
#include "ctld/core/account_policy.h"
#include "ctld/core/accounting/tres_spec.h"

namespace skiff::ctld {

struct Account {
  std::string name;  // lower case, as Slurm's database keeps it
  std::string description;
  std::string organization;
  std::string parent;  // "" only for root
};

struct AcctUser {
  std::string name;
  std::string default_account;
  std::string admin_level;  // "None", "Operator", "Administrator"
  int64_t uid = -1;         // -1 = no such Unix user when added
};

// An association's limits (sacctmgr's words). Unset = not set here: the parent
// account's value applies (Slurm's inheritance), up to root; with none set
// anywhere, no limit. In an update, -1 (and a TRES of -1) clears.
struct AssocLimits {
  std::optional<int32_t> fairshare;          // Fairshare= (shares), default 1
  std::optional<TresSpec> grp_tres;          // GrpTRES: running jobs of the account subtree
  std::optional<int64_t> grp_jobs;           // GrpJobs: running jobs of the subtree
  std::optional<int64_t> grp_submit_jobs;    // GrpSubmitJobs: pending + running of the subtree
  std::optional<int64_t> max_jobs;           // MaxJobs: running jobs of this association
  std::optional<int64_t> max_submit_jobs;    // MaxSubmitJobs: pending + running of this one
  std::optional<TresSpec> max_tres_per_job;  // MaxTRESPerJob (MaxTRES)
  std::optional<int64_t> max_wall;           // MaxWall, seconds
  // GrpTRESMins=billing=N: service units (billing TRES-minutes) the subtree
  // may use in all.
  std::optional<int64_t> grp_billing_mins;
  // GrpTRESMins=cpu=N,mem=N,node=N,gres/gpu=N: TRES-minutes (mem in
  // MB-minutes) the subtree may use in all (ctld/core/budget.h).
  std::optional<TresSpec> grp_tres_mins;
  // MaxTRESMinsPerJob (MaxTRESMins): the most TRES-minutes one job of this
  // association may use (what it holds x its time limit).
  std::optional<TresSpec> max_tres_mins_per_job;
  // GrpTRESRunMins=cpu=N,mem=N,node=N,gres/gpu=N: TRES-minutes the running
  // jobs of the association (an account's: of its subtree) may still use,
  // what each holds times what is left of its time limit (budget.h).
  std::optional<TresSpec> grp_tres_run_mins;
  // grp_tres and max_tres_per_job are optional as a whole too: once a GrpTRES=
  // or MaxTRES= was given they stay set, even with every TRES cleared, as the
  // stored rows have always kept them (records.h stores them byte for byte).
};

struct Association {
  uint64_t id = 0;  // Slurm's ID column; stable, never reused
  std::string account;
  std::string user;            // "" = the account's own association
  std::string partition;       // "" = every partition
  std::string parent_account;  // for an account's association: its parent ("" for root)
  // Unset until an add or modify sets anything (the first rows of a new
  // database have none); an empty AssocLimits sets nothing either. Kept apart
  // so that a stored row keeps its bytes (records.h).
  std::optional<AssocLimits> limits;
  std::vector<std::string> qos;  // allowed QOS, sorted; empty = inherited from the parent
  std::string default_qos;       // "" = inherited / none
};

bool operator==(const Account& a, const Account& b);
bool operator==(const AcctUser& a, const AcctUser& b);
bool operator==(const AssocLimits& a, const AssocLimits& b);
bool operator==(const Association& a, const Association& b);
inline bool operator!=(const Account& a, const Account& b) { return !(a == b); }
inline bool operator!=(const AcctUser& a, const AcctUser& b) { return !(a == b); }
inline bool operator!=(const AssocLimits& a, const AssocLimits& b) { return !(a == b); }
inline bool operator!=(const Association& a, const Association& b) { return !(a == b); }

struct AccountsTable {
  std::map<std::string, Account> accounts;  // by name
  std::map<std::string, AcctUser> users;    // by name
  std::map<AssocKey, Association> assocs;
};

// A new database: Slurm's initial tables (account root, user root as
// Administrator, associations root and root/root with QOS normal).
AccountsTable InitialAccounts();

// The rows that make one table into another: rows added or changed, in full,
// and the keys of rows removed, each by its table's key (in key order).
struct AccountsDiff {
  std::map<std::string, Account> accounts;
  std::map<std::string, AcctUser> users;
  std::map<AssocKey, Association> assocs;
  std::vector<std::string> removed_accounts;
  std::vector<std::string> removed_users;
  std::vector<AssocKey> removed_assocs;

  // How many rows: what is written (records.h's AccountsRows) or removed.
  size_t size() const;
  bool empty() const { return size() == 0; }
};
AccountsDiff DiffAccounts(const AccountsTable& before, const AccountsTable& after);

enum class AccountsOp {
  kUnspecified,
  kAddAccount,     // names (+ description, organization, parent, limits, qos)
  kAddUser,        // names with accounts (+ default_account, admin_level, limits, qos)
  kModifyAccount,  // where names; set description, organization, parent, limits, qos
  kModifyUser,     // where names [and accounts]; set default_account, admin_level, limits, qos
  kDeleteAccount,  // where names
  kDeleteUser,     // where names [and accounts: only those associations]
};

// "ADD_ACCOUNT", ..., "OP_UNSPECIFIED" (the log's words).
const char* AccountsOpName(AccountsOp op);

// One sacctmgr add/modify/delete account|user.
struct AccountsUpdate {
  AccountsOp op = AccountsOp::kUnspecified;
  std::vector<std::string> names;
  std::vector<std::string> accounts;
  std::optional<std::string> description;
  std::optional<std::string> organization;
  std::optional<std::string> parent;
  std::optional<std::string> default_account;
  std::optional<std::string> admin_level;
  AssocLimits limits;
  // QOS=a,b sets the list; QOS+=a adds; QOS-=a removes.
  std::vector<std::string> qos;
  std::string qos_op;  // "" (unchanged), "=", "+=" or "-="
  std::optional<std::string> default_qos;
  std::vector<std::string> partitions;  // add user / where: Partition=
};

// What an update needs to know besides the tables.
struct AccountsContext {
  std::vector<std::string> qos_names;   // QOS that exist
  std::map<std::string, int64_t> uids;  // user name -> uid (-1 = no such user)
  std::set<AssocKey> active_assocs;     // of jobs not yet final, without partition
};

// What an update did, as sacctmgr reports it.
struct AccountsAffected {
  // Accounts or users created (adds: only new ones), modified or removed, by name.
  std::vector<std::string> names;
  // Associations created (adds) or removed (deletes).
  std::vector<AssocKey> associations;
};

struct AccountsUpdateResult {
  AccountsTable table;  // the whole table after the update
  AccountsAffected affected;
};

// Applies one sacctmgr add/modify/delete. Names are lower-cased (accounts) as
// Slurm's database keeps them. Errors (InvalidArgument unless noted), Slurm's
// texts: an unknown parent ("Parent account 'x' doesn't exist on cluster lab"),
// an unknown account for a user ("The account 'x' doesn't exist"), an unknown
// QOS ("Invalid qos 'x'"), a DefaultQOS not in the QOS list, a DefaultAccount the
// user has no association with, a bad AdminLevel, removing root ("You are not
// allowed to remove the root account."), a user's default account
// (FailedPrecondition "You can not remove the default account of a user"),
// associations with active jobs (FailedPrecondition "Job(s) active, cancel
// job(s) before remove"), a parent that would make a cycle ("Invalid parent
// account specified"). Nothing matching a delete of users: NotFound.
absl::StatusOr<AccountsUpdateResult> ApplyAccountsUpdate(const AccountsTable& table,
                                                         const AccountsUpdate& update,
                                                         const AccountsContext& context,
                                                         const std::string& cluster);

// The associations as sacctmgr show assoc lists them: depth first from root
// (an account's own, its users by name, its sub-accounts by name).
std::vector<Association> AssocsDepthFirst(const AccountsTable& table);

// The core's view, with every limit and QOS list resolved through inheritance.
AccountPolicy ToAccountPolicy(const AccountsTable& table, const Enforcement& enforce);

// Each association's normalized shares (Slurm's NormShares): root 1, and an
// association's Fairshare (default 1) over the sum of its siblings', times its
// parent's.
std::map<AssocKey, double> NormalizedShares(const AccountsTable& table);

// Users whose AdminLevel is Operator or Administrator, by uid (known uids only).
std::set<uid_t> AdminUids(const AccountsTable& table);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_ACCOUNTING_ACCOUNTS_H_
