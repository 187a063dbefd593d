#include "admin/ha/ha_init.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "admin/ha/bundle.h"
#include "common/join/join_token.h"
#include "common/tls/certificate_authority.h"

namespace skiff::cli::ha {
namespace {

constexpr off_t kMaxBundleBytes = 8 << 20;

// `name`'s address (IPv4 first, as the machines' own networks usually are).
absl::StatusOr<std::string> Resolve(const std::string& flag, const std::string& name) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc = getaddrinfo(name.c_str(), nullptr, &hints, &found);
  if (rc != 0 || found == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(flag, " ", name, ": cannot resolve it (",
                                                   gai_strerror(rc), "): give it as ", name,
                                                   "(ADDRESS)"));
  }
  std::string v4;
  std::string v6;
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    char text[INET6_ADDRSTRLEN] = "";
    if (a->ai_family == AF_INET && v4.empty()) {
      inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(a->ai_addr)->sin_addr, text, sizeof(text));
      v4 = text;
    } else if (a->ai_family == AF_INET6 && v6.empty()) {
      inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(a->ai_addr)->sin6_addr, text,
                sizeof(text));
      v6 = text;
    }
  }
  freeaddrinfo(found);
  return v4.empty() ? v6 : v4;
}

absl::Status Resolved(const std::string& flag, Member& m) {
  if (!m.addr.empty()) return absl::OkStatus();
  absl::StatusOr<std::string> addr = Resolve(flag, m.name);
  if (!addr.ok()) return addr.status();
  m.addr = *addr;
  return absl::OkStatus();
}

// A member's certificate names it and its address: etcd's peers and ctld
// dial the addresses in EtcdEndpoints and ETCD_INITIAL_CLUSTER.
absl::StatusOr<tls::PemPair> MemberCertificate(const tls::PemPair& ca, const Member& m) {
  return tls::IssueCertificate(ca, m.name, {m.name, m.addr});
}

// The files every member has, and a controller's client certificate.
absl::StatusOr<std::vector<BundleFile>> MemberFiles(const Plan& plan, const Member& m,
                                                    const tls::PemPair& ca,
                                                    const std::string& slurm_user,
                                                    const std::string& root) {
  absl::StatusOr<tls::PemPair> member = MemberCertificate(ca, m);
  if (!member.ok()) return member.status();
  const std::string dir = kEtcdConfDir;
  std::vector<BundleFile> files = {
      {dir + "/ca.crt", 0644, "root", ca.cert_pem},
      {dir + "/member.crt", 0644, "root", member->cert_pem},
      {dir + "/member.key", 0400, "etcd", member->key_pem},
      {dir + "/etcd.env", 0644, "root", EtcdEnvText(plan, m, root)},
      {kEtcdDropIn, 0644, "root", EtcdDropInText(root)},
  };
  if (m.controller) {
    absl::StatusOr<tls::PemPair> ctld =
        tls::IssueCertificate(ca, absl::StrCat("ctld@", m.name), {m.name, m.addr});
    if (!ctld.ok()) return ctld.status();
    files.push_back({dir + "/ctld.crt", 0644, "root", ctld->cert_pem});
    files.push_back({dir + "/ctld.key", 0400, slurm_user, ctld->key_pem});
  }
  return files;
}

absl::Status WriteFiles(const std::vector<BundleFile>& files, const std::string& root) {
  for (const BundleFile& f : files) {
    std::optional<std::pair<uid_t, gid_t>> owner = UserIds(f.owner);
    if (!owner) {
      return absl::FailedPreconditionError(
          absl::StrCat("user '", f.owner, "' (", f.path, "'s owner) does not exist",
                       f.owner == "etcd" ? ": install etcd first (apt install etcd-server)" : ""));
    }
    if (absl::Status s = WriteFileAtomic(Under(root, f.path), f.content, f.mode, owner); !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

std::vector<std::vector<std::string>> StartEtcd(bool wait) {
  std::vector<std::vector<std::string>> commands = {{"systemctl", "daemon-reload"},
                                                    {"systemctl", "enable", "etcd"}};
  if (wait) {
    commands.push_back({"systemctl", "restart", "etcd"});
  } else {
    commands.push_back({"systemctl", "restart", "--no-block", "etcd"});
  }
  return commands;
}

absl::Status RunAll(const std::vector<std::vector<std::string>>& commands,
                    const CommandRunner& run) {
  for (const std::vector<std::string>& command : commands) {
    if (absl::Status s = run(command); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Plan> MakePlan(const std::string& cluster, Member head,
                              const std::vector<std::string>& standbys,
                              const std::vector<std::string>& votes) {
  Plan plan;
  plan.cluster = cluster;
  head.controller = true;
  if (absl::Status s = Resolved("--addr", head); !s.ok()) return s;
  plan.members.push_back(head);
  for (const auto& [flag, specs, controller] :
       {std::tuple{"--standby", &standbys, true}, std::tuple{"--vote", &votes, false}}) {
    for (const std::string& spec : *specs) {
      absl::StatusOr<Member> m = ParseMemberSpec(flag, spec);
      if (!m.ok()) return m.status();
      m->controller = controller;
      if (absl::Status s = Resolved(flag, *m); !s.ok()) return s;
      plan.members.push_back(*m);
    }
  }
  if (absl::Status s = CheckPlan(plan); !s.ok()) return s;
  if (standbys.empty()) {
    return absl::InvalidArgumentError(
        "--vote without --standby: name the machine that takes over (--standby NAME)");
  }
  // New at each init: a member left from an earlier cluster cannot join this one.
  absl::StatusOr<std::string> nonce = NewNodeKey(SystemRandomBytes());
  if (!nonce.ok()) return nonce.status();
  plan.cluster_token = absl::StrCat("skiff-", cluster, "-", nonce->substr(0, 12));
  return plan;
}

absl::StatusOr<std::string> WriteHeadFiles(const Plan& plan, const std::string& root,
                                           const std::string& slurm_user,
                                           const std::string& skiff_conf_text,
                                           const std::string& munge_key) {
  absl::StatusOr<tls::PemPair> ca =
      tls::MakeCertificateAuthority(absl::StrCat("skiff etcd CA of ", plan.cluster));
  if (!ca.ok()) return ca.status();
  std::string out;
  for (const Member& m : plan.members) {
    const bool head = &m == &plan.members.front();
    // The other machines' settings name their own paths (no --root there).
    absl::StatusOr<std::vector<BundleFile>> files =
        MemberFiles(plan, m, *ca, slurm_user, head ? root : "");
    if (!files.ok()) return files.status();
    if (head) {
      files->push_back({std::string(kEtcdConfDir) + "/ca.key", 0400, "root", ca->key_pem});
      if (absl::Status s = WriteFiles(*files, root); !s.ok()) return s;
      absl::StrAppend(&out, "Made the cluster's etcd CA and this machine's certificates in ",
                      EtcdFile(root, ""), ".\n");
      continue;
    }
    Bundle bundle{m.name, m.controller, *std::move(files)};
    if (m.controller) {
      bundle.files.push_back({"/etc/skiff/skiff.conf", 0644, "root", skiff_conf_text});
      bundle.files.push_back({"/etc/munge/munge.key", 0400, "munge", munge_key});
      bundle.files.push_back({"/var/lib/skiff/munge.key", 0400, slurm_user, munge_key});
    }
    const std::string path = Under(root, absl::StrCat("/root/skiff-", m.name, ".bundle"));
    if (absl::Status s = WriteFileAtomic(path, EncodeBundle(bundle), 0600, UserIds("root"));
        !s.ok()) {
      return s;
    }
    absl::StrAppend(&out, "Wrote ", path, " for ", m.name, " (",
                    m.controller ? "standby controller" : "etcd vote", ", ", m.addr, ").\n");
  }
  return out;
}

absl::Status StartHead(const CommandRunner& run) {
  std::vector<std::vector<std::string>> commands = {{"systemctl", "restart", "munge"}};
  for (std::vector<std::string>& c : StartEtcd(/*wait=*/false)) commands.push_back(std::move(c));
  commands.push_back({"systemctl", "enable", "skiff-ctld"});
  commands.push_back({"systemctl", "restart", "skiff-ctld"});
  return RunAll(commands, run);
}

std::string NextSteps(const Plan& plan, const std::string& root) {
  std::string out =
      "\nOn each machine named below, as root, with Skiff's packages and etcd-server installed:\n"
      "copy its bundle there (it holds secrets: keep it root's), install it, delete it:\n";
  for (size_t i = 1; i < plan.members.size(); ++i) {
    const Member& m = plan.members[i];
    const std::string bundle = Under(root, absl::StrCat("/root/skiff-", m.name, ".bundle"));
    absl::StrAppend(&out, "  scp ", bundle, " root@", m.name, ":/root/\n", "  ssh root@", m.name,
                    " skiff init --bundle /root/skiff-", m.name, ".bundle\n");
  }
  absl::StrAppend(&out,
                  "etcd serves once a majority of its members run, and ctld with it; then\n"
                  "`skiff token create` prints the command to run on each node, and `scontrol "
                  "ping` shows the controllers.\n");
  return out;
}

absl::StatusOr<std::string> InstallBundle(const BundleInstallOptions& o, const CommandRunner& run) {
  const int fd = open(o.path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "--bundle ", o.path, ": ", errno == ELOOP ? "is a symbolic link" : strerror(errno)));
  }
  std::string refused = SecretFileProblem(fd, kMaxBundleBytes);
  if (!refused.empty()) {
    close(fd);
    return absl::FailedPreconditionError(
        absl::StrCat("--bundle ", o.path, " ", refused,
                     ": it holds this machine's etcd key (and a standby's munge key); keep it "
                     "root's, mode 0600"));
  }
  std::string text;
  char buf[65536];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const std::string why = strerror(errno);
      close(fd);
      return absl::FailedPreconditionError(absl::StrCat("--bundle ", o.path, ": ", why));
    }
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  absl::StatusOr<Bundle> bundle = DecodeBundle(text);
  if (!bundle.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--bundle ", o.path, ": ", bundle.status().message()));
  }
  const std::string host = o.host.empty() ? ShortHostname() : o.host;
  if (bundle->host != host) {
    return absl::FailedPreconditionError(absl::StrCat(
        "--bundle ", o.path, " is for ", bundle->host, ", and this machine is ", host,
        " (etcd and ctld know each machine by its short host name): install it on ", bundle->host));
  }
  const std::string conf_path = Under(o.root, "/etc/skiff/skiff.conf");
  if (bundle->controller && PathExists(conf_path) && !o.force) {
    return absl::AlreadyExistsError(absl::StrCat(
        conf_path, " exists: this machine is already set up (--force replaces its files)"));
  }
  if (absl::Status s = WriteFiles(bundle->files, o.root); !s.ok()) return s;
  std::string out = absl::StrCat("Installed ", bundle->files.size(), " files for ", host, " (",
                                 bundle->controller ? "standby controller" : "etcd vote", ").\n");
  if (!o.start) {
    absl::StrAppend(&out,
                    "Not started (--no-start): systemctl daemon-reload && systemctl enable "
                    "--now etcd",
                    bundle->controller ? " && systemctl restart munge && systemctl enable --now "
                                         "skiff-ctld"
                                       : "",
                    "\n");
    return out;
  }
  std::vector<std::vector<std::string>> commands = StartEtcd(/*wait=*/true);
  if (bundle->controller) {
    commands.push_back({"systemctl", "restart", "munge"});
    commands.push_back({"systemctl", "enable", "skiff-ctld"});
    commands.push_back({"systemctl", "restart", "skiff-ctld"});
  }
  if (absl::Status s = RunAll(commands, run); !s.ok()) return s;
  absl::StrAppend(&out, "Started etcd",
                  bundle->controller ? ", munge and skiff-ctld (standing by)" : "",
                  ". Delete the bundle here and on the head: ", o.path, "\n");
  return out;
}

}  // namespace skiff::cli::ha
