#include "noded/gpu/gpu_faults.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace skiff::noded {
namespace {

// NVIDIA's words for the fault Xids (its Xid catalogue), "" where it has none short.
const char* XidWords(uint64_t code) {
  switch (code) {
    case 48:
      return "double-bit ECC error";
    case 61:
    case 62:
      return "internal micro-controller error";
    case 63:
      return "ECC page retirement or row remapping";
    case 64:
      return "ECC page retirement or row remapper failure";
    case 74:
      return "NVLink error";
    case 79:
      return "GPU has fallen off the bus";
    case 92:
      return "high single-bit ECC error rate";
    case 94:
      return "contained ECC error";
    case 95:
      return "uncontained ECC error";
    case 119:
    case 120:
      return "GSP error";
    default:
      return "";
  }
}

}  // namespace

bool IsGpuFaultXid(uint64_t code) {
  switch (code) {
    case 48:
    case 61:
    case 62:
    case 63:
    case 64:
    case 68:
    case 69:
    case 73:
    case 74:
    case 79:
    case 92:
    case 94:
    case 95:
    case 119:
    case 120:
    case 140:
      return true;
    default:
      return false;
  }
}

std::string GpuFaultReason(const GpuFault& fault) {
  return absl::StrCat("GPU /dev/nvidia", fault.minor, ": ", fault.what);
}

std::vector<GpuFault> GpuFaultWatch::Check(const std::vector<GpuReading>& readings,
                                           const std::vector<unsigned>& expected_minors) {
  std::vector<GpuFault> faults;
  std::set<unsigned> seen;
  for (size_t i = 0; i < readings.size(); ++i) {
    const GpuReading& r = readings[i];
    if (r.lost) {
      auto known = minor_at_index_.find(i);
      if (known == minor_at_index_.end()) continue;  // never read: cannot say which
      seen.insert(known->second);
      if (lost_.insert(known->second).second) {
        faults.push_back({known->second, "GPU is lost (NVML)"});
      }
      continue;
    }
    if (!r.error.empty()) continue;
    minor_at_index_[i] = r.minor;
    seen.insert(r.minor);
    lost_.erase(r.minor);
    for (uint64_t xid : r.xids) {
      if (!IsGpuFaultXid(xid)) continue;
      const char* words = XidWords(xid);
      faults.push_back({r.minor, words[0] != '\0' ? absl::StrCat("Xid ", xid, " (", words, ")")
                                                  : absl::StrCat("Xid ", xid)});
    }
    if (r.uncorrected_ecc) {
      auto [it, first] = ecc_seen_.emplace(r.minor, *r.uncorrected_ecc);
      if (!first && *r.uncorrected_ecc > it->second) {
        const uint64_t more = *r.uncorrected_ecc - it->second;
        faults.push_back(
            {r.minor, absl::StrCat(more, " uncorrected ECC error", more == 1 ? "" : "s")});
        it->second = *r.uncorrected_ecc;
      }
    }
  }
  for (unsigned minor : expected_minors) {
    if (seen.count(minor) != 0) {
      continue;
    }
    if (lost_.insert(minor).second)
      faults.push_back({minor, "GPU is lost (NVML does not list it)"});
  }
  return faults;
}

}  // namespace skiff::noded
