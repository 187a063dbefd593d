// What a standby ctld serves on SlurmctldPort while it follows the serving
// controller through etcd (issue 53): Ping, so that `scontrol ping` finds it
// UP and says it stands by, and for every other call UNAVAILABLE with a
// standby's answer (common/rpc/standby.h), on which the commands and nodes
// try the next controller at once. Nothing else of the controller runs yet.
//
// Threads: gRPC's callback threads answer; Start and Stop are the owner's.
#ifndef SKIFF_CTLD_STANDBY_SERVER_H_
#define SKIFF_CTLD_STANDBY_SERVER_H_

#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/auth/authenticator.h"

namespace skiff::ctld {

class StandbyServer {
 public:
  struct Settings {
    std::string host;  // where this controller serves (its SlurmctldHost address)
    int port = 0;
    std::string cluster_name;
    std::string id;  // this controller's SlurmctldHost name
    int64_t start_time = 0;
  };
  // `serving`: the controller that serves now, as last seen ("" not known).
  static absl::StatusOr<std::unique_ptr<StandbyServer>> Start(const Settings& settings,
                                                              Authenticator& auth,
                                                              std::function<std::string()> serving);
  ~StandbyServer();
  // Stops answering and frees the port, for the controller's own servers.
  void Stop();

 private:
  class Service;
  StandbyServer() = default;
  std::unique_ptr<Service> service_;
  std::unique_ptr<grpc::Server> server_;
};

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_STANDBY_SERVER_H_
