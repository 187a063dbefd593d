#include "client/shares.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "client/accounts_usage.h"
#include "client/budget_text.h"

namespace skiff::client {
namespace {

// An association's GrpTRESMins by TRES name, and what is left of each.
void FillBudget(const v1::AssocInfo& assoc, const v1::AssocUsage& usage, ShareRow& row) {
  row.grp_tres_mins = GrpTresMinsOf(assoc.limits());
  row.grp_tres_left = GrpTresLeftOf(assoc, usage);
}

// What the running jobs hold for the rest of their time limits, in
// TRES-minutes (billing aside).
std::map<std::string, double> RunMinutes(const v1::AssocUsage& usage) {
  if (!usage.has_in_use()) return {};
  const v1::Tres& secs = usage.in_use().running_tres_secs();
  return {{"cpu", secs.cpu() / 60.0},
          {"mem", secs.mem_mb() / 60.0},
          {"node", secs.node() / 60.0},
          {"gres/gpu", secs.gpu() / 60.0}};
}

}  // namespace

std::vector<ShareRow> ComputeShares(const v1::GetAccountsReply& reply) {
  // Depth and parent of every association, from the depth-first order.
  std::map<std::string, int> account_depth;
  std::map<std::string, std::string> parent_of;  // account -> parent account
  std::vector<ShareRow> rows;
  std::map<std::string, double> subtree_usage;  // account -> raw usage of its subtree
  // account -> GrpTRESRaw's TRES-minutes of its subtree
  std::map<std::string, std::map<std::string, double>> subtree_tres;
  const AccountsUsage usage(reply);
  for (const v1::AssocInfo& assoc : reply.assocs()) {
    ShareRow row;
    row.account = assoc.account();
    row.user = assoc.user();
    row.partition = assoc.partition();
    row.id = assoc.id();
    row.raw_shares = assoc.limits().has_fairshare() ? assoc.limits().fairshare() : 1;
    row.norm_shares = usage.Of(AssocKeyOf(assoc)).norm_shares();
    if (assoc.user().empty()) {
      parent_of[assoc.account()] = assoc.parent_account();
      auto parent = account_depth.find(assoc.parent_account());
      row.depth = parent == account_depth.end() ? 0 : parent->second + 1;
      account_depth[assoc.account()] = row.depth;
      const v1::AssocUsage& subtree = usage.Of(AssocKey::Account(assoc.account()));
      FillBudget(assoc, subtree, row);
      row.used_billing_mins = subtree.used_budget_mins().billing();
      row.held_billing_mins = subtree.held_budget_mins().billing();
      row.run_tres_mins = RunMinutes(subtree);
    } else {
      row.depth = account_depth[assoc.account()] + 1;
      const v1::AssocUsage& own = usage.Of(AssocKey::User(assoc.account(), assoc.user()));
      row.raw_usage = own.raw_usage();
      row.used_billing_mins = own.used_budget_mins().billing();
      row.held_billing_mins = own.held_budget_mins().billing();
      row.run_tres_mins = RunMinutes(own);
      row.used_tres_mins.insert(own.used_tres_mins().amounts().begin(),
                                own.used_tres_mins().amounts().end());
      // A user's usage counts in every account above it.
      std::string up = assoc.account();
      for (size_t guard = 0; !up.empty() && guard <= static_cast<size_t>(reply.assocs_size());
           ++guard) {
        subtree_usage[up] += row.raw_usage;
        for (const auto& [name, minutes] : row.used_tres_mins) subtree_tres[up][name] += minutes;
        auto next = parent_of.find(up);
        up = next == parent_of.end() ? "" : next->second;
      }
    }
    rows.push_back(row);
  }
  const double total = subtree_usage["root"];
  // Siblings' raw shares per parent, for the effective usage.
  std::map<std::string, double> level_shares;  // parent account -> sum of children's shares
  for (const ShareRow& row : rows) {
    if (row.depth == 0) continue;
    const std::string parent = row.user.empty() ? parent_of[row.account] : row.account;
    level_shares[parent] += std::max(0, row.raw_shares);
  }
  std::map<std::string, double> effective;  // account -> its effective usage
  for (ShareRow& row : rows) {
    if (row.user.empty()) {
      row.raw_usage = subtree_usage[row.account];
      row.used_tres_mins = subtree_tres[row.account];
    }
    row.norm_usage = total > 0 ? row.raw_usage / total : 0;
    if (row.depth == 0) {
      row.effective_usage = row.norm_usage;
    } else {
      // Slurm's classic effective usage: own normalized usage, pulled toward the
      // parent's by this association's share of its level.
      const std::string parent = row.user.empty() ? parent_of[row.account] : row.account;
      const double level = level_shares[parent];
      const double parent_effective = effective[parent];
      row.effective_usage = level > 0 ? row.norm_usage + (parent_effective - row.norm_usage) *
                                                             std::max(0, row.raw_shares) / level
                                      : row.norm_usage;
    }
    if (row.user.empty()) effective[row.account] = row.effective_usage;
    row.fairshare = row.norm_shares > 0 ? std::exp2(-row.effective_usage / row.norm_shares) : 0;
  }
  return rows;
}

}  // namespace skiff::client
