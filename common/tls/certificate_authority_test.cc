#include "common/tls/certificate_authority.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include <memory>
#include <string>
#include <vector>

namespace skiff::tls {
namespace {

struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
using X509Ptr = std::unique_ptr<X509, X509Free>;

X509Ptr ParseCert(const std::string& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  X509Ptr cert(PEM_read_bio_X509(bio, nullptr, nullptr, nullptr));
  BIO_free(bio);
  return cert;
}

// Whether `leaf_pem` chains to `ca_pem` (OpenSSL's verification, for the
// purpose `purpose`: X509_PURPOSE_SSL_SERVER or _CLIENT).
bool Verifies(const std::string& leaf_pem, const std::string& ca_pem, int purpose) {
  X509Ptr leaf = ParseCert(leaf_pem);
  X509Ptr ca = ParseCert(ca_pem);
  if (!leaf || !ca) return false;
  X509_STORE* store = X509_STORE_new();
  X509_STORE_add_cert(store, ca.get());
  X509_STORE_CTX* ctx = X509_STORE_CTX_new();
  X509_STORE_CTX_init(ctx, store, leaf.get(), nullptr);
  X509_STORE_CTX_set_purpose(ctx, purpose);
  const bool ok = X509_verify_cert(ctx) == 1;
  X509_STORE_CTX_free(ctx);
  X509_STORE_free(store);
  ERR_clear_error();
  return ok;
}

// The subjectAltName's entries as "DNS:name" and "IP:address".
std::vector<std::string> AltNames(X509* cert) {
  std::vector<std::string> out;
  auto* names =
      static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  if (names == nullptr) return out;
  for (int i = 0; i < sk_GENERAL_NAME_num(names); ++i) {
    const GENERAL_NAME* name = sk_GENERAL_NAME_value(names, i);
    if (name->type == GEN_DNS) {
      const ASN1_IA5STRING* dns = name->d.dNSName;
      out.push_back("DNS:" + std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(dns)),
                                         static_cast<size_t>(ASN1_STRING_length(dns))));
    } else if (name->type == GEN_IPADD) {
      const ASN1_OCTET_STRING* ip = name->d.iPAddress;
      const int len = ASN1_STRING_length(ip);
      char text[INET6_ADDRSTRLEN] = "";
      inet_ntop(len == 4 ? AF_INET : AF_INET6, ASN1_STRING_get0_data(ip), text, sizeof(text));
      out.push_back(std::string("IP:") + text);
    } else {
      out.push_back("other");
    }
  }
  GENERAL_NAMES_free(names);
  return out;
}

// The extendedKeyUsage's purposes by short name ("serverAuth").
std::vector<std::string> ExtendedKeyUsage(X509* cert) {
  std::vector<std::string> out;
  auto* usage =
      static_cast<EXTENDED_KEY_USAGE*>(X509_get_ext_d2i(cert, NID_ext_key_usage, nullptr, nullptr));
  if (usage == nullptr) return out;
  for (int i = 0; i < sk_ASN1_OBJECT_num(usage); ++i) {
    out.push_back(OBJ_nid2sn(OBJ_obj2nid(sk_ASN1_OBJECT_value(usage, i))));
  }
  EXTENDED_KEY_USAGE_free(usage);
  return out;
}

// Whether the certificate's basicConstraints says CA:TRUE; -1 without one.
int IsCa(X509* cert, int* critical) {
  auto* constraints = static_cast<BASIC_CONSTRAINTS*>(
      X509_get_ext_d2i(cert, NID_basic_constraints, critical, nullptr));
  if (constraints == nullptr) return -1;
  const int ca = constraints->ca ? 1 : 0;
  BASIC_CONSTRAINTS_free(constraints);
  return ca;
}

TEST(CertificateAuthorityTest, MakesACertificateAuthority) {
  absl::StatusOr<PemPair> ca = MakeCertificateAuthority("skiff-etcd-ca");
  ASSERT_TRUE(ca.ok()) << ca.status();
  EXPECT_EQ(ca->key_pem.rfind("-----BEGIN PRIVATE KEY-----", 0), 0u) << ca->key_pem;
  X509Ptr cert = ParseCert(ca->cert_pem);
  ASSERT_TRUE(cert);
  int critical = 0;
  EXPECT_EQ(IsCa(cert.get(), &critical), 1);
  EXPECT_EQ(critical, 1);
  const uint32_t usage = X509_get_key_usage(cert.get());
  EXPECT_TRUE(usage & KU_KEY_CERT_SIGN);
  EXPECT_TRUE(usage & KU_CRL_SIGN);
  EXPECT_FALSE(usage & KU_DIGITAL_SIGNATURE);
  EXPECT_NE(X509_get0_subject_key_id(cert.get()), nullptr);
  char cn[64] = "";
  X509_NAME_get_text_by_NID(X509_get_subject_name(cert.get()), NID_commonName, cn, sizeof(cn));
  EXPECT_STREQ(cn, "skiff-etcd-ca");
  EXPECT_EQ(X509_NAME_cmp(X509_get_subject_name(cert.get()), X509_get_issuer_name(cert.get())), 0);
  const ASN1_INTEGER* serial = X509_get0_serialNumber(cert.get());
  EXPECT_EQ(ASN1_STRING_length(serial), 16);
  EXPECT_EQ(ASN1_STRING_type(serial), V_ASN1_INTEGER);  // not V_ASN1_NEG_INTEGER
  // Valid now, from before now, for about 20 years.
  EXPECT_LT(X509_cmp_current_time(X509_get0_notBefore(cert.get())), 0);
  int days = 0;
  int seconds = 0;
  ASSERT_EQ(ASN1_TIME_diff(&days, &seconds, X509_get0_notBefore(cert.get()),
                           X509_get0_notAfter(cert.get())),
            1);
  EXPECT_GE(days, 20 * 365);
  EXPECT_LT(days, 20 * 366);
  // Two CAs are two keys and two serials.
  absl::StatusOr<PemPair> other = MakeCertificateAuthority("skiff-etcd-ca");
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_NE(other->key_pem, ca->key_pem);
  X509Ptr other_cert = ParseCert(other->cert_pem);
  EXPECT_NE(ASN1_INTEGER_cmp(serial, X509_get0_serialNumber(other_cert.get())), 0);
}

TEST(CertificateAuthorityTest, IssuedCertificateVerifiesAgainstItsCaOnly) {
  absl::StatusOr<PemPair> ca = MakeCertificateAuthority("skiff-etcd-ca");
  absl::StatusOr<PemPair> other_ca = MakeCertificateAuthority("skiff-etcd-ca");
  ASSERT_TRUE(ca.ok() && other_ca.ok());
  absl::StatusOr<PemPair> leaf =
      IssueCertificate(*ca, "etcd1", {"head1", "head1.lab", "10.0.0.1", "fd00::1", "127.0.0.1"});
  ASSERT_TRUE(leaf.ok()) << leaf.status();
  EXPECT_EQ(leaf->key_pem.rfind("-----BEGIN PRIVATE KEY-----", 0), 0u) << leaf->key_pem;
  EXPECT_NE(leaf->key_pem, ca->key_pem);

  EXPECT_TRUE(Verifies(leaf->cert_pem, ca->cert_pem, X509_PURPOSE_SSL_SERVER));
  EXPECT_TRUE(Verifies(leaf->cert_pem, ca->cert_pem, X509_PURPOSE_SSL_CLIENT));
  EXPECT_FALSE(Verifies(leaf->cert_pem, other_ca->cert_pem, X509_PURPOSE_SSL_SERVER));
  EXPECT_FALSE(Verifies(leaf->cert_pem, other_ca->cert_pem, X509_PURPOSE_SSL_CLIENT));
  // A leaf is no CA: it issues nothing.
  absl::StatusOr<PemPair> grandchild = IssueCertificate(*leaf, "rogue", {"rogue"});
  EXPECT_EQ(grandchild.status().code(), absl::StatusCode::kInvalidArgument) << grandchild.status();

  X509Ptr cert = ParseCert(leaf->cert_pem);
  X509Ptr ca_cert = ParseCert(ca->cert_pem);
  ASSERT_TRUE(cert && ca_cert);
  EXPECT_EQ(AltNames(cert.get()),
            (std::vector<std::string>{"DNS:head1", "DNS:head1.lab", "IP:10.0.0.1", "IP:fd00::1",
                                      "IP:127.0.0.1"}));
  EXPECT_EQ(ExtendedKeyUsage(cert.get()), (std::vector<std::string>{"serverAuth", "clientAuth"}));
  int critical = 0;
  EXPECT_EQ(IsCa(cert.get(), &critical), 0);
  const uint32_t usage = X509_get_key_usage(cert.get());
  EXPECT_TRUE(usage & KU_DIGITAL_SIGNATURE);
  EXPECT_TRUE(usage & KU_KEY_ENCIPHERMENT);
  EXPECT_FALSE(usage & KU_KEY_CERT_SIGN);
  int usage_critical = 0;
  ASN1_BIT_STRING* key_usage = static_cast<ASN1_BIT_STRING*>(
      X509_get_ext_d2i(cert.get(), NID_key_usage, &usage_critical, nullptr));
  ASN1_BIT_STRING_free(key_usage);
  EXPECT_EQ(usage_critical, 1);
  EXPECT_EQ(X509_NAME_cmp(X509_get_issuer_name(cert.get()), X509_get_subject_name(ca_cert.get())),
            0);
  ASSERT_NE(X509_get0_authority_key_id(cert.get()), nullptr);
  EXPECT_EQ(ASN1_OCTET_STRING_cmp(X509_get0_authority_key_id(cert.get()),
                                  X509_get0_subject_key_id(ca_cert.get())),
            0);
  EXPECT_EQ(X509_get_signature_nid(cert.get()), NID_ecdsa_with_SHA256);
  char cn[64] = "";
  X509_NAME_get_text_by_NID(X509_get_subject_name(cert.get()), NID_commonName, cn, sizeof(cn));
  EXPECT_STREQ(cn, "etcd1");
}

TEST(CertificateAuthorityTest, ClientCertificateWithoutAltNames) {
  absl::StatusOr<PemPair> ca = MakeCertificateAuthority("skiff-etcd-ca");
  ASSERT_TRUE(ca.ok()) << ca.status();
  absl::StatusOr<PemPair> client = IssueCertificate(*ca, "ctld", {});
  ASSERT_TRUE(client.ok()) << client.status();
  X509Ptr cert = ParseCert(client->cert_pem);
  ASSERT_TRUE(cert);
  EXPECT_LT(X509_get_ext_by_NID(cert.get(), NID_subject_alt_name, -1), 0);
  EXPECT_TRUE(Verifies(client->cert_pem, ca->cert_pem, X509_PURPOSE_SSL_CLIENT));
}

TEST(CertificateAuthorityTest, RefusesABadCaNamingWhatIsWrong) {
  absl::StatusOr<PemPair> ca = MakeCertificateAuthority("skiff-etcd-ca");
  absl::StatusOr<PemPair> other_ca = MakeCertificateAuthority("other");
  ASSERT_TRUE(ca.ok() && other_ca.ok());

  PemPair garbage_key{ca->cert_pem, "-----BEGIN PRIVATE KEY-----\nnot a key\n"};
  absl::StatusOr<PemPair> issued = IssueCertificate(garbage_key, "etcd1", {"head1"});
  EXPECT_EQ(issued.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(issued.status().message().find("the CA key"), std::string::npos) << issued.status();

  PemPair garbage_cert{"garbage", ca->key_pem};
  issued = IssueCertificate(garbage_cert, "etcd1", {"head1"});
  EXPECT_EQ(issued.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(issued.status().message().find("the CA certificate"), std::string::npos)
      << issued.status();

  PemPair mismatched{ca->cert_pem, other_ca->key_pem};
  issued = IssueCertificate(mismatched, "etcd1", {"head1"});
  EXPECT_EQ(issued.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(issued.status().message().find("not the key of the CA certificate"), std::string::npos)
      << issued.status();
}

TEST(CertificateAuthorityTest, RefusesAnEmptyAltNameOrCommonName) {
  absl::StatusOr<PemPair> ca = MakeCertificateAuthority("skiff-etcd-ca");
  ASSERT_TRUE(ca.ok()) << ca.status();
  absl::StatusOr<PemPair> issued = IssueCertificate(*ca, "etcd1", {"head1", ""});
  EXPECT_EQ(issued.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(issued.status().message().find("empty"), std::string::npos) << issued.status();
  issued = IssueCertificate(*ca, "etcd1", {"head\n1"});
  EXPECT_EQ(issued.status().code(), absl::StatusCode::kInvalidArgument) << issued.status();
  issued = IssueCertificate(*ca, "", {"head1"});
  EXPECT_EQ(issued.status().code(), absl::StatusCode::kInvalidArgument) << issued.status();
  EXPECT_EQ(MakeCertificateAuthority("").status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace skiff::tls
