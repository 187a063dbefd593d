#include "ctld/replication/etcd_member.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/free_port.h"

namespace skiff::ctld::replication {
namespace {

// Writes `text` to `path`, readable by its owner only.
bool WritePrivate(const std::string& path, const std::string& text) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  bool ok = fchmod(fd, 0600) == 0;  // a file that was there keeps its mode otherwise
  size_t done = 0;
  while (ok && done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) ok = false;
    if (n > 0) done += static_cast<size_t>(n);
  }
  return close(fd) == 0 && ok;
}

}  // namespace

LocalEtcd::LocalEtcd(const std::string& dir) : dir_(dir) { Start(nullptr); }

LocalEtcd::LocalEtcd(const std::string& dir, const LocalEtcdTls& tls) : dir_(dir) { Start(&tls); }

void LocalEtcd::Start(const LocalEtcdTls* tls) {
  const std::string& dir = dir_;
  if (access(kEtcdBinary, X_OK) != 0) return;
  client_port_ = skiff::FreeLoopbackPort();
  int peer_port = skiff::FreeLoopbackPort();
  while (peer_port == client_port_ && peer_port > 0) peer_port = skiff::FreeLoopbackPort();
  if (client_port_ < 0 || peer_port < 0) return;
  const std::string client =
      absl::StrCat(tls != nullptr ? "https" : "http", "://127.0.0.1:", client_port_);
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
  if (tls != nullptr) {
    const std::string ca = dir + "/etcd-ca.pem";
    const std::string cert = dir + "/etcd.crt";
    const std::string key = dir + "/etcd.key";
    if (!WritePrivate(ca, tls->ca_pem) || !WritePrivate(cert, tls->cert_pem) ||
        !WritePrivate(key, tls->key_pem)) {
      return;
    }
    args.insert(args.end(), {"--cert-file=" + cert, "--key-file=" + key, "--trusted-ca-file=" + ca,
                             "--client-cert-auth"});
  }
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
