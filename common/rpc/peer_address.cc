#include "common/rpc/peer_address.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"

namespace skiff {

std::string PeerAddress(const std::string& peer) {
  if (absl::StartsWith(peer, "ipv4:")) {
    const std::string rest = peer.substr(5);
    return rest.substr(0, rest.rfind(':'));
  }
  if (absl::StartsWith(peer, "ipv6:[")) {
    const std::string rest = peer.substr(6);
    const size_t end = rest.find(']');
    return end == std::string::npos ? "" : rest.substr(0, end);
  }
  int fd = -1;
  if (absl::StartsWith(peer, "fd:") && absl::SimpleAtoi(peer.substr(3), &fd) && fd >= 0) {
    // A connection the daemon accepted itself (guarded_server.h): ask the socket.
    sockaddr_storage address{};
    socklen_t size = sizeof(address);
    if (getpeername(fd, reinterpret_cast<sockaddr*>(&address), &size) != 0) return "";
    char text[INET6_ADDRSTRLEN] = {};
    if (address.ss_family == AF_INET) {
      const auto* v4 = reinterpret_cast<const sockaddr_in*>(&address);
      if (inet_ntop(AF_INET, &v4->sin_addr, text, sizeof(text)) != nullptr) return text;
    } else if (address.ss_family == AF_INET6) {
      const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&address);
      if (inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof(text)) != nullptr) return text;
    }
  }
  return "";
}

}  // namespace skiff
