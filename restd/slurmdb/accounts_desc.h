// The bodies and queries of slurmrestd's /slurmdb/ writes (data_parser
// v0.0.42's ACCOUNT, USER, ASSOC, QOS, *_ADD_COND and ASSOC_CONDITION), read
// into the ctld requests sacctmgr sends for the same change:
//   POST accounts               each account added under root, or its
//                               description and organization modified
//   POST accounts_association   `sacctmgr add account` with its settings
//   POST users                  each user modified; a new one needs
//                               default.account (Skiff keeps no user without
//                               an association)
//   POST users_association      `sacctmgr add user` with its settings
//   POST associations           each association added or its limits, QOS
//                               and parent modified
//   DELETE association(s)       the associations a query selects
//   POST qos                    each QOS added or modified
// Whether a record exists is read from the GetAccounts / GetQos reply the
// handler fetched just before, so a POST adds or modifies as slurmrestd's
// does. Fields Skiff keeps no record of come back as warnings, in
// slurmrestd's manner for fields a plugin ignores; a field of the wrong type
// or a TRES Skiff does not count is refused naming it.
//
// The bodies are read with nlohmann::json: restd reads JSON with nlohmann and
// writes every answer with client::Json (one writer; nlohmann reads).
//
// Pure; thread-safe.
#ifndef SKIFF_RESTD_SLURMDB_ACCOUNTS_DESC_H_
#define SKIFF_RESTD_SLURMDB_ACCOUNTS_DESC_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "proto/ctld.pb.h"

namespace skiff::restd {

// One ctld request of a write, in the order they are to be sent.
struct SlurmdbChange {
  bool is_qos = false;
  v1::UpdateAccountsRequest accounts;  // when !is_qos
  v1::UpdateQosRequest qos;            // when is_qos
};

struct SlurmdbWrite {
  std::vector<SlurmdbChange> changes;
  std::vector<std::string> warnings;
};

absl::StatusOr<SlurmdbWrite> AccountsPost(const nlohmann::json& body,
                                          const v1::GetAccountsReply& now);
absl::StatusOr<SlurmdbWrite> AccountsAssociationPost(const nlohmann::json& body);
absl::StatusOr<SlurmdbWrite> UsersPost(const nlohmann::json& body, const v1::GetAccountsReply& now);
absl::StatusOr<SlurmdbWrite> UsersAssociationPost(const nlohmann::json& body);
absl::StatusOr<SlurmdbWrite> AssociationsPost(const nlohmann::json& body,
                                              const v1::GetAccountsReply& now);
absl::StatusOr<SlurmdbWrite> QosPost(const nlohmann::json& body, const v1::GetQosReply& now);

// The associations an ASSOC_CONDITION query selects (account, user,
// partition, cluster, id: comma lists), as (account, user, partition); an
// empty query selects nothing, as slurmrestd refuses to remove everything.
std::vector<v1::AssocKey> SelectedAssociations(const std::map<std::string, std::string>& query,
                                               const v1::GetAccountsReply& now);
// The requests that remove `keys`: users' associations first (an account
// cannot go while a user is in it), then accounts, deepest first.
SlurmdbWrite AssociationsDelete(const std::vector<v1::AssocKey>& keys,
                                const v1::GetAccountsReply& now);

// slurmdbd's words for a removed association, as slurmrestd lists them:
// "C = lab        A = physics    U = alice    " (P = part with a partition),
// "C = lab        A = physics of root" for an account's.
std::string RemovedAssociationText(const std::string& cluster, const v1::AssocKey& key,
                                   const std::string& parent);
// added_accounts / added_users: slurmdbd's report of what an add created.
std::string AddedAccountsText(const std::string& cluster, const v1::UpdateAccountsRequest& request,
                              const v1::UpdateAccountsReply& reply);
std::string AddedUsersText(const std::string& cluster, const v1::UpdateAccountsRequest& request,
                           const v1::UpdateAccountsReply& reply);

}  // namespace skiff::restd

#endif  // SKIFF_RESTD_SLURMDB_ACCOUNTS_DESC_H_
