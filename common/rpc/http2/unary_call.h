// One unary gRPC call over its own TCP connection, without gRPC's client
// library (unary_exchange.h says why): connect, write the request, read until
// the call ends, close. Blocking, on the caller's thread; no threads, no
// signals (writes use MSG_NOSIGNAL). Thread-safe: calls share nothing.
#ifndef SKIFF_COMMON_RPC_HTTP2_UNARY_CALL_H_
#define SKIFF_COMMON_RPC_HTTP2_UNARY_CALL_H_

#include <chrono>
#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "common/rpc/http2/unary_exchange.h"

namespace skiff::http2 {

struct UnaryCallResult {
  absl::Status status;
  std::string reply;  // the serialized reply, when status is OK
  // Nothing of the call reached a server that could have acted on it (no
  // connection, a request too large for this path, or a server that refused
  // the call before starting it): the caller may send it another way.
  bool never_sent = false;
};

// False when $SKIFF_DIRECT_CALLS is "0": the caller then sends its calls
// through gRPC's channel (to compare the two, or to rule this path out).
bool DirectCallsAllowed();

// `target` is "host:port" or "[v6-address]:port"; every address it resolves
// to is tried in turn, each for at most `connect_timeout`. `timeout` bounds
// the whole call (it also travels as grpc-timeout).
UnaryCallResult CallUnary(const std::string& target, UnaryRequest request,
                          std::chrono::milliseconds connect_timeout,
                          std::chrono::milliseconds timeout, size_t max_reply_bytes);

}  // namespace skiff::http2

#endif  // SKIFF_COMMON_RPC_HTTP2_UNARY_CALL_H_
