// Slurm hostlist expressions: "gpu[01-04,07]", "n[1-3],login1", "rack[1-2]-n[1-2]".
//
// Pure functions, thread-safe, no I/O. Zero padding is kept: "gpu[01-03]" expands to
// gpu01 gpu02 gpu03, and compressing them gives back "gpu[01-03]".
#ifndef SKIFF_COMMON_HOSTLIST_H_
#define SKIFF_COMMON_HOSTLIST_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace skiff {

// Largest number of names one expression may expand to; guards against
// "n[0-999999999]" exhausting memory from a typo.
inline constexpr size_t kMaxHostlistSize = 1 << 20;

// Expands a hostlist expression into names, in the order written, duplicates kept.
// Commas outside brackets separate entries; several bracket groups in one entry
// form their cartesian product ("r[1-2]n[1-2]" -> r1n1 r1n2 r2n1 r2n2).
// Whitespace around entries is ignored and empty entries ("a,,b") are skipped, as
// Slurm does; an empty expression gives an empty list.
// Errors (InvalidArgument, message names the problem and quotes the expression):
// unclosed '[', ']' without '[', nested brackets, empty range, a range whose end is
// below its start, a non-numeric bound, more than kMaxHostlistSize names.
absl::StatusOr<std::vector<std::string>> ExpandHostlist(std::string_view expression);

// The shortest conventional form of names: sorted as Slurm sorts them (by prefix,
// then numerically by suffix), duplicates removed, consecutive numbers with equal
// prefix and equal width folded into ranges: {n1,n2,n3,n5} -> "n[1-3,5]";
// {gpu01,gpu02,login} -> "gpu[01-02],login"; a single name stays bare ("n1").
// "Equal width" means the name reads exactly as the range's lower bound would pad
// it on expansion, so runs may cross digit counts ("n[8-12]", "n[099-100]")
// while "n1" and "n02" never fold. Names whose numeric suffix does not fit in
// uint64_t are kept whole. ExpandHostlist of the result gives back the same set,
// for names free of ',', '[', ']' and surrounding whitespace.
std::string CompressHostlist(const std::vector<std::string>& names);

// Slurm's per-node count lists (SLURM_TASKS_PER_NODE, SLURM_JOB_CPUS_PER_NODE):
// runs of one value folded as "2(x3)": {2,2,2,1} -> "2(x3),1"; {} -> "".
std::string SlurmCountList(const std::vector<int>& counts);

}  // namespace skiff

#endif  // SKIFF_COMMON_HOSTLIST_H_
