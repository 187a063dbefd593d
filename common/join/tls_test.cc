#include "common/join/tls.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

namespace skiff {
namespace {

std::string TempDir(const std::string& name) {
  const char* base = getenv("TEST_TMPDIR");
  std::string dir = std::string(base != nullptr ? base : "/tmp") + "/" + name;
  mkdir(dir.c_str(), 0700);
  return dir;
}

// A listening socket on 127.0.0.1 and its port.
int Listen(int* port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  listen(fd, 1);
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  *port = ntohs(addr.sin_port);
  return fd;
}

// Serves one TLS handshake with `identity`.
void ServeOneHandshake(int listen_fd, const TlsIdentity& identity) {
  int fd = accept(listen_fd, nullptr, nullptr);
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  BIO* cert_bio = BIO_new_mem_buf(identity.cert_pem.data(), -1);
  BIO* key_bio = BIO_new_mem_buf(identity.key_pem.data(), -1);
  X509* cert = PEM_read_bio_X509(cert_bio, nullptr, nullptr, nullptr);
  EVP_PKEY* key = PEM_read_bio_PrivateKey(key_bio, nullptr, nullptr, nullptr);
  SSL_CTX_use_certificate(ctx, cert);
  SSL_CTX_use_PrivateKey(ctx, key);
  SSL* ssl = SSL_new(ctx);
  SSL_set_fd(ssl, fd);
  if (SSL_accept(ssl) == 1) {
    char buf[16];
    SSL_read(ssl, buf, sizeof(buf));  // until the client closes
  }
  SSL_free(ssl);
  X509_free(cert);
  EVP_PKEY_free(key);
  BIO_free(cert_bio);
  BIO_free(key_bio);
  SSL_CTX_free(ctx);
  close(fd);
}

// The test's servers write to clients that may have gone.
const bool kIgnoreSigpipe = signal(SIGPIPE, SIG_IGN) != SIG_ERR;

TEST(TlsTest, CreatesOnceThenLoadsTheSameIdentity) {
  ASSERT_TRUE(kIgnoreSigpipe);
  const std::string dir = TempDir("create");
  absl::StatusOr<TlsIdentity> made =
      LoadOrCreateTlsIdentity(dir + "/join-tls.crt", dir + "/join-tls.key");
  ASSERT_TRUE(made.ok()) << made.status();
  EXPECT_EQ(made->pin.size(), 64u);
  EXPECT_NE(made->cert_pem.find("BEGIN CERTIFICATE"), std::string::npos);
  struct stat st;
  ASSERT_EQ(stat((dir + "/join-tls.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  absl::StatusOr<TlsIdentity> loaded =
      LoadOrCreateTlsIdentity(dir + "/join-tls.crt", dir + "/join-tls.key");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->pin, made->pin);
  EXPECT_EQ(loaded->cert_pem, made->cert_pem);
  EXPECT_EQ(PublicKeyPin(made->cert_pem).value(), made->pin);
}

TEST(TlsTest, CertificateWithoutKeyOrForeignKeyIsRefused) {
  const std::string a = TempDir("a"), b = TempDir("b");
  ASSERT_TRUE(LoadOrCreateTlsIdentity(a + "/c", a + "/k").ok());
  ASSERT_TRUE(LoadOrCreateTlsIdentity(b + "/c", b + "/k").ok());
  absl::StatusOr<TlsIdentity> lone = LoadOrCreateTlsIdentity(a + "/c", a + "/missing");
  EXPECT_EQ(lone.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(lone.status().message().find("exists without"), absl::string_view::npos);
  absl::StatusOr<TlsIdentity> mixed = LoadOrCreateTlsIdentity(a + "/c", b + "/k");
  EXPECT_EQ(mixed.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(mixed.status().message().find("is not the key of"), absl::string_view::npos);
}

TEST(TlsTest, PinOfGarbageIsAnError) { EXPECT_FALSE(PublicKeyPin("not a certificate").ok()); }

TEST(TlsTest, FetchesTheCertificateTheServerPresents) {
  const std::string dir = TempDir("fetch");
  absl::StatusOr<TlsIdentity> identity = LoadOrCreateTlsIdentity(dir + "/c", dir + "/k");
  ASSERT_TRUE(identity.ok());
  int port = 0;
  int listen_fd = Listen(&port);
  std::thread server([&] { ServeOneHandshake(listen_fd, *identity); });
  absl::StatusOr<std::string> fetched = FetchPeerCertificate("127.0.0.1", port, 10);
  server.join();
  close(listen_fd);
  ASSERT_TRUE(fetched.ok()) << fetched.status();
  EXPECT_EQ(PublicKeyPin(*fetched).value(), identity->pin);
}

TEST(TlsTest, NothingListeningIsCannotReach) {
  int port = 0;
  close(Listen(&port));  // a port nobody listens on now
  absl::StatusOr<std::string> fetched = FetchPeerCertificate("127.0.0.1", port, 5);
  EXPECT_EQ(fetched.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(fetched.status().message().find("cannot reach the controller at 127.0.0.1:" +
                                            std::to_string(port)),
            absl::string_view::npos)
      << fetched.status();
}

TEST(TlsTest, ServerWithoutTlsIsCannotReachNamingTheJoinPort) {
  int port = 0;
  int listen_fd = Listen(&port);
  std::thread server([&] {
    int fd = accept(listen_fd, nullptr, nullptr);
    write(fd, "HTTP/1.0 400\r\n\r\n", 16);
    close(fd);
  });
  absl::StatusOr<std::string> fetched = FetchPeerCertificate("127.0.0.1", port, 5);
  server.join();
  close(listen_fd);
  EXPECT_EQ(fetched.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(fetched.status().message().find("join_port"), absl::string_view::npos)
      << fetched.status();
}

}  // namespace
}  // namespace skiff
