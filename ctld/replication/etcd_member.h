// One etcd member on loopback, for tests and benchmarks (issue 53): Debian's
// /usr/bin/etcd started in a directory of the caller's, on client and peer
// ports of its own, stopped (SIGTERM, then waited for) when the object goes.
// Its output is in <dir>/etcd.log. Whether it serves yet is the caller's to
// wait for (an EtcdClient's first answer).
//
// With a LocalEtcdTls it serves its clients over TLS only (https, with
// --client-cert-auth: a client must present a certificate of the same CA);
// the peer URL stays plain http, as a single member on loopback has no peer.
//
// Threads: the owner's; construct and destroy on one thread.
#ifndef SKIFF_CTLD_REPLICATION_ETCD_MEMBER_H_
#define SKIFF_CTLD_REPLICATION_ETCD_MEMBER_H_

#include <sys/types.h>

#include <string>

namespace skiff::ctld::replication {

inline constexpr char kEtcdBinary[] = "/usr/bin/etcd";

// The PEM texts a TLS LocalEtcd serves with (common/tls's MakeCertificateAuthority
// and IssueCertificate make them). The certificate must name 127.0.0.1 (an IP
// subjectAltName): clients dial target() and check the name they dialled.
struct LocalEtcdTls {
  std::string ca_pem;    // the CA its clients' certificates must chain to
  std::string cert_pem;  // its server certificate, and
  std::string key_pem;   // its key
};

class LocalEtcd {
 public:
  // Plain text.
  explicit LocalEtcd(const std::string& dir);
  // TLS to clients: the three PEMs are written into `dir` (mode 0600), and
  // etcd started with --cert-file, --key-file, --trusted-ca-file and
  // --client-cert-auth on an https client URL. Not started() when the files
  // cannot be written.
  LocalEtcd(const std::string& dir, const LocalEtcdTls& tls);
  ~LocalEtcd();
  LocalEtcd(const LocalEtcd&) = delete;
  LocalEtcd& operator=(const LocalEtcd&) = delete;

  // Whether the process was started (etcd installed, ports found, fork ok).
  bool started() const { return pid_ > 0; }
  std::string target() const;  // "127.0.0.1:<client port>"
  std::string Log() const;     // its output so far

 private:
  // Forks and execs etcd; `tls` null: plain text.
  void Start(const LocalEtcdTls* tls);

  std::string dir_;
  int client_port_ = -1;
  pid_t pid_ = -1;
};

}  // namespace skiff::ctld::replication

#endif  // SKIFF_CTLD_REPLICATION_ETCD_MEMBER_H_
