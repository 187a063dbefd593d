#include "common/rpc/http2/unary_call.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/unique_fd.h"

namespace skiff::http2 {
namespace {

using Clock = std::chrono::steady_clock;

int MillisLeft(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return left.count() < 0 ? 0 : static_cast<int>(left.count());
}

// Waits for `events` on `fd` until `deadline`; false when it passed.
bool Await(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    const int n = poll(&p, 1, MillisLeft(deadline));
    if (n > 0) return true;
    if (n == 0) return false;
    if (errno != EINTR) return true;  // the next read or write reports it
  }
}

bool SplitTarget(const std::string& target, std::string* host, std::string* port) {
  const size_t colon = target.rfind(':');
  if (colon == std::string::npos || colon + 1 == target.size()) return false;
  *host = target.substr(0, colon);
  *port = target.substr(colon + 1);
  if (host->size() >= 2 && host->front() == '[' && host->back() == ']') {
    *host = host->substr(1, host->size() - 2);
  }
  return !host->empty();
}

// A connected, non-blocking socket to one of `target`'s addresses, or -1
// with the last failure in `*why`.
int Connect(const std::string& target, std::chrono::milliseconds timeout, std::string* why) {
  std::string host;
  std::string port;
  if (!SplitTarget(target, &host, &port)) {
    *why = "not host:port";
    return -1;
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (int rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    *why = gai_strerror(rc);
    return -1;
  }
  int connected = -1;
  for (addrinfo* a = found; a != nullptr && connected < 0; a = a->ai_next) {
    int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      *why = strerror(errno);
      continue;
    }
    int rc = connect(fd, a->ai_addr, a->ai_addrlen);
    if (rc != 0 && errno == EINPROGRESS) {
      if (Await(fd, POLLOUT, Clock::now() + timeout)) {
        int error = 0;
        socklen_t length = sizeof(error);
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length);
        rc = error == 0 ? 0 : -1;
        errno = error;
      } else {
        errno = ETIMEDOUT;
      }
    }
    if (rc == 0) {
      connected = fd;
    } else {
      *why = strerror(errno);
      close(fd);
    }
  }
  freeaddrinfo(found);
  if (connected >= 0) {
    // The request goes out in one write; do not hold its last segment back.
    int one = 1;
    setsockopt(connected, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  }
  return connected;
}

// Writes all of `bytes`; `*written` counts what went out.
bool WriteAll(int fd, std::string_view bytes, Clock::time_point deadline, size_t* written) {
  while (*written < bytes.size()) {
    const ssize_t n =
        send(fd, bytes.data() + *written, bytes.size() - *written, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      *written += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && Await(fd, POLLOUT, deadline)) {
      continue;
    }
    return false;
  }
  return true;
}

}  // namespace

bool DirectCallsAllowed() {
  const char* value = std::getenv("SKIFF_DIRECT_CALLS");
  return value == nullptr || std::strcmp(value, "0") != 0;
}

UnaryCallResult CallUnary(const std::string& target, UnaryRequest request,
                          std::chrono::milliseconds connect_timeout,
                          std::chrono::milliseconds timeout, size_t max_reply_bytes) {
  const Clock::time_point deadline = Clock::now() + timeout;
  UnaryCallResult result;
  request.timeout_ms = timeout.count();
  absl::StatusOr<std::string> bytes = EncodeUnaryRequest(request);
  if (!bytes.ok()) {
    result.status = bytes.status();
    result.never_sent = true;
    return result;
  }
  std::string why;
  UniqueFd socket(Connect(target, std::min(connect_timeout, timeout), &why));
  if (socket.get() < 0) {
    result.status = absl::UnavailableError(absl::StrCat("connect to ", target, ": ", why));
    result.never_sent = true;
    return result;
  }
  size_t written = 0;
  if (!WriteAll(socket.get(), *bytes, deadline, &written)) {
    result.status =
        absl::UnavailableError(absl::StrCat("write to ", target, ": ", strerror(errno)));
    result.never_sent = written == 0;
    return result;
  }
  UnaryReplyReader reader(max_reply_bytes);
  char buffer[64 * 1024];
  while (!reader.done()) {
    const ssize_t n = recv(socket.get(), buffer, sizeof(buffer), MSG_DONTWAIT);
    if (n > 0) {
      reader.Feed(std::string_view(buffer, static_cast<size_t>(n)));
      std::string owed = reader.TakeOutbound();
      size_t sent = 0;
      // An acknowledgement that cannot be written does not change the answer
      // being read; the read that follows reports a broken connection.
      if (!owed.empty()) WriteAll(socket.get(), owed, deadline, &sent);
      continue;
    }
    if (n == 0) {
      result.status = absl::UnavailableError(absl::StrCat(target, " closed the connection"));
      return result;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      result.status =
          absl::UnavailableError(absl::StrCat("read from ", target, ": ", strerror(errno)));
      return result;
    }
    if (!Await(socket.get(), POLLIN, deadline)) {
      result.status = absl::DeadlineExceededError(
          absl::StrCat(target, " did not answer within ", timeout.count(), " ms"));
      return result;
    }
  }
  UnaryOutcome outcome = reader.TakeOutcome();
  result.status = std::move(outcome.status);
  result.reply = std::move(outcome.reply);
  result.never_sent = outcome.unprocessed;
  return result;
}

}  // namespace skiff::http2
