// Whether a request that changes state may come from where it comes from
// (issue 47, item 9). restd's credentials travel in headers a page on
// another site cannot set, but a reverse proxy that signs its users in by
// cookie adds them to whatever the browser sends, a form on any site
// included. A browser marks such requests: a form can send only text/plain,
// urlencoded or multipart bodies, and it names the page's origin (Origin,
// Sec-Fetch-Site). So a request that changes state (POST, PUT, PATCH,
// DELETE) is acted on only
//  - with a JSON body (Content-Type: application/json), which a page of
//    another site cannot send without a CORS preflight restd never answers;
//    a DELETE without a body needs none; and
//  - from no browser page at all (no Origin, no Sec-Fetch-Site: curl,
//    scripts, Slurm's clients), or from a page whose Origin is this server's
//    (the Host the request was sent to, or the X-Forwarded-Host a proxy
//    names) or one configured as allowed.
//
// Pure; thread-safe.
#ifndef SKIFF_RESTD_HTTP_CROSS_SITE_H_
#define SKIFF_RESTD_HTTP_CROSS_SITE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "restd/http/http_message.h"

namespace skiff::restd {

struct CrossSiteRefusal {
  int status = 0;           // 403 (another site) or 415 (not JSON)
  std::string description;  // names the header and what to send instead
};

// Whether `method` changes state: POST, PUT, PATCH, DELETE (in any case).
bool ChangesState(absl::string_view method);

// An origin as compared: scheme, lower-case host and port, the port from the
// scheme when it names none ("https://Portal.example.org" ->
// "https://portal.example.org:443"); nullopt for "null" or anything but an
// http(s) origin.
std::optional<std::string> NormalizedOrigin(absl::string_view origin);

// nullopt when `head` (a request's head: its body is not needed) may be
// acted on; else why not: CheckOrigin, then CheckContentType.
// `allowed_origins` are origins as a browser writes them
// ("https://portal.example.org").
std::optional<CrossSiteRefusal> CheckCrossSite(const HttpRequest& head,
                                               const std::vector<std::string>& allowed_origins);
// Its two halves, for a server that answers 404/405 between them: where the
// request comes from (403), and what its body is (415).
std::optional<CrossSiteRefusal> CheckOrigin(const HttpRequest& head,
                                            const std::vector<std::string>& allowed_origins);
std::optional<CrossSiteRefusal> CheckContentType(const HttpRequest& head);

}  // namespace skiff::restd

#endif  // SKIFF_RESTD_HTTP_CROSS_SITE_H_
