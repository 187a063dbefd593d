// The node daemon's link to ctld: registers, then heartbeats; registers again
// whenever ctld says it does not know the node (a restarted ctld) or cannot be
// reached. Owns one thread; Stop() joins it.
#ifndef SKIFF_NODED_NODE_AGENT_H_
#define SKIFF_NODED_NODE_AGENT_H_

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "common/auth/authenticator.h"
#include "proto/ctld.grpc.pb.h"
#include "spdlog/spdlog.h"

namespace skiff {

class NodeAgent {
 public:
  // `registration` is sent as is on every (re)registration. `auth` and `logger`
  // must outlive the agent.
  NodeAgent(std::string ctld_target, v1::RegisterRequest registration, Authenticator& auth,
            spdlog::logger& logger);
  ~NodeAgent();

  void Start();
  void Stop();

 private:
  void Loop();
  bool Register();
  bool Heartbeat();  // false: register again
  // Sleeps up to `seconds`; returns false when stopping.
  bool Sleep(double seconds);

  const std::string ctld_target_;
  const v1::RegisterRequest registration_;
  Authenticator& auth_;
  spdlog::logger& logger_;
  std::unique_ptr<v1::NodeService::Stub> stub_;
  int64_t heartbeat_interval_ = 30;

  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace skiff

#endif  // SKIFF_NODED_NODE_AGENT_H_
