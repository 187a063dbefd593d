#include "restd/http/http_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <malloc.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "client/json_writer.h"

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

// The uid of the process whose TCP socket, on this very host, is the other
// end of ours (remote -> local), from the kernel's sock_diag; nullopt for a
// peer on another host (the kernel knows no such socket) or on failure.
std::optional<uid_t> LocalTcpPeerUid(const sockaddr_in& remote, const sockaddr_in& local) {
  const int netlink = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
  if (netlink < 0) return std::nullopt;
  struct {
    nlmsghdr header;
    inet_diag_req_v2 request;
  } message{};
  message.header.nlmsg_len = sizeof(message);
  message.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  message.header.nlmsg_flags = NLM_F_REQUEST;
  message.request.sdiag_family = AF_INET;
  message.request.sdiag_protocol = IPPROTO_TCP;
  message.request.idiag_states = ~0U;
  // The peer's socket: its source is the remote end, its destination ours.
  message.request.id.idiag_sport = remote.sin_port;
  message.request.id.idiag_dport = local.sin_port;
  message.request.id.idiag_src[0] = remote.sin_addr.s_addr;
  message.request.id.idiag_dst[0] = local.sin_addr.s_addr;
  message.request.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
  message.request.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  std::optional<uid_t> uid;
  alignas(nlmsghdr) char reply[8192];
  if (sendto(netlink, &message, sizeof(message), 0, reinterpret_cast<sockaddr*>(&kernel),
             sizeof(kernel)) == static_cast<ssize_t>(sizeof(message))) {
    const ssize_t n = recv(netlink, reply, sizeof(reply), 0);
    const auto* header = reinterpret_cast<const nlmsghdr*>(reply);
    if (n > 0 && NLMSG_OK(header, static_cast<int>(n)) &&
        header->nlmsg_type == SOCK_DIAG_BY_FAMILY &&
        header->nlmsg_len >= NLMSG_LENGTH(sizeof(inet_diag_msg))) {
      uid = static_cast<const inet_diag_msg*>(NLMSG_DATA(header))->idiag_uid;
    }
  }
  close(netlink);
  return uid;
}

// After an answer sent before the whole request was read: the rest of what
// the client sends is read and dropped for a moment, so that closing with
// unread bytes does not reset the connection before the client reads the
// answer.
void DrainBriefly(int fd) {
  shutdown(fd, SHUT_WR);
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  char buffer[16384];
  size_t dropped = 0;
  while (dropped < (4u << 20)) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    pollfd readable{fd, POLLIN, 0};
    if (left.count() <= 0 || poll(&readable, 1, static_cast<int>(left.count())) <= 0) return;
    const ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
    if (n <= 0) return;
    dropped += static_cast<size_t>(n);
  }
}

}  // namespace

HttpResponse HttpErrorResponse(int status, const std::string& description) {
  HttpResponse response;
  response.status = status;
  // Indented, as the answers of rest_call.h are.
  const client::Json body = {{"errors", client::Json::Array({{{"description", description},
                                                              {"error_number", -1},
                                                              {"error", HttpReason(status)},
                                                              {"source", "restd"}}})},
                             {"warnings", client::Json::Array()}};
  response.body = body.Text();
  // A refusal is for this request alone: no cache keeps it for the next.
  response.headers["Cache-Control"] = "no-store";
  return response;
}

void MarkPerUser(HttpResponse& response) {
  response.headers["Cache-Control"] = "no-store";
  response.headers["Vary"] = "Authorization, Cookie, X-SLURM-USER-NAME, X-SLURM-USER-TOKEN";
}

HttpServer::HttpServer(Options options, HttpHandler handler, HttpHeadCheck head_check)
    : options_(std::move(options)),
      handler_(std::move(handler)),
      head_check_(std::move(head_check)),
      quota_(std::max(1, options_.max_connections),
             std::max(1, options_.max_connections_per_peer)) {}

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(Options options, HttpHandler handler,
                                                              HttpHeadCheck head_check) {
  std::unique_ptr<HttpServer> server(
      new HttpServer(std::move(options), std::move(handler), std::move(head_check)));
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
  idle_.wait(lock, [&] { return quota_.total() == 0; });
}

HttpPeer HttpServer::PeerOf(int fd, int listener, const sockaddr_storage& address) const {
  HttpPeer peer;
  if (listener == unix_fd_) {
    peer.unix_socket = true;
    peer.address = "unix";
    ucred credentials{};
    socklen_t size = sizeof(credentials);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0) {
      peer.uid = credentials.uid;
      peer.gid = credentials.gid;
    }
    // Without credentials (never seen on Linux) all such peers share one share.
    peer.quota_key = peer.uid ? absl::StrCat("uid ", *peer.uid) : "unix";
    return peer;
  }
  const auto* remote = reinterpret_cast<const sockaddr_in*>(&address);
  char text[INET_ADDRSTRLEN] = "";
  inet_ntop(AF_INET, &remote->sin_addr, text, sizeof(text));
  peer.address = absl::StrCat(text, ":", ntohs(remote->sin_port));
  peer.quota_key = absl::StrCat("ip ", text);
  // A user on this host is one peer whichever of the loopback's addresses it
  // connects from; the uid is only counted, never trusted for who the
  // request acts as (that takes a token over TCP).
  sockaddr_in local{};
  socklen_t length = sizeof(local);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length) == 0) {
    if (std::optional<uid_t> uid = LocalTcpPeerUid(*remote, local)) {
      peer.quota_key = absl::StrCat("uid ", *uid);
    }
  }
  return peer;
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
      const HttpPeer peer = PeerOf(fd, fds[i].fd, address);
      ConnectionQuota::Verdict verdict;
      {
        std::lock_guard<std::mutex> lock(mu_);
        verdict = quota_.Admit(peer.quota_key);
      }
      if (verdict != ConnectionQuota::Verdict::kAdmitted) {
        const std::string why =
            verdict == ConnectionQuota::Verdict::kPeerFull
                ? absl::StrCat("too many connections from ", peer.quota_key, " (at most ",
                               options_.max_connections_per_peer, " at once)")
                : absl::StrCat("too many connections (at most ", options_.max_connections,
                               " at once)");
        // Small enough for the socket's buffer: this write does not block.
        WriteAll(fd, FormatHttpResponse(HttpErrorResponse(503, why)));
        close(fd);
        continue;
      }
      std::thread([this, fd, peer] {
        Serve(fd, peer);
        std::lock_guard<std::mutex> lock(mu_);
        quota_.Release(peer.quota_key);
        if (quota_.total() == 0) idle_.notify_all();
      }).detach();
    }
  }
}

constexpr size_t kTrimAfterBytes = 4 << 20;

void HttpServer::Serve(int fd, const HttpPeer& peer) {
  using Clock = std::chrono::steady_clock;
  // A client that stops reading a long answer frees its thread as one that
  // stops sending does: a send that makes no progress for as long fails.
  timeval timeout{};
  timeout.tv_sec = options_.read_timeout.count() / 1000;
  timeout.tv_usec = (options_.read_timeout.count() % 1000) * 1000;
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
  const Clock::time_point accepted = Clock::now();
  Clock::time_point last_read = accepted;
  HttpRequestParser parser(options_.limits);
  bool head_checked = false;
  std::optional<HttpResponse> answer;
  char buffer[16384];
  while (!answer) {
    if (parser.Failed()) {
      answer = HttpErrorResponse(parser.error_status(), parser.error());
      break;
    }
    if (parser.HeadDone() && !head_checked) {
      head_checked = true;
      if (head_check_) answer = head_check_(parser.request(), peer);
      if (answer) break;
      if (!parser.Done() &&
          absl::EqualsIgnoreCase(parser.request().Header("Expect"), "100-continue")) {
        WriteAll(fd, "HTTP/1.1 100 Continue\r\n\r\n");
      }
    }
    if (parser.Done()) {
      answer = handler_(parser.request(), peer);
      break;
    }
    // The head has one deadline in all; the body its own, and a limit on
    // each wait for it.
    const Clock::time_point deadline =
        parser.HeadDone()
            ? std::min(accepted + options_.request_timeout, last_read + options_.read_timeout)
            : accepted + options_.head_timeout;
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      answer = HttpErrorResponse(
          408, parser.HeadDone() ? "no whole request body in time"
                                 : absl::StrCat("no whole request head within ",
                                                options_.head_timeout.count() / 1000.0, " s"));
      break;
    }
    pollfd readable{fd, POLLIN, 0};
    const int ready = poll(&readable, 1, static_cast<int>(left.count()) + 1);
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    const ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the client went away
    last_read = Clock::now();
    parser.Feed(absl::string_view(buffer, static_cast<size_t>(n)));
  }
  if (!answer) {
    close(fd);
    return;
  }
  HttpResponse& response = *answer;
  const bool head = parser.Done() && parser.request().method == "HEAD";
  WriteAll(fd, FormatHttpHead(response));
  if (!head) WriteAll(fd, response.body);
  if (parser.Done()) {
    shutdown(fd, SHUT_WR);
  } else {
    DrainBriefly(fd);  // answered from the head, or refused: the rest unread
  }
  close(fd);
  // A large answer (GET /jobs of a big queue: tens of MiB) is given back to
  // the system, not kept by malloc for the next one.
  if (response.body.size() > kTrimAfterBytes) {
    response = HttpResponse();
    malloc_trim(0);
  }
}

}  // namespace skiff::restd
