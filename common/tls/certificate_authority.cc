#include "common/tls/certificate_authority.h"

#include <arpa/inet.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>

#include "absl/strings/str_cat.h"
#include "common/tls/openssl_util.h"

namespace skiff::tls {
namespace {

constexpr long kValiditySeconds = 20L * 365 * 24 * 3600;

struct GeneralNamesFree {
  void operator()(GENERAL_NAMES* n) const { GENERAL_NAMES_free(n); }
};
using GeneralNamesPtr = std::unique_ptr<GENERAL_NAMES, GeneralNamesFree>;

// `value` in OpenSSL's configuration syntax ("critical,CA:TRUE"), with
// `issuer` as the issuer (for authorityKeyIdentifier) and `cert` as the subject.
bool AddExtension(X509* issuer, X509* cert, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (ext == nullptr) return false;
  const bool ok = X509_add_ext(cert, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  return ok;
}

// A v3 certificate for CN=common_name on `key`'s public key, issued by
// `issuer_name`, with a random positive 16-byte serial; neither extensions
// nor a signature yet. Null with the step that failed in *what.
X509Ptr NewCertificate(const std::string& common_name, const X509_NAME* issuer_name, EVP_PKEY* key,
                       std::string* what) {
  X509Ptr cert(X509_new());
  if (!cert) {
    *what = "X509_new";
    return nullptr;
  }
  unsigned char serial[16];
  if (RAND_bytes(serial, sizeof(serial)) != 1) {
    *what = "serial";
    return nullptr;
  }
  serial[0] &= 0x7f;  // positive
  serial[0] |= 0x01;  // and 16 bytes long (no leading zero byte to drop)
  BIGNUM* bn = BN_bin2bn(serial, sizeof(serial), nullptr);
  const bool serial_ok = bn != nullptr && BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get()));
  BN_free(bn);
  if (!serial_ok) {
    *what = "serial";
    return nullptr;
  }
  X509_NAME* name = X509_get_subject_name(cert.get());
  if (X509_set_version(cert.get(), 2) != 1 ||
      X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                                 reinterpret_cast<const unsigned char*>(common_name.data()),
                                 static_cast<int>(common_name.size()), -1, 0) != 1 ||
      X509_set_issuer_name(cert.get(), issuer_name != nullptr ? issuer_name : name) != 1 ||
      X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600) == nullptr ||
      X509_gmtime_adj(X509_getm_notAfter(cert.get()), kValiditySeconds) == nullptr ||
      X509_set_pubkey(cert.get(), key) != 1) {
    *what = "fields";
    return nullptr;
  }
  return cert;
}

// Signs `cert` with `signer` (SHA-256) and writes it and `key` (PKCS#8) as PEM
// into *out. False with the step that failed in *what.
bool SignAndWrite(X509* cert, EVP_PKEY* signer, EVP_PKEY* key, PemPair* out, std::string* what) {
  if (X509_sign(cert, signer, EVP_sha256()) == 0) {
    *what = "signing";
    return false;
  }
  BioPtr key_bio(BIO_new(BIO_s_mem()));
  BioPtr cert_bio(BIO_new(BIO_s_mem()));
  // PEM_write_bio_PrivateKey writes PKCS#8 ("BEGIN PRIVATE KEY").
  if (!key_bio || !cert_bio ||
      PEM_write_bio_PrivateKey(key_bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1 ||
      PEM_write_bio_X509(cert_bio.get(), cert) != 1) {
    *what = "PEM";
    return false;
  }
  out->cert_pem = BioText(cert_bio.get());
  out->key_pem = BioText(key_bio.get());
  return true;
}

// Whether `name` is fit for a DNS subjectAltName (an IA5String): printable
// ASCII, at least one character.
bool PrintableAscii(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

// The subjectAltName of `alt_names`: IP: for an IPv4 or IPv6 address, DNS:
// for the rest. Built as GENERAL_NAMEs rather than through a configuration
// string, which a comma in a name would split.
GeneralNamesPtr AltNames(const std::vector<std::string>& alt_names) {
  GeneralNamesPtr names(sk_GENERAL_NAME_new_null());
  if (!names) return nullptr;
  for (const std::string& alt : alt_names) {
    GENERAL_NAME* general = GENERAL_NAME_new();
    if (general == nullptr) return nullptr;
    unsigned char ip[16];
    int ip_len = 0;
    if (inet_pton(AF_INET, alt.c_str(), ip) == 1) {
      ip_len = 4;
    } else if (inet_pton(AF_INET6, alt.c_str(), ip) == 1) {
      ip_len = 16;
    }
    ASN1_STRING* value = ip_len > 0 ? ASN1_OCTET_STRING_new() : ASN1_IA5STRING_new();
    const bool set =
        value != nullptr &&
        (ip_len > 0 ? ASN1_OCTET_STRING_set(value, ip, ip_len)
                    : ASN1_STRING_set(value, alt.data(), static_cast<int>(alt.size())));
    if (!set) {
      ASN1_STRING_free(value);
      GENERAL_NAME_free(general);
      return nullptr;
    }
    GENERAL_NAME_set0_value(general, ip_len > 0 ? GEN_IPADD : GEN_DNS, value);
    if (sk_GENERAL_NAME_push(names.get(), general) == 0) {
      GENERAL_NAME_free(general);
      return nullptr;
    }
  }
  return names;
}

}  // namespace

absl::StatusOr<PemPair> MakeCertificateAuthority(const std::string& common_name) {
  std::string what;
  auto failed = [&](const std::string& step) {
    return absl::InternalError(absl::StrCat("making the certificate authority \"", common_name,
                                            "\": ", step, ": ", OpensslError()));
  };
  if (common_name.empty()) return absl::InvalidArgumentError("an empty common name");
  PkeyPtr key(EVP_EC_gen("P-256"));
  if (!key) return failed("EC key");
  X509Ptr cert = NewCertificate(common_name, nullptr, key.get(), &what);
  if (!cert) return failed(what);
  if (!AddExtension(cert.get(), cert.get(), NID_basic_constraints, "critical,CA:TRUE") ||
      !AddExtension(cert.get(), cert.get(), NID_key_usage, "critical,keyCertSign,cRLSign") ||
      !AddExtension(cert.get(), cert.get(), NID_subject_key_identifier, "hash")) {
    return failed("extensions");
  }
  PemPair out;
  if (!SignAndWrite(cert.get(), key.get(), key.get(), &out, &what)) return failed(what);
  return out;
}

absl::StatusOr<PemPair> IssueCertificate(const PemPair& ca, const std::string& common_name,
                                         const std::vector<std::string>& alt_names) {
  if (common_name.empty()) return absl::InvalidArgumentError("an empty common name");
  for (const std::string& alt : alt_names) {
    if (!PrintableAscii(alt)) {
      return absl::InvalidArgumentError(
          alt.empty() ? std::string("an empty subjectAltName")
                      : absl::StrCat("subjectAltName \"", alt,
                                     "\" holds other than printable ASCII characters"));
    }
  }
  BioPtr cert_bio(BIO_new_mem_buf(ca.cert_pem.data(), static_cast<int>(ca.cert_pem.size())));
  X509Ptr ca_cert(cert_bio ? PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr)
                           : nullptr);
  if (!ca_cert) {
    return absl::InvalidArgumentError(
        absl::StrCat("the CA certificate is not a PEM certificate: ", OpensslError()));
  }
  BioPtr key_bio(BIO_new_mem_buf(ca.key_pem.data(), static_cast<int>(ca.key_pem.size())));
  // A null password callback: an encrypted key fails here rather than asking on a terminal.
  PkeyPtr ca_key(
      key_bio ? PEM_read_bio_PrivateKey(
                    key_bio.get(), nullptr, [](char*, int, int, void*) { return 0; }, nullptr)
              : nullptr);
  if (!ca_key) {
    return absl::InvalidArgumentError(
        absl::StrCat("the CA key is not a PEM private key: ", OpensslError()));
  }
  if (X509_check_private_key(ca_cert.get(), ca_key.get()) != 1) {
    ERR_clear_error();
    return absl::InvalidArgumentError("the CA key is not the key of the CA certificate");
  }
  if (X509_check_ca(ca_cert.get()) == 0) {
    return absl::InvalidArgumentError(
        "the CA certificate is not a certificate authority's (no basicConstraints CA:TRUE)");
  }

  std::string what;
  auto failed = [&](const std::string& step) {
    return absl::InternalError(absl::StrCat("issuing a certificate for \"", common_name,
                                            "\": ", step, ": ", OpensslError()));
  };
  PkeyPtr key(EVP_EC_gen("P-256"));
  if (!key) return failed("EC key");
  X509Ptr cert =
      NewCertificate(common_name, X509_get_subject_name(ca_cert.get()), key.get(), &what);
  if (!cert) return failed(what);
  if (!alt_names.empty()) {
    GeneralNamesPtr names = AltNames(alt_names);
    if (!names || X509_add1_ext_i2d(cert.get(), NID_subject_alt_name, names.get(), 0,
                                    X509V3_ADD_DEFAULT) != 1) {
      return failed("subjectAltName");
    }
  }
  if (!AddExtension(ca_cert.get(), cert.get(), NID_basic_constraints, "CA:FALSE") ||
      !AddExtension(ca_cert.get(), cert.get(), NID_key_usage,
                    "critical,digitalSignature,keyEncipherment") ||
      !AddExtension(ca_cert.get(), cert.get(), NID_ext_key_usage, "serverAuth,clientAuth") ||
      !AddExtension(ca_cert.get(), cert.get(), NID_subject_key_identifier, "hash") ||
      !AddExtension(ca_cert.get(), cert.get(), NID_authority_key_identifier, "keyid:always")) {
    return failed("extensions");
  }
  PemPair out;
  if (!SignAndWrite(cert.get(), ca_key.get(), key.get(), &out, &what)) return failed(what);
  return out;
}

}  // namespace skiff::tls
