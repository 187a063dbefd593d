// Slurm's billing TRES: what a job's resources are worth, from a partition's
// TRESBillingWeights ("CPU=1.0,Mem=0.25G,GRES/gpu=10"), and the service units
// (billing-minutes) a run costs. Pure functions, thread-safe.
#ifndef SKIFF_COMMON_BILLING_H_
#define SKIFF_COMMON_BILLING_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace skiff {

struct BillingWeights {
  bool set = false;       // false: billing is the CPU count (Slurm's default)
  double cpu = 0;         // per CPU
  double mem_per_gb = 0;  // per GiB of memory ("Mem=0.25G"; "Mem=0.25" is per MiB... see Parse)
  double node = 0;        // per node
  double gpu = 0;         // per GPU (GRES/gpu)
  double shard = 0;       // per GPU shard (GRES/shard): a fraction of a GPU's weight, say
  double mps = 0;         // per unit of GRES/mps (a GPU has 100 by convention)
};

// Parses TRESBillingWeights. Keys (any case): CPU, Mem (a weight per MiB, or
// with a K/M/G/T suffix per that unit, as Slurm reads "Mem=0.25G"), Node,
// GRES/gpu (and GRES/gpu:TYPE, counted as GRES/gpu), GRES/shard, GRES/mps.
// "" = not set.
// Errors (InvalidArgument) name the entry.
absl::StatusOr<BillingWeights> ParseBillingWeights(const std::string& text);

// A job's billing: the weighted sum of its resources, or its CPU count without
// weights. Never below 0.
// `shards` and `mps`: gres/shard and gres/mps held.
double Billing(const BillingWeights& weights, int64_t cpus, uint64_t mem_mb, int64_t gpus,
               int64_t nodes, int64_t shards = 0, int64_t mps = 0);

// Service units (billing-minutes) for `billing` over `seconds`.
inline double BillingMinutes(double billing, int64_t seconds) {
  return billing * static_cast<double>(seconds) / 60.0;
}

}  // namespace skiff

#endif  // SKIFF_COMMON_BILLING_H_
