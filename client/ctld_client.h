// The CLIs' connection to ctld: finds it through skiff.conf, attaches a fresh
// munge credential to every call, makes the call directly or through gRPC's
// channel (CtldCalls), and turns transport failures into the messages a Slurm
// user expects ("Unable to contact slurm controller (connect failure)").
// One per CLI process; Call and CallAs may be called from several threads.
#ifndef SKIFF_CLIENT_CTLD_CLIENT_H_
#define SKIFF_CLIENT_CTLD_CLIENT_H_

#include <grpcpp/grpcpp.h>

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
// fetched from ctld (configless): at $SKIFF_CONF_SERVER=host[:port], else at
// the target of the DNS SRV record _skiffctld._tcp, with munge's socket from
// $SKIFF_MUNGE_SOCKET or munge's default. Nothing is written to disk.
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
  const std::string& target() const { return target_; }
  // For calls to other daemons (a job's step manager).
  Authenticator& auth() { return *auth_; }

  // Calls stub method `method` with a credential and a deadline of
  // MessageTimeout. Direct (CtldCalls) when ctld answers the connection at
  // once; where it does not (restarting, say) or the request is too large to
  // send at once, through gRPC's channel, which waits for ctld until the
  // deadline. Nothing is sent twice: the channel is tried only when no byte
  // of the direct call reached ctld, or ctld refused it before starting it.
  template <typename Request, typename Reply>
  absl::Status Call(grpc::Status (v1::Ctld::Stub::*method)(grpc::ClientContext*, const Request&,
                                                           Reply*),
                    const Request& request, Reply* reply) {
    if (calls_ == CtldCalls::kDirect) {
      const char* path = v1::CtldMethodPathFor(Request::default_instance().GetTypeName(),
                                               Reply::default_instance().GetTypeName());
      if (path != nullptr) {
        if (std::optional<absl::Status> done = CallDirect(path, request, reply)) return *done;
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
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(config_.skiff.message_timeout));
    if (absl::Status s = AttachCredential(as, &context); !s.ok()) return s;
    // A busy controller may take longer than one connection attempt to answer
    // the handshake: keep trying until the deadline, as Slurm's commands retry.
    context.set_wait_for_ready(true);
    return Explain((Stub().*method)(&context, request, reply));
  }

 private:
  CtldClient(LoadedConfig config, std::string target, std::unique_ptr<Authenticator> auth,
             CtldCalls calls);
  // The direct call; nullopt where nothing reached ctld (use the channel).
  std::optional<absl::Status> CallDirect(const char* path,
                                         const google::protobuf::MessageLite& request,
                                         google::protobuf::MessageLite* reply);
  // The channel and its stub, made at the first call that needs them: making
  // them starts gRPC (its threads among it), which a direct call never needs.
  v1::Ctld::Stub& Stub();
  absl::Status Explain(const grpc::Status& status) const;
  absl::Status Unreachable() const;
  absl::Status NoAnswer() const;

  LoadedConfig config_;
  std::string target_;
  std::unique_ptr<Authenticator> auth_;
  CtldCalls calls_;
  std::once_flag channel_once_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::Ctld::Stub> stub_;
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
