// What a job's run holds, per trackable resource (TRES), and the usage it adds
// up to (TRES x seconds): the figures behind sacct's AllocTRES, sreport's -T
// reports and sshare's GrpTRESRaw.
//
// A TRES list maps Slurm's TRES names ("cpu", "mem", "node", "billing",
// "gres/gpu", "gres/gpu:a100") to counts in Slurm's raw units: mem in MiB, the
// others as plain counts. Pure functions, thread-safe.
#ifndef SKIFF_COMMON_TRES_USAGE_H_
#define SKIFF_COMMON_TRES_USAGE_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace skiff {

using TresCounts = std::map<std::string, double>;

// Slurm's eight TRES that every cluster has, by their fixed ids (1 to 8).
inline constexpr const char* kBaseTres[] = {"cpu",     "mem",     "energy", "node",
                                            "billing", "fs/disk", "vmem",   "pages"};

// Slurm's TRES order (by id): the eight base TRES first, then the rest (bb/*,
// gres/*, license/*) by name, as a database that added them in that order
// numbers them.
bool TresBefore(const std::string& a, const std::string& b);

// What a run holds: cpu, mem (when > 0), node, billing, gres/gpu (when any),
// gres/gpu:TYPE for each typed entry of `gpus_by_type` ("" = untyped GPUs,
// counted in gres/gpu only), gres/shard and gres/mps (when any). `billing`
// is truncated to a whole number as Slurm's calc_job_billable_tres result is
// when stored in tres_alloc_cnt.
TresCounts RunTres(int64_t cpus, uint64_t mem_mb, int64_t nodes, double billing,
                   const std::map<std::string, int64_t>& gpus_by_type, int64_t shards = 0,
                   int64_t mps = 0);

// The store's form: "billing=2,cpu=2,gres/gpu=1,mem=1024,node=1", by name,
// numbers as %.15g (whole counts print without a point).
std::string EncodeTres(const TresCounts& counts);
// Reverses EncodeTres. Errors (InvalidArgument): an entry without '=' or with
// a value that is not a number.
absl::StatusOr<TresCounts> DecodeTres(const std::string& text);

// sacct's AllocTRES/ReqTRES text: by name, whole counts, mem with Slurm's unit
// suffix ("billing=2,cpu=2,gres/gpu=1,mem=1G,node=1").
std::string FormatTresForSacct(const TresCounts& counts);

// Adds `counts` x `seconds` into `usage` (TRES-seconds).
void AddTresUsage(const TresCounts& counts, double seconds, TresCounts* usage);

}  // namespace skiff

#endif  // SKIFF_COMMON_TRES_USAGE_H_
