#include "restd/dashboard/dashboard_files.h"

#include <gtest/gtest.h>

#include <string>

#include "nlohmann/json.hpp"

namespace skiff::restd {
namespace {

const EmbeddedFile kFiles[] = {
    {"index.html", "<!doctype html>", 15},
    {"dashboard.js", "let x = 1;", 10},
};

HttpRequest Get(const std::string& path, const std::string& method = "GET") {
  HttpRequest request;
  request.method = method;
  request.path = path;
  request.target = path;
  return request;
}

std::optional<HttpResponse> Serve(const HttpRequest& request, HttpPeer peer = {}) {
  return DashboardResponseFrom(request, peer, kFiles, 2);
}

TEST(DashboardFilesTest, RootAndDashboardServeTheIndex) {
  for (const char* path : {"/", "/dashboard", "/dashboard/"}) {
    std::optional<HttpResponse> response = Serve(Get(path));
    ASSERT_TRUE(response) << path;
    EXPECT_EQ(response->status, 200);
    EXPECT_EQ(response->body, "<!doctype html>");
    EXPECT_EQ(response->content_type, "text/html; charset=utf-8");
  }
}

TEST(DashboardFilesTest, FilesComeWithTheirTypeAndAPolicy) {
  std::optional<HttpResponse> response = Serve(Get("/dashboard/dashboard.js"));
  ASSERT_TRUE(response);
  EXPECT_EQ(response->body, "let x = 1;");
  EXPECT_EQ(response->content_type, "text/javascript; charset=utf-8");
  EXPECT_NE(response->headers["Content-Security-Policy"].find("script-src 'self'"),
            std::string::npos);
  EXPECT_EQ(response->headers["X-Content-Type-Options"], "nosniff");
}

TEST(DashboardFilesTest, ApiPathsAreNotTheDashboards) {
  EXPECT_FALSE(Serve(Get("/slurm/v0.0.42/ping")));
  EXPECT_FALSE(Serve(Get("/skiff/v1/status")));
  EXPECT_FALSE(Serve(Get("/dashboardx")));
}

TEST(DashboardFilesTest, UnknownFileIsNotFound) {
  std::optional<HttpResponse> response = Serve(Get("/dashboard/secret.txt"));
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 404);
  response = Serve(Get("/dashboard/../etc/passwd"));
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 404);
}

TEST(DashboardFilesTest, OnlyGetAndHead) {
  std::optional<HttpResponse> response = Serve(Get("/", "POST"));
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 405);
  EXPECT_EQ(response->headers["Allow"], "GET, HEAD");
  response = Serve(Get("/dashboard/index.html", "HEAD"));
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 200);
}

TEST(DashboardFilesTest, SessionSaysHowTheRequestWasAuthenticated) {
  auto how = [](const HttpRequest& request, const HttpPeer& peer) {
    std::optional<HttpResponse> response = Serve(request, peer);
    EXPECT_TRUE(response && response->status == 200);
    return nlohmann::json::parse(response->body)["authenticated_by"].get<std::string>();
  };
  HttpRequest plain = Get("/dashboard/session.json");
  EXPECT_EQ(how(plain, HttpPeer{}), "none");
  HttpRequest proxied = plain;
  proxied.headers["x-slurm-user-token"] = "a.b.c";
  EXPECT_EQ(how(proxied, HttpPeer{}), "header");
  HttpPeer local;
  local.unix_socket = true;
  local.uid = 1000;
  EXPECT_EQ(how(plain, local), "unix_peer");
}

TEST(ContentTypeForTest, KnownAndUnknownExtensions) {
  EXPECT_EQ(ContentTypeFor("a.css"), "text/css; charset=utf-8");
  EXPECT_EQ(ContentTypeFor("a.svg"), "image/svg+xml");
  EXPECT_EQ(ContentTypeFor("a.bin"), "application/octet-stream");
}

}  // namespace
}  // namespace skiff::restd
