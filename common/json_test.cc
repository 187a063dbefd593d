#include "common/json.h"

#include <gtest/gtest.h>

namespace skiff {
namespace {

TEST(ParseJson, ReadsNestedDocument) {
  absl::StatusOr<JsonValue> v = ParseJson(
      R"( {"pools":[{"id":"fast","quantity":8192,"granularity":1048576,"free":8192}],
          "ok":true,"none":null,"pi":3.5,"neg":-7} )");
  ASSERT_TRUE(v.ok()) << v.status();
  const JsonValue* pools = v->Find("pools");
  ASSERT_NE(pools, nullptr);
  ASSERT_EQ(pools->type(), JsonValue::Type::kArray);
  ASSERT_EQ(pools->as_array().size(), 1u);
  const JsonValue& pool = pools->as_array()[0];
  EXPECT_EQ(pool.Find("id")->as_string(), "fast");
  EXPECT_EQ(pool.Find("granularity")->as_integer(), 1048576);
  EXPECT_TRUE(v->Find("ok")->as_bool());
  EXPECT_TRUE(v->Find("none")->is_null());
  EXPECT_DOUBLE_EQ(v->Find("pi")->as_double(), 3.5);
  EXPECT_EQ(v->Find("neg")->as_integer(), -7);
  EXPECT_EQ(v->Find("missing"), nullptr);
}

TEST(ParseJson, KeepsLargeIntegersExact) {
  absl::StatusOr<JsonValue> v = ParseJson("9223372036854775807");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->type(), JsonValue::Type::kInteger);
  EXPECT_EQ(v->as_integer(), 9223372036854775807LL);
  // One more no longer fits int64_t and becomes a double.
  absl::StatusOr<JsonValue> big = ParseJson("9223372036854775808");
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big->type(), JsonValue::Type::kDouble);
}

TEST(ParseJson, DecodesEscapesAndSurrogatePairs) {
  absl::StatusOr<JsonValue> v = ParseJson(R"("a\"b\\c\n\u00e9\ud83d\ude00")");
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->as_string(), "a\"b\\c\n\xc3\xa9\xf0\x9f\x98\x80");
}

TEST(ParseJson, RejectsMalformedInputWithOffset) {
  for (const char* bad : {"", "{", "[1,]", "{\"a\" 1}", "tru", "01x", "\"abc", "{\"a\":1}x", "1.",
                          "-", "\"\\x\"", "[\"\x01\"]", "\"\\ud800\""}) {
    absl::StatusOr<JsonValue> v = ParseJson(bad);
    EXPECT_FALSE(v.ok()) << "accepted: " << bad;
    if (!v.ok()) {
      EXPECT_EQ(v.status().code(), absl::StatusCode::kInvalidArgument);
      EXPECT_NE(v.status().message().find("offset"), absl::string_view::npos);
    }
  }
}

TEST(ParseJson, LimitsNesting) {
  std::string deep(300, '[');
  deep += std::string(300, ']');
  EXPECT_FALSE(ParseJson(deep).ok());
  std::string ok(100, '[');
  ok += std::string(100, ']');
  EXPECT_TRUE(ParseJson(ok).ok());
}

TEST(WriteJson, RoundTripsThroughParse) {
  JsonValue::Object pool;
  pool["id"] = JsonValue::String("fa\"st\n");
  pool["quantity"] = JsonValue::Integer(8192);
  pool["ratio"] = JsonValue::Double(0.25);
  pool["on"] = JsonValue::Bool(false);
  pool["nothing"] = JsonValue();
  JsonValue doc =
      JsonValue::MakeObject({{"pools", JsonValue::MakeArray({JsonValue::MakeObject(pool)})}});
  const std::string text = WriteJson(doc);
  EXPECT_EQ(
      text,
      R"({"pools":[{"id":"fa\"st\n","nothing":null,"on":false,"quantity":8192,"ratio":0.25}]})");
  absl::StatusOr<JsonValue> back = ParseJson(text);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(WriteJson(*back), text);
}

TEST(WriteJson, ControlCharactersAndNonFiniteNumbers) {
  EXPECT_EQ(WriteJson(JsonValue::String(std::string("\x01", 1))), "\"\\u0001\"");
  EXPECT_EQ(WriteJson(JsonValue::Double(1.0 / 0.0)), "null");
  EXPECT_EQ(WriteJson(JsonValue::MakeArray()), "[]");
  EXPECT_EQ(WriteJson(JsonValue::MakeObject()), "{}");
}

}  // namespace
}  // namespace skiff
