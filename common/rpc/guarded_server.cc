#include "common/rpc/guarded_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grpcpp/server_posix.h>
#include <linux/tcp.h>  // struct tcp_info with tcpi_bytes_received (glibc's lacks it)
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/rpc/auth_metadata.h"

namespace skiff {
namespace {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

uint64_t SocketId(int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0) return 0;
  return static_cast<uint64_t>(st.st_ino);
}

std::string AddressText(const sockaddr_storage& addr, bool with_port) {
  char host[INET6_ADDRSTRLEN] = "?";
  int port = 0;
  if (addr.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&addr);
    inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
    port = ntohs(in->sin_port);
  } else if (addr.ss_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&addr);
    inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
    port = ntohs(in6->sin6_port);
  }
  if (!with_port) return host;
  // As gRPC names a peer it accepted itself: "ipv4:10.0.0.5:43888", "ipv6:[::1]:43888".
  return addr.ss_family == AF_INET6 ? absl::StrCat("ipv6:[", host, "]:", port)
                                    : absl::StrCat("ipv4:", host, ":", port);
}

int FdOfPeer(const std::string& grpc_peer) {
  int fd = -1;
  if (grpc_peer.rfind("fd:", 0) != 0 || !absl::SimpleAtoi(grpc_peer.substr(3), &fd)) return -1;
  return fd;
}

}  // namespace

ConnectionLimits DaemonConnectionLimits() {
  struct rlimit files;
  ConnectionLimits limits;
  if (getrlimit(RLIMIT_NOFILE, &files) == 0) {
    if (files.rlim_cur < files.rlim_max) {
      files.rlim_cur = files.rlim_max;
      setrlimit(RLIMIT_NOFILE, &files);
      getrlimit(RLIMIT_NOFILE, &files);
    }
    const rlim_t half = files.rlim_cur == RLIM_INFINITY ? 16384 : files.rlim_cur / 2;
    limits.max_connections = static_cast<int>(std::min<rlim_t>(8192, std::max<rlim_t>(half, 16)));
    limits.max_unauthenticated = std::min(limits.max_unauthenticated, limits.max_connections / 2);
    limits.max_unauthenticated_per_peer =
        std::min(limits.max_unauthenticated_per_peer, limits.max_unauthenticated);
    // An eighth of the table: a workflow manager's parallel commands fit, and
    // eight users at their cap still leave room (which a full table makes from
    // the heaviest user anyway).
    limits.max_per_user = std::max(4, limits.max_connections / 8);
  }
  return limits;
}

absl::StatusOr<std::unique_ptr<GuardedListener>> GuardedListener::Listen(const std::string& host,
                                                                         int port,
                                                                         ConnectionLimits limits,
                                                                         spdlog::logger& logger) {
  struct addrinfo hints;
  memset(&hints, 0, sizeof(hints));
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  struct addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (int err = getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(), &hints, &found);
      err != 0) {
    return absl::InvalidArgumentError(absl::StrCat(host, ": ", gai_strerror(err)));
  }
  int fd = -1;
  std::string why = "no address";
  for (struct addrinfo* ai = found; ai != nullptr; ai = ai->ai_next) {
    fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) continue;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 4096) == 0) break;
    why = strerror(errno);
    close(fd);
    fd = -1;
  }
  freeaddrinfo(found);
  if (fd < 0) return absl::UnavailableError(absl::StrCat(host, ":", port, ": ", why));
  sockaddr_storage bound;
  socklen_t len = sizeof(bound);
  getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len);
  const int bound_port = bound.ss_family == AF_INET6
                             ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                             : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  return std::unique_ptr<GuardedListener>(new GuardedListener(fd, bound_port, limits, logger));
}

GuardedListener::GuardedListener(int listen_fd, int port, ConnectionLimits limits,
                                 spdlog::logger& logger)
    : listen_fd_(listen_fd), port_(port), logger_(logger), guard_(limits) {
  spare_fd_ = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

GuardedListener::~GuardedListener() {
  Stop();
  close(listen_fd_);
  if (spare_fd_ >= 0) close(spare_fd_);
}

void GuardedListener::Start(grpc::Server* server, std::function<bool(uid_t)> privileged) {
  server_ = server;
  privileged_ = std::move(privileged);
  SetAuthenticatedHook([this](const std::string& peer, uid_t uid) { Authenticated(peer, uid); });
  SetPeerDescriber([this](const std::string& peer) { return Describe(peer); });
  thread_ = std::thread([this] { Loop(); });
}

void GuardedListener::StartExternal(
    std::unique_ptr<grpc::experimental::ExternalConnectionAcceptor> acceptor) {
  acceptor_ = std::move(acceptor);
  thread_ = std::thread([this] { Loop(); });
}

void GuardedListener::Stop() {
  if (stopping_.exchange(true)) return;
  if (thread_.joinable()) thread_.join();
}

void GuardedListener::Loop() {
  int64_t next_sweep = NowMs();
  while (!stopping_) {
    struct pollfd ready = {listen_fd_, POLLIN, 0};
    if (poll(&ready, 1, 250) > 0) AcceptReady();
    if (NowMs() >= next_sweep) {
      Sweep();
      next_sweep = NowMs() + 250;
    }
  }
}

void GuardedListener::AcceptReady() {
  for (int i = 0; i < 256 && !stopping_; ++i) {
    sockaddr_storage addr;
    socklen_t len = sizeof(addr);
    const int fd =
        accept4(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EMFILE || errno == ENFILE) {
        // Out of descriptors: take the connection with the spare one and close
        // it, so that it does not sit in the backlog, and go on.
        if (spare_fd_ >= 0) close(spare_fd_);
        const int refused = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (refused >= 0) close(refused);
        spare_fd_ = open("/dev/null", O_RDONLY | O_CLOEXEC);
        const int64_t now = NowMs();
        if (now - last_shortage_log_ms_ >= 10000) {
          last_shortage_log_ms_ = now;
          logger_.warn("out of file descriptors: refusing new connections until some close");
        }
        continue;
      }
      return;  // EAGAIN: nothing more waiting
    }
    const std::string peer = AddressText(addr, false);
    ConnectionGuard::Admission admission;
    const uint64_t id = SocketId(fd);
    {
      absl::MutexLock lock(&mu_);
      admission = guard_.Accept(fd, id, peer, NowMs(), &HasSpoken);
    }
    for (const ConnectionGuard::Tracked& victim : admission.evict) {
      ShutDownIf(victim.fd, victim.id);
    }
    if (!admission.admitted) {
      close(fd);
      const int64_t now = NowMs();
      if (now - last_refusal_log_ms_ >= 10000) {
        last_refusal_log_ms_ = now;
        logger_.warn("refused a connection from {}: connection limit reached", peer);
      }
      continue;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (acceptor_ != nullptr) {
      grpc::experimental::ExternalConnectionAcceptor::NewConnectionParameters connection;
      connection.listener_fd = listen_fd_;
      connection.fd = fd;
      acceptor_->HandleNewConnection(&connection);
    } else {
      grpc::AddInsecureChannelFromFd(server_, fd);
    }
  }
}

bool GuardedListener::HasSpoken(int fd) {
  // The kernel's count of bytes received on the connection: a gRPC client
  // sends its preface at once, an idle flood connection nothing.
  tcp_info info{};
  socklen_t len = sizeof(info);
  if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) return false;
  return info.tcpi_bytes_received > 0;
}

void GuardedListener::ShutDownIf(int fd, uint64_t id) {
  if (id != 0 && SocketId(fd) == id) shutdown(fd, SHUT_RDWR);
}

void GuardedListener::Sweep() {
  std::vector<std::pair<int, uint64_t>> to_shut;
  {
    absl::MutexLock lock(&mu_);
    std::vector<int> closed;
    for (const auto& [fd, t] : guard_.tracked()) {
      if (SocketId(fd) != t.id) closed.push_back(fd);  // gRPC closed it
    }
    for (int fd : closed) guard_.Closed(fd);
    for (int fd : guard_.Expired(NowMs())) {
      to_shut.emplace_back(fd, guard_.tracked().at(fd).id);
      guard_.Closed(fd);
    }
  }
  // gRPC sees the shut-down socket fail and closes it itself.
  for (const auto& [fd, id] : to_shut) ShutDownIf(fd, id);
}

void GuardedListener::Authenticated(const std::string& grpc_peer, uid_t uid) {
  const int fd = FdOfPeer(grpc_peer);
  if (fd < 0) return;
  const bool privileged = privileged_ && privileged_(uid);
  std::vector<ConnectionGuard::Tracked> evicted;
  {
    absl::MutexLock lock(&mu_);
    evicted = guard_.Authenticated(fd, uid, privileged);
  }
  for (const ConnectionGuard::Tracked& victim : evicted) ShutDownIf(victim.fd, victim.id);
  if (!evicted.empty()) {
    const int64_t now = NowMs();
    if (now - last_user_cap_log_ms_.load() >= 10000) {
      last_user_cap_log_ms_ = now;
      logger_.warn("uid {} holds more connections than one user may; closed its oldest", uid);
    }
  }
}

std::string GuardedListener::Describe(const std::string& grpc_peer) {
  const int fd = FdOfPeer(grpc_peer);
  if (fd < 0) return grpc_peer;
  sockaddr_storage addr;
  socklen_t len = sizeof(addr);
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return grpc_peer;
  return AddressText(addr, true);
}

}  // namespace skiff
