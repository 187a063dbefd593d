// GrpTRESMins budgets as the commands show them (sshare's GrpTRESMins and
// GrpTRESLeft, sacctmgr's GrpTRESLeft): an association's own limits by TRES
// name, and what is left of each once what ended runs used and what jobs not
// yet ended may use are taken (ctld's bank, GetAccountsReply).
//
// Threads: none; pure functions.
#ifndef SKIFF_CLIENT_BUDGET_TEXT_H_
#define SKIFF_CLIENT_BUDGET_TEXT_H_

#include <map>
#include <string>

#include "proto/ctld.pb.h"

namespace skiff::client {

// The association's own GrpTRESMins by TRES name: "billing", "cpu", "mem"
// (MB-minutes), "node", "gres/gpu"; only those set.
std::map<std::string, double> GrpTresMinsOf(const v1::AssocLimits& limits);

// Per TRES of its GrpTRESMins: the limit less what the bank says the
// association used and holds (`usage`: its figures, AccountsUsage::Of its key
// without partition); negative when overdrawn by a change of limit.
std::map<std::string, double> GrpTresLeftOf(const v1::AssocInfo& assoc,
                                            const v1::AssocUsage& usage);

// "cpu=N,mem=N,node=N,billing=N,gres/gpu=N" in Slurm's TRES order, whole
// minutes (negative shown as 0); "" when empty.
std::string BudgetText(const std::map<std::string, double>& minutes);

}  // namespace skiff::client

#endif  // SKIFF_CLIENT_BUDGET_TEXT_H_
