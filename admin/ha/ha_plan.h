// The machines that keep a cluster's controller (issue 53): `skiff init
// --standby NAME --vote NAME` on the head plans an etcd cluster of the head,
// its standby controllers and the voting machines, each an etcd member over
// TLS, and this file says, as text, what each machine's files hold: the lines
// skiff.conf gains, etcd's settings and the systemd drop-in that points
// Debian's etcd.service at them. Pure: the addresses are resolved and the
// certificates made by the caller (ha_init.h).
#ifndef SKIFF_ADMIN_HA_HA_PLAN_H_
#define SKIFF_ADMIN_HA_HA_PLAN_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace skiff::cli::ha {

// Where the files live on every member (under the tests' --root prefix).
inline constexpr char kEtcdConfDir[] = "/etc/skiff/etcd";
inline constexpr char kEtcdDropIn[] = "/etc/systemd/system/etcd.service.d/skiff.conf";
// Not Debian's /var/lib/etcd/default, which the package's first start filled
// with a one-member cluster of its own.
inline constexpr char kEtcdDataDir[] = "/var/lib/etcd/skiff";
inline constexpr int kEtcdClientPort = 2379;
inline constexpr int kEtcdPeerPort = 2380;
// etcd's request limit (1.5 MiB by default): a commit holds whole batch scripts.
inline constexpr int kEtcdMaxRequestBytes = 10 << 20;

struct Member {
  std::string name;  // its short host name: etcd's member name, a SlurmctldHost for a controller
  std::string addr;  // where the others reach it
  bool controller = false;  // runs ctld (the head, a standby), else a vote
};

// "NAME" or "NAME(ADDRESS)" as given to `flag` (--standby, --vote); the
// address is empty when not given. InvalidArgument names the flag.
absl::StatusOr<Member> ParseMemberSpec(const std::string& flag, const std::string& spec);

struct Plan {
  std::string cluster;          // ClusterName
  std::vector<Member> members;  // the head first, then the standbys, then the votes
  std::string cluster_token;    // etcd's initial cluster token: new at each init
};

// At least three members (etcd keeps serving while a majority runs: three
// survive the loss of one machine), names and addresses each once, every
// address set and none on loopback. InvalidArgument says what to give.
absl::Status CheckPlan(const Plan& plan);

// The lines skiff.conf gains after the head's SlurmctldHost line: a
// SlurmctldHost line for each standby, EtcdEndpoints and the TLS files.
std::string SkiffConfLines(const Plan& plan, const std::string& root);

// etcd's settings for `self` (an EnvironmentFile: etcd reads ETCD_* variables).
std::string EtcdEnvText(const Plan& plan, const Member& self, const std::string& root);

// The drop-in that makes Debian's etcd.service read EtcdEnvText's file; a
// later EnvironmentFile overrides the unit's own settings.
std::string EtcdDropInText(const std::string& root);

// Paths of the files in kEtcdConfDir.
std::string EtcdFile(const std::string& root, const std::string& name);

}  // namespace skiff::cli::ha

#endif  // SKIFF_ADMIN_HA_HA_PLAN_H_
