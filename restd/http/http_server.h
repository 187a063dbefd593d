// restd's HTTP server (issue 36): listens on 127.0.0.1 (TCP) and/or a Unix
// socket, reads one request per connection (http_message.h), hands it to the
// handler with who is on the other end, writes the answer and closes.
//
// On the Unix socket the peer's uid and gid come from the kernel
// (SO_PEERCRED): local users need no token there, as with slurmrestd's
// auth/local. Over TCP the peer is only an address.
//
// What one client may hold (issue 47, item 10), so that no client locks the
// others out:
//  - connections: max_connections_per_peer per peer, max_connections in all
//    (connection_quota.h). A peer is a user where the kernel names one: the
//    uid of a Unix-socket peer, and of a TCP peer on this very host (from
//    sock_diag, so that a local user is one peer from any loopback address);
//    else a remote IP address. One more is answered 503 and closed.
//  - time: the whole request head must be in within head_timeout of the
//    accept, not per read; the body within request_timeout of it, with no
//    read waiting longer than read_timeout; else 408.
//  - reading: the head check (authentication, from the head alone) runs
//    before any of the body is read, so that a request that would be refused
//    is refused without its body; "Expect: 100-continue" is answered only
//    after it passes.
//
// Threads: one accept thread (Start to Stop); one thread per connection. The
// handler and head check are called on connection threads, concurrently:
// they must be thread-safe. mu_ guards the quota and stopped_; no I/O under it.
#ifndef SKIFF_RESTD_HTTP_HTTP_SERVER_H_
#define SKIFF_RESTD_HTTP_HTTP_SERVER_H_

#include <sys/socket.h>
#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "restd/http/connection_quota.h"
#include "restd/http/http_message.h"

namespace skiff::restd {

struct HttpPeer {
  bool unix_socket = false;
  std::optional<uid_t> uid;  // Unix socket only
  std::optional<gid_t> gid;
  std::string address;  // "127.0.0.1:53412", or "unix"
  // Whose share of the connections this one takes: "uid 1000" (a Unix-socket
  // peer, or a TCP peer on this host), else "ip 10.1.2.3".
  std::string quota_key;
};

using HttpHandler = std::function<HttpResponse(const HttpRequest&, const HttpPeer&)>;
// Called with a request's head (its body not yet read, request.body empty):
// an answer to send instead of reading the body and calling the handler, or
// nullopt to go on.
using HttpHeadCheck =
    std::function<std::optional<HttpResponse>(const HttpRequest& head, const HttpPeer&)>;

// The answer to a request the server refused before the handler saw it:
// Slurm's error array ({"errors":[{"description":..., "error_number":...,
// "error":..., "source":...}], "warnings":[]}).
// Carries Cache-Control: no-store, so that no cache keeps it.
HttpResponse HttpErrorResponse(int status, const std::string& description);

// Marks `response` as for its requester alone (issue 47, item 11): no cache
// (a browser's, a proxy's) stores it, and one that would anyway keys it by
// the headers that say who asks: Authorization, Cookie (a proxy that signs
// its users in by cookie), X-SLURM-USER-NAME and X-SLURM-USER-TOKEN.
void MarkPerUser(HttpResponse& response);

class HttpServer {
 public:
  struct Options {
    std::string tcp_host = "127.0.0.1";
    int tcp_port = -1;                  // -1: no TCP; 0: any free port (tests)
    std::string unix_path;              // "": no Unix socket; made 0666, replacing a stale one
    int max_connections = 512;          // in all: one thread each
    int max_connections_per_peer = 32;  // per user or remote address
    std::chrono::milliseconds head_timeout{10000};     // the whole head, from the accept
    std::chrono::milliseconds request_timeout{60000};  // the whole request, body included
    std::chrono::milliseconds read_timeout{10000};     // each read of a body, each write
    HttpLimits limits;
  };

  // Binds and starts serving. InvalidArgument/Unavailable name what failed.
  static absl::StatusOr<std::unique_ptr<HttpServer>> Start(Options options, HttpHandler handler,
                                                           HttpHeadCheck head_check = nullptr);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  int tcp_port() const { return tcp_port_; }  // the bound port; -1 without TCP
  // Stops accepting and waits for the connections in hand. Idempotent.
  void Stop();

 private:
  HttpServer(Options options, HttpHandler handler, HttpHeadCheck head_check);
  void AcceptLoop();
  // The peer of a connection just accepted from `listener`.
  HttpPeer PeerOf(int fd, int listener, const sockaddr_storage& address) const;
  void Serve(int fd, const HttpPeer& peer);

  const Options options_;
  const HttpHandler handler_;
  const HttpHeadCheck head_check_;
  int tcp_fd_ = -1;
  int unix_fd_ = -1;
  int tcp_port_ = -1;
  int wake_[2] = {-1, -1};  // Stop writes, the accept loop wakes
  std::thread acceptor_;

  std::mutex mu_;
  std::condition_variable idle_;  // notified when the last connection ends
  ConnectionQuota quota_;         // guarded by mu_
  bool stopped_ = false;          // guarded by mu_
};

}  // namespace skiff::restd

#endif  // SKIFF_RESTD_HTTP_HTTP_SERVER_H_
