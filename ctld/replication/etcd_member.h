// One etcd member on loopback, for tests and benchmarks (issue 53): Debian's
// /usr/bin/etcd started in a directory of the caller's, on client and peer
// ports of its own, stopped (SIGTERM, then waited for) when the object goes.
// Its output is in <dir>/etcd.log. Whether it serves yet is the caller's to
// wait for (an EtcdClient's first answer).
//
// Threads: the owner's; construct and destroy on one thread.
#ifndef SKIFF_CTLD_REPLICATION_ETCD_MEMBER_H_
#define SKIFF_CTLD_REPLICATION_ETCD_MEMBER_H_

#include <sys/types.h>

#include <string>

namespace skiff::ctld::replication {

inline constexpr char kEtcdBinary[] = "/usr/bin/etcd";

class LocalEtcd {
 public:
  explicit LocalEtcd(const std::string& dir);
  ~LocalEtcd();
  LocalEtcd(const LocalEtcd&) = delete;
  LocalEtcd& operator=(const LocalEtcd&) = delete;

  // Whether the process was started (etcd installed, ports found, fork ok).
  bool started() const { return pid_ > 0; }
  std::string target() const;  // "127.0.0.1:<client port>"
  std::string Log() const;     // its output so far

 private:
  std::string dir_;
  int client_port_ = -1;
  pid_t pid_ = -1;
};

}  // namespace skiff::ctld::replication

#endif  // SKIFF_CTLD_REPLICATION_ETCD_MEMBER_H_
