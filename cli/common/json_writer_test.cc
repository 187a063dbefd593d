#include "cli/common/json_writer.h"

#include <gtest/gtest.h>

namespace skiff {
namespace {

TEST(JsonWriter, ObjectsKeepTheOrderKeysWereFirstSet) {
  Json object = Json::Object();
  object.Set("b", 1);
  object.Set("a", "x");
  object.Set("b", 2);
  EXPECT_EQ(object.Dump(), "{\n  \"b\": 2,\n  \"a\": \"x\"\n}\n");
}

TEST(JsonWriter, NestsAndPrintsEveryKind) {
  Json object = Json::Object();
  object.Set("list", Json::Strings({"a", "b"}));
  object.Set("empty", Json::Array());
  object.Set("none", Json::Object());
  object.Set("null", nullptr);
  object.Set("yes", true);
  object.Set("big", 18446744073709551615ull);
  object.Set("half", 0.5);
  EXPECT_EQ(object.Dump(),
            "{\n  \"list\": [\n    \"a\",\n    \"b\"\n  ],\n  \"empty\": [],\n  \"none\": {},\n"
            "  \"null\": null,\n  \"yes\": true,\n  \"big\": -1,\n  \"half\": 0.5\n}\n");
}

TEST(JsonWriter, EscapesControlCharactersAndReplacesBrokenUtf8) {
  EXPECT_EQ(Json("a\"b\\c\n\x01").Dump(), "\"a\\\"b\\\\c\\n\\u0001\"\n");
  EXPECT_EQ(Json("caf\xC3\xA9").Dump(), "\"caf\xC3\xA9\"\n");
  EXPECT_EQ(Json("x\xFFy").Dump(), "\"x\xEF\xBF\xBDy\"\n");
}

TEST(JsonWriter, EnvelopeHasSlurmsTopLevelKeys) {
  Json envelope = SlurmJsonEnvelope();
  const std::string text = envelope.Dump();
  EXPECT_NE(text.find("\"type\": \"openapi/v0.0.38\""), std::string::npos);
  EXPECT_NE(text.find("\"errors\": []"), std::string::npos);
}

}  // namespace
}  // namespace skiff
