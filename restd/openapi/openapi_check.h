// Checks restd's answers against Slurm's OpenAPI document (issue 36): an
// answer must have the schema's types, enums and required fields, and no
// field the schema does not name (Slurm's documents do not forbid extra
// fields, but a field Slurm does not write is a misspelt or invented one).
//
// The keywords Slurm's generated documents use: $ref, type, properties,
// required, items, enum (format and description are not checked).
//
// Pure; for tests.
#ifndef SKIFF_RESTD_OPENAPI_OPENAPI_CHECK_H_
#define SKIFF_RESTD_OPENAPI_OPENAPI_CHECK_H_

#include <string>
#include <vector>

#include "nlohmann/json.hpp"

namespace skiff::restd {

// What in `value` breaks the schema `schema` (a schema object or {"$ref":
// ...}) of `document`, each as "PATH: problem" ("$.jobs[0].job_state[0]: ...").
// Empty when it conforms.
std::vector<std::string> SchemaProblems(const nlohmann::json& document,
                                        const nlohmann::json& schema, const nlohmann::json& value);

// The same for an answer to `method` on `path` ("/slurm/v0.0.42/job/12"),
// checked against the document's response schema for that path and `status`
// (or "default"). A path or method the document lacks is a problem.
std::vector<std::string> ResponseProblems(const nlohmann::json& document, const std::string& method,
                                          const std::string& path, int status,
                                          const nlohmann::json& body);

}  // namespace skiff::restd

#endif  // SKIFF_RESTD_OPENAPI_OPENAPI_CHECK_H_
