// The server over real sockets: TCP on a free port of 127.0.0.1 and a Unix
// socket whose peer's uid reaches the handler; bad requests answered before
// the handler; a client that never finishes gets 408.
#include "restd/http/http_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace skiff::restd {
namespace {

// Sends `bytes` and reads until the server closes.
std::string Exchange(int fd, const std::string& bytes) {
  send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  std::string out;
  char buffer[4096];
  for (ssize_t n; (n = recv(fd, buffer, sizeof(buffer), 0)) > 0;) out.append(buffer, n);
  close(fd);
  return out;
}

int ConnectTcp(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
  EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  return fd;
}

int ConnectUnix(const std::string& path) {
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  strncpy(address.sun_path, path.c_str(), sizeof(address.sun_path) - 1);
  EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  return fd;
}

class HttpServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/restd-http-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
    HttpServer::Options options;
    options.tcp_port = 0;
    options.unix_path = dir_ + "/restd.sock";
    options.read_timeout = std::chrono::milliseconds(300);
    absl::StatusOr<std::unique_ptr<HttpServer>> server =
        HttpServer::Start(options, [](const HttpRequest& request, const HttpPeer& peer) {
          HttpResponse response;
          response.body = request.method + " " + request.path + " " +
                          (peer.unix_socket ? "unix uid=" + std::to_string(*peer.uid)
                                            : "tcp " + peer.address.substr(0, 10)) +
                          " " + request.body;
          return response;
        });
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(*server);
  }
  void TearDown() override {
    server_.reset();
    rmdir(dir_.c_str());
  }
  std::string dir_;
  std::unique_ptr<HttpServer> server_;
};

TEST_F(HttpServerTest, AnswersOverTcpAndNamesTheUnixPeer) {
  const std::string tcp =
      Exchange(ConnectTcp(server_->tcp_port()), "GET /slurm/v0.0.42/ping HTTP/1.1\r\n\r\n");
  EXPECT_EQ(tcp.substr(0, 15), "HTTP/1.1 200 OK");
  EXPECT_NE(tcp.find("\r\n\r\nGET /slurm/v0.0.42/ping tcp 127.0.0.1:"), std::string::npos) << tcp;
  const std::string local = Exchange(ConnectUnix(dir_ + "/restd.sock"),
                                     "POST /x HTTP/1.1\r\nContent-Length: 4\r\n\r\nbody");
  EXPECT_NE(local.find("POST /x unix uid=" + std::to_string(getuid()) + " body"), std::string::npos)
      << local;
}

TEST_F(HttpServerTest, RefusesBadRequestsAndSlowClients) {
  const std::string bad = Exchange(ConnectTcp(server_->tcp_port()), "NONSENSE\r\n\r\n");
  EXPECT_EQ(bad.substr(0, 24), "HTTP/1.1 400 Bad Request");
  EXPECT_NE(bad.find("\"description\": \"malformed request line\""), std::string::npos) << bad;
  // Half a request, then nothing: answered 408 after the read timeout.
  const std::string slow = Exchange(ConnectTcp(server_->tcp_port()), "GET /x HTTP/1.1\r\n");
  EXPECT_EQ(slow.substr(0, 12), "HTTP/1.1 408");
}

TEST(HttpServerStartTest, SaysWhatItCannotListenOn) {
  HttpServer::Options none;
  EXPECT_FALSE(HttpServer::Start(none, {}).ok());
  HttpServer::Options bad_host;
  bad_host.tcp_port = 0;
  bad_host.tcp_host = "localhost";
  absl::StatusOr<std::unique_ptr<HttpServer>> server = HttpServer::Start(bad_host, {});
  ASSERT_FALSE(server.ok());
  EXPECT_EQ(server.status().message(), "'localhost' is not an IPv4 address");
}

}  // namespace
}  // namespace skiff::restd
