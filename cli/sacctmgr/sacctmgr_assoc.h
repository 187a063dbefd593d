// sacctmgr for accounts, users, associations and the cluster, as pure
// functions: the words after "add|modify|delete|show ENTITY" to an
// UpdateAccountsRequest, and ctld's GetAccountsReply to the tables Slurm
// 22.05's sacctmgr prints (shared/reference/sacctmgr_show_assoc.txt). ctld
// decides what a change means (existence, inheritance, permissions); this side
// only reads the command line and prints.
#ifndef SKIFF_CLI_SACCTMGR_SACCTMGR_ASSOC_H_
#define SKIFF_CLI_SACCTMGR_SACCTMGR_ASSOC_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/sacctmgr/sacctmgr_qos.h"
#include "proto/ctld.pb.h"

namespace skiff::cli {

enum class AssocEntity { kAccount, kUser, kAssociation, kCluster };

// "account", "accounts", "user", "association", "assoc", "cluster", any case;
// nullopt for other words (qos is sacctmgr_qos's).
std::optional<AssocEntity> ParseAssocEntity(const std::string& word);

struct AssocCommand {
  SacctmgrVerb verb = SacctmgrVerb::kShow;
  AssocEntity entity = AssocEntity::kAccount;
  v1::UpdateAccountsRequest request;  // add, modify, delete
  bool has_settings = false;          // modify: something after "set"
  std::vector<std::string> format;    // show: format= fields
  bool with_assoc = false;            // show account|user -s / WithAssoc
  // show filters (where Name=/Account=/User=), lower case for accounts.
  std::vector<std::string> names, accounts, users;
};

// `words` are the command's words after the entity ("research",
// "Description=x", "where", "name=alice", "set", "MaxJobs=4", ...). Keys take
// Slurm's spellings, any case: Name(s), Account(s), User(s), Cluster(s),
// Description, Organization, Parent, DefaultAccount, AdminLevel, Partition,
// Fairshare/Shares, GrpJobs, GrpSubmitJobs/GrpSubmit, GrpTRES, GrpTRESMins
// (billing=N), MaxJobs, MaxSubmitJobs/MaxSubmit, MaxTRESPerJob/MaxTRES, MaxWall,
// QOS (=, +=, -=), DefaultQOS; -1 clears a limit. Format=, WithAssoc/-s.
// Errors: InvalidArgument " Unknown option: X" / " Unknown condition: X" /
// a bad value naming its key, " You didn't give me anything to set".
absl::StatusOr<AssocCommand> ParseAssocCommand(SacctmgrVerb verb, AssocEntity entity,
                                               const std::vector<std::string>& words);

// show assoc|account|user|cluster: fixed columns (right-aligned, each followed
// by a space) or -p/-P. Error: InvalidArgument "Unknown field 'X'".
absl::StatusOr<std::string> FormatAssocTable(const AssocCommand& command,
                                             const v1::GetAccountsReply& reply,
                                             const SacctmgrOptions& options);

// What sacctmgr prints once ctld has made the change: " Adding Account(s)\n
// research\n ...", " Associations =\n  U = alice ...", " Modified users...",
// " Deleting account(s)...", or " Nothing new added." etc.
std::string AssocChangeMessage(const AssocCommand& command, const v1::UpdateAccountsReply& reply,
                               const std::string& cluster);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_SACCTMGR_SACCTMGR_ASSOC_H_
