#include "restd/data_parser/json_out.h"

#include <gtest/gtest.h>

namespace skiff::restd {
namespace {

TEST(JsonOutTest, WritesNestedValuesWithCommasWhereTheyBelong) {
  std::string text;
  JsonOut out(&text);
  out.BeginObject();
  out.Field("a", 1).Field("b", std::string("x")).Field("c", true);
  out.Key("d").BeginArray().Int(1).Int(2).BeginObject().EndObject().EndArray();
  out.Key("e").Number(5);
  out.Key("f").NoNumber();
  out.Key("g").Infinite();
  out.Field("h", nlohmann::json::array({"y"}));
  out.Key("i").BeginArray().EndArray();
  out.EndObject();
  EXPECT_EQ(text,
            R"({"a":1,"b":"x","c":true,"d":[1,2,{}],"e":{"set":true,"infinite":false,"number":5},)"
            R"("f":{"set":false,"infinite":false,"number":0},)"
            R"("g":{"set":false,"infinite":true,"number":0},"h":["y"],"i":[]})");
  EXPECT_NO_THROW(nlohmann::json::parse(text));
}

TEST(JsonOutTest, EscapesAsJsonNeedsAndReplacesBytesThatAreNotUtf8) {
  std::string text;
  AppendJsonEscaped("q\"b\\n\nt\tc\x01 \xC3\xA9 \xE2\x82\xAC \xF0\x9F\x9A\x80", &text);
  EXPECT_EQ(text, "q\\\"b\\\\n\\nt\\tc\\u0001 \xC3\xA9 \xE2\x82\xAC \xF0\x9F\x9A\x80");
  text.clear();
  AppendJsonEscaped("bad \xFF end \xC3", &text);
  EXPECT_EQ(text, "bad \xEF\xBF\xBD end \xEF\xBF\xBD");
  text.clear();
  AppendJsonEscaped("\xED\xA0\x80", &text);  // a UTF-16 surrogate in UTF-8: invalid
  EXPECT_EQ(text, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  // What nlohmann's replace handler makes of the same bytes parses back.
  EXPECT_NO_THROW(nlohmann::json::parse("\"" + text + "\""));
}

}  // namespace
}  // namespace skiff::restd
