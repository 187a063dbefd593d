#include "restd/slurmdb/slurmdb_paths.h"

namespace skiff::restd {
namespace {

void NameSlurmdbPlugin(Json& body) {
  body["meta"]["plugin"]["type"] = "openapi/slurmdbd";
  body["meta"]["plugin"]["name"] = "Slurm OpenAPI slurmdbd";
}

}  // namespace

void AddSlurmdbPaths(Router& router) {
  AddJobsPaths(router);
  AddAccountsPaths(router);
  AddAccountsWritePaths(router);
  AddQosAndTresPaths(router);
}

Json SlurmdbMeta(const RestCall& call) {
  Json body = {{"meta", Meta(call)}};
  NameSlurmdbPlugin(body);
  return body["meta"];
}

HttpResponse SlurmdbAnswer(const RestCall& call, Json body) {
  // Answer()'s envelope, with this plugin's meta (Answer() would write
  // slurmctld's over it).
  body["meta"] = Meta(call);
  NameSlurmdbPlugin(body);
  if (!body.contains("errors")) body["errors"] = Json::array();
  if (!body.contains("warnings")) body["warnings"] = Json::array();
  HttpResponse response;
  response.body = JsonText(body);
  return response;
}

HttpResponse SlurmdbFoundNothing(const RestCall& call, const std::string& list_key,
                                 const std::string& query) {
  return SlurmdbAnswer(
      call, {{list_key, Json::array()},
             {"warnings",
              Json::array({{{"description", query + "() found nothing"}, {"source", query}}})}});
}

HttpResponse SlurmdbFailure(const RestCall& call, const absl::Status& status,
                            const std::string& list_key) {
  // An error body is small: read Failure()'s back, rename the plugin and add
  // the empty list.
  HttpResponse response = Failure(call, status);
  Json body = Json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  if (body.is_object()) {
    NameSlurmdbPlugin(body);
    if (!list_key.empty()) body[list_key] = Json::array();
    response.body = JsonText(body);
  }
  return response;
}

}  // namespace skiff::restd
