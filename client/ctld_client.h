// The CLIs' connection to ctld: finds it through skiff.conf, attaches a fresh
// munge credential to every call, makes the call directly or through gRPC's
// channel (CtldCalls), and turns transport failures into the messages a Slurm
// user expects ("Unable to contact slurm controller (connect failure)").
// One per CLI process; Call and CallAs may be called from several threads.
#ifndef SKIFF_CLIENT_CTLD_CLIENT_H_
#define SKIFF_CLIENT_CTLD_CLIENT_H_

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/auth/authenticator.h"
#include "common/config/config_loader.h"
#include "common/rpc/auth_metadata.h"
#include "common/rpc/status.h"
#include "google/protobuf/message_lite.h"
#include "proto/ctld.grpc.pb.h"
#include "proto/ctld_method_paths.h"

namespace skiff::client {

// The commands' configuration: `conf_path` if given, else $SKIFF_CONF, else
// /etc/skiff/skiff.conf when it exists. Otherwise (a login host with no config)
// fetched from ctld (configless): from the first controller that serves of
// $SKIFF_CONF_SERVER=host[:port][,host[:port]...] (Slurm's SLURM_CONF_SERVER),
// else of the targets of the DNS SRV records _skiffctld._tcp, lowest priority
// first, with munge's socket from $SKIFF_MUNGE_SOCKET or munge's default. A
// standby is passed over (FetchConfigFromControllers). Nothing is written to
// disk.
absl::StatusOr<LoadedConfig> LoadClientConfig(const std::string& conf_path);

// How Call reaches ctld. A command makes one or two calls and exits: each
// call on a connection of its own, spoken directly (common/rpc/http2), costs
// it far less than starting gRPC's client library. A daemon (restd) calls
// all day from many threads: one gRPC channel for all its calls.
enum class CtldCalls {
  kDirect,   // Call speaks HTTP/2 itself; gRPC's channel only where it cannot
  kChannel,  // every call through the gRPC channel
};

class CtldClient {
 public:
  // Loads the configuration (LoadClientConfig). $SKIFF_DIRECT_CALLS=0 turns
  // kDirect into kChannel (to compare the two, or to rule the direct path out).
  static absl::StatusOr<std::unique_ptr<CtldClient>> Connect(const std::string& conf_path,
                                                             CtldCalls calls = CtldCalls::kDirect);

  const LoadedConfig& config() const { return config_; }
  // The controller that answered last (the first SlurmctldHost before any call).
  const std::string& target() const { return targets_[serving_]; }
  size_t controller_count() const { return targets_.size(); }
  // Ping of controller `i` (in SlurmctldHost order) alone: scontrol ping asks
  // each. A standby answers too, its reply saying so.
  absl::Status PingController(size_t i, v1::PingReply* reply);
  // For calls to other daemons (a job's step manager).
  Authenticator& auth() { return *auth_; }

  // Calls stub method `method` with a credential and a deadline of
  // MessageTimeout. Direct (CtldCalls) when ctld answers the connection at
  // once; where it does not (restarting, say) or the request is too large to
  // send at once, through gRPC's channel, which waits for ctld until the
  // deadline. Nothing is sent twice: the channel is tried only when no byte
  // of the direct call reached ctld, or ctld refused it before starting it.
  //
  // With several SlurmctldHost lines (a standby over etcd, issue 53) each
  // controller is tried in turn, the one that answered last first, and a
  // controller that refuses the connection or stands by is passed over at
  // once; rounds repeat until MessageTimeout, so a command made during a
  // takeover waits for the new controller rather than failing.
  template <typename Request, typename Reply>
  absl::Status Call(grpc::Status (v1::Ctld::Stub::*method)(grpc::ClientContext*, const Request&,
                                                           Reply*),
                    const Request& request, Reply* reply) {
    if (calls_ == CtldCalls::kDirect) {
      const char* path = v1::CtldMethodPathFor(Request::default_instance().GetTypeName(),
                                               Reply::default_instance().GetTypeName());
      if (path != nullptr && targets_.size() > 1 && FitsDirectCall(request)) {
        return CallControllers(path, request, reply);
      }
      if (path != nullptr) {
        if (std::optional<absl::Status> done = CallDirect(0, path, request, reply)) return *done;
      }
    }
    return CallAs(*auth_, method, request, reply);
  }
  // The same with `as`'s credential: restd calls for each request's user
  // (their token) over one channel. Thread-safe.
  template <typename Request, typename Reply>
  absl::Status CallAs(Authenticator& as,
                      grpc::Status (v1::Ctld::Stub::*method)(grpc::ClientContext*, const Request&,
                                                             Reply*),
                      const Request& request, Reply* reply) {
    const auto deadline =
        std::chrono::system_clock::now() + std::chrono::seconds(config_.skiff.message_timeout);
    if (targets_.size() == 1) {
      grpc::ClientContext context;
      context.set_deadline(deadline);
      if (absl::Status s = AttachCredential(as, &context); !s.ok()) return s;
      // A busy controller may take longer than one connection attempt to answer
      // the handshake: keep trying until the deadline, as Slurm's commands retry.
      context.set_wait_for_ready(true);
      return Explain((Stub(0).*method)(&context, request, reply), 0);
    }
    // Several controllers: each in turn, without waiting for one to connect.
    return EachControllerInTurn(deadline, [&](size_t i) -> std::optional<absl::Status> {
      grpc::ClientContext context;
      context.set_deadline(deadline);
      if (absl::Status s = AttachCredential(as, &context); !s.ok()) return s;
      const grpc::Status status = (Stub(i).*method)(&context, request, reply);
      if (status.error_code() == grpc::StatusCode::UNAVAILABLE) return std::nullopt;
      return Explain(status, i);
    });
  }

 private:
  CtldClient(LoadedConfig config, std::vector<std::string> targets,
             std::unique_ptr<Authenticator> auth, CtldCalls calls);
  // The direct call to controller `i`; nullopt where nothing reached it, or
  // it stands by (try another, or the channel).
  // As long as gRPC's own connection attempt may take (common/rpc/channel.cc).
  static constexpr std::chrono::milliseconds kConnectTimeout{2000};
  std::optional<absl::Status> CallDirect(
      size_t i, const char* path, const google::protobuf::MessageLite& request,
      google::protobuf::MessageLite* reply,
      std::chrono::milliseconds connect_timeout = kConnectTimeout);
  // Call's direct call with several controllers.
  absl::Status CallControllers(const char* path, const google::protobuf::MessageLite& request,
                               google::protobuf::MessageLite* reply);
  static bool FitsDirectCall(const google::protobuf::MessageLite& request);
  // `attempt(i)` on each controller, the one that answered last first, in
  // rounds a moment apart until `deadline`: the first answer (not nullopt:
  // the controller was reached and serves) is returned, and its controller
  // tried first next time.
  template <typename Attempt>
  absl::Status EachControllerInTurn(std::chrono::system_clock::time_point deadline,
                                    Attempt attempt) {
    do {
      for (size_t k = 0; k < targets_.size(); ++k) {
        const size_t i = (serving_ + k) % targets_.size();
        if (std::optional<absl::Status> done = attempt(i)) {
          serving_ = i;
          return *done;
        }
      }
    } while (PauseBeforeNextRound(deadline));
    return Unreachable();
  }
  // Sleeps a moment unless that passes `deadline`; false then.
  static bool PauseBeforeNextRound(std::chrono::system_clock::time_point deadline);
  // Controller `i`'s channel and stub, made at the first call that needs
  // them: making them starts gRPC (its threads among it), which a direct call
  // never needs.
  v1::Ctld::Stub& Stub(size_t i);
  absl::Status Explain(const grpc::Status& status, size_t i);
  absl::Status Unreachable() const;
  absl::Status NoAnswer(size_t i) const;

  LoadedConfig config_;
  const std::vector<std::string> targets_;  // "addr:port", in SlurmctldHost order
  std::atomic<size_t> serving_{0};          // the controller that answered last
  std::unique_ptr<Authenticator> auth_;
  CtldCalls calls_;
  std::mutex channels_mu_;
  // One per controller, made on first use; guarded by channels_mu_.
  std::vector<std::shared_ptr<grpc::Channel>> channels_;
  std::vector<std::unique_ptr<v1::Ctld::Stub>> stubs_;
};

// Skiff's why-pending paragraph for job `id_text` (squeue --explain JOBID,
// scontrol explain job JOBID) on stdout; Slurm's "slurm_load_jobs error:
// Invalid job id specified" for an id that is not a job. Returns the exit code.
int PrintJobExplanation(CtldClient& client, const std::string& program, const std::string& id_text);

// Prints "<program>: error: <line>" to stderr for each line of the status
// message and returns `exit_code` (1 unless the command has its own, like sbatch's
// 255 for a bad option value).
int ReportError(const std::string& program, const absl::Status& status, int exit_code = 1);
// ReportError's lines for `message`, without their newlines.
std::vector<std::string> ErrorLines(const std::string& program, const std::string& message);

// Flushes stdout and stderr and ends the process with `exit_code` at once,
// without destructors: tearing down gRPC's threads and channel takes a
// command longer than its whole call to ctld (sbatch in a loop, a workflow
// manager's squeue). Only where nothing is left to write or release.
[[noreturn]] void ExitNow(int exit_code);

}  // namespace skiff::client

#endif  // SKIFF_CLIENT_CTLD_CLIENT_H_
