#include "common/join/tls.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <ctime>
#include <memory>

#include "absl/strings/str_cat.h"
#include "common/join/join_token.h"
#include "common/tls/openssl_util.h"

namespace skiff {
namespace {

using tls::BioPtr;
using tls::BioText;
using tls::OpensslError;
using tls::PkeyPtr;
using tls::X509Ptr;

constexpr long kValiditySeconds = 20L * 365 * 24 * 3600;

struct CtxFree {
  void operator()(SSL_CTX* c) const { SSL_CTX_free(c); }
};
struct SslFree {
  void operator()(SSL* s) const { SSL_free(s); }
};

absl::StatusOr<std::string> ReadWhole(const std::string& path) {
  BioPtr bio(BIO_new_file(path.c_str(), "r"));
  if (!bio) return absl::FailedPreconditionError(absl::StrCat(path, ": ", strerror(errno)));
  std::string out;
  char buf[4096];
  int n;
  while ((n = BIO_read(bio.get(), buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
  return out;
}

// Writes `text` to `path` with `mode`, through a temporary file and a rename.
absl::Status WriteNew(const std::string& path, const std::string& text, mode_t mode) {
  const std::string tmp = path + ".tmp";
  unlink(tmp.c_str());
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) return absl::FailedPreconditionError(absl::StrCat(tmp, ": ", strerror(errno)));
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = strerror(errno);
      close(fd);
      unlink(tmp.c_str());
      return absl::FailedPreconditionError(absl::StrCat(tmp, ": ", why));
    }
    done += static_cast<size_t>(n);
  }
  if (fsync(fd) != 0 || close(fd) != 0 || rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = strerror(errno);
    unlink(tmp.c_str());
    return absl::FailedPreconditionError(absl::StrCat(path, ": ", why));
  }
  return absl::OkStatus();
}

bool AddExtension(X509* cert, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (ext == nullptr) return false;
  const bool ok = X509_add_ext(cert, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  return ok;
}

absl::StatusOr<TlsIdentity> Create(const std::string& cert_path, const std::string& key_path) {
  auto failed = [&](const std::string& what) {
    return absl::InternalError(
        absl::StrCat("making the join certificate ", cert_path, ": ", what, ": ", OpensslError()));
  };
  PkeyPtr key(EVP_EC_gen("P-256"));
  if (!key) return failed("EC key");
  X509Ptr cert(X509_new());
  if (!cert) return failed("X509_new");
  unsigned char serial[16];
  if (RAND_bytes(serial, sizeof(serial)) != 1) return failed("serial");
  serial[0] &= 0x7f;  // positive
  BIGNUM* bn = BN_bin2bn(serial, sizeof(serial), nullptr);
  const bool serial_ok = bn != nullptr && BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get()));
  BN_free(bn);
  if (!serial_ok) return failed("serial");
  X509_NAME* name = X509_get_subject_name(cert.get());
  if (X509_set_version(cert.get(), 2) != 1 ||
      X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                                 reinterpret_cast<const unsigned char*>(kJoinTlsName), -1, -1,
                                 0) != 1 ||
      X509_set_issuer_name(cert.get(), name) != 1 ||
      X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600) == nullptr ||
      X509_gmtime_adj(X509_getm_notAfter(cert.get()), kValiditySeconds) == nullptr ||
      X509_set_pubkey(cert.get(), key.get()) != 1) {
    return failed("fields");
  }
  const std::string san = absl::StrCat("DNS:", kJoinTlsName);
  if (!AddExtension(cert.get(), NID_basic_constraints, "critical,CA:TRUE") ||
      !AddExtension(cert.get(), NID_key_usage, "critical,digitalSignature,keyCertSign") ||
      !AddExtension(cert.get(), NID_subject_alt_name, san.c_str()) ||
      !AddExtension(cert.get(), NID_subject_key_identifier, "hash")) {
    return failed("extensions");
  }
  if (X509_sign(cert.get(), key.get(), EVP_sha256()) == 0) return failed("signing");
  BioPtr key_bio(BIO_new(BIO_s_mem()));
  BioPtr cert_bio(BIO_new(BIO_s_mem()));
  if (!key_bio || !cert_bio ||
      PEM_write_bio_PrivateKey(key_bio.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr) !=
          1 ||
      PEM_write_bio_X509(cert_bio.get(), cert.get()) != 1) {
    return failed("PEM");
  }
  TlsIdentity identity{BioText(cert_bio.get()), BioText(key_bio.get()), ""};
  absl::StatusOr<std::string> pin = PublicKeyPin(identity.cert_pem);
  if (!pin.ok()) return pin.status();
  identity.pin = *pin;
  // The key first: a certificate on disk always has its key.
  if (absl::Status s = WriteNew(key_path, identity.key_pem, 0600); !s.ok()) return s;
  if (absl::Status s = WriteNew(cert_path, identity.cert_pem, 0644); !s.ok()) return s;
  return identity;
}

}  // namespace

absl::StatusOr<std::string> PublicKeyPin(const std::string& cert_pem) {
  BioPtr bio(BIO_new_mem_buf(cert_pem.data(), static_cast<int>(cert_pem.size())));
  X509Ptr cert(bio ? PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr) : nullptr);
  if (!cert) {
    return absl::InvalidArgumentError(absl::StrCat("not a PEM certificate: ", OpensslError()));
  }
  unsigned char* der = nullptr;
  const int n = i2d_X509_PUBKEY(X509_get_X509_PUBKEY(cert.get()), &der);
  if (n <= 0) return absl::InternalError(absl::StrCat("public key: ", OpensslError()));
  std::string spki(reinterpret_cast<const char*>(der), static_cast<size_t>(n));
  OPENSSL_free(der);
  return Sha256Hex(spki);
}

absl::StatusOr<TlsIdentity> LoadOrCreateTlsIdentity(const std::string& cert_path,
                                                    const std::string& key_path) {
  struct stat st;
  const bool have_cert = stat(cert_path.c_str(), &st) == 0;
  const bool have_key = stat(key_path.c_str(), &st) == 0;
  if (!have_cert && !have_key) return Create(cert_path, key_path);
  if (have_cert != have_key) {
    return absl::FailedPreconditionError(absl::StrCat(
        have_cert ? cert_path : key_path, " exists without ", have_cert ? key_path : cert_path,
        ": remove it to have a new certificate made (join tokens made before then stop "
        "working)"));
  }
  absl::StatusOr<std::string> cert = ReadWhole(cert_path);
  if (!cert.ok()) return cert.status();
  absl::StatusOr<std::string> key = ReadWhole(key_path);
  if (!key.ok()) return key.status();
  BioPtr cert_bio(BIO_new_mem_buf(cert->data(), static_cast<int>(cert->size())));
  X509Ptr x509(PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr));
  BioPtr key_bio(BIO_new_mem_buf(key->data(), static_cast<int>(key->size())));
  PkeyPtr pkey(PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr));
  if (!x509) {
    return absl::FailedPreconditionError(
        absl::StrCat(cert_path, ": not a PEM certificate: ", OpensslError()));
  }
  if (!pkey) {
    return absl::FailedPreconditionError(
        absl::StrCat(key_path, ": not a PEM private key: ", OpensslError()));
  }
  if (X509_check_private_key(x509.get(), pkey.get()) != 1) {
    ERR_clear_error();
    return absl::FailedPreconditionError(absl::StrCat(key_path, " is not the key of ", cert_path));
  }
  absl::StatusOr<std::string> pin = PublicKeyPin(*cert);
  if (!pin.ok()) return pin.status();
  return TlsIdentity{*std::move(cert), *std::move(key), *std::move(pin)};
}

absl::StatusOr<std::string> FetchPeerCertificate(const std::string& host, int port,
                                                 int timeout_seconds) {
  const std::string where = absl::StrCat(host, ":", port);
  auto unreachable = [&](const std::string& why) {
    return absl::UnavailableError(
        absl::StrCat("cannot reach the controller at ", where, ": ", why));
  };
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string port_text = std::to_string(port);
  if (int rc = getaddrinfo(host.c_str(), port_text.c_str(), &hints, &found); rc != 0) {
    return unreachable(gai_strerror(rc));
  }
  const time_t deadline = time(nullptr) + timeout_seconds;
  int fd = -1;
  std::string why = "no address";
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0) {
      why = strerror(errno);
      continue;
    }
    if (connect(fd, a->ai_addr, a->ai_addrlen) != 0 && errno != EINPROGRESS) {
      why = strerror(errno);
      close(fd);
      fd = -1;
      continue;
    }
    pollfd p{fd, POLLOUT, 0};
    const int wait_ms = static_cast<int>(std::max<time_t>(0, deadline - time(nullptr)) * 1000);
    int err = 0;
    socklen_t len = sizeof(err);
    if (poll(&p, 1, wait_ms) != 1) {
      why = "connection timed out";
    } else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) {
      why = strerror(err != 0 ? err : errno);
    } else {
      break;
    }
    close(fd);
    fd = -1;
  }
  freeaddrinfo(found);
  if (fd < 0) return unreachable(why);
  // Blocking from here, bounded by socket timeouts.
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  timeval tv{std::max<time_t>(1, deadline - time(nullptr)), 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));

  std::unique_ptr<SSL_CTX, CtxFree> ctx(SSL_CTX_new(TLS_client_method()));
  std::unique_ptr<SSL, SslFree> ssl(ctx ? SSL_new(ctx.get()) : nullptr);
  if (!ssl) {
    close(fd);
    return absl::InternalError(absl::StrCat("TLS: ", OpensslError()));
  }
  // Nothing is verified here: the caller compares the key with its pin.
  SSL_set_verify(ssl.get(), SSL_VERIFY_NONE, nullptr);
  SSL_set_tlsext_host_name(ssl.get(), kJoinTlsName);
  static const unsigned char kAlpn[] = {2, 'h', '2'};  // as gRPC's clients offer
  SSL_set_alpn_protos(ssl.get(), kAlpn, sizeof(kAlpn));
  SSL_set_fd(ssl.get(), fd);
  if (SSL_connect(ssl.get()) != 1) {
    const std::string error = OpensslError();
    close(fd);
    return unreachable(absl::StrCat("no TLS handshake (is ", port,
                                    " ctld's join port, SlurmctldParameters=join_port?): ", error));
  }
  X509Ptr cert(SSL_get1_peer_certificate(ssl.get()));
  // No close_notify: a server that has already closed would raise SIGPIPE.
  close(fd);
  if (!cert) return unreachable("the server presented no certificate");
  BioPtr out(BIO_new(BIO_s_mem()));
  if (!out || PEM_write_bio_X509(out.get(), cert.get()) != 1) {
    return absl::InternalError(absl::StrCat("TLS: ", OpensslError()));
  }
  return BioText(out.get());
}

}  // namespace skiff
