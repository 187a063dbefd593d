// ctld's calls to scriptd over its Unix socket: the real ScriptdPort
// (scriptd_port.h).
//
// A script or Lua call in flight when scriptd dies is not dropped: RunScript and
// RunLua wait for scriptd to come back (ctld's main restarts it) and issue the
// request again; after `retry_window` seconds without scriptd (counted from the
// failure; also the longest wait for scriptd before a first attempt) they report
// Unavailable, which the Controller records as a failed script or stage. A request that KillScript
// or FlushJob cancelled meanwhile is not issued again: it answers killed=true. Thread-safe;
// RunScript and RunLua block until the child ends.
#ifndef SKIFF_CTLD_CLIENTS_SCRIPTD_CLIENT_H_
#define SKIFF_CTLD_CLIENTS_SCRIPTD_CLIENT_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "ctld/clients/scriptd_port.h"
#include "proto/scriptd.grpc.pb.h"

namespace skiff::ctld {

class ScriptdClient final : public ScriptdPort {
 public:
  ScriptdClient(const std::string& socket_path, int retry_window_seconds);

  absl::StatusOr<ScriptEnd> RunScript(const ScriptCall& call) override;
  void KillScript(const std::string& request_id) override;
  absl::StatusOr<LuaEnd> RunLua(const LuaCall& call) override;
  // The job's requests in flight here are not issued again even when this fails
  // (Unavailable: scriptd is down, and its children died with it).
  absl::StatusOr<int> FlushJob(uint64_t job_id) override;

  // ctld is shutting down: stop waiting for a new scriptd.
  void Stop() { stopping_ = true; }

 private:
  struct InFlight {
    std::string request_id;
    uint64_t job_id = 0;
    bool cancelled = false;  // by KillScript or FlushJob: do not issue again
  };

  // Issues `call` until it answers, again while scriptd is Unavailable (within the
  // retry window). Cancelled when KillScript/FlushJob cancelled the request while
  // no attempt was running (the callers answer killed=true).
  absl::Status Issue(const std::string& request_id, uint64_t job_id, int64_t timeout_seconds,
                     const std::function<grpc::Status(grpc::ClientContext*)>& call);

  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::Scriptd::Stub> stub_;
  const int retry_window_seconds_;
  std::atomic<bool> stopping_{false};

  absl::Mutex mu_;
  uint64_t next_token_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<uint64_t, InFlight> in_flight_ ABSL_GUARDED_BY(mu_);
};

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CLIENTS_SCRIPTD_CLIENT_H_
