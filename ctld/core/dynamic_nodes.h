// Nodes that joined (`skiff join`, Slurm's dynamic nodes `slurmd -Z`): what
// ctld stores of each, and the configuration in force with them added. Pure.
//
// A joined node is a NodeConfig like a NodeName line's, stored as a record
// (kind kDynamicNodeKind, key its name) in ctld's database and kept across
// restarts. It belongs to every partition declared `Nodes=ALL`. skiff.conf
// wins: a NodeName line with the same name replaces the joined node. A joined
// node is deleted as Slurm deletes a dynamic node: its record goes, and it
// leaves the configuration and the node table.
#ifndef SKIFF_CTLD_CORE_DYNAMIC_NODES_H_
#define SKIFF_CTLD_CORE_DYNAMIC_NODES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/config/config.h"

namespace skiff::ctld {

inline constexpr char kDynamicNodeKind[] = "dynamic_node";

// "CPUs=4 RealMemory=7900 Gres=gpu:a100:2 NodeAddr=10.0.0.7 Port=6818", the
// keys of a NodeName line (Gres, NodeAddr and Port only when set).
std::string EncodeDynamicNode(const NodeConfig& node);
// DataLoss naming the node when `blob` does not parse.
absl::StatusOr<NodeConfig> DecodeDynamicNode(const std::string& name, const std::string& blob);

// `config` with `joined` added: each node after skiff.conf's, named in every
// partition whose Nodes=ALL. A name skiff.conf already defines is skipped, with
// a note for the log.
SkiffConfig WithDynamicNodes(SkiffConfig config, const std::vector<NodeConfig>& joined,
                             std::vector<std::string>* notes);

// `config` without the nodes `names` (`scontrol delete NodeName=`, DELETE
// node/NAME of a joined node): out of its node list and every partition's.
SkiffConfig WithoutNodes(SkiffConfig config, const std::vector<std::string>& names);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_DYNAMIC_NODES_H_
