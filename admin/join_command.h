// `skiff join HOST[:PORT]` (docs/decisions.md, "Init and join"): on a node,
// take the join token from standard input, a file or SKIFF_JOIN_TOKEN (never
// the command line), check the controller's certificate against the token's
// pin, join over TLS, then install the munge key, the node's own key
// (node_key.h) and noded's configless settings and start munge and noded.
#ifndef SKIFF_ADMIN_JOIN_COMMAND_H_
#define SKIFF_ADMIN_JOIN_COMMAND_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "admin/admin_files.h"
#include "admin/join_channel.h"

namespace skiff::cli {

// Where noded keeps its fetched config when nothing says otherwise (noded's own default).
inline constexpr char kNodedConfCache[] = "/var/spool/skiff/conf-cache";

// /etc/default/skiff-noded for a node that joined: NODED_OPTIONS, which
// skiff-noded.service passes to noded.
struct NodedDefaults {
  std::string cluster_name;
  std::string node_name;
  std::string conf_server;  // HOST:SlurmctldPort
  int port = 0;             // noded's port; 0 = SlurmdPort
  std::string conf_cache;   // empty = noded's default
  std::string node_key;     // the node key file (node_key.h): noded renews the munge key with it
};
std::string NodedDefaultsText(const NodedDefaults& defaults);
// The NODED_OPTIONS words of a file NodedDefaultsText wrote (tests start noded with them).
std::string NodedOptionsOf(const std::string& defaults_text);

// Where `skiff join` takes its token from. Never its command line: every user
// of the machine can read a process's arguments (/proc/PID/cmdline) while it
// runs, and whoever joins first with the token gets the cluster's munge key.
struct JoinTokenSource {
  std::string file;                // --token-file PATH; "-" is standard input
  std::optional<std::string> arg;  // --token's value when given: only "-" is taken
  std::optional<std::string> env;  // SKIFF_JOIN_TOKEN when set
};

// The longest token text read (a token is 98 characters).
inline constexpr size_t kMaxJoinTokenText = 4096;

// The token text, without surrounding white space: from --token-file, from
// standard input (--token - or --token-file -), else from SKIFF_JOIN_TOKEN,
// else from standard input. Standard input (`stdin_fd`) gives its first line;
// a terminal is asked for it, without echo. A file must be a regular file, no
// link, of at most kMaxJoinTokenText bytes, owned by the caller and closed to
// group and others (its owner could otherwise read the token, or put their own
// there and send this node to a controller of theirs). InvalidArgument for a
// token given as --token's value (saying where to give it instead), for more
// than one source, and for no token; FailedPrecondition names a file refused.
absl::StatusOr<std::string> ReadJoinToken(const JoinTokenSource& source, int stdin_fd);

struct JoinOptions {
  std::string target;         // HOST[:PORT] of ctld's join port
  std::string token;          // ID.SECRET.PIN (ReadJoinToken)
  std::string node_name;      // empty: the short host name
  int port = 0;               // noded's port; 0: SlurmdPort
  std::string addr;           // where ctld reaches noded; empty: where the join came from
  std::string root;           // prefix for every path below (tests)
  std::string munge_key;      // empty: ROOT/etc/munge/munge.key
  std::string defaults_file;  // empty: ROOT/etc/default/skiff-noded
  std::string node_key_file;  // empty: ROOT/etc/skiff/node.key (node_key.h)
  std::string conf_cache;     // empty: noded's default (ROOT/var/spool/skiff/conf-cache with ROOT)
  std::string slurm_user = "skiff";  // the controller's SlurmUser: its uid here must be ctld's
  bool start = true;                 // restart munge and start skiff-noded with systemctl
  int timeout_seconds = 10;
};

// Joins; returns what to print. Errors are the lines to print after
// "skiff: error: " (the controller's own words for a refused token or name).
absl::StatusOr<std::string> RunJoin(const JoinOptions& options, const CommandRunner& run);

}  // namespace skiff::cli

#endif  // SKIFF_ADMIN_JOIN_COMMAND_H_
