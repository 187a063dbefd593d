#include "restd/http/http_message.h"

#include <gtest/gtest.h>

#include <string>

namespace skiff::restd {
namespace {

HttpRequestParser Parse(const std::string& bytes, HttpLimits limits = {}) {
  HttpRequestParser parser(limits);
  parser.Feed(bytes);
  return parser;
}

TEST(HttpRequestParserTest, ReadsSlurmrestdsRequests) {
  HttpRequestParser parser = Parse(
      "GET /slurm/v0.0.42/jobs?update_time=0&flags=DETAIL HTTP/1.1\r\n"
      "Host: localhost:6820\r\n"
      "X-SLURM-USER-NAME: alice\r\n"
      "X-SLURM-USER-TOKEN: eyJhbGciOiJIUzI1NiJ9.e30.sig\r\n"
      "\r\n");
  ASSERT_TRUE(parser.Done()) << parser.error();
  const HttpRequest& request = parser.request();
  EXPECT_EQ(request.method, "GET");
  EXPECT_EQ(request.path, "/slurm/v0.0.42/jobs");
  EXPECT_EQ(request.query.at("update_time"), "0");
  EXPECT_EQ(request.query.at("flags"), "DETAIL");
  EXPECT_EQ(request.Header("x-slurm-user-name"), "alice");
  EXPECT_EQ(request.Header("X-Slurm-User-Token"), "eyJhbGciOiJIUzI1NiJ9.e30.sig");
  EXPECT_EQ(request.Header("Cookie"), "");
  EXPECT_EQ(request.body, "");
}

TEST(HttpRequestParserTest, ShowsTheHeadBeforeTheBodyArrives) {
  HttpRequestParser parser;
  parser.Feed("POST /slurm/v0.0.42/job/submit HTTP/1.1\r\nContent-Length: 10\r\n");
  EXPECT_FALSE(parser.HeadDone());
  parser.Feed("X-SLURM-USER-TOKEN: t\r\n\r\nabc");
  ASSERT_TRUE(parser.HeadDone());
  EXPECT_FALSE(parser.Done());
  EXPECT_EQ(parser.body_length(), 10u);
  EXPECT_EQ(parser.request().Header("X-SLURM-USER-TOKEN"), "t");
  EXPECT_EQ(parser.request().body, "");
  parser.Feed("defghij");
  ASSERT_TRUE(parser.Done());
  EXPECT_EQ(parser.request().body, "abcdefghij");
}

TEST(HttpRequestParserTest, TakesTheBodyInPiecesAsTheyArrive) {
  const std::string body = R"({"job":{"script":"#!/bin/sh\nhostname"}})";
  const std::string bytes =
      "POST /slurm/v0.0.42/job/submit HTTP/1.1\r\nContent-Type: "
      "application/json\r\nContent-Length: " +
      std::to_string(body.size()) + "\r\n\r\n" + body + "trailing";
  HttpRequestParser parser;
  for (char c : bytes) {
    parser.Feed(std::string(1, c));
    if (parser.Done()) break;
  }
  ASSERT_TRUE(parser.Done()) << parser.error();
  EXPECT_EQ(parser.request().body, body);  // what follows the length is not the body's
}

TEST(HttpRequestParserTest, DecodesPathsAndQueries) {
  HttpRequestParser parser =
      Parse("DELETE /slurm/v0.0.42/job/42%5F1?signal=SIG%54ERM&note=a+b HTTP/1.0\r\n\r\n");
  ASSERT_TRUE(parser.Done()) << parser.error();
  EXPECT_EQ(parser.request().path, "/slurm/v0.0.42/job/42_1");
  EXPECT_EQ(parser.request().query.at("signal"), "SIGTERM");
  EXPECT_EQ(parser.request().query.at("note"), "a b");
  EXPECT_EQ(PercentDecode("100%", false), std::nullopt);
  EXPECT_EQ(PercentDecode("%zz", false), std::nullopt);
  EXPECT_EQ(PercentDecode("a+b", false), "a+b");
}

TEST(HttpRequestParserTest, RefusesBadInputWithTheRightStatus) {
  struct Case {
    std::string bytes;
    int status;
  };
  const Case cases[] = {
      {"GARBAGE\r\n\r\n", 400},
      {"GET /x HTTP/2.0\r\n\r\n", 505},
      {"GET /x FTP/1.0\r\n\r\n", 400},
      {"GET x HTTP/1.1\r\n\r\n", 400},
      {"GET /%zz HTTP/1.1\r\n\r\n", 400},
      {"GET /%00 HTTP/1.1\r\n\r\n", 400},
      {"GET /x HTTP/1.1\r\nNo colon here\r\n\r\n", 400},
      {"GET /x HTTP/1.1\r\n folded: header\r\n\r\n", 400},
      {"POST /x HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400},
      {"POST /x HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400},
      {"POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", 501},
      {"POST /x HTTP/1.1\r\nContent-Length: 99999999999\r\n\r\n", 413},
      {"GET /" + std::string(9000, 'a') + " HTTP/1.1\r\n\r\n", 414},
  };
  for (const Case& c : cases) {
    HttpRequestParser parser = Parse(c.bytes);
    EXPECT_TRUE(parser.Failed()) << c.bytes.substr(0, 60);
    EXPECT_EQ(parser.error_status(), c.status) << c.bytes.substr(0, 60) << ": " << parser.error();
    EXPECT_FALSE(parser.Done());
  }
  // Headers that never end stop at the limit, not at the memory's.
  HttpLimits small;
  small.max_head_bytes = 100;
  HttpRequestParser endless(small);
  endless.Feed("GET /x HTTP/1.1\r\n");
  for (int i = 0; i < 20 && !endless.Failed(); ++i) endless.Feed("X-Padding: aaaaaaaaaa\r\n");
  EXPECT_EQ(endless.error_status(), 431);
}

TEST(FormatHttpResponseTest, OneResponsePerConnection) {
  HttpResponse response;
  response.status = 404;
  response.body = R"({"errors":[]})";
  response.headers["WWW-Authenticate"] = "Bearer";
  response.headers["X-Bad"] = "split\r\nInjected: yes";
  EXPECT_EQ(FormatHttpResponse(response),
            "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: 13\r\n"
            "Connection: close\r\nWWW-Authenticate: Bearer\r\n\r\n{\"errors\":[]}");
  EXPECT_EQ(FormatHttpResponse(response, /*head_request=*/true).find("errors"), std::string::npos);
}

}  // namespace
}  // namespace skiff::restd
