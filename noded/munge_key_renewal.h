// A joined node renews its munge key by itself (admin/node_key.h; docs/
// security.md, "Removing a node"): when ctld refuses the node's credential, as
// it does once `skiff node remove` or `skiff key rotate` gave the cluster a
// new key, noded fetches that key with the node key file `skiff join` wrote,
// installs it and restarts munged. A removed node's key is refused and
// nothing changes.
//
// Tried at most once per kMungeKeyRenewalInterval: a refusal that a new key
// does not cure (a removed node, a clock far off) is not answered with a fetch
// every backoff step. Owned and called by the node agent's thread only.
#ifndef SKIFF_NODED_MUNGE_KEY_RENEWAL_H_
#define SKIFF_NODED_MUNGE_KEY_RENEWAL_H_

#include <string>

#include "spdlog/spdlog.h"

namespace skiff::noded {

inline constexpr double kMungeKeyRenewalInterval = 30;  // seconds

// When the next try may be: pure, for tests.
class RenewalPacer {
 public:
  explicit RenewalPacer(double interval) : interval_(interval) {}
  // Whether a try is due at `now` (seconds on any steady clock); a due try
  // is counted as made.
  bool Due(double now);

 private:
  double interval_;
  bool tried_ = false;
  double last_ = 0;
};

class MungeKeyRenewer {
 public:
  // `node_key_path`: noded's --node-key. `logger` must outlive the renewer.
  MungeKeyRenewer(std::string node_key_path, spdlog::logger& logger);

  // ctld refused this node's credential (UNAUTHENTICATED): fetch the key
  // unless a try was made in the last kMungeKeyRenewalInterval. Blocks for
  // at most the fetch's timeout.
  void OnCredentialRefused();

 private:
  std::string node_key_path_;
  spdlog::logger& logger_;
  RenewalPacer pacer_{kMungeKeyRenewalInterval};
};

}  // namespace skiff::noded

#endif  // SKIFF_NODED_MUNGE_KEY_RENEWAL_H_
