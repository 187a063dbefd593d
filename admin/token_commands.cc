#include "admin/token_commands.h"

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/ctld_client.h"
#include "common/auth/munge_authenticator.h"
#include "common/rpc/auth_metadata.h"
#include "common/rpc/channel.h"
#include "common/rpc/status.h"
#include "common/time_format.h"
#include "proto/join.grpc.pb.h"

namespace skiff::cli {
namespace {

template <typename Request, typename Reply>
absl::StatusOr<Reply> Call(const std::string& conf_path, int wait_seconds,
                           grpc::Status (v1::JoinTokens::Stub::*method)(grpc::ClientContext*,
                                                                        const Request&, Reply*),
                           const Request& request) {
  absl::StatusOr<LoadedConfig> loaded = client::LoadClientConfig(conf_path);
  if (!loaded.ok()) return loaded.status();
  const SkiffConfig& config = loaded->skiff;
  const std::string target = absl::StrCat(
      config.ctld_addr.empty() ? config.ctld_host : config.ctld_addr, ":", config.ctld_port);
  MungeAuthenticator auth(config.auth_socket);
  std::shared_ptr<grpc::Channel> channel = MakeChannel(target);
  std::unique_ptr<v1::JoinTokens::Stub> stub = v1::JoinTokens::NewStub(channel);
  grpc::ClientContext context;
  context.set_deadline(
      std::chrono::system_clock::now() +
      std::chrono::seconds(wait_seconds > 0 ? wait_seconds : config.message_timeout));
  context.set_wait_for_ready(true);
  if (absl::Status s = AttachCredential(auth, &context); !s.ok()) return s;
  Reply reply;
  grpc::Status status = (stub.get()->*method)(&context, request, &reply);
  if (status.ok()) return reply;
  if (status.error_code() == grpc::StatusCode::UNAVAILABLE ||
      (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED &&
       channel->GetState(false) != GRPC_CHANNEL_READY)) {
    return absl::UnavailableError(
        absl::StrCat("Unable to contact skiff controller at ", target, " (connect failure)"));
  }
  if (status.error_code() == grpc::StatusCode::UNIMPLEMENTED) {
    return absl::UnimplementedError(
        absl::StrCat("the controller at ", target, " has no join tokens (an older ctld)"));
  }
  return FromGrpcStatus(status);
}

std::string When(int64_t t) { return FormatTimestamp(t); }

}  // namespace

absl::StatusOr<v1::CreateJoinTokenReply> CreateToken(const std::string& conf_path,
                                                     int64_t ttl_seconds, int wait_seconds) {
  v1::CreateJoinTokenRequest request;
  request.set_ttl_seconds(ttl_seconds);
  return Call(conf_path, wait_seconds, &v1::JoinTokens::Stub::CreateJoinToken, request);
}

absl::StatusOr<v1::ListJoinTokensReply> ListTokens(const std::string& conf_path) {
  return Call(conf_path, 0, &v1::JoinTokens::Stub::ListJoinTokens, v1::ListJoinTokensRequest());
}

absl::StatusOr<v1::ReloadMungeKeyReply> ReloadCtldMungeKey(const std::string& conf_path) {
  return Call(conf_path, 0, &v1::JoinTokens::Stub::ReloadMungeKey, v1::ReloadMungeKeyRequest());
}

std::string ShortDuration(int64_t seconds) {
  if (seconds < 0) seconds = 0;
  if (seconds < 120) return absl::StrCat(seconds, "s");
  if (seconds < 2 * 3600) return absl::StrCat(seconds / 60, "m");
  if (seconds < 2 * 86400) return absl::StrCat(seconds / 3600, "h");
  return absl::StrCat(seconds / 86400, "d");
}

std::string FormatCreatedToken(const v1::CreateJoinTokenReply& reply, int64_t now) {
  // The command carries no token: on the node's command line every user
  // there could read it (/proc/PID/cmdline) and join first.
  return absl::StrCat(
      "Join token for one node, valid until ", When(reply.expires()), " (",
      ShortDuration(reply.expires() - now), "):\n\n    ", reply.token(),
      "\n\nRun this on the node, as root, and paste the token when it asks for it:\n\n  skiff "
      "join ",
      reply.join_target(),
      // The packages' SlurmUser is skiff, join's default.
      reply.slurm_user().empty() || reply.slurm_user() == "skiff"
          ? ""
          : absl::StrCat(" --slurm-user ", reply.slurm_user()),
      "\n\n(or give it on standard input, in a file with --token-file FILE, or in\n"
      "SKIFF_JOIN_TOKEN; never on the command line, where every user of the node can read\n"
      "it). Keep it secret: whoever holds it can join a node and gets the munge key.\n");
}

std::string FormatTokenList(const v1::ListJoinTokensReply& reply) {
  std::string out =
      absl::StrFormat("%-8s %-19s %-19s %s\n", "TOKEN", "CREATED", "EXPIRES", "STATE");
  for (const v1::JoinTokenInfo& t : reply.tokens()) {
    absl::StrAppend(&out, absl::StrFormat("%-8s %-19s %-19s %s\n", t.id(), When(t.created()),
                                          When(t.expires()), t.state()));
  }
  return out;
}

}  // namespace skiff::cli
