// sshare as pure functions: the association tree of a GetAccountsReply to the
// rows Slurm 22.05's sshare prints (src/sshare/process.c): shares normalized
// level by level, usage raw, normalized and effective, and the fair-share
// factor. Skiff computes Slurm's classic factor, 2^(-EffectvUsage/NormShares)
// (PriorityFlags without FAIR_TREE), for account and user lines alike.
//
// Budgets show in the long listing: GrpTRESMins is the account's
// GrpTRESMins (billing, cpu, mem, node, gres/gpu). Beyond Slurm, -o
// GrpTRESLeft shows what is left of each: the limit less what ended runs used
// and what the jobs not yet ended may still use. GrpTRESRaw and TRESRunMins list every TRES
// as Slurm's sshare does (cpu, mem, energy, node, billing, fs/disk, vmem,
// pages, gres/gpu, then typed GPUs), in TRES-minutes: GrpTRESRaw what the
// ended runs used (billing: the billing-minutes charged), TRESRunMins what the
// running jobs hold for the rest of their time limits (billing: the most the
// jobs not yet ended may cost).
#ifndef SKIFF_CLI_SSHARE_SSHARE_FORMAT_H_
#define SKIFF_CLI_SSHARE_SSHARE_FORMAT_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/ctld.pb.h"

namespace skiff::cli {

struct SshareOptions {
  bool all_users = false;             // -a
  std::vector<std::string> accounts;  // -A: these accounts' subtrees
  std::vector<std::string> users;     // -u: these users' lines (and their accounts)
  bool users_only = false;            // -U
  bool long_format = false;           // -l
  bool no_header = false;             // -n
  bool parsable = false;              // -p
  bool parsable2 = false;             // -P
  std::string format;                 // -o
  std::string caller;                 // the user running sshare (lines shown without -a/-u)
};

// One association as sshare computes it.
struct ShareRow {
  std::string account;
  std::string user;  // "" for an account's line
  int depth = 0;     // root 0
  std::string partition;
  uint64_t id = 0;
  int32_t raw_shares = 1;
  double norm_shares = 0;
  double raw_usage = 0;   // billing-seconds, decayed
  double norm_usage = 0;  // over the root's
  double effective_usage = 0;
  double fairshare = 0;
  // GrpTRESMins by TRES name (billing, cpu, mem, node, gres/gpu); only those set.
  std::map<std::string, double> grp_tres_mins;
  // What is left of them: the limit less what ended runs used and what the
  // jobs not yet ended hold (Skiff's GrpTRESLeft), by the same names.
  std::map<std::string, double> grp_tres_left;
  double used_billing_mins = 0;
  double held_billing_mins = 0;
  std::map<std::string, double> used_tres_mins;  // by TRES name, billing aside
  std::map<std::string, double> run_tres_mins;   // by TRES name, billing aside
};

// Every association in the reply's (depth-first) order, with the figures.
std::vector<ShareRow> ComputeShares(const v1::GetAccountsReply& reply);

// The table. Errors: InvalidArgument `Invalid field requested: "X"`.
absl::StatusOr<std::string> FormatSshare(const v1::GetAccountsReply& reply,
                                         const SshareOptions& options);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_SSHARE_SSHARE_FORMAT_H_
