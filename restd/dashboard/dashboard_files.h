// The lab dashboard's static files as restd serves them (issue 36): "/" and
// "/dashboard/" give index.html, "/dashboard/NAME" the file NAME, from the
// table compiled into restd (embedded_file.h). They need no authentication:
// the page asks for the user's token and sends it with every API call.
//
// "/dashboard/session.json" tells the page how this very request was
// authenticated, so that a page behind a reverse proxy that adds
// X-SLURM-USER-TOKEN itself (or on restd's Unix socket) need not ask for a
// token: {"authenticated_by": "header" | "unix_peer" | "none"}. It is
// answered 200 either way, so the page learns it without a refused request
// (which a browser logs as an error), and, being about the requester, never
// stored by a cache (MarkPerUser).
//
// Pure; thread-safe.
#ifndef SKIFF_RESTD_DASHBOARD_DASHBOARD_FILES_H_
#define SKIFF_RESTD_DASHBOARD_DASHBOARD_FILES_H_

#include <cstddef>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "restd/dashboard/embedded_file.h"
#include "restd/http/http_message.h"
#include "restd/http/http_server.h"

namespace skiff::restd {

// Whether `path` is one of the dashboard's ("/", "/dashboard", "/dashboard/...").
bool IsDashboardPath(absl::string_view path);

// The answer for `request` when its path is one of the dashboard's, from
// the compiled-in files; nullopt for any other path (the API's).
std::optional<HttpResponse> DashboardResponse(const HttpRequest& request, const HttpPeer& peer);

// The same from `files` (tests).
std::optional<HttpResponse> DashboardResponseFrom(const HttpRequest& request, const HttpPeer& peer,
                                                  const EmbeddedFile* files, size_t count);

// The Content-Type for a file name by its extension; "application/octet-stream"
// for one not known.
std::string ContentTypeFor(absl::string_view name);

}  // namespace skiff::restd

#endif  // SKIFF_RESTD_DASHBOARD_DASHBOARD_FILES_H_
