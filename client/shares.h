// The shares tree as Slurm 22.05's sshare computes it (src/sshare/process.c):
// every association of a GetAccountsReply with its shares normalized level by
// level, its usage raw, normalized and effective, and the fair-share factor.
// Skiff computes Slurm's classic factor, 2^(-EffectvUsage/NormShares)
// (PriorityFlags without FAIR_TREE), for account and user lines alike. sshare
// prints these rows; scontrol show assoc_mgr and restd's /shares read them.
//
// Threads: none; pure functions.
#ifndef SKIFF_CLIENT_SHARES_H_
#define SKIFF_CLIENT_SHARES_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "proto/ctld.pb.h"

namespace skiff::client {

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

}  // namespace skiff::client

#endif  // SKIFF_CLIENT_SHARES_H_
