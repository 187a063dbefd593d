// restd's HTTP server (issue 36): listens on 127.0.0.1 (TCP) and/or a Unix
// socket, reads one request per connection (http_message.h), hands it to the
// handler with who is on the other end, writes the answer and closes.
//
// On the Unix socket the peer's uid and gid come from the kernel
// (SO_PEERCRED): local users need no token there, as with slurmrestd's
// auth/local. Over TCP the peer is only an address.
//
// Threads: one accept thread (Start to Stop); one thread per connection, at
// most max_connections at once (one more is answered 503 and closed). The
// handler is called on connection threads, concurrently: it must be
// thread-safe. mu_ guards the connection count; no I/O under it.
#ifndef SKIFF_RESTD_HTTP_HTTP_SERVER_H_
#define SKIFF_RESTD_HTTP_HTTP_SERVER_H_

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
#include "restd/http/http_message.h"

namespace skiff::restd {

struct HttpPeer {
  bool unix_socket = false;
  std::optional<uid_t> uid;  // Unix socket only
  std::optional<gid_t> gid;
  std::string address;  // "127.0.0.1:53412", or "unix"
};

using HttpHandler = std::function<HttpResponse(const HttpRequest&, const HttpPeer&)>;

// The answer to a request the server refused before the handler saw it:
// Slurm's error array ({"errors":[{"description":..., "error_number":...,
// "error":..., "source":...}], "warnings":[]}).
HttpResponse HttpErrorResponse(int status, const std::string& description);

class HttpServer {
 public:
  struct Options {
    std::string tcp_host = "127.0.0.1";
    int tcp_port = -1;      // -1: no TCP; 0: any free port (tests)
    std::string unix_path;  // "": no Unix socket; made 0666, replacing a stale one
    int max_connections = 64;
    std::chrono::milliseconds read_timeout{10000};
    HttpLimits limits;
  };

  // Binds and starts serving. InvalidArgument/Unavailable name what failed.
  static absl::StatusOr<std::unique_ptr<HttpServer>> Start(Options options, HttpHandler handler);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  int tcp_port() const { return tcp_port_; }  // the bound port; -1 without TCP
  // Stops accepting and waits for the connections in hand. Idempotent.
  void Stop();

 private:
  HttpServer(Options options, HttpHandler handler);
  void AcceptLoop();
  void Serve(int fd, HttpPeer peer);

  const Options options_;
  const HttpHandler handler_;
  int tcp_fd_ = -1;
  int unix_fd_ = -1;
  int tcp_port_ = -1;
  int wake_[2] = {-1, -1};  // Stop writes, the accept loop wakes
  std::thread acceptor_;

  std::mutex mu_;
  std::condition_variable idle_;
  int connections_ = 0;   // guarded by mu_
  bool stopped_ = false;  // guarded by mu_
};

}  // namespace skiff::restd

#endif  // SKIFF_RESTD_HTTP_HTTP_SERVER_H_
