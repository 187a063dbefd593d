#include "restd/dashboard/dashboard_files.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "client/json_writer.h"

namespace skiff::restd {
namespace {

constexpr absl::string_view kPrefix = "/dashboard/";

// What every static answer carries: always revalidated (a new restd serves a
// new page at once), and a policy that lets only the dashboard's own scripts
// and styles run, so nothing injected into the page can read the token it
// keeps in localStorage.
void AddStaticHeaders(HttpResponse& response) {
  response.headers["Cache-Control"] = "no-cache";
  response.headers["X-Content-Type-Options"] = "nosniff";
  response.headers["Referrer-Policy"] = "no-referrer";
  response.headers["Content-Security-Policy"] =
      "default-src 'self'; img-src 'self' data:; script-src 'self'; style-src 'self'; "
      "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
}

HttpResponse SessionResponse(const HttpRequest& request, const HttpPeer& peer) {
  std::string how = "none";
  if (!request.Header("X-SLURM-USER-TOKEN").empty()) {
    how = "header";
  } else if (peer.unix_socket && peer.uid) {
    how = "unix_peer";
  }
  HttpResponse response;
  response.body = client::Json{{"authenticated_by", how}}.Text({/*indented=*/false});
  AddStaticHeaders(response);
  MarkPerUser(response);
  return response;
}

}  // namespace

std::string ContentTypeFor(absl::string_view name) {
  struct Type {
    const char* extension;
    const char* content_type;
  };
  static constexpr Type kTypes[] = {
      {".html", "text/html; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".json", "application/json"},
      {".svg", "image/svg+xml"},
      {".png", "image/png"},
      {".ico", "image/x-icon"},
      {".webmanifest", "application/manifest+json"},
  };
  for (const Type& type : kTypes) {
    if (absl::EndsWith(name, type.extension)) return type.content_type;
  }
  return "application/octet-stream";
}

bool IsDashboardPath(absl::string_view path) {
  return path == "/" || path == "/dashboard" || absl::StartsWith(path, kPrefix);
}

std::optional<HttpResponse> DashboardResponseFrom(const HttpRequest& request, const HttpPeer& peer,
                                                  const EmbeddedFile* files, size_t count) {
  std::string name;
  if (request.path == "/" || request.path == "/dashboard" || request.path == kPrefix) {
    name = "index.html";
  } else if (absl::StartsWith(request.path, kPrefix)) {
    name = request.path.substr(kPrefix.size());
  } else {
    return std::nullopt;
  }
  if (request.method != "GET" && request.method != "HEAD") {
    HttpResponse refused = HttpErrorResponse(405, absl::StrCat(request.path, " takes GET, HEAD"));
    refused.headers["Allow"] = "GET, HEAD";
    return refused;
  }
  if (name == "session.json") return SessionResponse(request, peer);
  for (size_t i = 0; i < count; ++i) {
    if (name != files[i].name) continue;
    HttpResponse response;
    response.content_type = ContentTypeFor(name);
    response.body.assign(files[i].bytes, files[i].size);
    AddStaticHeaders(response);
    return response;
  }
  return HttpErrorResponse(404, absl::StrCat("Unable to find path ", request.path));
}

std::optional<HttpResponse> DashboardResponse(const HttpRequest& request, const HttpPeer& peer) {
  return DashboardResponseFrom(request, peer, kEmbeddedFiles, kEmbeddedFileCount);
}

}  // namespace skiff::restd
