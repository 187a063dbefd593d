// One unary gRPC call on a fresh HTTP/2 connection, as bytes: what a client
// sends and how it reads the answer. Pure (no I/O, no clock); unary_call.h
// moves the bytes.
//
// Why: a command makes one call to ctld and exits, and gRPC's client library
// spends more on that one call than the call itself (its initialisation, the
// threads it starts, its channel; issue 48's profile of sbatch). The wire
// protocol of one call is small: the connection preface, one SETTINGS frame,
// one HEADERS and one or a few DATA frames out; SETTINGS, HEADERS, DATA and
// trailers back (https://github.com/grpc/grpc/blob/master/doc/PROTOCOL-HTTP2.md).
// Servers are unchanged: they see an ordinary gRPC client.
//
// The client opens its receive windows to 2^31-1 in its first bytes, so it
// never needs to send WINDOW_UPDATE; it sends the whole request at once, so a
// request must fit in HTTP/2's initial window (EncodeUnaryRequest refuses a
// larger one, and the caller uses gRPC's library for it).
//
// Not thread-safe; one reader per call.
#ifndef SKIFF_COMMON_RPC_HTTP2_UNARY_EXCHANGE_H_
#define SKIFF_COMMON_RPC_HTTP2_UNARY_EXCHANGE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/rpc/http2/hpack.h"

namespace skiff::http2 {

struct UnaryRequest {
  std::string authority;   // "host:port", HTTP/2's :authority
  std::string path;        // "/package.Service/Method"
  HeaderList metadata;     // lower-case names, plain (not -bin) values
  std::string message;     // the serialized request
  int64_t timeout_ms = 0;  // grpc-timeout; 0: none
};

// The largest request message EncodeUnaryRequest sends: HTTP/2's initial
// flow-control window (65,535 bytes) less gRPC's 5-byte message prefix.
inline constexpr size_t kMaxUnaryRequestBytes = 65535 - 5;

// The connection preface, the client's SETTINGS and WINDOW_UPDATE, and the
// call's HEADERS and DATA frames. InvalidArgument where the request does not
// fit (its message beyond kMaxUnaryRequestBytes, its headers beyond one frame).
absl::StatusOr<std::string> EncodeUnaryRequest(const UnaryRequest& request);

struct UnaryOutcome {
  absl::Status status;  // the call's status (grpc-status, grpc-message)
  std::string reply;    // the serialized reply, when status is OK
  // The server said the call was never started (GOAWAY naming no stream of
  // ours, or REFUSED_STREAM): sending it again cannot run it twice.
  bool unprocessed = false;
};

class UnaryReplyReader {
 public:
  // A reply message beyond `max_reply_bytes` ends the call with
  // RESOURCE_EXHAUSTED, as gRPC's library does.
  explicit UnaryReplyReader(size_t max_reply_bytes) : max_reply_bytes_(max_reply_bytes) {}

  // Takes the next bytes read from the connection, in any pieces.
  void Feed(std::string_view bytes);
  // Whether the outcome is known (the call ended, or the connection broke
  // the protocol). Feed does nothing more after that.
  bool done() const { return done_; }
  const UnaryOutcome& outcome() const { return outcome_; }
  UnaryOutcome TakeOutcome() { return std::move(outcome_); }
  // Frames owed to the server (acknowledgements of its SETTINGS and PINGs),
  // to write before reading on; empties the queue.
  std::string TakeOutbound();

 private:
  void HandleFrame(uint8_t type, uint8_t flags, uint32_t stream, std::string_view payload);
  void HandleHeaderBlock(bool end_stream);
  void Fail(absl::Status status, bool unprocessed = false);

  size_t max_reply_bytes_;
  std::string input_;  // bytes not yet parsed into frames
  std::string outbound_;
  HpackDecoder decoder_;
  std::string header_block_;        // a block awaiting its CONTINUATION frames
  bool header_block_open_ = false;  // HEADERS seen, END_HEADERS not yet
  bool header_block_ends_stream_ = false;
  bool have_response_headers_ = false;
  int http_status_ = 0;
  std::string data_;  // the stream's DATA payloads: gRPC's prefixed message
  bool done_ = false;
  UnaryOutcome outcome_;
};

// Percent-decodes a grpc-message value (gRPC encodes bytes outside
// printable ASCII, and '%', as %XX). Invalid escapes are kept as they are.
std::string DecodeGrpcMessage(std::string_view value);

}  // namespace skiff::http2

#endif  // SKIFF_COMMON_RPC_HTTP2_UNARY_EXCHANGE_H_
