#include "restd/slurmdb/slurmdb_paths.h"

namespace skiff::restd {

void AddSlurmdbPaths(Router& router) {
  AddJobsPaths(router);
  AddAccountsPaths(router);
  AddAccountsWritePaths(router);
  AddQosAndTresPaths(router);
}

Json SlurmdbMeta(const RestCall& call) {
  Json meta = Meta(call);
  meta["plugin"]["type"] = "openapi/slurmdbd";
  meta["plugin"]["name"] = "Slurm OpenAPI slurmdbd";
  return meta;
}

HttpResponse SlurmdbAnswer(const RestCall& call, Json body) {
  return AnswerWithMeta(SlurmdbMeta(call), std::move(body));
}

HttpResponse SlurmdbFoundNothing(const RestCall& call, const std::string& list_key,
                                 const std::string& query) {
  return SlurmdbAnswer(
      call, {{list_key, Json::Array()},
             {"warnings",
              Json::Array({{{"description", query + "() found nothing"}, {"source", query}}})}});
}

HttpResponse SlurmdbFailure(const RestCall& call, const absl::Status& status,
                            const std::string& list_key) {
  Json body = Json::Object();
  if (!list_key.empty()) body.Add(list_key, Json::Array());
  return SlurmdbFailureWith(call, status, std::move(body));
}

HttpResponse SlurmdbFailureWith(const RestCall& call, const absl::Status& status, Json body) {
  return FailureWithMeta(SlurmdbMeta(call), status, std::move(body));
}

}  // namespace skiff::restd
