#include "common/rpc/channel.h"

#include <grpc/grpc.h>
#include <signal.h>

#include <mutex>

namespace skiff {
namespace {

void HoldGrpcWithSignalsBlocked() {
  static std::once_flag once;
  std::call_once(once, [] {
    sigset_t all;
    sigset_t previous;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &previous);
    grpc_init();
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  });
}

}  // namespace

std::shared_ptr<grpc::Channel> MakeChannel(const std::string& target) {
  return MakeChannel(target, grpc::InsecureChannelCredentials());
}

std::shared_ptr<grpc::Channel> MakeChannel(
    const std::string& target, const std::shared_ptr<grpc::ChannelCredentials>& credentials) {
  HoldGrpcWithSignalsBlocked();
  grpc::ChannelArguments args;
  // Retry a refused connection quickly (a restarted daemon is back within a
  // second) but give each attempt time to finish its handshake: gRPC uses the
  // "min reconnect backoff" as the connect timeout, and at 100 ms a loaded
  // 2-core machine failed connections that were merely slow.
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 2000);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 2000);
  // Replies may carry a batch script (scontrol write batch_script), which
  // SchedulerParameters=max_script_size may allow past gRPC's 4 MB default.
  args.SetMaxReceiveMessageSize(kMaxReplyBytes);
  return grpc::CreateCustomChannel(target, credentials, args);
}

}  // namespace skiff
