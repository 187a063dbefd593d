#include "lua/bb_lua_json.h"

#include <string>

#include "gtest/gtest.h"

namespace skiff {
namespace {

BbJobInfo Alice() {
  BbJobInfo info;
  info.job_id = 42;
  info.user_id = 1001;
  info.group_id = 1002;
  info.user_name = "alice";
  info.account = "lab";
  info.partition = "gpu";
  info.qos = "normal";
  info.time_limit = -1;
  info.nodes = "n[1-2]";
  info.work_dir = "/home/alice";
  info.burst_buffer = "#BB_LUA pool=fast capacity=1G\n#BB_LUA stage_in source=\"/a b\"";
  info.burst_buffer_state = "staging-in";
  info.job_state = "PENDING";
  info.array_job_id = 40;
  info.array_task_id = 2;
  info.gres_total = "gres/gpu=2";
  return info;
}

void ExpectSame(const BbJobInfo& a, const BbJobInfo& b) {
  EXPECT_EQ(a.job_id, b.job_id);
  EXPECT_EQ(a.user_id, b.user_id);
  EXPECT_EQ(a.group_id, b.group_id);
  EXPECT_EQ(a.user_name, b.user_name);
  EXPECT_EQ(a.account, b.account);
  EXPECT_EQ(a.partition, b.partition);
  EXPECT_EQ(a.qos, b.qos);
  EXPECT_EQ(a.time_limit, b.time_limit);
  EXPECT_EQ(a.nodes, b.nodes);
  EXPECT_EQ(a.work_dir, b.work_dir);
  EXPECT_EQ(a.burst_buffer, b.burst_buffer);
  EXPECT_EQ(a.burst_buffer_state, b.burst_buffer_state);
  EXPECT_EQ(a.job_state, b.job_state);
  EXPECT_EQ(a.array_job_id, b.array_job_id);
  EXPECT_EQ(a.array_task_id, b.array_task_id);
  EXPECT_EQ(a.gres_total, b.gres_total);
}

TEST(BbJobInfoJson, RoundTripsEveryField) {
  absl::StatusOr<BbJobInfo> back = BbJobInfoFromJson(BbJobInfoToJson(Alice()));
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectSame(*back, Alice());
}

TEST(BbJobInfoJson, WritesTheLuaTableKeys) {
  const std::string json = BbJobInfoToJson(BbJobInfo{});
  for (const char* key : {"\"job_id\":0", "\"array_task_id\":4294967294", "\"time_limit\":0",
                          "\"user_name\":\"\"", "\"burst_buffer_state\":\"\""}) {
    EXPECT_NE(json.find(key), std::string::npos) << key << " in " << json;
  }
}

TEST(BbJobInfoJson, MissingKeysKeepDefaultsAndUnknownKeysAreIgnored) {
  absl::StatusOr<BbJobInfo> info = BbJobInfoFromJson(R"({"job_id": 7, "future_field": [1]})");
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->job_id, 7u);
  EXPECT_EQ(info->array_task_id, 4294967294u);
  EXPECT_EQ(info->user_name, "");
}

TEST(BbJobInfoJson, RejectsWrongTypesAndRanges) {
  struct Case {
    const char* json;
    const char* message;
  };
  const Case cases[] = {
      {R"({"job_id": "42"})", "job_info: job_id must be an integer from 0 to 4294967295"},
      {R"({"user_id": -1})", "job_info: user_id must be an integer from 0 to 4294967295"},
      {R"({"group_id": 4294967296})", "job_info: group_id must be an integer from 0 to 4294967295"},
      {R"({"time_limit": 1.5})", "job_info: time_limit must be an integer"},
      {R"({"nodes": 3})", "job_info: nodes must be a string"},
      {R"([1])", "job_info must be a JSON object"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<BbJobInfo> info = BbJobInfoFromJson(c.json);
    ASSERT_FALSE(info.ok()) << c.json;
    EXPECT_EQ(info.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(info.status().message(), c.message);
  }
  EXPECT_FALSE(BbJobInfoFromJson("{").ok());
}

TEST(BbLuaRequestJson, RoundTripsArgsAndJobInfo) {
  BbLuaRequest request;
  request.args = {"42", "/var/spool/skiff/job_42/script", "1001", "", "tab\there \"quoted\"\n"};
  request.job_info = Alice();
  absl::StatusOr<BbLuaRequest> back = ParseBbLuaRequest(BbLuaRequestToJson(request));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->args, request.args);
  ASSERT_TRUE(back->job_info.has_value());
  ExpectSame(*back->job_info, Alice());
}

TEST(BbLuaRequestJson, JobInfoIsOptional) {
  BbLuaRequest request;
  request.args = {"0", "0"};
  EXPECT_EQ(BbLuaRequestToJson(request), R"({"args":["0","0"]})");
  absl::StatusOr<BbLuaRequest> back = ParseBbLuaRequest(R"({"args": [], "job_info": null})");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(back->args.empty());
  EXPECT_FALSE(back->job_info.has_value());
}

TEST(BbLuaRequestJson, RejectsMalformedRequests) {
  for (const char* json : {"", "[]", "{}", R"({"args": "42"})", R"({"args": [42]})",
                           R"({"args": [], "job_info": {"job_id": "x"}})", R"({"args": [})"}) {
    absl::StatusOr<BbLuaRequest> request = ParseBbLuaRequest(json);
    EXPECT_FALSE(request.ok()) << json;
    EXPECT_EQ(request.status().code(), absl::StatusCode::kInvalidArgument) << json;
  }
}

}  // namespace
}  // namespace skiff
