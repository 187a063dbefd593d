#include "common/rpc/peer_address.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

namespace skiff {
namespace {

TEST(PeerAddress, IpOfTheTcpKindsOnly) {
  EXPECT_EQ(PeerAddress("ipv4:127.0.0.1:5555"), "127.0.0.1");
  EXPECT_EQ(PeerAddress("ipv6:[::1]:5555"), "::1");
  EXPECT_EQ(PeerAddress("ipv6:[::ffff:10.0.0.5]:5555"), "::ffff:10.0.0.5");
  EXPECT_EQ(PeerAddress("ipv6:[::1"), "");
  EXPECT_EQ(PeerAddress("unix:/run/x.sock"), "");
}

TEST(PeerAddress, AnAcceptedSocketsPeer) {
  const int listener = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  ASSERT_EQ(listen(listener, 1), 0);
  socklen_t size = sizeof(address);
  ASSERT_EQ(getsockname(listener, reinterpret_cast<sockaddr*>(&address), &size), 0);
  const int client = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_EQ(connect(client, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  const int accepted = accept(listener, nullptr, nullptr);
  ASSERT_GE(accepted, 0);
  EXPECT_EQ(PeerAddress("fd:" + std::to_string(accepted)), "127.0.0.1");
  EXPECT_EQ(PeerAddress("fd:" + std::to_string(listener)), "");  // not connected
  close(accepted);
  close(client);
  close(listener);
}

}  // namespace
}  // namespace skiff
