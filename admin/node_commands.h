// `skiff node remove NAME...`: a node that joined leaves the cluster, as
// `scontrol delete NodeName=` (ctld's DeleteNodes: operators only, refused
// while the node holds or finishes a job, is reserved, or is defined in
// skiff.conf). Every node shares the one munge key: `skiff node remove` then
// replaces it (key_commands.h), and the removed node, whose node key went with
// its record, cannot fetch the new one.
#ifndef SKIFF_ADMIN_NODE_COMMANDS_H_
#define SKIFF_ADMIN_NODE_COMMANDS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace skiff::cli {

// `conf_path` as the commands take it (-f, else $SKIFF_CONF,
// /etc/skiff/skiff.conf); `names` hostlists ("n[7-8]").
absl::Status RemoveNodes(const std::string& conf_path, const std::vector<std::string>& names);

}  // namespace skiff::cli

#endif  // SKIFF_ADMIN_NODE_COMMANDS_H_
