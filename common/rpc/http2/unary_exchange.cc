#include "common/rpc/http2/unary_exchange.h"

#include <algorithm>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace skiff::http2 {
namespace {

// RFC 7540 6 and 11.2.
enum FrameType : uint8_t {
  kData = 0x0,
  kHeaders = 0x1,
  kRstStream = 0x3,
  kSettings = 0x4,
  kPushPromise = 0x5,
  kPing = 0x6,
  kGoAway = 0x7,
  kContinuation = 0x9,
  kWindowUpdate = 0x8,
};
constexpr uint8_t kEndStream = 0x1;
constexpr uint8_t kAck = 0x1;
constexpr uint8_t kEndHeaders = 0x4;
constexpr uint8_t kPadded = 0x8;
constexpr uint8_t kPriority = 0x20;
constexpr uint32_t kStream = 1;  // the call's stream: a client's first
constexpr size_t kFrameHeaderBytes = 9;
constexpr size_t kMaxFrameBytes = 16384;  // SETTINGS_MAX_FRAME_SIZE, both ways: nobody raised it
constexpr uint32_t kMaxWindow = 0x7fffffff;
constexpr uint32_t kInitialWindow = 65535;
constexpr uint32_t kRefusedStream = 0x7;
constexpr char kPreface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

void AppendFrameHeader(size_t length, uint8_t type, uint8_t flags, uint32_t stream,
                       std::string* out) {
  const char header[kFrameHeaderBytes] = {
      static_cast<char>(length >> 16), static_cast<char>(length >> 8),
      static_cast<char>(length),       static_cast<char>(type),
      static_cast<char>(flags),        static_cast<char>(stream >> 24),
      static_cast<char>(stream >> 16), static_cast<char>(stream >> 8),
      static_cast<char>(stream)};
  out->append(header, kFrameHeaderBytes);
}

void AppendUint32(uint32_t value, std::string* out) {
  out->push_back(static_cast<char>(value >> 24));
  out->push_back(static_cast<char>(value >> 16));
  out->push_back(static_cast<char>(value >> 8));
  out->push_back(static_cast<char>(value));
}

uint32_t ReadUint32(std::string_view bytes) {
  return (static_cast<uint32_t>(static_cast<uint8_t>(bytes[0])) << 24) |
         (static_cast<uint32_t>(static_cast<uint8_t>(bytes[1])) << 16) |
         (static_cast<uint32_t>(static_cast<uint8_t>(bytes[2])) << 8) |
         static_cast<uint32_t>(static_cast<uint8_t>(bytes[3]));
}

// grpc-timeout: at most 8 digits and a unit.
std::string GrpcTimeout(int64_t ms) {
  if (ms <= 99999999) return absl::StrCat(ms, "m");
  return absl::StrCat(std::min<int64_t>(ms / 1000, 99999999), "S");
}

// gRPC's mapping of an HTTP status without grpc-status (PROTOCOL-HTTP2.md).
absl::StatusCode CodeForHttpStatus(int http_status) {
  switch (http_status) {
    case 400:
      return absl::StatusCode::kInternal;
    case 401:
      return absl::StatusCode::kUnauthenticated;
    case 403:
      return absl::StatusCode::kPermissionDenied;
    case 404:
      return absl::StatusCode::kUnimplemented;
    case 429:
    case 502:
    case 503:
    case 504:
      return absl::StatusCode::kUnavailable;
    default:
      return absl::StatusCode::kUnknown;
  }
}

const std::string* Find(const HeaderList& headers, std::string_view name) {
  for (const auto& [key, value] : headers) {
    if (key == name) return &value;
  }
  return nullptr;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

absl::StatusOr<std::string> EncodeUnaryRequest(const UnaryRequest& request) {
  if (request.message.size() > kMaxUnaryRequestBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("request of ", request.message.size(), " bytes is beyond one window"));
  }
  std::string block;
  AppendIndexedHeader(3, &block);  // :method: POST
  AppendIndexedHeader(6, &block);  // :scheme: http
  AppendLiteralHeaderIndexedName(4, request.path, &block);
  AppendLiteralHeaderIndexedName(1, request.authority, &block);
  AppendLiteralHeaderIndexedName(31, "application/grpc", &block);  // content-type
  AppendLiteralHeader("te", "trailers", &block);
  if (request.timeout_ms > 0) {
    AppendLiteralHeader("grpc-timeout", GrpcTimeout(request.timeout_ms), &block);
  }
  for (const auto& [name, value] : request.metadata) AppendLiteralHeader(name, value, &block);
  if (block.size() > kMaxFrameBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("request headers of ", block.size(), " bytes are beyond one frame"));
  }

  std::string out(kPreface, sizeof(kPreface) - 1);
  // SETTINGS: no server push; a stream window as large as HTTP/2 allows.
  AppendFrameHeader(12, kSettings, 0, 0, &out);
  out.append({0x00, 0x02});
  AppendUint32(0, &out);
  out.append({0x00, 0x04});
  AppendUint32(kMaxWindow, &out);
  // The connection's window likewise (SETTINGS cannot change it).
  AppendFrameHeader(4, kWindowUpdate, 0, 0, &out);
  AppendUint32(kMaxWindow - kInitialWindow, &out);

  AppendFrameHeader(block.size(), kHeaders, kEndHeaders, kStream, &out);
  out.append(block);

  std::string body;
  body.reserve(5 + request.message.size());
  body.push_back(0);  // not compressed
  AppendUint32(static_cast<uint32_t>(request.message.size()), &body);
  body.append(request.message);
  for (size_t at = 0; at < body.size(); at += kMaxFrameBytes) {
    const size_t length = std::min(kMaxFrameBytes, body.size() - at);
    const bool last = at + length == body.size();
    AppendFrameHeader(length, kData, last ? kEndStream : 0, kStream, &out);
    out.append(body, at, length);
  }
  return out;
}

void UnaryReplyReader::Feed(std::string_view bytes) {
  if (done_) return;
  input_.append(bytes);
  size_t at = 0;
  while (!done_ && input_.size() - at >= kFrameHeaderBytes) {
    const std::string_view header(input_.data() + at, kFrameHeaderBytes);
    const size_t length = (static_cast<size_t>(static_cast<uint8_t>(header[0])) << 16) |
                          (static_cast<size_t>(static_cast<uint8_t>(header[1])) << 8) |
                          static_cast<uint8_t>(header[2]);
    if (length > kMaxFrameBytes) {
      Fail(absl::InternalError(absl::StrCat("HTTP/2 frame of ", length, " bytes")));
      break;
    }
    if (input_.size() - at < kFrameHeaderBytes + length) break;
    const uint8_t type = static_cast<uint8_t>(header[3]);
    const uint8_t flags = static_cast<uint8_t>(header[4]);
    const uint32_t stream = ReadUint32(header.substr(5)) & 0x7fffffff;
    HandleFrame(type, flags, stream,
                std::string_view(input_.data() + at + kFrameHeaderBytes, length));
    at += kFrameHeaderBytes + length;
  }
  input_.erase(0, at);
}

std::string UnaryReplyReader::TakeOutbound() { return std::exchange(outbound_, {}); }

void UnaryReplyReader::HandleFrame(uint8_t type, uint8_t flags, uint32_t stream,
                                   std::string_view payload) {
  if (header_block_open_ && type != kContinuation) {
    return Fail(absl::InternalError("HTTP/2 header block interrupted"));
  }
  switch (type) {
    case kSettings:
      if (stream != 0 || payload.size() % 6 != 0) {
        return Fail(absl::InternalError("malformed HTTP/2 SETTINGS"));
      }
      // Nothing the server may set changes what this client does (it sends no
      // more data, and encodes no header it could index); it must be acknowledged.
      if ((flags & kAck) == 0) AppendFrameHeader(0, kSettings, kAck, 0, &outbound_);
      return;
    case kPing:
      if (stream != 0 || payload.size() != 8)
        return Fail(absl::InternalError("malformed HTTP/2 PING"));
      if ((flags & kAck) == 0) {
        AppendFrameHeader(8, kPing, kAck, 0, &outbound_);
        outbound_.append(payload);
      }
      return;
    case kGoAway: {
      if (payload.size() < 8) return Fail(absl::InternalError("malformed HTTP/2 GOAWAY"));
      const uint32_t last_stream = ReadUint32(payload) & 0x7fffffff;
      // A server going away still finishes the streams up to last_stream.
      if (last_stream < kStream) {
        return Fail(absl::UnavailableError("the server closed the connection before the call"),
                    /*unprocessed=*/true);
      }
      return;
    }
    case kRstStream: {
      if (stream != kStream) return;
      if (payload.size() != 4) return Fail(absl::InternalError("malformed HTTP/2 RST_STREAM"));
      const uint32_t code = ReadUint32(payload);
      return Fail(absl::UnavailableError(
                      absl::StrCat("the server reset the call (HTTP/2 error ", code, ")")),
                  code == kRefusedStream);
    }
    case kHeaders: {
      if (stream != kStream)
        return Fail(absl::InternalError("HTTP/2 HEADERS on an unknown stream"));
      size_t skip = 0;
      size_t pad = 0;
      if (flags & kPadded) {
        if (payload.empty()) return Fail(absl::InternalError("malformed HTTP/2 HEADERS"));
        pad = static_cast<uint8_t>(payload[0]);
        skip = 1;
      }
      if (flags & kPriority) skip += 5;
      if (skip + pad > payload.size()) return Fail(absl::InternalError("malformed HTTP/2 HEADERS"));
      header_block_.assign(payload.substr(skip, payload.size() - skip - pad));
      header_block_ends_stream_ = (flags & kEndStream) != 0;
      header_block_open_ = (flags & kEndHeaders) == 0;
      if (!header_block_open_) HandleHeaderBlock(header_block_ends_stream_);
      return;
    }
    case kContinuation:
      if (!header_block_open_ || stream != kStream) {
        return Fail(absl::InternalError("HTTP/2 CONTINUATION out of place"));
      }
      header_block_.append(payload);
      header_block_open_ = (flags & kEndHeaders) == 0;
      if (!header_block_open_) HandleHeaderBlock(header_block_ends_stream_);
      return;
    case kData: {
      if (stream != kStream || !have_response_headers_) {
        return Fail(absl::InternalError("HTTP/2 DATA out of place"));
      }
      size_t skip = 0;
      size_t pad = 0;
      if (flags & kPadded) {
        if (payload.empty()) return Fail(absl::InternalError("malformed HTTP/2 DATA"));
        pad = static_cast<uint8_t>(payload[0]);
        skip = 1;
      }
      if (skip + pad > payload.size()) return Fail(absl::InternalError("malformed HTTP/2 DATA"));
      if (data_.size() + payload.size() > max_reply_bytes_ + 5) {
        return Fail(absl::ResourceExhaustedError(absl::StrCat("Received message larger than max (",
                                                              data_.size() + payload.size() - 5,
                                                              " vs. ", max_reply_bytes_, ")")));
      }
      data_.append(payload.substr(skip, payload.size() - skip - pad));
      if (flags & kEndStream) {
        return Fail(absl::InternalError("the server ended the call without a status"));
      }
      return;
    }
    case kPushPromise:
      return Fail(absl::InternalError("HTTP/2 PUSH_PROMISE, though push is off"));
    default:  // WINDOW_UPDATE, PRIORITY, and types this side does not know
      return;
  }
}

void UnaryReplyReader::HandleHeaderBlock(bool end_stream) {
  absl::StatusOr<HeaderList> headers = decoder_.Decode(header_block_);
  header_block_.clear();
  if (!headers.ok()) return Fail(headers.status());
  if (!have_response_headers_) {
    have_response_headers_ = true;
    const std::string* status = Find(*headers, ":status");
    if (status == nullptr || !absl::SimpleAtoi(*status, &http_status_)) {
      return Fail(absl::InternalError("HTTP/2 response without :status"));
    }
  } else if (!end_stream) {
    return Fail(absl::InternalError("HTTP/2 trailers that do not end the call"));
  }
  if (!end_stream) return;

  done_ = true;
  const std::string* grpc_status = Find(*headers, "grpc-status");
  int code = 0;
  if (grpc_status == nullptr || !absl::SimpleAtoi(*grpc_status, &code) || code < 0 || code > 16) {
    outcome_.status = absl::Status(
        http_status_ == 200 ? absl::StatusCode::kUnknown : CodeForHttpStatus(http_status_),
        absl::StrCat("the server's answer has no grpc-status (HTTP status ", http_status_, ")"));
    return;
  }
  if (code != 0) {
    const std::string* message = Find(*headers, "grpc-message");
    outcome_.status = absl::Status(static_cast<absl::StatusCode>(code),
                                   message == nullptr ? "" : DecodeGrpcMessage(*message));
    return;
  }
  // OK: exactly one uncompressed message.
  if (data_.size() < 5 || data_[0] != 0 ||
      ReadUint32(std::string_view(data_).substr(1)) != data_.size() - 5) {
    outcome_.status = absl::InternalError("the server's reply is not one uncompressed message");
    return;
  }
  outcome_.status = absl::OkStatus();
  data_.erase(0, 5);
  outcome_.reply = std::move(data_);
}

void UnaryReplyReader::Fail(absl::Status status, bool unprocessed) {
  done_ = true;
  outcome_.status = std::move(status);
  outcome_.unprocessed = unprocessed;
}

std::string DecodeGrpcMessage(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (size_t i = 0; i < value.size(); ++i) {
    if (value[i] == '%' && i + 2 < value.size()) {
      const int high = HexDigit(value[i + 1]);
      const int low = HexDigit(value[i + 2]);
      if (high >= 0 && low >= 0) {
        out.push_back(static_cast<char>(high * 16 + low));
        i += 2;
        continue;
      }
    }
    out.push_back(value[i]);
  }
  return out;
}

}  // namespace skiff::http2
