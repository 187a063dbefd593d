// `skiff join HOST[:PORT] --token T` (docs/decisions.md, "Init and join"): on
// a node, check the controller's certificate against the token's pin, join over
// TLS, then install the munge key and noded's configless settings and start
// munge and noded.
#ifndef SKIFF_ADMIN_JOIN_COMMAND_H_
#define SKIFF_ADMIN_JOIN_COMMAND_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "admin/admin_files.h"

namespace skiff::cli {

// ctld's join port when HOST has no :PORT (and `skiff init`'s join_port).
inline constexpr int kDefaultJoinPort = 6820;
// Where noded keeps its fetched config when nothing says otherwise (noded's own default).
inline constexpr char kNodedConfCache[] = "/var/spool/skiff/conf-cache";

struct HostPort {
  std::string host;
  int port = 0;
};
// "head", "head:6820", "10.0.0.1:6820", "[fd00::1]:6820". InvalidArgument
// names the text.
absl::StatusOr<HostPort> ParseHostPort(absl::string_view text, int default_port);
// "head:6820", "[fd00::1]:6820".
std::string FormatHostPort(const std::string& host, int port);

// /etc/default/skiff-noded for a node that joined: NODED_OPTIONS, which
// skiff-noded.service passes to noded.
struct NodedDefaults {
  std::string cluster_name;
  std::string node_name;
  std::string conf_server;  // HOST:SlurmctldPort
  int port = 0;             // noded's port; 0 = SlurmdPort
  std::string conf_cache;   // empty = noded's default
};
std::string NodedDefaultsText(const NodedDefaults& defaults);
// The NODED_OPTIONS words of a file NodedDefaultsText wrote (tests start noded with them).
std::string NodedOptionsOf(const std::string& defaults_text);

// OK when the certificate the controller presented has the token's pin; else
// FailedPrecondition saying both and that nothing was sent.
absl::Status CheckPin(const std::string& presented, const std::string& expected,
                      const std::string& where);

struct JoinOptions {
  std::string target;         // HOST[:PORT] of ctld's join port
  std::string token;          // ID.SECRET.PIN
  std::string node_name;      // empty: the short host name
  int port = 0;               // noded's port; 0: SlurmdPort
  std::string addr;           // where ctld reaches noded; empty: where the join came from
  std::string root;           // prefix for every path below (tests)
  std::string munge_key;      // empty: ROOT/etc/munge/munge.key
  std::string defaults_file;  // empty: ROOT/etc/default/skiff-noded
  std::string conf_cache;     // empty: noded's default (ROOT/var/spool/skiff/conf-cache with ROOT)
  bool start = true;          // restart munge and start skiff-noded with systemctl
  int timeout_seconds = 10;
};

// Joins; returns what to print. Errors are the lines to print after
// "skiff: error: " (the controller's own words for a refused token or name).
absl::StatusOr<std::string> RunJoin(const JoinOptions& options, const CommandRunner& run);

}  // namespace skiff::cli

#endif  // SKIFF_ADMIN_JOIN_COMMAND_H_
