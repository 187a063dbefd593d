#include "restd/http/cross_site.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace skiff::restd {
namespace {

// "host" or "host:port" (an IPv6 host in brackets) in lower case, with
// `default_port` when it names none; nullopt when malformed.
std::optional<std::string> WithPort(absl::string_view authority, absl::string_view default_port) {
  authority = absl::StripAsciiWhitespace(authority);
  if (authority.empty()) return std::nullopt;
  const size_t bracket = authority.rfind(']');
  const size_t colon = authority.rfind(':');
  const bool has_port =
      colon != absl::string_view::npos && (bracket == absl::string_view::npos || colon > bracket);
  std::string host = absl::AsciiStrToLower(has_port ? authority.substr(0, colon) : authority);
  std::string port(has_port ? authority.substr(colon + 1) : default_port);
  int number = 0;
  if (host.empty() || !absl::SimpleAtoi(port, &number) || number <= 0 || number > 65535 ||
      host.find_first_of("/@?#") != std::string::npos) {
    return std::nullopt;
  }
  return absl::StrCat(host, ":", number);
}

// The media type of a Content-Type, without its parameters, in lower case.
std::string MediaType(absl::string_view content_type) {
  return absl::AsciiStrToLower(
      absl::StripAsciiWhitespace(content_type.substr(0, content_type.find(';'))));
}

}  // namespace

bool ChangesState(absl::string_view method) {
  for (absl::string_view changing : {"POST", "PUT", "PATCH", "DELETE"}) {
    if (absl::EqualsIgnoreCase(method, changing)) return true;
  }
  return false;
}

std::optional<std::string> NormalizedOrigin(absl::string_view origin) {
  origin = absl::StripAsciiWhitespace(origin);
  absl::string_view scheme;
  absl::string_view default_port;
  if (absl::ConsumePrefix(&origin, "http://")) {
    scheme = "http://";
    default_port = "80";
  } else if (absl::ConsumePrefix(&origin, "https://")) {
    scheme = "https://";
    default_port = "443";
  } else {
    return std::nullopt;  // "null" (a sandboxed or file: page), or not an origin
  }
  absl::ConsumeSuffix(&origin, "/");
  std::optional<std::string> host_port = WithPort(origin, default_port);
  if (!host_port) return std::nullopt;
  return absl::StrCat(scheme, *host_port);
}

std::optional<CrossSiteRefusal> CheckCrossSite(const HttpRequest& head,
                                               const std::vector<std::string>& allowed_origins) {
  if (std::optional<CrossSiteRefusal> refused = CheckOrigin(head, allowed_origins)) return refused;
  return CheckContentType(head);
}

std::optional<CrossSiteRefusal> CheckOrigin(const HttpRequest& head,
                                            const std::vector<std::string>& allowed_origins) {
  if (!ChangesState(head.method)) return std::nullopt;
  const std::string origin = head.Header("Origin");
  if (!origin.empty()) {
    const std::optional<std::string> from = NormalizedOrigin(origin);
    bool ours = false;
    for (const std::string& allowed : allowed_origins) {
      if (from && NormalizedOrigin(allowed) == from) ours = true;
    }
    // The Host a browser sent the request to has no scheme: the origin's
    // gives the port it leaves out. A proxy in front names the Host it was
    // sent to in X-Forwarded-Host (a header no page of another site can set).
    if (from) {
      const absl::string_view scheme = absl::StartsWith(*from, "https") ? "https://" : "http://";
      const absl::string_view port = absl::StartsWith(*from, "https") ? "443" : "80";
      const std::string host_header = head.Header("Host");
      const std::string forwarded = head.Header("X-Forwarded-Host");
      for (absl::string_view host : {absl::string_view(host_header),
                                     absl::string_view(forwarded).substr(0, forwarded.find(','))}) {
        std::optional<std::string> to = WithPort(host, port);
        if (to && absl::StrCat(scheme, *to) == *from) ours = true;
      }
    }
    if (!ours) {
      return CrossSiteRefusal{
          403, absl::StrCat("Origin ", origin, " is not this server's (Host ", head.Header("Host"),
                            "): requests that change state are refused from another site's "
                            "pages; allow the site with restd --allow-origin")};
    }
  } else {
    // A browser that sends no Origin still says where the request came from.
    const std::string site = absl::AsciiStrToLower(head.Header("Sec-Fetch-Site"));
    if (site == "cross-site" || site == "same-site") {
      return CrossSiteRefusal{
          403, absl::StrCat("Sec-Fetch-Site: ", site,
                            ": requests that change state are refused from another site's pages")};
    }
  }
  return std::nullopt;
}

std::optional<CrossSiteRefusal> CheckContentType(const HttpRequest& head) {
  if (!ChangesState(head.method)) return std::nullopt;
  const bool has_body =
      !head.Header("Content-Length").empty() && head.Header("Content-Length") != "0";
  const bool body_expected = !absl::EqualsIgnoreCase(head.method, "DELETE");
  if ((body_expected || has_body) && MediaType(head.Header("Content-Type")) != "application/json") {
    const std::string sent = head.Header("Content-Type");
    return CrossSiteRefusal{415,
                            absl::StrCat("Content-Type must be application/json for ", head.method,
                                         " (sent: ", sent.empty() ? "none" : sent, ")")};
  }
  return std::nullopt;
}

}  // namespace skiff::restd
