// restd's paths (issue 36): which handler answers a method and path.
// Patterns are written as slurmrestd's OpenAPI document writes them:
// "/slurm/{version}/job/{job_id}". "{version}" matches a data_parser version
// restd speaks (DataParsers()); any other "{...}" matches one segment and is
// handed to the handler. A trailing "/" is optional, as slurmrestd's.
//
// Pure: built once before the server starts, then only read.
#ifndef SKIFF_RESTD_ROUTER_H_
#define SKIFF_RESTD_ROUTER_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "restd/http/http_message.h"
#include "restd/rest_call.h"

namespace skiff::restd {

// The data_parser versions served, newest first. One answer serves all three:
// v0.0.43 and v0.0.44 only add fields to v0.0.42's records, ones Skiff has no
// data for (TLS certificates, topology, segment sizes, ...); the tests check
// every answer against each version's document. (v0.0.41 differs in fields
// Skiff writes: not served.)
inline const std::vector<std::string>& DataParsers() {
  static const std::vector<std::string> versions = {"v0.0.44", "v0.0.43", "v0.0.42"};
  return versions;
}

using RestHandler = std::function<HttpResponse(RestCall&)>;

struct RouteMatch {
  const RestHandler* handler = nullptr;  // null: the path exists, not for this method
  std::string version;                   // "" where the pattern has no {version}
  std::vector<std::string> args;
  std::vector<std::string> allowed;  // the path's methods, for 405's Allow
};

class Router {
 public:
  void Add(std::string method, std::string pattern, RestHandler handler);
  // Nothing when no pattern matches `path`. HEAD is answered by GET's handler.
  std::optional<RouteMatch> Find(absl::string_view method, absl::string_view path) const;

 private:
  struct Route {
    std::string method;
    std::vector<std::string> segments;
    RestHandler handler;
  };
  std::vector<Route> routes_;
};

}  // namespace skiff::restd

#endif  // SKIFF_RESTD_ROUTER_H_
