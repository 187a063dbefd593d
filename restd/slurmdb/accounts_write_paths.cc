// /slurmdb/{version}/ writes: accounts, accounts_association, account/{name}
// (DELETE), users, users_association, user/{name} (DELETE), associations
// (POST, DELETE), association (DELETE), qos (POST) and qos/{qos} (DELETE):
// what sacctmgr add/modify/delete do, for portals and admin scripts.
//
// Each body is read whole (accounts_desc.h) before anything is sent, so a
// malformed request changes nothing; the requests then go to ctld one by
// one as the request's user, and ctld decides who may (operators and
// administrators, as for sacctmgr). A request ctld refuses stops the rest;
// those before it stay done, as each sacctmgr command of a script would.
#include <functional>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "restd/slurmdb/accounts_desc.h"
#include "restd/slurmdb/slurmdb_paths.h"

namespace skiff::restd {
namespace {

Json WarningsJson(const std::vector<std::string>& warnings, const std::string& source) {
  Json list = Json::Array();
  for (const std::string& warning : warnings) {
    list.Push({{"description", warning}, {"source", source}});
  }
  return list;
}

// The request's body, read (nlohmann reads; client::Json writes the answer).
absl::StatusOr<nlohmann::json> BodyOf(const RestCall& call) {
  nlohmann::json body =
      nlohmann::json::parse(call.request.body, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded() || !body.is_object()) {
    return absl::InvalidArgumentError("the body must be a JSON object");
  }
  return body;
}

absl::Status AccountsNow(RestCall& call, v1::GetAccountsReply* reply) {
  return call.Call(&v1::Ctld::Stub::GetAccounts, v1::GetAccountsRequest(), reply);
}

// Sends each change in order; the first refusal ends the write. `replies`
// (when given) gets each UpdateAccounts reply.
absl::Status Apply(RestCall& call, const SlurmdbWrite& write,
                   std::vector<v1::UpdateAccountsReply>* replies = nullptr) {
  for (const SlurmdbChange& change : write.changes) {
    if (change.is_qos) {
      v1::UpdateQosReply reply;
      if (absl::Status s = call.Call(&v1::Ctld::Stub::UpdateQos, change.qos, &reply); !s.ok()) {
        return s;
      }
      continue;
    }
    v1::UpdateAccountsReply reply;
    if (absl::Status s = call.Call(&v1::Ctld::Stub::UpdateAccounts, change.accounts, &reply);
        !s.ok()) {
      return s;
    }
    if (replies != nullptr) replies->push_back(std::move(reply));
  }
  return absl::OkStatus();
}

// A POST answered with OPENAPI_RESP (nothing but meta, errors, warnings).
HttpResponse PlainWrite(RestCall& call, const absl::StatusOr<SlurmdbWrite>& write,
                        const std::string& source) {
  if (!write.ok()) return SlurmdbFailure(call, write.status(), "");
  if (absl::Status s = Apply(call, *write); !s.ok()) return SlurmdbFailure(call, s, "");
  return SlurmdbAnswer(call, {{"warnings", WarningsJson(write->warnings, source)}});
}

// A POST whose body is read against the account tree as it is now.
HttpResponse PostOverAccounts(RestCall& call,
                              absl::StatusOr<SlurmdbWrite> (*read)(const nlohmann::json&,
                                                                   const v1::GetAccountsReply&),
                              const std::string& source) {
  absl::StatusOr<nlohmann::json> body = BodyOf(call);
  if (!body.ok()) return SlurmdbFailure(call, body.status(), "");
  v1::GetAccountsReply now;
  if (absl::Status s = AccountsNow(call, &now); !s.ok()) return SlurmdbFailure(call, s, "");
  return PlainWrite(call, read(*body, now), source);
}

HttpResponse PostAccounts(RestCall& call) {
  return PostOverAccounts(call, AccountsPost, "slurmdb_accounts_add");
}
HttpResponse PostUsers(RestCall& call) {
  return PostOverAccounts(call, UsersPost, "slurmdb_users_add");
}
HttpResponse PostAssociations(RestCall& call) {
  return PostOverAccounts(call, AssociationsPost, "slurmdb_associations_add");
}

HttpResponse PostQos(RestCall& call) {
  absl::StatusOr<nlohmann::json> body = BodyOf(call);
  if (!body.ok()) return SlurmdbFailure(call, body.status(), "");
  v1::GetQosReply now;
  if (absl::Status s = call.Call(&v1::Ctld::Stub::GetQos, v1::GetQosRequest(), &now); !s.ok()) {
    return SlurmdbFailure(call, s, "");
  }
  return PlainWrite(call, QosPost(*body, now), "slurmdb_qos_add");
}

// accounts_association and users_association: one add, reported as
// slurmdbd's text (`key`: "added_accounts", "added_users").
HttpResponse AddWithAssociations(RestCall& call, const std::string& key, bool users) {
  absl::StatusOr<nlohmann::json> body = BodyOf(call);
  auto failure = [&](const absl::Status& status) {
    return SlurmdbFailureWith(call, status, {{key, ""}});
  };
  if (!body.ok()) return failure(body.status());
  absl::StatusOr<SlurmdbWrite> write =
      users ? UsersAssociationPost(*body) : AccountsAssociationPost(*body);
  if (!write.ok()) return failure(write.status());
  std::vector<v1::UpdateAccountsReply> replies;
  if (absl::Status s = Apply(call, *write, &replies); !s.ok()) return failure(s);
  const std::string cluster = call.ctld.config().skiff.cluster_name;
  const v1::UpdateAccountsRequest& request = write->changes.front().accounts;
  const std::string text = users ? AddedUsersText(cluster, request, replies.front())
                                 : AddedAccountsText(cluster, request, replies.front());
  return SlurmdbAnswer(
      call, {{key, text},
             {"warnings", WarningsJson(write->warnings, users ? "slurmdb_users_add_cond"
                                                              : "slurmdb_accounts_add_cond")}});
}

HttpResponse PostAccountsAssociation(RestCall& call) {
  return AddWithAssociations(call, "added_accounts", false);
}
HttpResponse PostUsersAssociation(RestCall& call) {
  return AddWithAssociations(call, "added_users", true);
}

// DELETE account/{name}, user/{name}, qos/{qos}: one name, removed as
// sacctmgr delete does; a name with no record removes nothing (200, a
// warning, as slurmrestd answers it).
HttpResponse DeleteOne(RestCall& call, const std::string& list_key, const std::string& query,
                       const std::function<absl::StatusOr<std::vector<std::string>>()>& remove) {
  absl::StatusOr<std::vector<std::string>> removed = remove();
  if (!removed.ok() && removed.status().code() != absl::StatusCode::kNotFound) {
    return SlurmdbFailure(call, removed.status(), list_key);
  }
  if (!removed.ok() || removed->empty()) {
    if (list_key.empty()) {
      return SlurmdbAnswer(call, {{"warnings", WarningsJson({query + "() found nothing"}, query)}});
    }
    return SlurmdbFoundNothing(call, list_key, query);
  }
  if (list_key.empty()) return SlurmdbAnswer(call, Json::Object());
  return SlurmdbAnswer(call, {{list_key, Json::Strings(*removed)}});
}

HttpResponse DeleteAccount(RestCall& call) {
  return DeleteOne(call, "removed_accounts", "slurmdb_accounts_remove",
                   [&]() -> absl::StatusOr<std::vector<std::string>> {
                     v1::UpdateAccountsRequest request;
                     request.set_op(v1::UpdateAccountsRequest::DELETE_ACCOUNT);
                     request.add_names(absl::AsciiStrToLower(call.args.at(0)));
                     v1::UpdateAccountsReply reply;
                     absl::Status s = call.Call(&v1::Ctld::Stub::UpdateAccounts, request, &reply);
                     if (!s.ok()) return s;
                     return std::vector<std::string>(reply.affected().begin(),
                                                     reply.affected().end());
                   });
}

HttpResponse DeleteUser(RestCall& call) {
  return DeleteOne(
      call, "", "slurmdb_users_remove", [&]() -> absl::StatusOr<std::vector<std::string>> {
        v1::UpdateAccountsRequest request;
        request.set_op(v1::UpdateAccountsRequest::DELETE_USER);
        request.add_names(call.args.at(0));
        v1::UpdateAccountsReply reply;
        absl::Status s = call.Call(&v1::Ctld::Stub::UpdateAccounts, request, &reply);
        if (!s.ok()) return s;
        return std::vector<std::string>(reply.affected().begin(), reply.affected().end());
      });
}

HttpResponse DeleteQos(RestCall& call) {
  return DeleteOne(
      call, "removed_qos", "slurmdb_qos_remove", [&]() -> absl::StatusOr<std::vector<std::string>> {
        const std::string name = absl::AsciiStrToLower(call.args.at(0));
        v1::GetQosRequest get;
        get.add_names(name);
        v1::GetQosReply existing;
        absl::Status s = call.Call(&v1::Ctld::Stub::GetQos, get, &existing);
        if (!s.ok()) return s;
        if (existing.qos_size() == 0) return std::vector<std::string>();
        v1::UpdateQosRequest request;
        request.set_op(v1::UpdateQosRequest::DELETE);
        request.add_names(name);
        v1::UpdateQosReply reply;
        s = call.Call(&v1::Ctld::Stub::UpdateQos, request, &reply);
        if (!s.ok()) return s;
        return std::vector<std::string>(reply.affected().begin(), reply.affected().end());
      });
}

// DELETE association and associations: those the query selects.
HttpResponse DeleteAssociations(RestCall& call) {
  v1::GetAccountsReply now;
  if (absl::Status s = AccountsNow(call, &now); !s.ok()) {
    return SlurmdbFailure(call, s, "removed_associations");
  }
  const std::vector<v1::AssocKey> keys = SelectedAssociations(call.request.query, now);
  if (keys.empty()) {
    return SlurmdbFoundNothing(call, "removed_associations", "slurmdb_associations_remove");
  }
  const SlurmdbWrite write = AssociationsDelete(keys, now);
  if (absl::Status s = Apply(call, write); !s.ok()) {
    return SlurmdbFailure(call, s, "removed_associations");
  }
  Json removed = Json::Array();
  for (const v1::AssocKey& key : keys) {
    std::string parent;
    for (const v1::AssocInfo& assoc : now.assocs()) {
      if (key.user().empty() && assoc.user().empty() && assoc.account() == key.account()) {
        parent = assoc.parent_account();
      }
    }
    removed.Push(RemovedAssociationText(now.cluster(), key, parent));
  }
  return SlurmdbAnswer(call, {{"removed_associations", std::move(removed)}});
}

}  // namespace

void AddAccountsWritePaths(Router& router) {
  router.Add("POST", "/slurmdb/{version}/accounts", PostAccounts);
  router.Add("POST", "/slurmdb/{version}/accounts_association", PostAccountsAssociation);
  router.Add("DELETE", "/slurmdb/{version}/account/{account_name}", DeleteAccount);
  router.Add("POST", "/slurmdb/{version}/users", PostUsers);
  router.Add("POST", "/slurmdb/{version}/users_association", PostUsersAssociation);
  router.Add("DELETE", "/slurmdb/{version}/user/{name}", DeleteUser);
  router.Add("POST", "/slurmdb/{version}/associations", PostAssociations);
  router.Add("DELETE", "/slurmdb/{version}/associations", DeleteAssociations);
  router.Add("DELETE", "/slurmdb/{version}/association", DeleteAssociations);
  router.Add("POST", "/slurmdb/{version}/qos", PostQos);
  router.Add("DELETE", "/slurmdb/{version}/qos/{qos}", DeleteQos);
}

}  // namespace skiff::restd
