#include "restd/rest_service.h"

#include <ctime>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/auth/jwt_authenticator.h"
#include "common/users.h"
#include "restd/dashboard/dashboard_files.h"
#include "restd/dashboard/skiff_paths.h"
#include "restd/http/cross_site.h"
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
// The largest body read before anything vouches for who sends it: enough
// for any request of the dashboard's and for most job scripts.
constexpr uint64_t kUnvouchedBodyBytes = 64 * 1024;

HttpResponse Unauthenticated(const absl::Status& status) {
  HttpResponse refused = HttpErrorResponse(401, std::string(status.message()));
  refused.headers["WWW-Authenticate"] = "Bearer";
  return refused;
}

}  // namespace

RestService::RestService(client::CtldClient& client, std::vector<std::string> allowed_origins,
                         std::string metrics_token)
    : client_(client),
      allowed_origins_(std::move(allowed_origins)),
      metrics_token_(std::move(metrics_token)) {
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

std::optional<HttpResponse> RestService::CheckHead(const HttpRequest& head, const HttpPeer& peer) {
  if (std::optional<CrossSiteRefusal> refused = CheckOrigin(head, allowed_origins_)) {
    return HttpErrorResponse(refused->status, refused->description);
  }
  uint64_t body_bytes = 0;
  (void)absl::SimpleAtoi(head.Header("Content-Length"), &body_bytes);  // checked by the parser
  const bool large = body_bytes > kUnvouchedBodyBytes;
  if (IsDashboardPath(head.path)) {
    // The dashboard's files need no user, and take no body.
    if (!large) return std::nullopt;
    return HttpErrorResponse(
        413, absl::StrCat(head.path, " takes no body over ", kUnvouchedBodyBytes / 1024, " KiB"));
  }
  absl::StatusOr<RestCaller> caller = CallerOf(head, peer);
  if (!caller.ok()) return Unauthenticated(caller.status());
  // A path or method that does not exist is Handle's to answer (404, 405).
  std::optional<RouteMatch> route = router_.Find(head.method, head.path);
  if (!route || !route->handler) return std::nullopt;
  if (std::optional<CrossSiteRefusal> refused = CheckContentType(head)) {
    return HttpErrorResponse(refused->status, refused->description);
  }
  if (large && !caller->token.empty()) {
    // A token is checked with ctld before a large body is read: anyone can
    // send a header that looks like one.
    TokenCredential credential(caller->token);
    v1::PingReply reply;
    const absl::Status checked =
        client_.CallAs(credential, &v1::Ctld::Stub::Ping, v1::PingRequest(), &reply);
    if (absl::IsUnauthenticated(checked) || absl::IsPermissionDenied(checked)) {
      return Unauthenticated(checked);
    }
  }
  return std::nullopt;
}

HttpResponse RestService::Handle(const HttpRequest& request, const HttpPeer& peer) {
  // The dashboard's static files need no user: the page asks for a token.
  if (std::optional<HttpResponse> page = DashboardResponse(request, peer)) return *page;
  HttpResponse response = HandleApi(request, peer);
  MarkPerUser(response);
  return response;
}

HttpResponse RestService::HandleApi(const HttpRequest& request, const HttpPeer& peer) {
  // Also here, for a request that reached Handle without the head check.
  if (std::optional<CrossSiteRefusal> refused = CheckOrigin(request, allowed_origins_)) {
    return HttpErrorResponse(refused->status, refused->description);
  }
  // The scrape credential reads the metrics as restd's own user, and nothing else.
  const bool scraper = IsMetricsCredential(request, metrics_token_);
  if (scraper && !IsMetricsPath(request.method, request.path)) {
    return HttpErrorResponse(403, "the metrics credential reads /metrics and /metrics/* only");
  }
  absl::StatusOr<RestCaller> caller = CallerOf(request, peer);
  if (!caller.ok()) return Unauthenticated(caller.status());
  std::optional<RouteMatch> route = router_.Find(request.method, request.path);
  if (!route) return HttpErrorResponse(404, absl::StrCat("Unable to find path ", request.path));
  if (!route->handler) {
    HttpResponse refused = HttpErrorResponse(
        405, absl::StrCat(request.path, " takes ", absl::StrJoin(route->allowed, ", ")));
    refused.headers["Allow"] = absl::StrJoin(route->allowed, ", ");
    return refused;
  }
  if (std::optional<CrossSiteRefusal> refused = CheckContentType(request)) {
    return HttpErrorResponse(refused->status, refused->description);
  }
  if (scraper) {
    RestCall call{request, peer, client_, client_.auth(), "metrics", route->version, route->args};
    return (*route->handler)(call);
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
