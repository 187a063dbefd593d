// `skiff init --standby NAME --vote NAME` on the head node and `skiff init
// --bundle FILE` on the other machines (issue 53, docs/install.md "A standby
// controller"): the head resolves the machines' addresses, makes the
// cluster's etcd CA and a certificate for each member and each controller,
// writes its own files and a bundle for each other machine (bundle.h); each
// other machine installs its bundle and starts its etcd member (and, on a
// standby, munge and ctld, which stands by).
#ifndef SKIFF_ADMIN_HA_HA_INIT_H_
#define SKIFF_ADMIN_HA_HA_INIT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "admin/admin_files.h"
#include "admin/ha/ha_plan.h"

namespace skiff::cli::ha {

// The plan for `head` (its address given or resolved) and the --standby and
// --vote specs (NAME or NAME(ADDRESS); a name alone is resolved here, IPv4
// first). InvalidArgument says what to give.
absl::StatusOr<Plan> MakePlan(const std::string& cluster, Member head,
                              const std::vector<std::string>& standbys,
                              const std::vector<std::string>& votes);

// On the head, after its skiff.conf and munge key were written: the CA (its key
// kept root's, 0400, to add a machine later), the head's etcd member and ctld
// certificates, etcd's settings and drop-in, and /root/skiff-NAME.bundle for
// every other member. Returns what to tell the admin.
absl::StatusOr<std::string> WriteHeadFiles(const Plan& plan, const std::string& root,
                                           const std::string& slurm_user,
                                           const std::string& skiff_conf_text,
                                           const std::string& munge_key);

// The head's services: munge, etcd (not waited for: it serves once a second
// member runs) and ctld, which waits for etcd.
absl::Status StartHead(const CommandRunner& run);

// What the admin does next on the other machines, and then for the nodes.
std::string NextSteps(const Plan& plan, const std::string& root);

struct BundleInstallOptions {
  std::string path;
  std::string root;  // tests
  std::string host;  // this machine's name; empty: its short host name
  bool force = false;
  bool start = true;
};

// `skiff init --bundle FILE`: checks the file (root's, closed to others),
// that it is for this machine, writes its files and starts etcd (and munge and
// ctld on a standby). Returns what to print.
absl::StatusOr<std::string> InstallBundle(const BundleInstallOptions& options,
                                          const CommandRunner& run);

}  // namespace skiff::cli::ha

#endif  // SKIFF_ADMIN_HA_HA_INIT_H_
