#include "ctld/standby_server.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/rpc/auth_metadata.h"
#include "common/rpc/standby.h"
#include "common/version.h"
#include "proto/ctld.pb.h"

namespace skiff::ctld {
namespace {

constexpr char kPingMethod[] = "/skiff.v1.Ctld/Ping";

// One call: Ping's answer, or the standby's refusal.
class StandbyCall final : public grpc::ServerGenericBidiReactor {
 public:
  StandbyCall(grpc::GenericCallbackServerContext* context, const StandbyServer::Settings& settings,
              Authenticator& auth, const std::function<std::string()>& serving)
      : context_(context), settings_(settings), auth_(auth), serving_(serving) {
    if (context_->method() == kPingMethod) {
      StartRead(&request_);
      return;
    }
    const std::string leader = serving_();
    Finish(grpc::Status(grpc::StatusCode::UNAVAILABLE,
                        absl::StrCat(kStandbyAnswer, settings_.id, " stands by; ",
                                     leader.empty() ? "no controller" : leader, " serves")));
  }

  void OnReadDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "no request"));
      return;
    }
    const auto& metadata = context_->client_metadata();
    auto it = metadata.find(kCredentialMetadataKey);
    absl::StatusOr<Identity> caller =
        it == metadata.end()
            ? absl::StatusOr<Identity>(
                  absl::UnauthenticatedError("request carries no munge credential"))
            : auth_.VerifyCredential(std::string(it->second.data(), it->second.size()));
    if (!caller.ok()) {
      Finish(
          grpc::Status(grpc::StatusCode::UNAUTHENTICATED, std::string(caller.status().message())));
      return;
    }
    v1::PingReply reply;
    reply.set_cluster_name(settings_.cluster_name);
    reply.set_version(kSkiffVersion);
    reply.set_start_time(settings_.start_time);
    reply.set_caller_uid(caller->uid);
    reply.set_caller_gid(caller->gid);
    reply.set_standby(true);
    reply.set_serving(serving_());
    const std::string bytes = reply.SerializeAsString();
    grpc::Slice slice(bytes);
    reply_ = grpc::ByteBuffer(&slice, 1);
    StartWriteAndFinish(&reply_, grpc::WriteOptions(), grpc::Status::OK);
  }

  void OnDone() override { delete this; }

 private:
  grpc::GenericCallbackServerContext* const context_;
  const StandbyServer::Settings& settings_;
  Authenticator& auth_;
  const std::function<std::string()>& serving_;
  grpc::ByteBuffer request_;
  grpc::ByteBuffer reply_;
};

}  // namespace

class StandbyServer::Service final : public grpc::CallbackGenericService {
 public:
  Service(Settings settings, Authenticator& auth, std::function<std::string()> serving)
      : settings_(std::move(settings)), auth_(auth), serving_(std::move(serving)) {}

  grpc::ServerGenericBidiReactor* CreateReactor(
      grpc::GenericCallbackServerContext* context) override {
    return new StandbyCall(context, settings_, auth_, serving_);
  }

 private:
  const Settings settings_;
  Authenticator& auth_;
  const std::function<std::string()> serving_;
};

absl::StatusOr<std::unique_ptr<StandbyServer>> StandbyServer::Start(
    const Settings& settings, Authenticator& auth, std::function<std::string()> serving) {
  std::unique_ptr<StandbyServer> server(new StandbyServer());
  server->service_ = std::make_unique<Service>(settings, auth, std::move(serving));
  const std::string listen = absl::StrCat(settings.host, ":", settings.port);
  grpc::ServerBuilder builder;
  int bound_port = 0;
  builder.AddListeningPort(listen, grpc::InsecureServerCredentials(), &bound_port);
  builder.SetMaxReceiveMessageSize(64 << 10);
  builder.RegisterCallbackGenericService(server->service_.get());
  server->server_ = builder.BuildAndStart();
  if (server->server_ == nullptr || bound_port == 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", listen, " (SlurmctldHost/SlurmctldPort)"));
  }
  return server;
}

StandbyServer::~StandbyServer() { Stop(); }

void StandbyServer::Stop() {
  if (server_ == nullptr) return;
  server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  server_->Wait();
  server_.reset();
}

}  // namespace skiff::ctld
