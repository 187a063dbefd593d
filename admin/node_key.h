// A joined node's own key (docs/security.md, "Removing a node"). `skiff join`
// writes it, with where the controller's join port is and the pin of its
// certificate, to /etc/skiff/node.key (root's, 0600). With it the node fetches
// the cluster's munge key again after `skiff node remove` (or `skiff key
// rotate`) replaced it: by hand (`skiff key fetch`) or by itself (noded, when
// ctld refuses its credential). A removed node's key is gone from ctld with
// it, so the removed machine cannot fetch the new munge key.
#ifndef SKIFF_ADMIN_NODE_KEY_H_
#define SKIFF_ADMIN_NODE_KEY_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "admin/admin_files.h"

namespace skiff::cli {

// Where `skiff join` writes it (under --root in tests).
inline constexpr char kNodeKeyPath[] = "/etc/skiff/node.key";

struct NodeKeyFile {
  std::string controller;  // HOST:PORT of ctld's join port
  std::string pin;         // SHA-256 of its certificate's public key
  std::string node_name;
  std::string node_key;   // the secret ctld gave at the join
  std::string munge_key;  // the file munged reads
  // How munged is restarted once its key changed ("systemctl restart munge");
  // empty: it is not (whoever started munged restarts it; tests).
  std::vector<std::string> munge_restart;
};

// KEY=VALUE lines, with a comment saying what the file is.
std::string FormatNodeKeyFile(const NodeKeyFile& file);
// InvalidArgument naming `path` and the line or key that is wrong or missing.
absl::StatusOr<NodeKeyFile> ParseNodeKeyFile(absl::string_view text, const std::string& path);
// The file at `path`, read through a descriptor: a regular file, no link,
// owned by the caller and closed to group and others (its key proves the
// node; whoever could replace it could point the node at another controller).
absl::StatusOr<NodeKeyFile> ReadNodeKeyFile(const std::string& path);

enum class MungeKeyRenewal { kUnchanged, kReplaced };

// Fetches the cluster's munge key from the controller (Join.FetchMungeKey, over
// the pinned channel) and, when it is not the one munged has, installs it (a
// new file, 0400, the old one's owner, else munge's) and restarts munged.
// ctld's PermissionDenied ("not valid") for a removed node comes back as is.
absl::StatusOr<MungeKeyRenewal> RenewMungeKey(const NodeKeyFile& file, const CommandRunner& run,
                                              int timeout_seconds);

}  // namespace skiff::cli

#endif  // SKIFF_ADMIN_NODE_KEY_H_
