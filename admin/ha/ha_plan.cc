#include "admin/ha/ha_plan.h"

#include <arpa/inet.h>

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "admin/admin_files.h"
#include "common/join/join_token.h"

namespace skiff::cli::ha {
namespace {

bool IsLoopback(const std::string& addr) {
  in_addr v4{};
  if (inet_pton(AF_INET, addr.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (inet_pton(AF_INET6, addr.c_str(), &v6) == 1) return IN6_IS_ADDR_LOOPBACK(&v6);
  return addr == "localhost";
}

// "host:port" for gRPC and etcd's URLs ([v6]:port).
std::string HostPort(const std::string& addr, int port) {
  if (addr.find(':') != std::string::npos) return absl::StrCat("[", addr, "]:", port);
  return absl::StrCat(addr, ":", port);
}

}  // namespace

std::string EtcdFile(const std::string& root, const std::string& name) {
  return Under(root, absl::StrCat(kEtcdConfDir, "/", name));
}

absl::StatusOr<Member> ParseMemberSpec(const std::string& flag, const std::string& spec) {
  Member member;
  std::string name = spec;
  const size_t open = spec.find('(');
  if (open != std::string::npos) {
    if (spec.back() != ')' || open + 2 >= spec.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat(flag, " '", spec, "' is not NAME or NAME(ADDRESS)"));
    }
    name = spec.substr(0, open);
    member.addr = spec.substr(open + 1, spec.size() - open - 2);
  }
  member.name = name;
  if (!CheckJoinNodeName(member.name).ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        flag, " '", spec, "': the name must be a host name (letters, digits, '-', '_', '.')"));
  }
  return member;
}

absl::Status CheckPlan(const Plan& plan) {
  if (plan.members.size() < 3) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a controller that survives its machine needs etcd on at least three machines (a "
        "majority keeps serving): give --standby NAME and --vote NAME (",
        plan.members.size(), " named)"));
  }
  std::set<std::string> names;
  std::set<std::string> addrs;
  for (const Member& m : plan.members) {
    if (!names.insert(m.name).second) {
      return absl::InvalidArgumentError(absl::StrCat("'", m.name, "' is named twice"));
    }
    if (m.addr.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", m.name, "' has no address: give it as NAME(ADDRESS)"));
    }
    if (IsLoopback(m.addr)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "'", m.name, "' is at ", m.addr,
          ", a loopback address the other machines cannot reach: give it as NAME(ADDRESS)"));
    }
    if (!addrs.insert(m.addr).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", m.name, "': address ", m.addr, " is given twice"));
    }
  }
  return absl::OkStatus();
}

std::string SkiffConfLines(const Plan& plan, const std::string& root) {
  std::string out;
  std::vector<std::string> endpoints;
  for (size_t i = 0; i < plan.members.size(); ++i) {
    const Member& m = plan.members[i];
    if (i > 0 && m.controller) absl::StrAppend(&out, "SlurmctldHost=", m.name, "(", m.addr, ")\n");
    endpoints.push_back(HostPort(m.addr, kEtcdClientPort));
  }
  absl::StrAppend(&out,
                  "# Every change ctld stores goes to etcd first; a standby takes over when the\n"
                  "# serving controller's lease (SlurmctldTimeout, 5 s when unset) lapses.\n",
                  "EtcdEndpoints=", absl::StrJoin(endpoints, ","), "\n",
                  "EtcdCAFile=", EtcdFile(root, "ca.crt"), "\n",
                  "EtcdCertFile=", EtcdFile(root, "ctld.crt"), "\n",
                  "EtcdKeyFile=", EtcdFile(root, "ctld.key"), "\n");
  return out;
}

std::string EtcdEnvText(const Plan& plan, const Member& self, const std::string& root) {
  std::vector<std::string> initial;
  for (const Member& m : plan.members) {
    initial.push_back(absl::StrCat(m.name, "=https://", HostPort(m.addr, kEtcdPeerPort)));
  }
  const std::string peer = absl::StrCat("https://", HostPort(self.addr, kEtcdPeerPort));
  const std::string client = absl::StrCat("https://", HostPort(self.addr, kEtcdClientPort));
  const std::string ca = EtcdFile(root, "ca.crt");
  const std::string cert = EtcdFile(root, "member.crt");
  const std::string key = EtcdFile(root, "member.key");
  return absl::StrCat(
      "# Written by `skiff init`: ", self.name, "'s member of cluster ", plan.cluster,
      "'s etcd, which keeps its controller's state.\n"
      "# Members and clients (ctld) each show a certificate of this cluster's CA.\n",
      "ETCD_NAME=", self.name, "\n", "ETCD_DATA_DIR=", Under(root, kEtcdDataDir), "\n",
      "ETCD_LISTEN_PEER_URLS=", peer, "\n", "ETCD_INITIAL_ADVERTISE_PEER_URLS=", peer, "\n",
      "ETCD_LISTEN_CLIENT_URLS=", client, "\n", "ETCD_ADVERTISE_CLIENT_URLS=", client, "\n",
      "ETCD_INITIAL_CLUSTER=", absl::StrJoin(initial, ","), "\n",
      "ETCD_INITIAL_CLUSTER_STATE=new\n", "ETCD_INITIAL_CLUSTER_TOKEN=", plan.cluster_token, "\n",
      "ETCD_CERT_FILE=", cert, "\n", "ETCD_KEY_FILE=", key, "\n", "ETCD_TRUSTED_CA_FILE=", ca, "\n",
      "ETCD_CLIENT_CERT_AUTH=true\n", "ETCD_PEER_CERT_FILE=", cert, "\n",
      "ETCD_PEER_KEY_FILE=", key, "\n", "ETCD_PEER_TRUSTED_CA_FILE=", ca, "\n",
      "ETCD_PEER_CLIENT_CERT_AUTH=true\n", "ETCD_MAX_REQUEST_BYTES=", kEtcdMaxRequestBytes, "\n",
      "# The log's trimmed commits give their space back.\n",
      "ETCD_AUTO_COMPACTION_MODE=revision\nETCD_AUTO_COMPACTION_RETENTION=10000\n");
}

std::string EtcdDropInText(const std::string& root) {
  return absl::StrCat(
      "# Written by `skiff init`: this machine's etcd is a member of the cluster's\n"
      "# controller store (skiff.conf's EtcdEndpoints); its settings are in\n"
      "# etcd.env, read after the unit's own.\n"
      "[Service]\n"
      "EnvironmentFile=",
      EtcdFile(root, "etcd.env"), "\n");
}

}  // namespace skiff::cli::ha
