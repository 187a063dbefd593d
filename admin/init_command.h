// `skiff init` (docs/decisions.md, "Init and join"): on the head node, write a
// starting skiff.conf from the machine's name and the admin's flags, make the
// munge key if there is none (and ctld's copy of it), start munge and ctld, and
// print the command to run on each node.
#ifndef SKIFF_ADMIN_INIT_COMMAND_H_
#define SKIFF_ADMIN_INIT_COMMAND_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "admin/admin_files.h"
#include "admin/ha/ha_plan.h"

namespace skiff::cli {

struct InitOptions {
  std::string cluster_name;             // empty: the short host name
  std::vector<std::string> partitions;  // Nodes=ALL each; the first is Default=YES; empty: batch
  std::string host;                     // SlurmctldHost; empty: the short host name
  std::string addr;                     // SlurmctldHost=host(addr) when given
  int ctld_port = 6817;
  int join_port = 6820;
  std::string slurm_user = "skiff";
  std::string root;  // prefix for every path written and named in skiff.conf (tests)
  bool force = false;
  bool start = true;
  int64_t ttl_seconds = 0;  // the printed token's; 0 = one hour
  // A controller that survives this machine (issue 53): standby controllers
  // and etcd votes, NAME or NAME(ADDRESS) (admin/ha/ha_init.h).
  std::vector<std::string> standbys;
  std::vector<std::string> votes;
  std::string bundle;  // --bundle FILE: install what the head made for this machine
};

// skiff.conf's text for `options` (paths under options.root), dated `date`;
// with `ha`, the head is at its first member's address and the standbys and
// etcd follow. InvalidArgument for a bad name or port.
absl::StatusOr<std::string> InitConfigText(const InitOptions& options, const std::string& date,
                                           const ha::Plan* ha = nullptr);

// Runs init; returns what to print. `run` starts services (systemctl).
absl::StatusOr<std::string> RunInit(const InitOptions& options, const CommandRunner& run);

}  // namespace skiff::cli

#endif  // SKIFF_ADMIN_INIT_COMMAND_H_
