// ctld's calls to scriptd. ScriptRunner is the interface (tests fake it);
// ScriptdClient is the real one over scriptd's Unix socket.
//
// A script in flight when scriptd dies is not dropped: RunScript waits for
// scriptd to come back (ctld's main restarts it) and runs the script again, up to
// `retry_window` seconds, then reports Unavailable, which the Controller records
// as a failed script. Thread-safe; RunScript blocks until the script ends.
#ifndef SKIFF_CTLD_CLIENTS_SCRIPTD_CLIENT_H_
#define SKIFF_CTLD_CLIENTS_SCRIPTD_CLIENT_H_

#include <atomic>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "proto/scriptd.grpc.pb.h"

namespace skiff {

class ScriptRunner {
 public:
  virtual ~ScriptRunner() = default;
  virtual absl::StatusOr<v1::RunScriptReply> RunScript(const v1::RunScriptRequest& request) = 0;
  virtual void KillScript(const std::string& request_id) = 0;
};

class ScriptdClient final : public ScriptRunner {
 public:
  ScriptdClient(const std::string& socket_path, int retry_window_seconds);

  absl::StatusOr<v1::RunScriptReply> RunScript(const v1::RunScriptRequest& request) override;
  void KillScript(const std::string& request_id) override;

  // ctld is shutting down: stop waiting for a new scriptd.
  void Stop() { stopping_ = true; }

 private:
  std::unique_ptr<v1::Scriptd::Stub> stub_;
  const int retry_window_seconds_;
  std::atomic<bool> stopping_{false};
};

}  // namespace skiff

#endif  // SKIFF_CTLD_CLIENTS_SCRIPTD_CLIENT_H_
