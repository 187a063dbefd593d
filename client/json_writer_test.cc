#include "client/json_writer.h"

#include <gtest/gtest.h>

#include <cmath>

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
    if (count == 3000) {
      EXPECT_GE(pieces, 1);
    }
  }
}

TEST(JsonWriter, BuildsObjectsAndArraysFromLists) {
  const Json job = {{"name", "train"},
                    {"state", Json::Array({"RUNNING"})},
                    {"time", {{"limit", 60}, {"infinite", false}}},
                    {"steps", Json::Array({{{"id", "batch"}}})},
                    {"none", {}}};
  EXPECT_EQ(job.Text({/*indented=*/false}),
            R"({"name":"train","state":["RUNNING"],"time":{"limit":60,"infinite":false},)"
            R"("steps":[{"id":"batch"}],"none":null})");
  ASSERT_NE(job.Find("time"), nullptr);
  EXPECT_EQ(job.Find("time")->Text(), "{\n  \"limit\": 60,\n  \"infinite\": false\n}");
  EXPECT_TRUE(job.Has("none"));
  EXPECT_FALSE(job.Has("nope"));
  EXPECT_FALSE(Json::Array().Has("name"));
}

TEST(JsonWriter, DoublesAreTheShortestTextThatReadsBack) {
  EXPECT_EQ(Json(0.1).Text(), "0.1");
  EXPECT_EQ(Json(4.0).Text(), "4");
  EXPECT_EQ(Json(4.0).Text({true, /*point_in_whole_doubles=*/true}), "4.0");
  EXPECT_EQ(Json(2.5).Text({true, true}), "2.5");
  EXPECT_EQ(Json(1e20).Text({true, true}), "1e+20");
  EXPECT_EQ(Json(std::nan("")).Text(), "null");
}

TEST(JsonWriter, ReplacesEveryByteOfASequenceThatIsNotUtf8) {
  // A UTF-16 surrogate and an overlong slash: valid-looking, not UTF-8.
  EXPECT_EQ(Json("\xED\xA0\x80").Text(), "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"");
  EXPECT_EQ(Json("\xC0\xAF").Text(), "\"\xEF\xBF\xBD\xEF\xBF\xBD\"");
  EXPECT_EQ(Json("\xF0\x9F\x9A\x80 end \xC3").Text(), "\"\xF0\x9F\x9A\x80 end \xEF\xBF\xBD\"");
  EXPECT_EQ(Json("\b\f\x7f").Text(), "\"\\u0008\\u000c\x7f\"");
}

TEST(JsonWriter, FindsWhatToEscapeAtEveryPlaceInALongString) {
  for (size_t at = 0; at < 24; ++at) {
    for (const auto& [raw, escaped] :
         std::vector<std::pair<std::string, std::string>>{{"\"", "\\\""},
                                                          {"\\", "\\\\"},
                                                          {"\n", "\\n"},
                                                          {"\x1f", "\\u001f"},
                                                          {"\xC3\xA9", "\xC3\xA9"},
                                                          {"\xFF", "\xEF\xBF\xBD"}}) {
      const std::string text = std::string(at, 'a') + raw + std::string(17, 'z');
      EXPECT_EQ(Json(text).Text(),
                "\"" + std::string(at, 'a') + escaped + std::string(17, 'z') + "\"")
          << at;
    }
  }
}

TEST(JsonWriter, WriteWithElementsStreamsAListAnywhereInEitherLayout) {
  auto element = [](size_t i) { return Json{{"id", static_cast<int>(i)}, {"ok", true}}; };
  for (const bool indented : {true, false}) {
    for (size_t count : {0, 1, 2, 5000}) {
      Json whole = {{"jobs", Json::Array()}, {"last_update", 7}, {"errors", Json::Array()}};
      for (size_t i = 0; i < count; ++i) whole["jobs"].Push(element(i));
      const Json document = {
          {"jobs", Json::Array()}, {"last_update", 7}, {"errors", Json::Array()}};
      std::string streamed;
      Json::WriteWithElements(document, "jobs", count, element,
                              [&](std::string_view piece) { streamed.append(piece); }, {indented});
      EXPECT_EQ(streamed, whole.Text({indented})) << count << " " << indented;
    }
  }
  // No such list: the document as it is.
  std::string text;
  Json::WriteWithElements(Json{{"jobs", 1}}, "jobs", 3, element,
                          [&](std::string_view piece) { text.append(piece); });
  EXPECT_EQ(text, "{\n  \"jobs\": 1\n}");
}

}  // namespace
}  // namespace skiff::client
