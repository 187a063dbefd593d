// A small certificate authority (issue 53): what `skiff init --ha` makes the
// certificates of an etcd cluster's members (peer and client TLS) and ctld's
// client certificate to etcd with. ECDSA P-256 keys, SHA-256 signatures, 20
// years' validity from an hour ago (a clock a little behind still accepts
// them). OpenSSL; no gRPC, no files: the caller writes the PEM texts where
// they go (keys 0600).
//
// Keys are PKCS#8 PEM ("-----BEGIN PRIVATE KEY-----"), which both etcd (Go's
// crypto/tls) and gRPC accept.
//
// Threads: any; pure but for OpenSSL's random bytes (keys and serials).
#ifndef SKIFF_COMMON_TLS_CERTIFICATE_AUTHORITY_H_
#define SKIFF_COMMON_TLS_CERTIFICATE_AUTHORITY_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace skiff::tls {

// A certificate and its private key, both PEM.
struct PemPair {
  std::string cert_pem;
  std::string key_pem;
};

// A new certificate authority: a new ECDSA P-256 key and a self-signed
// certificate with subject CN=`common_name`, basicConstraints critical CA:TRUE,
// keyUsage critical keyCertSign,cRLSign, a subjectKeyIdentifier and a random
// positive 16-byte serial. InvalidArgument for an empty `common_name`;
// Internal naming the step that failed (and OpenSSL's error text) otherwise.
absl::StatusOr<PemPair> MakeCertificateAuthority(const std::string& common_name);

// A certificate signed by `ca` (a PemPair from MakeCertificateAuthority) for
// subject CN=`common_name`, on a new ECDSA P-256 key of its own: a
// subjectAltName of each entry of `alt_names` (one that parses as an IPv4 or
// IPv6 address as IP:, the rest as DNS:; none when `alt_names` is empty),
// basicConstraints CA:FALSE, keyUsage critical digitalSignature,keyEncipherment,
// extendedKeyUsage serverAuth,clientAuth (etcd's members use one certificate
// both ways), subject and authority key identifiers, and the same validity.
// InvalidArgument naming the problem when ca.cert_pem or ca.key_pem does not
// parse, the two do not belong together, the certificate is not a CA's,
// `common_name` is empty, or an entry of `alt_names` is empty or holds other
// than printable ASCII; Internal as MakeCertificateAuthority.
absl::StatusOr<PemPair> IssueCertificate(const PemPair& ca, const std::string& common_name,
                                         const std::vector<std::string>& alt_names);

}  // namespace skiff::tls

#endif  // SKIFF_COMMON_TLS_CERTIFICATE_AUTHORITY_H_
