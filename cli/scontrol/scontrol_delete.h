// scontrol delete: "delete ENTITY=ID" and "delete ENTITY ID", as Slurm 22.05's
// _delete_it: ReservationName (ctld deletes the reservation) and NodeName
// (a node that joined leaves the cluster, as Slurm deletes a dynamic node).
// PartitionName is refused: partitions come from skiff.conf.
#ifndef SKIFF_CLI_SCONTROL_SCONTROL_DELETE_H_
#define SKIFF_CLI_SCONTROL_SCONTROL_DELETE_H_

#include <string>
#include <vector>

namespace skiff::cli {

// What `args` (the words after "delete") name; `entity` is "" when the words
// are not one of Slurm's two forms, "?" for an entity Slurm has not.
struct DeleteTarget {
  std::string entity;  // "reservation", "node", "partition", "" or "?"
  std::string word;    // the first word, as Slurm's messages quote it
  std::string id;
};
DeleteTarget ParseDeleteTarget(const std::vector<std::string>& args);

// Runs `scontrol delete ARGS`: nothing printed on success; Slurm's
// "delete_node NodeName=n9: <error>" (and the reservation's) when refused.
// Returns scontrol's exit status.
int RunDelete(const std::vector<std::string>& args);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_SCONTROL_SCONTROL_DELETE_H_
