// One REST request on its way to ctld (issue 36): who it acts as, the path's
// arguments, and the envelope slurmrestd puts around every answer ("meta",
// "errors", "warnings"). Each path's handler (slurm/, slurmdb/, metrics/)
// takes a RestCall and calls ctld through it, so ctld checks every call as
// the request's user, exactly as it checks the commands'.
//
// Every answer is written with client::Json, Skiff's one JSON writer;
// nlohmann::json only reads (request bodies in data_parser/job_desc and
// slurmdb/accounts_desc, the OpenAPI documents, JWT claims). See docs/json.md.
//
// A RestCall lives on one connection thread for one request.
#ifndef SKIFF_RESTD_REST_CALL_H_
#define SKIFF_RESTD_REST_CALL_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "client/ctld_client.h"
#include "client/json_writer.h"
#include "common/auth/authenticator.h"
#include "restd/http/http_message.h"
#include "restd/http/http_server.h"

namespace skiff::restd {

using Json = client::Json;

// How restd writes JSON: two-space indented, as slurmrestd's; a double with
// no fraction keeps its point ("1.0"), so a reader that types numbers still
// reads a real (as restd's answers always had it).
inline constexpr client::JsonStyle kAnswerStyle = {/*indented=*/true,
                                                   /*point_in_whole_doubles=*/true};
// The long job lists (GET /jobs of 10,000 jobs): the same without a space or
// newline, as they always were.
inline constexpr client::JsonStyle kListStyle = {/*indented=*/false,
                                                 /*point_in_whole_doubles=*/true};

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
HttpResponse Failure(const RestCall& call, const absl::Status& status, Json body = Json::Object());

// Answer() and Failure() with `meta` for Meta(call) (the /slurmdb/ paths name
// another plugin in theirs).
HttpResponse AnswerWithMeta(Json meta, Json body, int status = 200);
HttpResponse FailureWithMeta(Json meta, const absl::Status& status, Json body);

// The HTTP status for a status from ctld: 401, 403, 404, 400, 503, else 500.
int HttpStatusOf(const absl::Status& status);

// The JSON text restd sends: `body` in kAnswerStyle.
std::string JsonText(const Json& body);

}  // namespace skiff::restd

#endif  // SKIFF_RESTD_REST_CALL_H_
