// Slurm's OpenAPI documents in a test's runfiles (third_party/slurm_openapi,
// the test's data: "//third_party/slurm_openapi:documents"), and the check of
// an answer against the document of the version its path names.
//
// For tests; thread-safe (the documents are read once).
#ifndef SKIFF_RESTD_OPENAPI_OPENAPI_DOCUMENTS_H_
#define SKIFF_RESTD_OPENAPI_OPENAPI_DOCUMENTS_H_

#include <string>

#include "nlohmann/json.hpp"

namespace skiff::restd {

// The document for "v0.0.42" (or .43, .44); a null value when the test has
// no such file.
const nlohmann::json& SlurmOpenapiDocument(const std::string& version);

// ResponseProblems against the document of the "vX" segment of `path` (query
// dropped), as one text with a line per problem; "" when the answer conforms.
std::string AnswerProblems(const std::string& method, const std::string& path, int status,
                           const nlohmann::json& body);

}  // namespace skiff::restd

#endif  // SKIFF_RESTD_OPENAPI_OPENAPI_DOCUMENTS_H_
