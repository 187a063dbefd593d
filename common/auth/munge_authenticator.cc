#include "common/auth/munge_authenticator.h"

#include <munge.h>
#include <stdlib.h>

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"

namespace skiff {
namespace {

// munge contexts are not thread-safe; one per call is cheap (no I/O until use).
struct ContextDeleter {
  void operator()(munge_ctx_t ctx) const { munge_ctx_destroy(ctx); }
};
using Context = std::unique_ptr<std::remove_pointer_t<munge_ctx_t>, ContextDeleter>;

absl::StatusOr<Context> MakeContext(const std::string& socket_path) {
  Context ctx(munge_ctx_create());
  if (!ctx) return absl::ResourceExhaustedError("munge: cannot create context");
  if (!socket_path.empty() &&
      munge_ctx_set(ctx.get(), MUNGE_OPT_SOCKET, socket_path.c_str()) != EMUNGE_SUCCESS) {
    return absl::InvalidArgumentError(
        absl::StrCat("munge: bad socket path ", socket_path, ": ", munge_ctx_strerror(ctx.get())));
  }
  return ctx;
}

}  // namespace

MungeAuthenticator::MungeAuthenticator(std::string socket_path)
    : socket_path_(std::move(socket_path)) {}

absl::StatusOr<std::string> MungeAuthenticator::CreateCredential() {
  absl::StatusOr<Context> ctx = MakeContext(socket_path_);
  if (!ctx.ok()) return ctx.status();
  char* cred = nullptr;
  munge_err_t err = munge_encode(&cred, ctx->get(), nullptr, 0);
  if (err != EMUNGE_SUCCESS) {
    std::string why =
        munge_ctx_strerror(ctx->get()) ? munge_ctx_strerror(ctx->get()) : munge_strerror(err);
    if (cred) free(cred);
    return absl::UnavailableError(absl::StrCat("munge encode failed: ", why));
  }
  std::string out(cred);
  free(cred);
  return out;
}

absl::StatusOr<Identity> MungeAuthenticator::VerifyCredential(const std::string& credential) {
  if (credential.empty()) return absl::UnauthenticatedError("no munge credential");
  absl::StatusOr<Context> ctx = MakeContext(socket_path_);
  if (!ctx.ok()) return ctx.status();
  uid_t uid = 0;
  gid_t gid = 0;
  munge_err_t err = munge_decode(credential.c_str(), ctx->get(), nullptr, nullptr, &uid, &gid);
  if (err == EMUNGE_SOCKET) {
    return absl::UnavailableError(
        absl::StrCat("munge decode failed: ", munge_ctx_strerror(ctx->get())));
  }
  if (err != EMUNGE_SUCCESS) {
    // Forged, expired, replayed or malformed: all the caller's problem.
    return absl::UnauthenticatedError(
        absl::StrCat("invalid munge credential: ", munge_strerror(err)));
  }
  return Identity{uid, gid};
}

}  // namespace skiff
