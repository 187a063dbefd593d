#include "client/json_writer.h"

#include <gtest/gtest.h>

namespace skiff::client {
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

TEST(JsonWriter, DumpWithElementsPrintsWhatDumpPrintsAPieceAtATime) {
  auto element = [](size_t i) {
    Json job = Json::Object();
    job.Set("id", static_cast<int>(i));
    job.Set("names", Json::Strings({"a", std::to_string(i)}));
    return job;
  };
  for (size_t count : {0, 1, 3, 3000}) {
    Json whole = SlurmJsonEnvelope();
    Json list = Json::Array();
    for (size_t i = 0; i < count; ++i) list.Push(element(i));
    whole.Set("jobs", std::move(list));

    Json document = SlurmJsonEnvelope();
    document.Set("jobs", Json::Array());
    std::string streamed;
    int pieces = 0;
    Json::DumpWithElements(document, count, element, [&](std::string_view piece) {
      streamed.append(piece);
      ++pieces;
    });
    EXPECT_EQ(streamed, whole.Dump()) << count;
    if (count == 3000) EXPECT_GE(pieces, 1);
  }
}

}  // namespace
}  // namespace skiff::client
