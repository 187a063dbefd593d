#include "restd/http/http_message.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace skiff::restd {
namespace {

constexpr size_t kMaxTargetBytes = 8192;

bool IsToken(absl::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (absl::ascii_isalnum(static_cast<unsigned char>(c))) continue;
    if (absl::string_view("!#$%&'*+-.^_`|~").find(c) == absl::string_view::npos) return false;
  }
  return true;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::optional<std::string> PercentDecode(absl::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '%') {
      if (i + 2 >= text.size()) return std::nullopt;
      const int high = HexValue(text[i + 1]);
      const int low = HexValue(text[i + 2]);
      if (high < 0 || low < 0) return std::nullopt;
      out.push_back(static_cast<char>(high * 16 + low));
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string HttpRequest::Header(absl::string_view name) const {
  auto it = headers.find(absl::AsciiStrToLower(name));
  return it == headers.end() ? "" : it->second;
}

void HttpRequestParser::Fail(int status, std::string why) {
  if (error_status_ != 0) return;
  error_status_ = status;
  error_ = std::move(why);
}

void HttpRequestParser::ParseHead(absl::string_view head) {
  std::vector<absl::string_view> lines = absl::StrSplit(head, "\r\n");
  // Robustness (RFC 9112 2.2): empty lines before the request line are skipped.
  size_t first = 0;
  while (first < lines.size() && lines[first].empty()) ++first;
  if (first == lines.size()) return Fail(400, "empty request");
  const std::vector<absl::string_view> parts = absl::StrSplit(lines[first], ' ');
  if (parts.size() != 3 || !IsToken(parts[0]) || parts[1].empty()) {
    return Fail(400, "malformed request line");
  }
  if (parts[1].size() > kMaxTargetBytes) return Fail(414, "request target too long");
  if (parts[2] != "HTTP/1.1" && parts[2] != "HTTP/1.0") {
    return Fail(absl::StartsWith(parts[2], "HTTP/") ? 505 : 400, "unsupported HTTP version");
  }
  request_.method = std::string(parts[0]);
  request_.target = std::string(parts[1]);
  if (request_.target[0] != '/') return Fail(400, "request target must be a path");
  const size_t question = request_.target.find('?');
  std::optional<std::string> path =
      PercentDecode(absl::string_view(request_.target).substr(0, question), false);
  if (!path || path->find('\0') != std::string::npos) return Fail(400, "bad escape in path");
  request_.path = *path;
  if (question != std::string::npos) {
    for (absl::string_view pair : absl::StrSplit(
             absl::string_view(request_.target).substr(question + 1), '&', absl::SkipEmpty())) {
      const size_t equals = pair.find('=');
      std::optional<std::string> name = PercentDecode(pair.substr(0, equals), true);
      std::optional<std::string> value =
          PercentDecode(equals == absl::string_view::npos ? "" : pair.substr(equals + 1), true);
      if (!name || !value) return Fail(400, "bad escape in query");
      request_.query[*name] = *value;
    }
  }
  for (size_t i = first + 1; i < lines.size(); ++i) {
    const absl::string_view line = lines[i];
    if (line.empty()) continue;
    const size_t colon = line.find(':');
    // No obsolete line folding, no whitespace before the colon (RFC 9112 5).
    if (colon == absl::string_view::npos || !IsToken(line.substr(0, colon))) {
      return Fail(400, "malformed header line");
    }
    const std::string name = absl::AsciiStrToLower(line.substr(0, colon));
    const std::string value(absl::StripAsciiWhitespace(line.substr(colon + 1)));
    auto [it, inserted] = request_.headers.emplace(name, value);
    if (!inserted) {
      if (name == "content-length" && it->second != value) {
        return Fail(400, "conflicting Content-Length headers");
      }
      if (name != "content-length") absl::StrAppend(&it->second, ", ", value);
    }
  }
  if (request_.headers.count("transfer-encoding") != 0) {
    return Fail(501, "Transfer-Encoding is not supported; send Content-Length");
  }
  const std::string length = request_.Header("content-length");
  if (length.empty()) {
    body_length_ = 0;  // no body (RFC 9112 6.3: a request without a length has none)
    return;
  }
  uint64_t parsed = 0;
  if (length.find_first_not_of("0123456789") != std::string::npos ||
      !absl::SimpleAtoi(length, &parsed)) {
    return Fail(400, "bad Content-Length");
  }
  if (parsed > limits_.max_body_bytes) return Fail(413, "request body too large");
  body_length_ = static_cast<size_t>(parsed);
}

void HttpRequestParser::Feed(absl::string_view bytes) {
  if (done_ || Failed()) return;
  buffer_.append(bytes.data(), bytes.size());
  if (!head_done_) {
    const size_t end = buffer_.find("\r\n\r\n");
    if (end == std::string::npos) {
      if (buffer_.size() > limits_.max_head_bytes) Fail(431, "request headers too large");
      return;
    }
    if (end > limits_.max_head_bytes) return Fail(431, "request headers too large");
    ParseHead(absl::string_view(buffer_).substr(0, end));
    if (Failed()) return;
    head_done_ = true;
    buffer_.erase(0, end + 4);
  }
  if (buffer_.size() >= body_length_) {
    request_.body = buffer_.substr(0, body_length_);
    buffer_.clear();
    done_ = true;
  }
}

const char* HttpReason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 204:
      return "No Content";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 411:
      return "Length Required";
    case 413:
      return "Content Too Large";
    case 414:
      return "URI Too Long";
    case 415:
      return "Unsupported Media Type";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "Unknown";
  }
}

std::string FormatHttpHead(const HttpResponse& response) {
  std::string out =
      absl::StrCat("HTTP/1.1 ", response.status, " ", HttpReason(response.status),
                   "\r\nContent-Type: ", response.content_type,
                   "\r\nContent-Length: ", response.body.size(), "\r\nConnection: close\r\n");
  for (const auto& [name, value] : response.headers) {
    // A header value never ends the head early.
    if (value.find_first_of("\r\n") != std::string::npos) continue;
    absl::StrAppend(&out, name, ": ", value, "\r\n");
  }
  absl::StrAppend(&out, "\r\n");
  return out;
}

std::string FormatHttpResponse(const HttpResponse& response, bool head_request) {
  std::string out = FormatHttpHead(response);
  if (!head_request) out += response.body;
  return out;
}

}  // namespace skiff::restd
