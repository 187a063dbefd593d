// Accounts, users, associations, QOS and the cluster's TRES as data_parser
// v0.0.42 writes slurmdbd's (ACCOUNT, USER, ASSOC, QOS, TRES), from ctld's
// GetAccounts, GetQos and GetUsageReport replies: the records sacctmgr
// prints. Fields Skiff has no record of (coordinators, wckeys, comments,
// accrue limits, GrpWall, usage thresholds) are left out.
//
// Associations carry what Slurm's database gives them by default: limits an
// association does not set itself come from the nearest account above it that
// sets them (MaxJobs, MaxSubmitJobs, MaxWall, MaxTRES, MaxTRESMins per TRES,
// QOS and DefaultQOS, as slurmdbd's get_parent_limits); Grp* limits and
// shares stay the association's own, since they apply to its whole subtree.
// Limits not set anywhere are Slurm's INFINITE.
//
// The query parameters a path honours are read here too (comma lists; a flag
// is on when present and not "false", "0" or "no"); others are ignored, as
// slurmrestd's plugins ignore what they do not support.
//
// Written as client::Json, restd's one writer. Pure; thread-safe.
#ifndef SKIFF_RESTD_SLURMDB_ACCOUNTS_JSON_H_
#define SKIFF_RESTD_SLURMDB_ACCOUNTS_JSON_H_

#include <map>
#include <string>

#include "client/json_writer.h"
#include "proto/ctld.pb.h"

namespace skiff::restd {

using QueryParameters = std::map<std::string, std::string>;

// Whether `name` is present and not spelt as false.
bool QueryFlag(const QueryParameters& query, const std::string& name);

// An association (ASSOC). With `parent_limits`, unset limits are inherited
// as described above.
client::Json AssociationJson(const v1::GetAccountsReply& reply, const v1::AssocInfo& assoc,
                             bool parent_limits);

// /associations: those the query selects (account, user, partition, id,
// parent_account, cluster; without_parent_limits), depth first from root.
client::Json AssociationsJson(const v1::GetAccountsReply& reply, const QueryParameters& query);

// An account (ACCOUNT); its associations (assoc_short) when `with_assocs`.
client::Json AccountJson(const v1::GetAccountsReply& reply, const v1::AccountInfo& account,
                         bool with_assocs);
// /accounts: every account, or those whose description the query names;
// WithAssociations adds each one's associations.
client::Json AccountsJson(const v1::GetAccountsReply& reply, const QueryParameters& query);

// A user (USER); their associations when `with_assocs`.
client::Json UserJson(const v1::GetAccountsReply& reply, const v1::UserInfo& user,
                      bool with_assocs);
// /users: every user, or those with the admin_level / default_account the
// query names; with_assocs adds each one's associations.
client::Json UsersJson(const v1::GetAccountsReply& reply, const QueryParameters& query);

// A QOS (QOS).
client::Json QosJson(const v1::QosInfo& qos);
// /qos: every QOS of the reply, or those the query's name / id lists name.
client::Json QosListJson(const v1::GetQosReply& reply, const QueryParameters& query);

// /tres: the TRES the cluster tracks, with its totals (mem in MiB).
client::Json ClusterTresJson(const v1::GetUsageReportReply& report);

// {"cpu": 4, "mem": 1024, "node": 2, "gres/gpu": 4} of a limit; unset and
// negative (cleared) entries left out.
std::map<std::string, int64_t> TresLimitCounts(const v1::Tres& tres);

}  // namespace skiff::restd

#endif  // SKIFF_RESTD_SLURMDB_ACCOUNTS_JSON_H_
