#include "restd/rest_service.h"

#include <grp.h>
#include <pwd.h>

#include <chrono>
#include <ctime>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/auth/jwt_authenticator.h"
#include "common/users.h"
#include "common/version.h"
#include "nlohmann/json.hpp"
#include "restd/rest_auth.h"

namespace skiff::restd {
namespace {

using Json = nlohmann::json;

constexpr int64_t kMintedLifespan = 600;

HttpResponse JsonResponse(int status, const Json& body) {
  HttpResponse response;
  response.status = status;
  response.body = body.dump(2, ' ', false, Json::error_handler_t::replace);
  return response;
}

// slurmrestd's "meta" (OPENAPI_META).
Json Meta(const std::string& cluster, const HttpPeer& peer, uid_t uid, gid_t gid) {
  const std::vector<std::string> version = absl::StrSplit(kSkiffVersion, '.');
  return {
      {"plugin",
       {{"type", "openapi/slurmctld"},
        {"name", "Slurm OpenAPI slurmctld"},
        {"data_parser", absl::StrCat("data_parser/", kDataParser)},
        {"accounting_storage", ""}}},
      {"client", {{"source", peer.address}, {"user", UserName(uid)}, {"group", GroupName(gid)}}},
      {"command", Json::array()},
      {"slurm",
       {{"version",
         {{"major", version.size() > 0 ? version[0] : ""},
          {"minor", version.size() > 1 ? version[1] : ""},
          {"micro", version.size() > 2 ? version[2] : ""}}},
        {"release", kSkiffVersion},
        {"cluster", cluster}}}};
}

}  // namespace

int HttpStatusOf(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kUnauthenticated:
      return 401;
    case absl::StatusCode::kPermissionDenied:
      return 403;
    case absl::StatusCode::kNotFound:
      return 404;
    case absl::StatusCode::kInvalidArgument:
      return 400;
    case absl::StatusCode::kUnavailable:
      return 503;
    default:
      return 500;
  }
}

absl::StatusOr<std::string> RestService::TokenFor(uid_t uid) {
  const int64_t now = time(nullptr);
  {
    std::lock_guard<std::mutex> lock(tokens_mu_);
    auto it = tokens_.find(uid);
    if (it != tokens_.end() && it->second.second - 60 > now) return it->second.first;
  }
  std::optional<std::string> name = LookUpUserName(uid);
  if (!name) return absl::UnauthenticatedError(absl::StrCat("uid ", uid, " has no user name"));
  v1::RequestTokenRequest request;
  request.set_username(*name);
  request.set_lifespan(kMintedLifespan);
  v1::RequestTokenReply reply;
  if (absl::Status s = client_.Call(&v1::Ctld::Stub::RequestToken, request, &reply); !s.ok()) {
    return absl::UnavailableError(
        absl::StrCat("cannot get a token for ", *name, " from ctld: ", s.message()));
  }
  std::lock_guard<std::mutex> lock(tokens_mu_);
  tokens_[uid] = {reply.token(), now + kMintedLifespan};
  return reply.token();
}

HttpResponse RestService::Handle(const HttpRequest& request, const HttpPeer& peer) {
  absl::StatusOr<RestCaller> caller = CallerOf(request, peer);
  if (!caller.ok()) {
    HttpResponse refused = HttpErrorResponse(401, std::string(caller.status().message()));
    refused.headers["WWW-Authenticate"] = "Bearer";
    return refused;
  }
  std::string token = caller->token;
  if (token.empty()) {
    absl::StatusOr<std::string> minted = TokenFor(*caller->uid);
    if (!minted.ok()) {
      return HttpErrorResponse(HttpStatusOf(minted.status()),
                               std::string(minted.status().message()));
    }
    token = *minted;
  }
  const std::string prefix = absl::StrCat("/slurm/", kDataParser, "/");
  if (request.path == prefix + "ping") {
    if (request.method != "GET" && request.method != "HEAD") {
      return HttpErrorResponse(405, "ping takes GET");
    }
    return Ping(token, peer);
  }
  return HttpErrorResponse(404, absl::StrCat("Unable to find path ", request.path));
}

HttpResponse RestService::Ping(const std::string& token, const HttpPeer& peer) {
  TokenCredential as_user(token);
  v1::PingReply reply;
  const auto start = std::chrono::steady_clock::now();
  const absl::Status status =
      client_.CallAs(as_user, &v1::Ctld::Stub::Ping, v1::PingRequest(), &reply);
  const int64_t latency = std::chrono::duration_cast<std::chrono::microseconds>(
                              std::chrono::steady_clock::now() - start)
                              .count();
  if (absl::IsUnauthenticated(status) || absl::IsPermissionDenied(status)) {
    return HttpErrorResponse(HttpStatusOf(status), std::string(status.message()));
  }
  const bool up = status.ok();
  const std::string& host = client_.config().skiff.ctld_host;
  Json body = {{"pings", Json::array({{{"hostname", host},
                                       {"pinged", up ? "UP" : "DOWN"},
                                       {"responding", up},
                                       {"latency", latency},
                                       {"mode", "primary"},
                                       {"primary", true}}})},
               {"meta", Meta(client_.config().skiff.cluster_name, peer, reply.caller_uid(),
                             reply.caller_gid())},
               {"errors", Json::array()},
               {"warnings", Json::array()}};
  if (!up) {
    body["errors"].push_back({{"description", std::string(status.message())},
                              {"error_number", -1},
                              {"error", "Unable to contact slurm controller"},
                              {"source", "restd"}});
  }
  return JsonResponse(up ? 200 : 503, body);
}

}  // namespace skiff::restd
