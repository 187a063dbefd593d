#include "ctld/core/burst_buffer/pools.h"

#include <limits>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/json.h"

namespace skiff::ctld {
namespace {

absl::Status PoolError(size_t index, std::string_view name, std::string_view problem) {
  if (name.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("slurm_bb_pools: pools[", index, "]: ", std::string(problem)));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("slurm_bb_pools: pool \"", std::string(name), "\": ", std::string(problem)));
}

// A JSON number that is a non-negative integer (doubles such as 8.0 are accepted
// because Lua 5.4 scripts that build the JSON with string.format("%f") or
// tostring of a float produce them).
bool AsCount(const JsonValue* v, uint64_t& out) {
  if (v == nullptr) return false;
  if (v->type() == JsonValue::Type::kInteger) {
    if (v->as_integer() < 0) return false;
    out = static_cast<uint64_t>(v->as_integer());
    return true;
  }
  if (v->type() == JsonValue::Type::kDouble) {
    const double d = v->as_double();
    if (!(d >= 0) || d >= 18446744073709551616.0 ||
        d != static_cast<double>(static_cast<uint64_t>(d))) {
      return false;
    }
    out = static_cast<uint64_t>(d);
    return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<std::vector<BbPoolDef>> ParseBbPoolsJson(std::string_view json) {
  std::vector<BbPoolDef> defs;
  if (absl::StripAsciiWhitespace(absl::string_view(json.data(), json.size())).empty()) {
    return defs;
  }
  absl::StatusOr<JsonValue> doc = ParseJson(json);
  if (!doc.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("slurm_bb_pools: ", doc.status().message()));
  }
  if (doc->type() != JsonValue::Type::kObject) {
    return absl::InvalidArgumentError("slurm_bb_pools: expected a JSON object with \"pools\"");
  }
  const JsonValue* pools = doc->Find("pools");
  if (pools == nullptr || pools->is_null()) return defs;
  if (pools->type() != JsonValue::Type::kArray) {
    return absl::InvalidArgumentError("slurm_bb_pools: \"pools\" must be an array");
  }
  for (size_t i = 0; i < pools->as_array().size(); ++i) {
    const JsonValue& entry = pools->as_array()[i];
    if (entry.type() != JsonValue::Type::kObject) return PoolError(i, "", "not an object");
    const JsonValue* id = entry.Find("id");
    if (id == nullptr || id->type() != JsonValue::Type::kString || id->as_string().empty()) {
      return PoolError(i, "", "\"id\" must be a non-empty string");
    }
    const std::string& name = id->as_string();
    uint64_t quantity = 0;
    if (!AsCount(entry.Find("quantity"), quantity)) {
      return PoolError(i, name, "\"quantity\" must be a non-negative integer");
    }
    uint64_t granularity = 1;
    if (const JsonValue* g = entry.Find("granularity"); g != nullptr) {
      if (!AsCount(g, granularity) || granularity == 0) {
        return PoolError(i, name, "\"granularity\" must be a positive integer");
      }
    }
    uint64_t free = quantity;
    if (const JsonValue* f = entry.Find("free"); f != nullptr) {
      if (!AsCount(f, free)) return PoolError(i, name, "\"free\" must be a non-negative integer");
      if (free > quantity) return PoolError(i, name, "\"free\" is larger than \"quantity\"");
    }
    if (quantity > std::numeric_limits<uint64_t>::max() / granularity) {
      return PoolError(i, name, "quantity x granularity overflows 64 bits");
    }
    for (const BbPoolDef& seen : defs) {
      if (seen.name == name) return PoolError(i, name, "listed twice");
    }
    BbPoolDef def;
    def.name = name;
    def.granularity = granularity;
    def.total = quantity * granularity;
    def.unfree = (quantity - free) * granularity;
    defs.push_back(std::move(def));
  }
  return defs;
}

void BbPoolTable::Update(const std::vector<BbPoolDef>& defs) {
  for (BbPool& pool : pools_) {
    pool.total = 0;
    pool.unfree = 0;
  }
  for (const BbPoolDef& def : defs) {
    BbPool* pool = FindMutable(def.name);
    if (pool == nullptr) {
      pools_.push_back(BbPool{def.name});
      pool = &pools_.back();
    }
    pool->granularity = def.granularity;
    pool->total = def.total;
    pool->unfree = def.unfree;
  }
}

const BbPool* BbPoolTable::Find(std::string_view name) const {
  for (const BbPool& pool : pools_) {
    if (pool.name == name) return &pool;
  }
  return nullptr;
}

BbPool* BbPoolTable::FindMutable(std::string_view name) {
  return const_cast<BbPool*>(static_cast<const BbPoolTable*>(this)->Find(name));
}

absl::StatusOr<uint64_t> BbPoolTable::RoundUp(std::string_view pool_name, uint64_t bytes) const {
  const BbPool* pool = Find(pool_name);
  if (pool == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("unknown burst buffer pool \"", std::string(pool_name), "\""));
  }
  const uint64_t g = pool->granularity == 0 ? 1 : pool->granularity;
  const uint64_t remainder = bytes % g;
  if (remainder == 0) return bytes;
  if (bytes > std::numeric_limits<uint64_t>::max() - (g - remainder)) {
    return absl::OutOfRangeError(absl::StrCat("burst buffer size ", bytes,
                                              " overflows when rounded up to ", g, " in pool \"",
                                              std::string(pool_name), "\""));
  }
  return bytes + (g - remainder);
}

bool BbPoolTable::Fits(std::string_view pool_name, uint64_t bytes) const {
  const BbPool* pool = Find(pool_name);
  return pool != nullptr && bytes <= pool->Free();
}

absl::Status BbPoolTable::Reserve(const BbAllocation& alloc) {
  BbPool* pool = FindMutable(alloc.pool);
  if (pool == nullptr) {
    return absl::NotFoundError(absl::StrCat("unknown burst buffer pool \"", alloc.pool, "\""));
  }
  if (allocations_.count(alloc.job_id) != 0) {
    return absl::AlreadyExistsError(
        absl::StrCat("JobId=", alloc.job_id, " already holds a burst buffer allocation"));
  }
  const uint64_t g = pool->granularity == 0 ? 1 : pool->granularity;
  if (alloc.size == 0 || alloc.size % g != 0) {
    return absl::InvalidArgumentError(absl::StrCat("JobId=", alloc.job_id, ": size ", alloc.size,
                                                   " is not a positive multiple of pool \"",
                                                   alloc.pool, "\" granularity ", g));
  }
  if (alloc.size > pool->Free()) {
    return absl::ResourceExhaustedError(absl::StrCat("JobId=", alloc.job_id, ": pool \"",
                                                     alloc.pool, "\" has ", pool->Free(),
                                                     " bytes free, ", alloc.size, " requested"));
  }
  pool->allocated += alloc.size;
  allocations_.emplace(alloc.job_id, alloc);
  return absl::OkStatus();
}

absl::Status BbPoolTable::Restore(const BbAllocation& alloc) {
  if (allocations_.count(alloc.job_id) != 0) {
    return absl::AlreadyExistsError(
        absl::StrCat("JobId=", alloc.job_id, " already holds a burst buffer allocation"));
  }
  BbPool* pool = FindMutable(alloc.pool);
  if (pool == nullptr) {
    pools_.push_back(BbPool{alloc.pool});
    pool = &pools_.back();
  }
  pool->allocated += alloc.size;
  allocations_.emplace(alloc.job_id, alloc);
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> BbPoolTable::GrowAllocation(uint32_t job_id, uint64_t bytes) {
  auto it = allocations_.find(job_id);
  if (it == allocations_.end()) {
    return absl::NotFoundError(absl::StrCat("JobId=", job_id, " holds no burst buffer allocation"));
  }
  absl::StatusOr<uint64_t> rounded = RoundUp(it->second.pool, bytes);
  if (!rounded.ok()) return rounded.status();
  if (*rounded > it->second.size) {
    FindMutable(it->second.pool)->allocated += *rounded - it->second.size;
    it->second.size = *rounded;
  }
  return it->second.size;
}

absl::Status BbPoolTable::Release(uint32_t job_id) {
  auto it = allocations_.find(job_id);
  if (it == allocations_.end()) {
    return absl::NotFoundError(absl::StrCat("JobId=", job_id, " holds no burst buffer allocation"));
  }
  // Restore/Reserve always create the pool, and pools are never removed.
  BbPool* pool = FindMutable(it->second.pool);
  pool->allocated -= it->second.size;
  allocations_.erase(it);
  return absl::OkStatus();
}

const BbAllocation* BbPoolTable::FindAllocation(uint32_t job_id) const {
  auto it = allocations_.find(job_id);
  return it == allocations_.end() ? nullptr : &it->second;
}

}  // namespace skiff::ctld
