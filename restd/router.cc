#include "restd/router.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"

namespace skiff::restd {
namespace {

std::vector<std::string> SegmentsOf(absl::string_view path) {
  std::vector<std::string> segments = absl::StrSplit(path, '/', absl::SkipEmpty());
  return segments;
}

bool IsParameter(const std::string& segment) {
  return segment.size() > 2 && segment.front() == '{' && segment.back() == '}';
}

}  // namespace

void Router::Add(std::string method, std::string pattern, RestHandler handler) {
  routes_.push_back({std::move(method), SegmentsOf(pattern), std::move(handler)});
}

std::optional<RouteMatch> Router::Find(absl::string_view method, absl::string_view path) const {
  const std::vector<std::string> segments = SegmentsOf(path);
  // A path with an empty segment inside ("/slurm//jobs") names nothing.
  if (absl::StrContains(absl::StripSuffix(path, "/"), "//")) return std::nullopt;
  std::optional<RouteMatch> found;
  for (const Route& route : routes_) {
    if (route.segments.size() != segments.size()) continue;
    RouteMatch match;
    bool matches = true;
    for (size_t i = 0; i < segments.size() && matches; ++i) {
      const std::string& want = route.segments[i];
      if (want == "{version}") {
        const auto& versions = DataParsers();
        matches = std::find(versions.begin(), versions.end(), segments[i]) != versions.end();
        match.version = segments[i];
      } else if (IsParameter(want)) {
        match.args.push_back(segments[i]);
      } else {
        matches = want == segments[i];
      }
    }
    if (!matches) continue;
    if (!found) found = match;
    found->allowed.push_back(route.method);
    if (route.method == method || (method == "HEAD" && route.method == "GET")) {
      found->handler = &route.handler;
      found->version = match.version;
      found->args = match.args;
    }
  }
  return found;
}

}  // namespace skiff::restd
