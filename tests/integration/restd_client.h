// What restd's integration tests share: a request made with curl (as a test
// user, over TCP or restd's Unix socket) and its answer, and a user's token.
#ifndef SKIFF_TESTS_INTEGRATION_RESTD_CLIENT_H_
#define SKIFF_TESTS_INTEGRATION_RESTD_CLIENT_H_

#include <cstdlib>
#include <cstring>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "tests/harness/local_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {

struct HttpAnswer {
  int status = 0;
  nlohmann::json body;  // discarded when the body is not JSON
};

// `curl ARGS` as `user` ("" = root); its answer: curl prints the body, then
// the status code on its own last line.
inline HttpAnswer Curl(const LocalCluster& cluster, const std::string& user,
                       const std::string& args) {
  const std::string command = absl::StrCat("curl -s -w '\\n%{http_code}' ", args);
  const CommandResult r = user.empty() ? cluster.Run(command) : cluster.RunAs(user, command);
  HttpAnswer answer;
  const size_t newline = r.out.rfind('\n');
  if (newline == std::string::npos) return answer;
  answer.status = atoi(r.out.c_str() + newline + 1);
  answer.body = nlohmann::json::parse(r.out.substr(0, newline), nullptr, false);
  return answer;
}

// `scontrol token` as `user` ("root" too): the token, or "" when it failed.
inline std::string TokenOf(const LocalCluster& cluster, const std::string& user) {
  const CommandResult r =
      user == "root" ? cluster.Run("scontrol token") : cluster.RunAs(user, "scontrol token");
  if (!absl::StartsWith(r.out, "SLURM_JWT=")) return "";
  return std::string(absl::StripAsciiWhitespace(r.out.substr(strlen("SLURM_JWT="))));
}

// Where the cluster's restd listens, from the etc/restd.env `./skiff up`
// wrote (RESTD_LISTEN="127.0.0.1:PORT unix:PATH"); port -1 when it has none.
struct RestdAddress {
  int port = -1;
  std::string socket;
};
inline RestdAddress RestdAddressOf(const LocalCluster& cluster) {
  const std::string listen = ReadFile(cluster.dir() + "/etc/restd.env");
  RestdAddress address;
  const size_t tcp_at = listen.find("127.0.0.1:");
  const size_t unix_at = listen.find(" unix:");
  if (tcp_at == std::string::npos || unix_at == std::string::npos) return address;
  address.port = atoi(listen.c_str() + tcp_at + strlen("127.0.0.1:"));
  address.socket = listen.substr(unix_at + strlen(" unix:"));
  address.socket = address.socket.substr(0, address.socket.find('"'));
  return address;
}

}  // namespace skiff::testing

#endif  // SKIFF_TESTS_INTEGRATION_RESTD_CLIENT_H_
