#include "restd/openapi/openapi_check.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

namespace skiff::restd {
namespace {

using Json = nlohmann::json;

const Json& Document() {
  static const Json document = Json::parse(R"({
    "paths": {
      "/slurm/v0.0.42/job/{job_id}": {"get": {"responses": {
        "200": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/resp"}}}},
        "default": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/resp"}}}}}}}
    },
    "components": {"schemas": {
      "resp": {"type": "object", "required": ["jobs", "last/time"], "properties": {
        "last": {"type": "object", "properties": {"time": {"type": "integer"}}},
        "jobs": {"type": "array", "items": {"$ref": "#/components/schemas/job"}}}},
      "job": {"type": "object", "properties": {
        "job_id": {"type": "integer"},
        "job_state": {"type": "array", "items": {"type": "string", "enum": ["PENDING", "RUNNING"]}},
        "hold": {"type": "boolean"}}}
    }}
  })");
  return document;
}

TEST(OpenapiCheckTest, AConformingAnswerHasNoProblems) {
  const Json body =
      Json::parse(R"({"jobs": [{"job_id": 4, "job_state": ["RUNNING"]}], "last": {"time": 1}})");
  EXPECT_TRUE(ResponseProblems(Document(), "GET", "/slurm/v0.0.42/job/4", 200, body).empty());
}

TEST(OpenapiCheckTest, WrongTypesUnknownFieldsBadEnumsAndMissingFieldsAreProblems) {
  const Json body =
      Json::parse(R"({"jobs": [{"job_id": "4", "job_state": ["RUNING"], "hold": 1, "jobid": 4}],
          "last": {"time": 2}})");
  const std::vector<std::string> problems =
      ResponseProblems(Document(), "GET", "/slurm/v0.0.42/job/4/", 200, body);
  ASSERT_EQ(problems.size(), 4u) << ::testing::PrintToString(problems);
  EXPECT_EQ(problems[0], "$.jobs[0].hold: not a boolean: 1");
  EXPECT_EQ(problems[1], "$.jobs[0].job_id: not an integer: \"4\"");
  EXPECT_EQ(problems[2], R"($.jobs[0].job_state[0]: "RUNING" is not one of ["PENDING","RUNNING"])");
  EXPECT_EQ(problems[3], R"($.jobs[0]: field "jobid" is not in the schema)");
  EXPECT_EQ(ResponseProblems(Document(), "GET", "/slurm/v0.0.42/job/4", 200, Json::object()),
            (std::vector<std::string>{R"($: required field "jobs" is missing)",
                                      R"($: required field "last/time" is missing)"}));
}

TEST(OpenapiCheckTest, AnUndocumentedPathOrMethodIsAProblem) {
  EXPECT_FALSE(ResponseProblems(Document(), "GET", "/slurm/v0.0.42/jobz", 200, {}).empty());
  EXPECT_FALSE(ResponseProblems(Document(), "DELETE", "/slurm/v0.0.42/job/4", 200, {}).empty());
}

TEST(OpenapiCheckTest, SlurmsOwnDocumentResolves) {
  // A real answer shape from Slurm's v0.0.42 document, resolved through its $refs.
  const Json ping = Json::parse(R"({"pings": [{"hostname": "head", "pinged": "UP",
      "responding": true, "latency": 120, "mode": "primary", "primary": true}],
      "errors": [], "warnings": []})");
  std::ifstream in(std::string(getenv("TEST_SRCDIR")) + "/" + getenv("TEST_WORKSPACE") +
                   "/third_party/slurm_openapi/v0.0.42.json");
  const Json document = Json::parse(in);
  EXPECT_TRUE(ResponseProblems(document, "GET", "/slurm/v0.0.42/ping/", 200, ping).empty());
  const Json wrong = Json::parse(R"({"pings": [{"hostname": "head", "latency": "fast"}]})");
  EXPECT_FALSE(ResponseProblems(document, "GET", "/slurm/v0.0.42/ping", 200, wrong).empty());
}

}  // namespace
}  // namespace skiff::restd
