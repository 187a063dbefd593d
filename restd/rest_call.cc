#include "restd/rest_call.h"

#include <pwd.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/users.h"
#include "common/version.h"

namespace skiff::restd {
namespace {

// The user's primary group's name, or "" when the user is unknown here.
std::string PrimaryGroupOf(const std::string& user) {
  struct passwd entry;
  struct passwd* found = nullptr;
  char buffer[4096];
  if (getpwnam_r(user.c_str(), &entry, buffer, sizeof(buffer), &found) != 0 || !found) return "";
  return GroupName(found->pw_gid);
}

// Slurm's name for an error kind, as its error arrays' "error" reads.
std::string ErrorNameOf(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kUnauthenticated:
      return "Authentication failure";
    case absl::StatusCode::kPermissionDenied:
      return "Access/permission denied";
    case absl::StatusCode::kNotFound:
      return "Not found";
    case absl::StatusCode::kInvalidArgument:
      return "Invalid request";
    case absl::StatusCode::kUnavailable:
      return "Unable to contact slurm controller (connect failure)";
    default:
      return "Unspecified error";
  }
}

}  // namespace

std::string RestCall::Query(const std::string& name) const {
  auto it = request.query.find(name);
  return it == request.query.end() ? "" : it->second;
}

Json Meta(const RestCall& call) {
  const std::vector<std::string> version = absl::StrSplit(kSkiffVersion, '.');
  return {{"plugin",
           {{"type", "openapi/slurmctld"},
            {"name", "Slurm OpenAPI slurmctld"},
            {"data_parser", absl::StrCat("data_parser/", call.version)},
            {"accounting_storage", "accounting_storage/skiff"}}},
          {"client",
           {{"source", call.peer.address},
            {"user", call.user_name},
            {"group", PrimaryGroupOf(call.user_name)}}},
          {"command", Json::Array()},
          {"slurm",
           {{"version",
             {{"major", version.size() > 0 ? version[0] : ""},
              {"minor", version.size() > 1 ? version[1] : ""},
              {"micro", version.size() > 2 ? version[2] : ""}}},
            {"release", kSkiffVersion},
            {"cluster", call.ctld.config().skiff.cluster_name}}}};
}

std::string JsonText(const Json& body) { return body.Text(kAnswerStyle); }

HttpResponse Answer(const RestCall& call, Json body, int status) {
  return AnswerWithMeta(Meta(call), std::move(body), status);
}

HttpResponse AnswerWithMeta(Json meta, Json body, int status) {
  body["meta"] = std::move(meta);
  if (!body.Has("errors")) body.Add("errors", Json::Array());
  if (!body.Has("warnings")) body.Add("warnings", Json::Array());
  HttpResponse response;
  response.status = status;
  response.body = JsonText(body);
  return response;
}

HttpResponse Failure(const RestCall& call, const absl::Status& status, Json body) {
  return FailureWithMeta(Meta(call), status, std::move(body));
}

HttpResponse FailureWithMeta(Json meta, const absl::Status& status, Json body) {
  body["errors"] = Json::Array({{{"description", std::string(status.message())},
                                 {"error_number", static_cast<int>(status.code())},
                                 {"error", ErrorNameOf(status)},
                                 {"source", "restd"}}});
  HttpResponse response = AnswerWithMeta(std::move(meta), std::move(body), HttpStatusOf(status));
  if (status.code() == absl::StatusCode::kUnauthenticated) {
    response.headers["WWW-Authenticate"] = "Bearer";
  }
  return response;
}

int HttpStatusOf(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kUnauthenticated:
      return 401;
    case absl::StatusCode::kPermissionDenied:
      return 403;
    case absl::StatusCode::kNotFound:
      return 404;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kOutOfRange:
      return 400;
    case absl::StatusCode::kUnavailable:
      return 503;
    default:
      return 500;
  }
}

}  // namespace skiff::restd
