// What Skiff's OpenSSL code shares (the join port's certificate, the etcd CA):
// owning pointers for OpenSSL's objects and its errors in words.
// Threads: any.
#ifndef SKIFF_COMMON_TLS_OPENSSL_UTIL_H_
#define SKIFF_COMMON_TLS_OPENSSL_UTIL_H_

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include <memory>
#include <string>

namespace skiff::tls {

struct BioFree {
  void operator()(BIO* b) const { BIO_free_all(b); }
};
struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct PkeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
using BioPtr = std::unique_ptr<BIO, BioFree>;
using X509Ptr = std::unique_ptr<X509, X509Free>;
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;

// OpenSSL's last error, in words (and its error queue emptied).
std::string OpensslError();

// What a memory BIO holds.
std::string BioText(BIO* bio);

}  // namespace skiff::tls

#endif  // SKIFF_COMMON_TLS_OPENSSL_UTIL_H_
