#include "restd/http/http_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <malloc.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace skiff::restd {
namespace {

absl::Status ErrnoStatus(const std::string& what) {
  return absl::UnavailableError(absl::StrCat(what, ": ", strerror(errno)));
}

void WriteAll(int fd, const std::string& bytes) {
  size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    sent += static_cast<size_t>(n);
  }
}

}  // namespace

HttpResponse HttpErrorResponse(int status, const std::string& description) {
  HttpResponse response;
  response.status = status;
  const nlohmann::json body = {{"errors", nlohmann::json::array({{{"description", description},
                                                                  {"error_number", -1},
                                                                  {"error", HttpReason(status)},
                                                                  {"source", "restd"}}})},
                               {"warnings", nlohmann::json::array()}};
  response.body = body.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  return response;
}

HttpServer::HttpServer(Options options, HttpHandler handler)
    : options_(std::move(options)), handler_(std::move(handler)) {}

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(Options options,
                                                              HttpHandler handler) {
  std::unique_ptr<HttpServer> server(new HttpServer(std::move(options), std::move(handler)));
  const Options& o = server->options_;
  if (o.tcp_port < 0 && o.unix_path.empty()) {
    return absl::InvalidArgumentError("neither a TCP port nor a Unix socket to listen on");
  }
  if (o.tcp_port >= 0) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(o.tcp_port));
    if (inet_pton(AF_INET, o.tcp_host.c_str(), &address.sin_addr) != 1) {
      return absl::InvalidArgumentError(absl::StrCat("'", o.tcp_host, "' is not an IPv4 address"));
    }
    server->tcp_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const int one = 1;
    setsockopt(server->tcp_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(server->tcp_fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
      return ErrnoStatus(absl::StrCat("cannot listen on ", o.tcp_host, ":", o.tcp_port));
    }
    socklen_t length = sizeof(address);
    getsockname(server->tcp_fd_, reinterpret_cast<sockaddr*>(&address), &length);
    server->tcp_port_ = ntohs(address.sin_port);
    if (listen(server->tcp_fd_, 128) != 0) return ErrnoStatus("listen");
  }
  if (!o.unix_path.empty()) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (o.unix_path.size() >= sizeof(address.sun_path)) {
      return absl::InvalidArgumentError(absl::StrCat("socket path too long: ", o.unix_path));
    }
    strncpy(address.sun_path, o.unix_path.c_str(), sizeof(address.sun_path) - 1);
    unlink(o.unix_path.c_str());  // a stale socket of an earlier run
    server->unix_fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (bind(server->unix_fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
      return ErrnoStatus(absl::StrCat("cannot listen on ", o.unix_path));
    }
    // Anyone may connect: each request is authorized as its peer's uid.
    chmod(o.unix_path.c_str(), 0666);
    if (listen(server->unix_fd_, 128) != 0) return ErrnoStatus("listen");
  }
  if (pipe2(server->wake_, O_CLOEXEC) != 0) return ErrnoStatus("pipe");
  server->acceptor_ = std::thread([s = server.get()] { s->AcceptLoop(); });
  return server;
}

HttpServer::~HttpServer() {
  Stop();
  for (int fd : {tcp_fd_, unix_fd_, wake_[0], wake_[1]}) {
    if (fd >= 0) close(fd);
  }
  if (!options_.unix_path.empty()) unlink(options_.unix_path.c_str());
}

void HttpServer::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_) return;
    stopped_ = true;
  }
  if (wake_[1] >= 0) {
    const char byte = 0;
    ssize_t ignored = write(wake_[1], &byte, 1);
    (void)ignored;
  }
  if (acceptor_.joinable()) acceptor_.join();
  std::unique_lock<std::mutex> lock(mu_);
  idle_.wait(lock, [&] { return connections_ == 0; });
}

void HttpServer::AcceptLoop() {
  for (;;) {
    pollfd fds[3] = {{wake_[0], POLLIN, 0}, {tcp_fd_, POLLIN, 0}, {unix_fd_, POLLIN, 0}};
    if (poll(fds, 3, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[0].revents != 0) return;
    for (int i = 1; i < 3; ++i) {
      if (fds[i].fd < 0 || (fds[i].revents & POLLIN) == 0) continue;
      sockaddr_storage address{};
      socklen_t length = sizeof(address);
      const int fd =
          accept4(fds[i].fd, reinterpret_cast<sockaddr*>(&address), &length, SOCK_CLOEXEC);
      if (fd < 0) continue;
      HttpPeer peer;
      if (fds[i].fd == unix_fd_) {
        peer.unix_socket = true;
        peer.address = "unix";
        ucred credentials{};
        socklen_t size = sizeof(credentials);
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0) {
          peer.uid = credentials.uid;
          peer.gid = credentials.gid;
        }
      } else {
        const auto* in = reinterpret_cast<const sockaddr_in*>(&address);
        char text[INET_ADDRSTRLEN] = "";
        inet_ntop(AF_INET, &in->sin_addr, text, sizeof(text));
        peer.address = absl::StrCat(text, ":", ntohs(in->sin_port));
      }
      bool admitted = false;
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (connections_ < options_.max_connections) {
          ++connections_;
          admitted = true;
        }
      }
      if (!admitted) {
        WriteAll(fd, FormatHttpResponse(HttpErrorResponse(503, "too many connections")));
        close(fd);
        continue;
      }
      std::thread([this, fd, peer] {
        Serve(fd, peer);
        std::lock_guard<std::mutex> lock(mu_);
        if (--connections_ == 0) idle_.notify_all();
      }).detach();
    }
  }
}

constexpr size_t kTrimAfterBytes = 4 << 20;

void HttpServer::Serve(int fd, HttpPeer peer) {
  timeval timeout{};
  timeout.tv_sec = options_.read_timeout.count() / 1000;
  timeout.tv_usec = (options_.read_timeout.count() % 1000) * 1000;
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  // A client that stops reading a long answer frees its thread as one that
  // stops sending does: a send that makes no progress for as long fails.
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
  HttpRequestParser parser(options_.limits);
  char buffer[16384];
  HttpResponse response;
  bool answered = false;
  while (!parser.Done() && !parser.Failed()) {
    const ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      response = HttpErrorResponse(408, "no whole request in time");
      answered = true;
      break;
    }
    if (n <= 0) break;  // the client went away
    parser.Feed(absl::string_view(buffer, static_cast<size_t>(n)));
  }
  if (!answered) {
    if (parser.Failed()) {
      response = HttpErrorResponse(parser.error_status(), parser.error());
    } else if (parser.Done()) {
      response = handler_(parser.request(), peer);
    } else {
      close(fd);
      return;
    }
  }
  const bool head = parser.Done() && parser.request().method == "HEAD";
  WriteAll(fd, FormatHttpHead(response));
  if (!head) WriteAll(fd, response.body);
  shutdown(fd, SHUT_WR);
  close(fd);
  // A large answer (GET /jobs of a big queue: tens of MiB) is given back to
  // the system, not kept by malloc for the next one.
  if (response.body.size() > kTrimAfterBytes) {
    response = HttpResponse();
    malloc_trim(0);
  }
}

}  // namespace skiff::restd
