#include "restd/openapi/openapi_documents.h"

#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "restd/openapi/openapi_check.h"

namespace skiff::restd {

const nlohmann::json& SlurmOpenapiDocument(const std::string& version) {
  static std::mutex mu;
  static std::map<std::string, nlohmann::json>* documents =
      new std::map<std::string, nlohmann::json>;
  std::lock_guard<std::mutex> lock(mu);
  auto it = documents->find(version);
  if (it != documents->end()) return it->second;
  const char* srcdir = getenv("TEST_SRCDIR");
  const char* workspace = getenv("TEST_WORKSPACE");
  nlohmann::json document;
  if (srcdir && workspace) {
    std::ifstream in(
        absl::StrCat(srcdir, "/", workspace, "/third_party/slurm_openapi/", version, ".json"));
    document = nlohmann::json::parse(in, nullptr, false);
    if (document.is_discarded()) document = nullptr;
  }
  return (*documents)[version] = std::move(document);
}

std::string AnswerProblems(const std::string& method, const std::string& path, int status,
                           const nlohmann::json& body) {
  const std::string bare = path.substr(0, path.find('?'));
  std::string version;
  for (absl::string_view segment : absl::StrSplit(bare, '/')) {
    if (absl::StartsWith(segment, "v0.0.")) version = std::string(segment);
  }
  const nlohmann::json& document = SlurmOpenapiDocument(version);
  if (!document.is_object()) return absl::StrCat("no OpenAPI document for ", bare, "\n");
  std::string text;
  for (const std::string& problem : ResponseProblems(document, method, bare, status, body)) {
    absl::StrAppend(&text, problem, "\n");
  }
  return text;
}

}  // namespace skiff::restd
