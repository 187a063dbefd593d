// /slurmdb/{version}/accounts, account/{account_name}, associations, users
// and user/{name}: ctld's account tree (what sacctmgr show reads).
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "restd/slurmdb/accounts_json.h"
#include "restd/slurmdb/slurmdb_paths.h"

namespace skiff::restd {
namespace {

absl::Status AccountsOf(RestCall& call, v1::GetAccountsReply* reply) {
  return call.Call(&v1::Ctld::Stub::GetAccounts, v1::GetAccountsRequest(), reply);
}

HttpResponse Accounts(RestCall& call) {
  v1::GetAccountsReply reply;
  if (absl::Status s = AccountsOf(call, &reply); !s.ok())
    return SlurmdbFailure(call, s, "accounts");
  return SlurmdbAnswer(call, {{"accounts", AccountsJson(reply, call.request.query)}});
}

HttpResponse Account(RestCall& call) {
  // Slurm's database keeps account names in lower case, and so does ctld.
  const std::string name = absl::AsciiStrToLower(call.args.at(0));
  v1::GetAccountsReply reply;
  if (absl::Status s = AccountsOf(call, &reply); !s.ok())
    return SlurmdbFailure(call, s, "accounts");
  for (const v1::AccountInfo& account : reply.accounts()) {
    if (account.name() != name) continue;
    const bool with_assocs = QueryFlag(call.request.query, "with_assocs");
    return SlurmdbAnswer(call,
                         {{"accounts", Json::Array({AccountJson(reply, account, with_assocs)})}});
  }
  return SlurmdbFoundNothing(call, "accounts", "slurmdb_accounts_get");
}

HttpResponse Associations(RestCall& call) {
  v1::GetAccountsReply reply;
  if (absl::Status s = AccountsOf(call, &reply); !s.ok())
    return SlurmdbFailure(call, s, "associations");
  return SlurmdbAnswer(call, {{"associations", AssociationsJson(reply, call.request.query)}});
}

HttpResponse Users(RestCall& call) {
  v1::GetAccountsReply reply;
  if (absl::Status s = AccountsOf(call, &reply); !s.ok()) return SlurmdbFailure(call, s, "users");
  return SlurmdbAnswer(call, {{"users", UsersJson(reply, call.request.query)}});
}

HttpResponse User(RestCall& call) {
  const std::string& name = call.args.at(0);
  v1::GetAccountsReply reply;
  if (absl::Status s = AccountsOf(call, &reply); !s.ok()) return SlurmdbFailure(call, s, "users");
  for (const v1::UserInfo& user : reply.users()) {
    if (user.name() != name) continue;
    const bool with_assocs = QueryFlag(call.request.query, "with_assocs");
    return SlurmdbAnswer(call, {{"users", Json::Array({UserJson(reply, user, with_assocs)})}});
  }
  return SlurmdbFoundNothing(call, "users", "slurmdb_users_get");
}

}  // namespace

void AddAccountsPaths(Router& router) {
  router.Add("GET", "/slurmdb/{version}/accounts", Accounts);
  router.Add("GET", "/slurmdb/{version}/account/{account_name}", Account);
  router.Add("GET", "/slurmdb/{version}/associations", Associations);
  router.Add("GET", "/slurmdb/{version}/users", Users);
  router.Add("GET", "/slurmdb/{version}/user/{name}", User);
}

}  // namespace skiff::restd
