// Which requests that change state restd acts on (issue 47, item 9).
#include "restd/http/cross_site.h"

#include <gtest/gtest.h>

namespace skiff::restd {
namespace {

HttpRequest Head(const std::string& method, std::map<std::string, std::string> headers) {
  HttpRequest request;
  request.method = method;
  request.target = request.path = "/slurm/v0.0.42/job/submit";
  request.headers = std::move(headers);
  return request;
}

const std::vector<std::string> kNone;

TEST(CrossSiteTest, ReadsAreNeverRefused) {
  EXPECT_EQ(CheckCrossSite(
                Head("GET", {{"origin", "https://evil.example"}, {"sec-fetch-site", "cross-site"}}),
                kNone),
            std::nullopt);
  EXPECT_EQ(CheckCrossSite(Head("HEAD", {}), kNone), std::nullopt);
  EXPECT_FALSE(ChangesState("OPTIONS"));
  EXPECT_TRUE(ChangesState("post"));
}

TEST(CrossSiteTest, APostNeedsAJsonBody) {
  for (const char* type :
       {"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", ""}) {
    std::map<std::string, std::string> headers = {{"content-length", "10"}};
    if (*type) headers["content-type"] = type;
    const auto refused = CheckCrossSite(Head("POST", headers), kNone);
    ASSERT_TRUE(refused.has_value()) << type;
    EXPECT_EQ(refused->status, 415);
    EXPECT_NE(refused->description.find("Content-Type must be application/json"), std::string::npos)
        << refused->description;
  }
  EXPECT_EQ(
      CheckCrossSite(Head("POST", {{"content-type", "Application/JSON; charset=utf-8"}}), kNone),
      std::nullopt);
  EXPECT_EQ(CheckCrossSite(Head("PUT", {{"content-type", "text/plain"}}), kNone)->status, 415);
}

TEST(CrossSiteTest, ADeleteWithoutABodyNeedsNoContentType) {
  EXPECT_EQ(CheckCrossSite(Head("DELETE", {}), kNone), std::nullopt);
  EXPECT_EQ(CheckCrossSite(Head("DELETE", {{"content-length", "0"}}), kNone), std::nullopt);
  EXPECT_EQ(CheckCrossSite(Head("DELETE", {{"content-length", "12"}}), kNone)->status, 415);
  EXPECT_EQ(
      CheckCrossSite(
          Head("DELETE", {{"content-length", "12"}, {"content-type", "application/json"}}), kNone),
      std::nullopt);
}

TEST(CrossSiteTest, AnotherSitesOriginIsRefused) {
  const std::map<std::string, std::string> json = {{"content-type", "application/json"},
                                                   {"host", "cluster.example.org:6820"}};
  auto with = [&](std::map<std::string, std::string> more) {
    std::map<std::string, std::string> headers = json;
    headers.insert(more.begin(), more.end());
    return headers;
  };
  for (const char* origin :
       {"https://evil.example", "http://cluster.example.org", "http://cluster.example.org:6821",
        "null", "file://", "http://cluster.example.org.evil.example:6820"}) {
    const auto refused = CheckCrossSite(Head("POST", with({{"origin", origin}})), kNone);
    ASSERT_TRUE(refused.has_value()) << origin;
    EXPECT_EQ(refused->status, 403) << origin;
    EXPECT_NE(refused->description.find(std::string("Origin ") + origin), std::string::npos)
        << refused->description;
    // A DELETE without a body too.
    EXPECT_EQ(CheckCrossSite(
                  Head("DELETE", {{"origin", origin}, {"host", "cluster.example.org:6820"}}), kNone)
                  ->status,
              403)
        << origin;
  }
  EXPECT_EQ(
      CheckCrossSite(Head("POST", with({{"origin", "http://Cluster.Example.org:6820"}})), kNone),
      std::nullopt);
}

TEST(CrossSiteTest, TheDefaultPortOfTheOriginsSchemeMatchesAHostWithoutOne) {
  const std::map<std::string, std::string> base = {{"content-type", "application/json"},
                                                   {"host", "portal.example.org"}};
  auto headers = base;
  headers["origin"] = "https://portal.example.org";
  EXPECT_EQ(CheckCrossSite(Head("POST", headers), kNone), std::nullopt);
  headers["origin"] = "https://portal.example.org:8443";
  EXPECT_EQ(CheckCrossSite(Head("POST", headers), kNone)->status, 403);
  headers["host"] = "[::1]:8443";
  headers["origin"] = "https://[::1]:8443";
  EXPECT_EQ(CheckCrossSite(Head("POST", headers), kNone), std::nullopt);
}

TEST(CrossSiteTest, AProxysForwardedHostOrAnAllowedOriginIsOurs) {
  std::map<std::string, std::string> headers = {{"content-type", "application/json"},
                                                {"host", "127.0.0.1:6820"},
                                                {"origin", "https://portal.example.org"}};
  EXPECT_EQ(CheckCrossSite(Head("POST", headers), kNone)->status, 403);
  EXPECT_EQ(CheckCrossSite(Head("POST", headers), {"https://portal.example.org:443"}),
            std::nullopt);
  EXPECT_EQ(CheckCrossSite(Head("POST", headers), {"http://portal.example.org"})->status, 403);
  headers["x-forwarded-host"] = "portal.example.org, 10.0.0.1";
  EXPECT_EQ(CheckCrossSite(Head("POST", headers), kNone), std::nullopt);
}

TEST(CrossSiteTest, WithoutAnOriginSecFetchSiteDecides) {
  const std::map<std::string, std::string> json = {{"content-type", "application/json"}};
  for (const char* site : {"cross-site", "same-site"}) {
    auto headers = json;
    headers["sec-fetch-site"] = site;
    const auto refused = CheckCrossSite(Head("POST", headers), kNone);
    ASSERT_TRUE(refused.has_value()) << site;
    EXPECT_EQ(refused->status, 403);
  }
  for (const char* site : {"same-origin", "none"}) {
    auto headers = json;
    headers["sec-fetch-site"] = site;
    EXPECT_EQ(CheckCrossSite(Head("POST", headers), kNone), std::nullopt) << site;
  }
  // curl and Slurm's clients send neither.
  EXPECT_EQ(CheckCrossSite(Head("POST", json), kNone), std::nullopt);
}

TEST(CrossSiteTest, ItsHalvesCheckOneThingEach) {
  const HttpRequest foreign_plain =
      Head("POST", {{"origin", "https://evil.example"}, {"content-type", "text/plain"}});
  EXPECT_EQ(CheckOrigin(foreign_plain, kNone)->status, 403);
  EXPECT_EQ(CheckContentType(foreign_plain)->status, 415);
  EXPECT_EQ(CheckCrossSite(foreign_plain, kNone)->status, 403);  // where it comes from first
  const HttpRequest local_plain = Head("POST", {{"content-type", "text/plain"}});
  EXPECT_EQ(CheckOrigin(local_plain, kNone), std::nullopt);
}

TEST(CrossSiteTest, NormalizesOrigins) {
  EXPECT_EQ(NormalizedOrigin("https://Portal.Example.org"), "https://portal.example.org:443");
  EXPECT_EQ(NormalizedOrigin("http://a:8080/"), "http://a:8080");
  EXPECT_EQ(NormalizedOrigin("null"), std::nullopt);
  EXPECT_EQ(NormalizedOrigin("http://user@a"), std::nullopt);
  EXPECT_EQ(NormalizedOrigin("http://a:99999"), std::nullopt);
}

}  // namespace
}  // namespace skiff::restd
