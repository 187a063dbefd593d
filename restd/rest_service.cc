#include "restd/rest_service.h"

#include <ctime>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/auth/jwt_authenticator.h"
#include "common/users.h"
#include "restd/dashboard/dashboard_files.h"
#include "restd/dashboard/skiff_paths.h"
#include "restd/metrics/metrics_paths.h"
#include "restd/rest_auth.h"
#include "restd/slurm/slurm_paths.h"
#include "restd/slurmdb/slurmdb_paths.h"

namespace skiff::restd {
namespace {

constexpr int64_t kMintedLifespan = 600;
// How long a token made for a proxy's user is used, and how many are kept.
constexpr int64_t kProxiedReuse = 60;
constexpr size_t kMaxProxied = 4096;

}  // namespace

RestService::RestService(cli::CtldClient& client) : client_(client) {
  AddSlurmPaths(router_);
  AddSlurmdbPaths(router_);
  AddSkiffPaths(router_);
  AddMetricsPaths(router_);
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

absl::StatusOr<std::string> RestService::TokenActingFor(const std::string& proxy_token,
                                                        const std::string& user) {
  const int64_t now = time(nullptr);
  const auto key = std::make_pair(proxy_token, user);
  {
    std::lock_guard<std::mutex> lock(tokens_mu_);
    auto it = proxied_.find(key);
    if (it != proxied_.end() && it->second.second > now) return it->second.first;
  }
  TokenCredential proxy(proxy_token);
  v1::RequestTokenRequest request;
  request.set_username(user);
  request.set_lifespan(kMintedLifespan);
  v1::RequestTokenReply reply;
  if (absl::Status s = client_.CallAs(proxy, &v1::Ctld::Stub::RequestToken, request, &reply);
      !s.ok()) {
    if (absl::IsPermissionDenied(s)) {
      return absl::UnauthenticatedError(
          absl::StrCat("X-SLURM-USER-NAME names ", user,
                       ", but only root's and SlurmUser's tokens may act for another user"));
    }
    return s;
  }
  std::lock_guard<std::mutex> lock(tokens_mu_);
  if (proxied_.size() >= kMaxProxied) proxied_.clear();
  proxied_[key] = {reply.token(), now + kProxiedReuse};
  return reply.token();
}

HttpResponse RestService::Handle(const HttpRequest& request, const HttpPeer& peer) {
  // The dashboard's static files need no user: the page asks for a token.
  if (std::optional<HttpResponse> page = DashboardResponse(request, peer)) return *page;
  absl::StatusOr<RestCaller> caller = CallerOf(request, peer);
  if (!caller.ok()) {
    HttpResponse refused = HttpErrorResponse(401, std::string(caller.status().message()));
    refused.headers["WWW-Authenticate"] = "Bearer";
    return refused;
  }
  std::optional<RouteMatch> route = router_.Find(request.method, request.path);
  if (!route) return HttpErrorResponse(404, absl::StrCat("Unable to find path ", request.path));
  if (!route->handler) {
    HttpResponse refused = HttpErrorResponse(
        405, absl::StrCat(request.path, " takes ", absl::StrJoin(route->allowed, ", ")));
    refused.headers["Allow"] = absl::StrJoin(route->allowed, ", ");
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
  std::string user_name = caller->uid ? UserName(*caller->uid) : caller->user_name;
  if (!caller->act_as.empty()) {
    absl::StatusOr<std::string> acting = TokenActingFor(token, caller->act_as);
    if (!acting.ok()) {
      HttpResponse refused =
          HttpErrorResponse(HttpStatusOf(acting.status()), std::string(acting.status().message()));
      if (absl::IsUnauthenticated(acting.status())) refused.headers["WWW-Authenticate"] = "Bearer";
      return refused;
    }
    token = *acting;
    user_name = caller->act_as;
  }
  TokenCredential as_user(token);
  RestCall call{request, peer, client_, as_user, user_name, route->version, route->args};
  return (*route->handler)(call);
}

}  // namespace skiff::restd
