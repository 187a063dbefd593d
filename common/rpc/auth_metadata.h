// gRPC glue for authentication: the credential travels in one metadata entry.
//
// Clients call AttachCredential on each ClientContext; servers call
// AuthenticateCall first thing in every handler and use only the returned identity.
#ifndef SKIFF_COMMON_RPC_AUTH_METADATA_H_
#define SKIFF_COMMON_RPC_AUTH_METADATA_H_

#include <grpcpp/grpcpp.h>

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/auth/authenticator.h"

namespace skiff {

inline constexpr char kCredentialMetadataKey[] = "x-skiff-munge";

// Creates a fresh credential and adds it to `context`.
absl::Status AttachCredential(Authenticator& auth, grpc::ClientContext* context);

// Verifies the credential in `context`'s client metadata. A refusal is also
// reported to the sink set with SetLoginFailureSink, with the peer's address,
// at most once per peer every 10 s (LoginFailureLog).
absl::StatusOr<Identity> AuthenticateCall(Authenticator& auth, const grpc::ServerContext& context);

// Called with the gRPC peer name and the caller's uid of every call whose
// credential was valid, and used to name a refused call's peer in the log
// (GuardedListener sets both; they may be empty). Set before serving.
void SetAuthenticatedHook(std::function<void(const std::string& peer, uid_t uid)> hook);
void SetPeerDescriber(std::function<std::string(const std::string& peer)> describe);

// Called with the call's context and the caller's uid of every call whose
// credential was valid (ctld's RPC statistics, ctld/rpc/rpc_stats.h). Set
// before serving; may be empty.
void SetCallerHook(std::function<void(const grpc::ServerContext& context, uid_t uid)> hook);

// Where a daemon logs refused requests ("refused a request from 127.0.0.1:
// invalid munge credential ..."). Set once at start, before serving.
void SetLoginFailureSink(std::function<void(const std::string& line)> sink);

}  // namespace skiff

#endif  // SKIFF_COMMON_RPC_AUTH_METADATA_H_
