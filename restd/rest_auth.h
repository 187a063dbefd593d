// Who a REST request acts as (issue 36), as slurmrestd decides it:
//  - X-SLURM-USER-TOKEN (auth/jwt): the token, passed on to ctld, which
//    checks it and treats the request as the token's user, exactly as it
//    treats that user's commands;
//  - with X-SLURM-USER-NAME naming someone else: a reverse proxy (Open
//    OnDemand, a login portal) holding root's or SlurmUser's token acts for
//    the user it logged in, as slurmrestd lets SlurmUser's tokens do. restd
//    asks ctld, with the proxy's token, for a token of that user; ctld makes
//    one only for root and SlurmUser, so anyone else naming another user is
//    refused;
//  - else "Authorization: Bearer <token>", the same way: what a scraper such
//    as Prometheus can send (its scrape config's `authorization`);
//  - no token on the Unix socket: the peer's uid (auth/local);
//  - neither: refused, 401.
//
// Pure; thread-safe.
#ifndef SKIFF_RESTD_REST_AUTH_H_
#define SKIFF_RESTD_REST_AUTH_H_

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "restd/http/http_message.h"
#include "restd/http/http_server.h"

namespace skiff::restd {

struct RestCaller {
  std::string token;         // the request's own token, or ""
  std::string user_name;     // the token's claimed user (ctld checks the claim)
  std::string act_as;        // X-SLURM-USER-NAME when it names another user, else ""
  std::optional<uid_t> uid;  // a Unix-socket peer without a token
};

// Unauthenticated, saying what to send, when the request names nobody.
absl::StatusOr<RestCaller> CallerOf(const HttpRequest& request, const HttpPeer& peer);

// The scrape credential (restd --metrics-token-file): the request says
// "Authorization: Bearer SECRET" with the file's SECRET (compared in constant
// time). It does not expire, unlike a user's token (max_token_lifespan), so
// Prometheus scrapes without renewing it; it reads /metrics and /metrics/*
// only, as restd's own user, and nothing else takes it.
bool IsMetricsCredential(const HttpRequest& request, const std::string& secret);

// The paths the scrape credential reads.
bool IsMetricsPath(const std::string& method, const std::string& path);

// What is wrong with a scrape credential file, by what fstat and read say of
// it, or OK: a regular file that group and others cannot write and others
// cannot read, holding one line of at least 32 characters (its secret).
absl::Status CheckMetricsTokenFile(const std::string& path, bool regular, mode_t mode,
                                   const std::string& text);

}  // namespace skiff::restd

#endif  // SKIFF_RESTD_REST_AUTH_H_
