#include "admin/join_channel.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/join/join_token.h"
#include "common/join/tls.h"
#include "common/rpc/status.h"

namespace skiff::cli {

absl::StatusOr<HostPort> ParseHostPort(absl::string_view text, int default_port) {
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", std::string(text), "' is not HOST[:PORT]: ", std::string(why)));
  };
  HostPort out;
  absl::string_view port_text;
  if (absl::StartsWith(text, "[")) {
    const size_t end = text.find(']');
    if (end == absl::string_view::npos) return bad("no ']'");
    out.host = std::string(text.substr(1, end - 1));
    absl::string_view rest = text.substr(end + 1);
    if (!rest.empty()) {
      if (rest[0] != ':') return bad("text after ']'");
      port_text = rest.substr(1);
      if (port_text.empty()) return bad("no port after ':'");
    }
  } else {
    const size_t colon = text.find(':');
    if (colon != absl::string_view::npos && text.find(':', colon + 1) != absl::string_view::npos) {
      return bad("write an IPv6 address as [ADDR]:PORT");
    }
    out.host = std::string(text.substr(0, colon));
    if (colon != absl::string_view::npos) {
      port_text = text.substr(colon + 1);
      if (port_text.empty()) return bad("no port after ':'");
    }
  }
  if (out.host.empty()) return bad("no host");
  out.port = default_port;
  if (!port_text.empty() &&
      (!absl::SimpleAtoi(port_text, &out.port) || out.port < 1 || out.port > 65535)) {
    return bad("the port is not a number from 1 to 65535");
  }
  return out;
}

std::string FormatHostPort(const std::string& host, int port) {
  return host.find(':') != std::string::npos ? absl::StrCat("[", host, "]:", port)
                                             : absl::StrCat(host, ":", port);
}

absl::Status CheckPin(const std::string& presented, const std::string& expected,
                      const std::string& where) {
  if (ConstantTimeEquals(presented, expected)) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "the controller at ", where,
      " presented a certificate that does not match the join "
      "token's pin (its key's SHA-256 is ",
      presented, ", the token expects ", expected,
      "): certificate pin mismatch, nothing was sent. Check the address, or create a new token "
      "on the controller (skiff token create)"));
}

absl::StatusOr<std::shared_ptr<grpc::Channel>> OpenPinnedJoinChannel(const HostPort& target,
                                                                     const std::string& pin,
                                                                     int timeout_seconds) {
  // The certificate first, trusting nothing; secrets go only to a server that
  // holds the pinned key.
  absl::StatusOr<std::string> cert =
      FetchPeerCertificate(target.host, target.port, timeout_seconds);
  if (!cert.ok()) return cert.status();
  absl::StatusOr<std::string> presented = PublicKeyPin(*cert);
  if (!presented.ok()) return presented.status();
  if (absl::Status s = CheckPin(*presented, pin, FormatHostPort(target.host, target.port));
      !s.ok()) {
    return s;
  }
  grpc::SslCredentialsOptions tls;
  tls.pem_root_certs = *cert;  // the only certificate this channel trusts
  grpc::ChannelArguments args;
  args.SetSslTargetNameOverride(kJoinTlsName);
  return grpc::CreateCustomChannel(FormatHostPort(target.host, target.port),
                                   grpc::SslCredentials(tls), args);
}

absl::Status JoinCallStatus(const grpc::Status& status, const std::string& where) {
  if (status.ok()) return absl::OkStatus();
  if (status.error_code() == grpc::StatusCode::UNAVAILABLE ||
      status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
    return absl::UnavailableError(
        absl::StrCat("cannot reach the controller at ", where, ": ", status.error_message()));
  }
  return FromGrpcStatus(status);
}

}  // namespace skiff::cli
