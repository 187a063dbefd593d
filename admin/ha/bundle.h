// A machine's bundle (issue 53): what `skiff init --standby/--vote` on the
// head makes for each other etcd member (its certificate and key, etcd's
// settings, and for a standby the cluster's skiff.conf, munge key and ctld's
// client certificate), for the admin to copy there as root and install with
// `skiff init --bundle FILE`. It holds secrets: the head writes it 0600 for
// root, and the installer refuses one that other users could read.
//
// The encoding is plain text with lengths ("skiff-bundle 1", "host NAME",
// "role controller|vote", then for each file "file PATH MODE OWNER BYTES",
// a newline, the bytes and a newline). Pure.
#ifndef SKIFF_ADMIN_HA_BUNDLE_H_
#define SKIFF_ADMIN_HA_BUNDLE_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace skiff::cli::ha {

struct BundleFile {
  std::string path;  // absolute, as on the machine (the installer's --root prefixes it)
  mode_t mode = 0600;
  std::string owner;  // a user name: root, etcd, munge or SlurmUser
  std::string content;
};

struct Bundle {
  std::string host;         // the machine it is for (its short host name)
  bool controller = false;  // a standby controller, else an etcd vote
  std::vector<BundleFile> files;
};

std::string EncodeBundle(const Bundle& bundle);

// InvalidArgument "not a Skiff bundle", or naming the line or file that is
// wrong. Only paths under /etc/skiff/, /var/lib/skiff/, /etc/munge/ and
// etcd's drop-in directory are taken, without "..", and modes no looser than
// 0755 (a bundle never makes a file others may write).
absl::StatusOr<Bundle> DecodeBundle(absl::string_view text);

}  // namespace skiff::cli::ha

#endif  // SKIFF_ADMIN_HA_BUNDLE_H_
