// The join port's TLS (docs/decisions.md, "Init and join"): ctld's self-signed
// certificate, the pin a join token carries, and the node's first, untrusting
// look at the certificate a server presents. OpenSSL; no gRPC.
#ifndef SKIFF_COMMON_JOIN_TLS_H_
#define SKIFF_COMMON_JOIN_TLS_H_

#include <string>

#include "absl/status/statusor.h"

namespace skiff {

// The name in ctld's certificate (subject CN and DNS subjectAltName); clients
// check it with GRPC_SSL_TARGET_NAME_OVERRIDE_ARG, whatever address they dial.
inline constexpr char kJoinTlsName[] = "skiff-ctld";

struct TlsIdentity {
  std::string cert_pem;
  std::string key_pem;
  std::string pin;  // PublicKeyPin(cert_pem)
};

// Reads the certificate and key at these paths, or, when neither exists, makes a
// new ECDSA P-256 key (written 0600) and a self-signed certificate for
// kJoinTlsName valid for 20 years. FailedPrecondition when only one exists or
// the two do not belong together; the paths are named in every error.
absl::StatusOr<TlsIdentity> LoadOrCreateTlsIdentity(const std::string& cert_path,
                                                    const std::string& key_path);

// SHA-256 of the certificate's SubjectPublicKeyInfo (DER), lower-case hex.
absl::StatusOr<std::string> PublicKeyPin(const std::string& cert_pem);

// Connects to host:port, completes a TLS handshake verifying nothing, and returns
// the certificate the server presented (PEM). The caller must check it (its
// pin) before trusting it. Unavailable "cannot reach the controller at
// HOST:PORT: <why>" when no TCP connection or no handshake could be made within
// `timeout_seconds`.
absl::StatusOr<std::string> FetchPeerCertificate(const std::string& host, int port,
                                                 int timeout_seconds);

}  // namespace skiff

#endif  // SKIFF_COMMON_JOIN_TLS_H_
