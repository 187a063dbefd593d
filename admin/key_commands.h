// `skiff key rotate` on the head node (and `skiff node remove`, after the
// removal): a new munge key for the cluster, so that a machine that had the
// old one (a removed node) can no longer make credentials anyone accepts.
// `skiff key fetch` on a joined node: fetch it (node_key.h), as noded does by
// itself when ctld refuses its credential.
#ifndef SKIFF_ADMIN_KEY_COMMANDS_H_
#define SKIFF_ADMIN_KEY_COMMANDS_H_

#include <string>

#include "absl/status/statusor.h"
#include "admin/admin_files.h"

namespace skiff::cli {

struct KeyRotateOptions {
  std::string conf_path;  // -f, else $SKIFF_CONF, /etc/skiff/skiff.conf
  std::string root;       // prefix for the head's own paths (tests)
  std::string munge_key;  // the head's munged key; empty: ROOT/etc/munge/munge.key
  bool start = true;      // restart munge with systemctl
};

// Makes a new key, writes ctld's copy (SlurmctldParameters=join_munge_key,
// else StateSaveLocation/munge.key) and munged's, has ctld read its copy
// again (it hands that one to joined nodes from then on), then restarts
// munge. Returns what to print: what was written and what nodes skiff.conf
// defines must be given by hand. FailedPrecondition when ctld takes no
// joining nodes (nothing would fetch the key).
absl::StatusOr<std::string> RotateMungeKey(const KeyRotateOptions& options,
                                           const CommandRunner& run);

// `skiff key fetch`: renews this node's munge key with its node key file
// (node_key.h). Returns what to print.
absl::StatusOr<std::string> FetchMungeKeyCommand(const std::string& node_key_path,
                                                 int timeout_seconds, const CommandRunner& run);

}  // namespace skiff::cli

#endif  // SKIFF_ADMIN_KEY_COMMANDS_H_
