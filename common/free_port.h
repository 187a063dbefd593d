// A TCP port of 127.0.0.1 that is free now (the kernel's choice), for a daemon
// a test or a benchmark starts on loopback: etcd members, a test's ctld.
// Another process may take it before it is used; callers that start a daemon
// on it see that as a failed start.
#ifndef SKIFF_COMMON_FREE_PORT_H_
#define SKIFF_COMMON_FREE_PORT_H_

namespace skiff {

// -1 when no port could be had.
int FreeLoopbackPort();

}  // namespace skiff

#endif  // SKIFF_COMMON_FREE_PORT_H_
