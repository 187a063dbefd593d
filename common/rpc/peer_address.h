// The address of a gRPC call's peer.
#ifndef SKIFF_COMMON_RPC_PEER_ADDRESS_H_
#define SKIFF_COMMON_RPC_PEER_ADDRESS_H_

#include <string>

namespace skiff {

// The IP address of a gRPC peer string (ServerContext::peer()):
// "ipv4:10.0.0.5:41234" -> "10.0.0.5", "ipv6:[::1]:41234" -> "::1", and for
// "fd:N" (a connection the daemon accepted itself) the socket's peer, asked of
// the kernel; "" for any other kind (a Unix socket) or a closed fd.
std::string PeerAddress(const std::string& peer);

}  // namespace skiff

#endif  // SKIFF_COMMON_RPC_PEER_ADDRESS_H_
