// restd's requests (issue 36): who each acts as (rest_auth.h), the call to
// ctld with that user's credential, and the answer in slurmrestd's JSON
// (data_parser v0.0.42). ctld authorizes every call as it does the
// commands', so a REST user sees and changes only what they could with them.
//
// Paths served so far: GET /slurm/v0.0.42/ping. Others answer 404 in
// Slurm's error array.
//
// Thread-safe: Handle runs on the server's connection threads; tokens_mu_
// guards the minted-token cache, and no call is made under it.
#ifndef SKIFF_RESTD_REST_SERVICE_H_
#define SKIFF_RESTD_REST_SERVICE_H_

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "cli/common/ctld_client.h"
#include "restd/http/http_message.h"
#include "restd/http/http_server.h"

namespace skiff::restd {

inline constexpr char kDataParser[] = "v0.0.42";

class RestService {
 public:
  // `client` (restd's own credential: root or SlurmUser, which may have a
  // token made for a Unix-socket peer) must outlive the service.
  explicit RestService(cli::CtldClient& client) : client_(client) {}

  HttpResponse Handle(const HttpRequest& request, const HttpPeer& peer);

 private:
  // A token for `uid`'s user, made by ctld and kept until a minute before it expires.
  absl::StatusOr<std::string> TokenFor(uid_t uid);
  HttpResponse Ping(const std::string& token, const HttpPeer& peer);

  cli::CtldClient& client_;
  std::mutex tokens_mu_;
  std::map<uid_t, std::pair<std::string, int64_t>> tokens_;  // token, expiry; guarded by tokens_mu_
};

// The HTTP status for a status from ctld: 401, 403, 404, 400, 503, else 500.
int HttpStatusOf(const absl::Status& status);

}  // namespace skiff::restd

#endif  // SKIFF_RESTD_REST_SERVICE_H_
