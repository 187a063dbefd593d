// Burst-buffer pools: definitions from slurm_bb_pools() and space accounting.
//
// slurm_bb_pools() answers {"pools":[{"id":..,"quantity":..,"granularity":..,
// "free":..}]}. As in Slurm, quantity and free count granules: total space is
// quantity x granularity bytes, and (quantity - free) x granularity is space the
// storage system reports in use ("unfree"), which includes Skiff's own
// allocations when the backend sees them. So a pool's used space is
// max(sum of Skiff's allocations, unfree), Slurm's rule, which neither double
// counts Skiff's buffers nor ignores space taken outside Skiff.
//
// BbPoolTable is a plain value owned by ctld's state (not thread-safe; callers
// hold the state lock). Allocations are keyed by job id, so used space is a sum
// over live allocations and can never go negative, and a double release is an
// error instead of a silent leak.
#ifndef SKIFF_CTLD_CORE_BURST_BUFFER_POOLS_H_
#define SKIFF_CTLD_CORE_BURST_BUFFER_POOLS_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace skiff::ctld {

// One pool as slurm_bb_pools() defines it, converted to bytes.
struct BbPoolDef {
  std::string name;          // "id"
  uint64_t granularity = 1;  // "granularity" bytes; requests round up to it (>= 1)
  uint64_t total = 0;        // "quantity" x granularity
  uint64_t unfree = 0;       // ("quantity" - "free") x granularity; 0 without "free"
};

// Parses slurm_bb_pools()'s JSON. An empty string or {} means "no pools" (the
// guide: return only slurm.SUCCESS when pools are not wanted). "granularity"
// defaults to 1 and "free" to "quantity".
// Errors (InvalidArgument, naming the pool): bad JSON, "pools" not an array, an
// entry without a string "id" or a non-negative integer "quantity", granularity
// 0 or negative, free > quantity, a duplicate id, quantity x granularity over
// 2^64.
absl::StatusOr<std::vector<BbPoolDef>> ParseBbPoolsJson(std::string_view json);

// A job's charge against a pool.
struct BbAllocation {
  uint32_t job_id = 0;
  uint32_t user_id = 0;
  std::string pool;
  uint64_t size = 0;        // bytes, a multiple of the pool's granularity
  int64_t create_time = 0;  // unix seconds, for scontrol show burst's CreateTime=
};

struct BbPool {
  std::string name;
  uint64_t granularity = 1;
  uint64_t total = 0;
  uint64_t unfree = 0;     // reported by the storage system
  uint64_t allocated = 0;  // sum of Skiff's allocations in this pool

  uint64_t Used() const { return allocated > unfree ? allocated : unfree; }
  // Never negative: an over-committed pool (see GrowAllocation) has 0 free.
  uint64_t Free() const { return total > Used() ? total - Used() : 0; }
};

class BbPoolTable {
 public:
  // Replaces the pool definitions with a fresh slurm_bb_pools() answer. New pools
  // appear; a pool missing from `defs` stays listed with total and unfree
  // zeroed (Slurm's behaviour), so its live allocations can still be released
  // and nothing new fits in it; its granularity is kept for display. Order of first appearance is
  // kept, so PoolName[i] in scontrol show burst stays stable.
  void Update(const std::vector<BbPoolDef>& defs);

  // nullptr for an unknown pool.
  const BbPool* Find(std::string_view name) const;
  const std::vector<BbPool>& pools() const { return pools_; }

  // `bytes` rounded up to the pool's granularity.
  // Errors: NotFound for an unknown pool, OutOfRange on overflow.
  absl::StatusOr<uint64_t> RoundUp(std::string_view pool, uint64_t bytes) const;

  // True when `bytes` (already rounded) fit in the pool's free space now.
  bool Fits(std::string_view pool, uint64_t bytes) const;

  // Charges alloc.size to alloc.pool for alloc.job_id. Never changes anything on
  // error. Errors: NotFound (unknown pool), AlreadyExists (the job already holds
  // an allocation), InvalidArgument (size 0 or not a multiple of the granularity),
  // ResourceExhausted (does not fit; the caller leaves the job pending with
  // BurstBufferResources).
  absl::Status Reserve(const BbAllocation& alloc);

  // Re-creates a persisted allocation at start-up without the space check: the
  // space is in use on the storage whatever the pools now say.
  // Errors: AlreadyExists for a second allocation of the same job. An unknown
  // pool is added zeroed (granularity 1), as Update would leave it.
  absl::Status Restore(const BbAllocation& alloc);

  // slurm_bb_real_size may only raise the charge: sets the job's size to
  // max(current, RoundUp(bytes)) even past the pool's free space, because the
  // storage is already in use. Returns the new size. Errors: NotFound when the
  // job holds no allocation.
  absl::StatusOr<uint64_t> GrowAllocation(uint32_t job_id, uint64_t bytes);

  // Returns the job's space after teardown completed. Errors: NotFound when the
  // job holds no allocation (a double release), which changes nothing.
  absl::Status Release(uint32_t job_id);

  const BbAllocation* FindAllocation(uint32_t job_id) const;
  const std::map<uint32_t, BbAllocation>& allocations() const { return allocations_; }

 private:
  BbPool* FindMutable(std::string_view name);

  std::vector<BbPool> pools_;
  std::map<uint32_t, BbAllocation> allocations_;
};

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_BURST_BUFFER_POOLS_H_
