// One REST request on its way to ctld (issue 36): who it acts as, the path's
// arguments, and the envelope slurmrestd puts around every answer ("meta",
// "errors", "warnings"). Each path's handler (slurm/, slurmdb/, metrics/)
// takes a RestCall and calls ctld through it, so ctld checks every call as
// the request's user, exactly as it checks the commands'.
//
// A RestCall lives on one connection thread for one request.
#ifndef SKIFF_RESTD_REST_CALL_H_
#define SKIFF_RESTD_REST_CALL_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "client/ctld_client.h"
#include "common/auth/authenticator.h"
#include "nlohmann/json.hpp"
#include "restd/http/http_message.h"
#include "restd/http/http_server.h"

namespace skiff::restd {

using Json = nlohmann::json;

struct RestCall {
  const HttpRequest& request;
  const HttpPeer& peer;
  client::CtldClient& ctld;
  Authenticator& as_user;         // the request's user's credential for ctld
  std::string user_name;          // that user, for meta's "client"
  std::string version;            // the path's data_parser version: "v0.0.42"
  std::vector<std::string> args;  // the path's {...} segments, in order

  template <typename Request, typename Reply>
  absl::Status Call(grpc::Status (v1::Ctld::Stub::*method)(grpc::ClientContext*, const Request&,
                                                           Reply*),
                    const Request& request, Reply* reply) {
    return ctld.CallAs(as_user, method, request, reply);
  }
  // The query parameter `name`, or "".
  std::string Query(const std::string& name) const;
};

// slurmrestd's "meta" (OPENAPI_META) for `call`.
Json Meta(const RestCall& call);

// `body` with meta, errors and warnings added, as JSON with `status`.
HttpResponse Answer(const RestCall& call, Json body, int status = 200);

// Slurm's error array (with meta) for `status`, a failure of ctld or of the
// request; the HTTP status follows HttpStatusOf. `body` holds what the path's
// schema requires even of a failure (an empty "jobs" list, ...), as
// slurmrestd answers with its whole response structure.
HttpResponse Failure(const RestCall& call, const absl::Status& status, Json body = Json::object());

// The HTTP status for a status from ctld: 401, 403, 404, 400, 503, else 500.
int HttpStatusOf(const absl::Status& status);

// The JSON text restd sends: two-space indented, as slurmrestd's, with bad
// UTF-8 replaced rather than thrown on.
std::string JsonText(const Json& body);

}  // namespace skiff::restd

#endif  // SKIFF_RESTD_REST_CALL_H_
