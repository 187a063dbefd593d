// HTTP/1.1 for restd (issue 36), the pure part: a request read incrementally
// from a connection's bytes, with the limits a daemon facing users needs, and
// a response written back. restd answers one request per connection
// ("Connection: close"), as slurmrestd's clients (curl, Slurm-web, Open
// OnDemand) are content with; keep-alive can come later without changing
// the parser.
//
// Pure; thread-compatible (one parser per connection).
#ifndef SKIFF_RESTD_HTTP_HTTP_MESSAGE_H_
#define SKIFF_RESTD_HTTP_HTTP_MESSAGE_H_

#include <cstddef>
#include <map>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace skiff::restd {

struct HttpRequest {
  std::string method;                          // "GET", "POST", "DELETE", ... as sent (case kept)
  std::string target;                          // as sent: "/slurm/v0.0.42/job/42?flags=DETAIL"
  std::string path;                            // the target without its query, %-decoded
  std::map<std::string, std::string> query;    // decoded; the last of a repeated name wins
  std::map<std::string, std::string> headers;  // names in lower case; repeats joined with ", "
  std::string body;

  // The header's value, or "" when absent (`name` in any case).
  std::string Header(absl::string_view name) const;
};

struct HttpLimits {
  size_t max_head_bytes = 64 * 1024;  // request line and headers
  // A job submission with its script. Read only once the head passed the
  // server's head check (authentication): see HttpServer.
  size_t max_body_bytes = 16 * 1024 * 1024;
};

// Feeds a connection's bytes in as they come. Done() once a whole request is
// in; Failed() with the status code to answer (400, 411, 413, 414, 431, 501,
// 505) and why, for bad input. Bytes after the request are ignored.
class HttpRequestParser {
 public:
  explicit HttpRequestParser(HttpLimits limits = {}) : limits_(limits) {}

  void Feed(absl::string_view bytes);
  // The request line and headers are in (and good): request() holds them,
  // without the body yet, so that the server can refuse the request before
  // reading a body (HttpServer's head check).
  bool HeadDone() const { return head_done_; }
  // REQUIRES: HeadDone(). The length of the body still to come or in.
  size_t body_length() const { return body_length_; }
  bool Done() const { return done_; }
  bool Failed() const { return error_status_ != 0; }
  int error_status() const { return error_status_; }
  const std::string& error() const { return error_; }
  // REQUIRES: Done(), or HeadDone() for the head alone (an empty body).
  const HttpRequest& request() const { return request_; }

 private:
  void Fail(int status, std::string why);
  void ParseHead(absl::string_view head);

  HttpLimits limits_;
  std::string buffer_;
  bool head_done_ = false;
  size_t body_length_ = 0;
  bool done_ = false;
  int error_status_ = 0;
  std::string error_;
  HttpRequest request_;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::map<std::string, std::string> headers;  // extra ones, e.g. "WWW-Authenticate"
  std::string body;
};

// The bytes of `response` (status line, Content-Type, Content-Length,
// Connection: close, the extra headers, the body). A HEAD request's answer
// carries the length but not the body.
std::string FormatHttpResponse(const HttpResponse& response, bool head_request = false);
// Its status line and headers alone, up to the blank line: the server sends
// a large body after it without copying it.
std::string FormatHttpHead(const HttpResponse& response);

// The reason phrase of a status code ("Not Found"); "Unknown" for others.
const char* HttpReason(int status);

// %XX and (in queries) '+' decoded; nullopt for a broken escape.
std::optional<std::string> PercentDecode(absl::string_view text, bool plus_is_space);

}  // namespace skiff::restd

#endif  // SKIFF_RESTD_HTTP_HTTP_MESSAGE_H_
