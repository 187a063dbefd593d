// A client of an etcd cluster's v3 API over gRPC (issue 53): the KV
// transactions and the leases that ctld's replication rests on
// (leader_txn.h builds the transactions). No TLS yet: loopback and test
// clusters only.
//
// A call that finds etcd unavailable leaves the next call a new channel:
// gRPC 1.51's channel to an etcd that was not yet listening at its first
// attempt was seen never to connect once etcd was up (every attempt ended
// "tcp handshaker shutdown", its TCP connection established all the same),
// where a new channel connects at once.
//
// Threads: any; the methods may be called from several threads at once, and
// each blocks its caller until etcd answers or the call's deadline passes
// (DeadlineExceeded, Unavailable while no member answers). mu_ guards the
// stubs' pointer only; calls run on their own copy of it, outside mu_.
#ifndef SKIFF_CTLD_REPLICATION_ETCD_CLIENT_H_
#define SKIFF_CTLD_REPLICATION_ETCD_CLIENT_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ctld/replication/etcd.grpc.pb.h"

namespace skiff::ctld::replication {

// The PEM texts for TLS to etcd; all empty: plain text.
struct EtcdTls {
  std::string ca_pem;    // the members' certificates are checked against it
  std::string cert_pem;  // this client's certificate, and
  std::string key_pem;   // its key
  bool enabled() const { return !ca_pem.empty(); }
};

class EtcdClient {
 public:
  // `target`: one member's client address, "127.0.0.1:2379".
  explicit EtcdClient(const std::string& target,
                      std::chrono::milliseconds deadline = std::chrono::seconds(5));
  // The cluster's members: a call that finds one unavailable leaves the next
  // call the next member. With `tls` enabled, each member's certificate must
  // name the host it is dialled by.
  explicit EtcdClient(std::vector<std::string> targets,
                      std::chrono::milliseconds deadline = std::chrono::seconds(5),
                      EtcdTls tls = {});

  absl::StatusOr<etcdserverpb::TxnResponse> Txn(const etcdserverpb::TxnRequest& request);
  // The key's value and revisions; nullopt when there is no such key.
  absl::StatusOr<std::optional<etcdserverpb::KeyValue>> Get(const std::string& key);
  // Every key starting with `prefix`, in key order.
  absl::StatusOr<etcdserverpb::RangeResponse> GetPrefix(const std::string& prefix);
  // The keys in [from, end), in key order, at most `limit` of them (0: all).
  absl::StatusOr<etcdserverpb::RangeResponse> Range(const std::string& from, const std::string& end,
                                                    int64_t limit);

  // Writes `key` = `value`, on no lease.
  absl::Status Put(const std::string& key, const std::string& value);

  // A new lease of `ttl_seconds`; its id.
  absl::StatusOr<int64_t> GrantLease(int64_t ttl_seconds);
  // Renews the lease; its time to live in seconds. NotFound: it has expired
  // or was revoked (its keys are gone).
  absl::StatusOr<int64_t> KeepAlive(int64_t lease);
  // Ends the lease at once, and with it every key on it.
  absl::Status RevokeLease(int64_t lease);

 private:
  struct Stubs {
    std::unique_ptr<etcdserverpb::KV::Stub> kv;
    std::unique_ptr<etcdserverpb::Lease::Stub> lease;
  };
  std::unique_ptr<grpc::ClientContext> Context() const;
  std::shared_ptr<const Stubs> Current();
  // The call's status; after UNAVAILABLE, a new channel for the next call.
  absl::Status Checked(const grpc::Status& status, const std::shared_ptr<const Stubs>& used);

  const std::vector<std::string> targets_;
  const std::chrono::milliseconds deadline_;
  const EtcdTls tls_;
  std::mutex mu_;
  std::shared_ptr<const Stubs> stubs_;  // guarded by mu_
  size_t next_target_ = 0;              // guarded by mu_: the member the next channel is to
};

// The end of the range of keys that start with `prefix` (etcd's prefix
// convention: the prefix with its last byte incremented).
std::string PrefixEnd(const std::string& prefix);

}  // namespace skiff::ctld::replication

#endif  // SKIFF_CTLD_REPLICATION_ETCD_CLIENT_H_
