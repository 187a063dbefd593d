#include "ctld/replication/etcd_member.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/free_port.h"

namespace skiff::ctld::replication {
LocalEtcd::LocalEtcd(const std::string& dir) : dir_(dir) {
  if (access(kEtcdBinary, X_OK) != 0) return;
  client_port_ = skiff::FreeLoopbackPort();
  int peer_port = skiff::FreeLoopbackPort();
  while (peer_port == client_port_ && peer_port > 0) peer_port = skiff::FreeLoopbackPort();
  if (client_port_ < 0 || peer_port < 0) return;
  const std::string client = absl::StrCat("http://127.0.0.1:", client_port_);
  const std::string peer = absl::StrCat("http://127.0.0.1:", peer_port);
  const std::string log = dir + "/etcd.log";
  std::vector<std::string> args = {kEtcdBinary,
                                   "--name=skiff",
                                   "--data-dir=" + dir + "/data",
                                   "--listen-client-urls=" + client,
                                   "--advertise-client-urls=" + client,
                                   "--listen-peer-urls=" + peer,
                                   "--initial-advertise-peer-urls=" + peer,
                                   "--initial-cluster=skiff=" + peer};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  pid_ = fork();
  if (pid_ == 0) {
    if (freopen(log.c_str(), "w", stdout) == nullptr) _exit(126);
    if (freopen(log.c_str(), "a", stderr) == nullptr) _exit(126);
    execv(kEtcdBinary, argv.data());
    _exit(127);
  }
}

LocalEtcd::~LocalEtcd() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    waitpid(pid_, nullptr, 0);
  }
}

std::string LocalEtcd::target() const { return absl::StrCat("127.0.0.1:", client_port_); }

std::string LocalEtcd::Log() const {
  std::ifstream in(dir_ + "/etcd.log");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace skiff::ctld::replication
