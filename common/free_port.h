// A TCP port of 127.0.0.1 that is free now (the kernel's choice), for a daemon
// a test or a benchmark starts on loopback: etcd members, a test's ctld.
// Another process may take it before it is used; callers that start a daemon
// on it see that as a failed start.
#ifndef SKIFF_COMMON_FREE_PORT_H_
#define SKIFF_COMMON_FREE_PORT_H_

#include <string>

namespace skiff {

// -1 when no port could be had.
int FreeLoopbackPort();

// A port of 127.0.0.1 bound and never listened on, for as long as this lives:
// a connection to it is refused, and nothing else can take the port meanwhile
// (a controller that is down, in tests of clients that try several).
class RefusingLoopbackPort {
 public:
  RefusingLoopbackPort();
  ~RefusingLoopbackPort();
  RefusingLoopbackPort(const RefusingLoopbackPort&) = delete;
  RefusingLoopbackPort& operator=(const RefusingLoopbackPort&) = delete;

  int port() const { return port_; }  // 0 when none could be had
  std::string target() const;         // "127.0.0.1:<port>"

 private:
  int fd_ = -1;
  int port_ = 0;
};

}  // namespace skiff

#endif  // SKIFF_COMMON_FREE_PORT_H_
