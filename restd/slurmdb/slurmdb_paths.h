// slurmrestd's /slurmdb/{version}/ paths (openapi/slurmdbd), answered from
// ctld's accounting records and account tree in data_parser v0.0.42's shapes
// (issue 36), and written as sacctmgr writes them (issue 49):
//   jobs, job/{job_id}                          jobs_paths.cc (GetAccounting)
//   accounts, account/{account_name},
//   associations, users, user/{name}            accounts_paths.cc (GetAccounts)
//   qos, qos/{qos}, tres                        qos_tres_paths.cc (GetQos,
//                                               GetUsageReport)
//   POST accounts, accounts_association, users,
//   users_association, associations, qos;
//   DELETE account/{name}, user/{name},
//   association(s), qos/{qos}                   accounts_write_paths.cc
//                                               (UpdateAccounts, UpdateQos)
// Each handler calls ctld as the request's user (RestCall::Call), so ctld
// decides what that user may see (PrivateData=jobs), exactly as for sacct and
// sacctmgr; restd neither filters nor widens that. A single record that is not
// there (or not visible) is, as slurmrestd answers it, 200 with an empty list
// and the warning "slurmdb_..._get() found nothing".
//
// The handlers keep no state; thread-safe.
#ifndef SKIFF_RESTD_SLURMDB_SLURMDB_PATHS_H_
#define SKIFF_RESTD_SLURMDB_SLURMDB_PATHS_H_

#include <string>

#include "absl/status/status.h"
#include "restd/http/http_message.h"
#include "restd/rest_call.h"
#include "restd/router.h"

namespace skiff::restd {

void AddSlurmdbPaths(Router& router);

// Each file's share of them.
void AddJobsPaths(Router& router);
void AddAccountsPaths(Router& router);
void AddAccountsWritePaths(Router& router);
void AddQosAndTresPaths(Router& router);

// Answer() and Failure() with meta naming the slurmdbd plugin, as
// slurmrestd's /slurmdb/ answers do. A failure carries the path's list
// (`list_key`: "jobs", "accounts", ...) empty, as slurmrestd's do: the
// document's schemas require it in every answer, errors included ("" for an
// answer with no list).
HttpResponse SlurmdbAnswer(const RestCall& call, Json body);
// slurmrestd's meta for a /slurmdb/ answer (the slurmdbd plugin's).
Json SlurmdbMeta(const RestCall& call);
HttpResponse SlurmdbFailure(const RestCall& call, const absl::Status& status,
                            const std::string& list_key);
// The same with what else `body` holds (an empty "added_users" text, ...).
HttpResponse SlurmdbFailureWith(const RestCall& call, const absl::Status& status, Json body);
// 200, `list_key` empty and slurmrestd's warning that `query` ("slurmdb_jobs_get")
// found nothing: what slurmrestd answers for a name or id it has no record of.
HttpResponse SlurmdbFoundNothing(const RestCall& call, const std::string& list_key,
                                 const std::string& query);

}  // namespace skiff::restd

#endif  // SKIFF_RESTD_SLURMDB_SLURMDB_PATHS_H_
