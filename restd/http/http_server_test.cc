// The server over real sockets: TCP on a free port of 127.0.0.1 and a Unix
// socket whose peer's uid reaches the handler; bad requests answered before
// the handler; a client that never finishes gets 408, one that trickles its
// head in gets it at the head's deadline; one peer gets only its share of
// connections; the head check answers before the body is read.
#include "restd/http/http_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

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
    options.head_timeout = std::chrono::milliseconds(2000);
    options.max_connections_per_peer = 4;
    absl::StatusOr<std::unique_ptr<HttpServer>> server = HttpServer::Start(
        options,
        [](const HttpRequest& request, const HttpPeer& peer) {
          HttpResponse response;
          response.body = request.method + " " + request.path + " " +
                          (peer.unix_socket ? "unix uid=" + std::to_string(*peer.uid)
                                            : "tcp " + peer.address.substr(0, 10)) +
                          " " + request.body + " (" + peer.quota_key + ")";
          return response;
        },
        [](const HttpRequest& head, const HttpPeer&) -> std::optional<HttpResponse> {
          if (head.Header("X-Refuse").empty()) return std::nullopt;
          return HttpErrorResponse(401, "refused from the head");
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
  // A TCP peer on this host counts as its user, whichever loopback address.
  EXPECT_NE(tcp.find("(uid " + std::to_string(getuid()) + ")"), std::string::npos) << tcp;
}

TEST_F(HttpServerTest, AHeadTrickledInIsCutOffAtItsDeadline) {
  const int fd = ConnectTcp(server_->tcp_port());
  send(fd, "GET /x HTTP/1.1\r\n", 17, MSG_NOSIGNAL);
  // A line every 100 ms: each read comes well within read_timeout (300 ms),
  // the whole head never within head_timeout (2 s).
  const auto started = std::chrono::steady_clock::now();
  bool answered = false;
  while (!answered && std::chrono::steady_clock::now() - started < std::chrono::seconds(10)) {
    pollfd readable{fd, POLLIN, 0};
    answered = poll(&readable, 1, 100) == 1;
    if (!answered) send(fd, "X-A: b\r\n", 8, MSG_NOSIGNAL);
  }
  ASSERT_TRUE(answered);
  const std::string answer = Exchange(fd, "");
  EXPECT_EQ(answer.substr(0, 12), "HTTP/1.1 408") << answer;
  EXPECT_NE(answer.find("no whole request head within 2 s"), std::string::npos) << answer;
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(8));
}

TEST_F(HttpServerTest, OnePeerGetsOnlyItsShareOfConnections) {
  // This process's user holds its 4 (the cap per peer), TCP and Unix alike.
  std::vector<int> held;
  for (int i = 0; i < 2; ++i) held.push_back(ConnectTcp(server_->tcp_port()));
  for (int i = 0; i < 2; ++i) held.push_back(ConnectUnix(dir_ + "/restd.sock"));
  for (int fd : held) send(fd, "GET /x HTTP/1.1\r\n", 17, MSG_NOSIGNAL);
  // The server takes connections in order: the fifth is refused.
  const std::string refused =
      Exchange(ConnectUnix(dir_ + "/restd.sock"), "GET /x HTTP/1.1\r\n\r\n");
  EXPECT_EQ(refused.substr(0, 12), "HTTP/1.1 503") << refused;
  EXPECT_NE(refused.find("too many connections from uid " + std::to_string(getuid())),
            std::string::npos)
      << refused;
  const std::string over_tcp = Exchange(ConnectTcp(server_->tcp_port()), "GET /x HTTP/1.1\r\n\r\n");
  EXPECT_EQ(over_tcp.substr(0, 12), "HTTP/1.1 503") << over_tcp;
  // One finishes: room again.
  EXPECT_EQ(Exchange(held.back(), "\r\n").substr(0, 15), "HTTP/1.1 200 OK");
  held.pop_back();
  // Its share is given back once its thread is done, just after it closed.
  std::string again;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  do {
    again = Exchange(ConnectUnix(dir_ + "/restd.sock"), "GET /x HTTP/1.1\r\n\r\n");
  } while (again.substr(0, 12) == "HTTP/1.1 503" && std::chrono::steady_clock::now() < until);
  EXPECT_EQ(again.substr(0, 15), "HTTP/1.1 200 OK") << again;
  for (int fd : held) close(fd);
}

TEST_F(HttpServerTest, TheHeadCheckAnswersBeforeTheBodyIsRead) {
  // No body is sent: the answer can only come from the head.
  const int fd = ConnectTcp(server_->tcp_port());
  const std::string head = "POST /x HTTP/1.1\r\nX-Refuse: 1\r\nContent-Length: 1000000\r\n\r\n";
  send(fd, head.data(), head.size(), MSG_NOSIGNAL);
  pollfd readable{fd, POLLIN, 0};
  ASSERT_EQ(poll(&readable, 1, 5000), 1);
  const std::string refused = Exchange(fd, "");
  EXPECT_EQ(refused.substr(0, 12), "HTTP/1.1 401") << refused;
  EXPECT_NE(refused.find("refused from the head"), std::string::npos) << refused;
  EXPECT_NE(refused.find("Cache-Control: no-store"), std::string::npos) << refused;
  // A head that passes, asking to continue, is told to before its body.
  const int go_on = ConnectTcp(server_->tcp_port());
  const std::string expect =
      "POST /x HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n";
  send(go_on, expect.data(), expect.size(), MSG_NOSIGNAL);
  char interim[64] = {};
  ASSERT_GT(recv(go_on, interim, sizeof(interim) - 1, 0), 0);
  EXPECT_EQ(std::string(interim), "HTTP/1.1 100 Continue\r\n\r\n");
  const std::string answer = Exchange(go_on, "body");
  EXPECT_NE(answer.find("POST /x tcp"), std::string::npos) << answer;
  EXPECT_NE(answer.find(" body "), std::string::npos) << answer;
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
