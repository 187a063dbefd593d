// restd's requests (issue 36): who each acts as (rest_auth.h), which path
// answers it (router.h), and that path's handler, which calls ctld with the
// request's user's credential (rest_call.h). ctld authorizes every call as it
// does the commands', so a REST user sees and changes only what they could
// with them.
//
// Before a request's body is read, CheckHead refuses from its head what
// Handle would refuse anyway (issue 47, item 10): a request that changes
// state from another site's page or without JSON (cross_site.h, item 9), an
// API request with no credential at all, a body over 64 KiB that no
// credential vouches for (a token's is checked with ctld first). Every API
// answer is for its requester alone: Cache-Control: no-store, and Vary by
// the headers that name who asks (item 11).
//
// Thread-safe: Handle and CheckHead run on the server's connection threads; tokens_mu_
// guards the minted-token cache, and no call is made under it. The router is
// built in the constructor and only read after.
#ifndef SKIFF_RESTD_REST_SERVICE_H_
#define SKIFF_RESTD_REST_SERVICE_H_

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "client/ctld_client.h"
#include "restd/http/http_message.h"
#include "restd/http/http_server.h"
#include "restd/router.h"

namespace skiff::restd {

class RestService {
 public:
  // `client` (restd's own credential: root or SlurmUser, which may have a
  // token made for a Unix-socket peer) must outlive the service.
  // `allowed_origins`: other sites whose pages may change state through
  // restd (cross_site.h), e.g. a portal's "https://portal.example.org".
  // `metrics_token`: the scrape credential's secret (rest_auth.h,
  // IsMetricsCredential), "" for none.
  explicit RestService(client::CtldClient& client, std::vector<std::string> allowed_origins = {},
                       std::string metrics_token = "");

  // The server's head check (http_server.h): the refusal for a request's
  // head, or nullopt to read its body and Handle it.
  std::optional<HttpResponse> CheckHead(const HttpRequest& head, const HttpPeer& peer);
  HttpResponse Handle(const HttpRequest& request, const HttpPeer& peer);

 private:
  // A token for `uid`'s user, made by ctld and kept until a minute before it expires.
  absl::StatusOr<std::string> TokenFor(uid_t uid);
  // A token for `user`, made by ctld at the request of `proxy_token`'s user
  // (X-SLURM-USER-NAME): ctld makes it only for root and SlurmUser. Kept a
  // minute per (proxy token, user), so that a revoked proxy loses it soon.
  absl::StatusOr<std::string> TokenActingFor(const std::string& proxy_token,
                                             const std::string& user);

  HttpResponse HandleApi(const HttpRequest& request, const HttpPeer& peer);

  client::CtldClient& client_;
  const std::vector<std::string> allowed_origins_;
  const std::string metrics_token_;
  Router router_;
  std::mutex tokens_mu_;
  std::map<uid_t, std::pair<std::string, int64_t>> tokens_;  // token, expiry; guarded by tokens_mu_
  // (proxy token, user) -> token, expiry; guarded by tokens_mu_.
  std::map<std::pair<std::string, std::string>, std::pair<std::string, int64_t>> proxied_;
};

}  // namespace skiff::restd

#endif  // SKIFF_RESTD_REST_SERVICE_H_
