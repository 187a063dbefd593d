// Per-TRES values as sacctmgr and scontrol show assoc_mgr speak of them: a QOS
// or association limit, or what running jobs hold. Each TRES is given or not;
// what "not given" means (no limit, inherited, nothing counted yet) is the
// user's to say.
//
// Threads: none; a plain value.
#ifndef SKIFF_CTLD_CORE_ACCOUNTING_TRES_SPEC_H_
#define SKIFF_CTLD_CORE_ACCOUNTING_TRES_SPEC_H_

#include <cstdint>
#include <optional>

namespace skiff::ctld {

struct TresSpec {
  std::optional<int64_t> cpu;
  std::optional<int64_t> mem_mb;
  std::optional<int64_t> node;
  std::optional<int64_t> gpu;  // gres/gpu
};

inline bool operator==(const TresSpec& a, const TresSpec& b) {
  return a.cpu == b.cpu && a.mem_mb == b.mem_mb && a.node == b.node && a.gpu == b.gpu;
}
inline bool operator!=(const TresSpec& a, const TresSpec& b) { return !(a == b); }

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_ACCOUNTING_TRES_SPEC_H_
