// Lists of logical CPU ids: which of a node's CPUs a job gets (ctld chooses
// them when it places a job; noded confines the job to them) and the kernel's
// and Slurm's text form of such a list ("0-2,5": cpuset.cpus, scontrol's
// CPU_IDs=). Pure functions, thread-safe.
#ifndef SKIFF_COMMON_CPU_LIST_H_
#define SKIFF_COMMON_CPU_LIST_H_

#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace skiff {

// Chooses `count` of the node's logical CPU ids [0, node_cpus) for a job: the
// lowest ids not in `used` (the CPUs of the node's other running jobs). When
// fewer are free (ctld allocated more than the node has free, which it should
// not), the rest are the lowest used ones, so the job still gets `count` ids.
// Empty for count <= 0 or node_cpus <= 0.
std::vector<int> ChooseCpuIds(int count, int node_cpus, const std::set<int>& used);

// "0-2,5" for {0,1,2,5} (sorted, deduplicated first); "" for none.
std::string FormatCpuList(std::vector<int> cpus);
// The kernel's list format ("0-2,5", "" or "\n" for none). InvalidArgument on junk.
absl::StatusOr<std::vector<int>> ParseCpuList(const std::string& text);

}  // namespace skiff

#endif  // SKIFF_COMMON_CPU_LIST_H_
