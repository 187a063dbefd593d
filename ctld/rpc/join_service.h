// ctld's join services (docs/decisions.md, "Init and join"): thin handlers
// over the Controller, as services.h's.
//   JoinService        on the join port (TLS, no munge): a node presents a token,
//                      or later its node key for the munge key (skiff key fetch).
//   JoinTokensService  on ctld's own port (munge): skiff token create / list,
//                      skiff key rotate's reload.
#ifndef SKIFF_CTLD_RPC_JOIN_SERVICE_H_
#define SKIFF_CTLD_RPC_JOIN_SERVICE_H_

#include <string>

#include "common/auth/authenticator.h"
#include "common/rpc/peer_address.h"
#include "ctld/controller.h"
#include "proto/join.grpc.pb.h"

namespace skiff::ctld {

class JoinService final : public v1::Join::Service {
 public:
  explicit JoinService(Controller& controller);
  grpc::Status Join(grpc::ServerContext* context, const v1::JoinRequest* request,
                    v1::JoinReply* reply) override;
  grpc::Status FetchMungeKey(grpc::ServerContext* context, const v1::FetchMungeKeyRequest* request,
                             v1::FetchMungeKeyReply* reply) override;

 private:
  Controller& controller_;
};

class JoinTokensService final : public v1::JoinTokens::Service {
 public:
  JoinTokensService(Controller& controller, Authenticator& auth);
  grpc::Status CreateJoinToken(grpc::ServerContext* context,
                               const v1::CreateJoinTokenRequest* request,
                               v1::CreateJoinTokenReply* reply) override;
  grpc::Status ListJoinTokens(grpc::ServerContext* context,
                              const v1::ListJoinTokensRequest* request,
                              v1::ListJoinTokensReply* reply) override;
  grpc::Status ReloadMungeKey(grpc::ServerContext* context,
                              const v1::ReloadMungeKeyRequest* request,
                              v1::ReloadMungeKeyReply* reply) override;

 private:
  Controller& controller_;
  Authenticator& auth_;
};

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_RPC_JOIN_SERVICE_H_
