#include "noded/gpu/mig.h"

#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace skiff::noded {

std::string MigProfile(unsigned slices, uint64_t memory_mb) {
  return absl::StrCat(slices, "g.", std::llround(static_cast<double>(memory_mb) / 1024.0), "gb");
}

bool DriverNamesMigByUuid(absl::string_view driver_version) {
  constexpr unsigned kFirst[] = {470, 42, 1};
  std::vector<absl::string_view> parts = absl::StrSplit(driver_version, '.');
  for (size_t i = 0; i < 3; ++i) {
    unsigned n = 0;  // a part not written is 0 ("470.42" is before 470.42.01)
    if (i < parts.size() && !absl::SimpleAtoi(parts[i], &n)) return false;
    if (n != kFirst[i]) return n > kFirst[i];
  }
  return true;
}

absl::StatusOr<MigCapMinors> FindMigCapMinors(absl::string_view mig_minors, unsigned gpu_minor,
                                              unsigned gpu_instance, unsigned compute_instance) {
  const std::string gi_key = absl::StrCat("gpu", gpu_minor, "/gi", gpu_instance, "/access");
  const std::string ci_key =
      absl::StrCat("gpu", gpu_minor, "/gi", gpu_instance, "/ci", compute_instance, "/access");
  bool gi_found = false, ci_found = false;
  MigCapMinors out;
  for (absl::string_view line : absl::StrSplit(mig_minors, '\n')) {
    std::vector<absl::string_view> words = absl::StrSplit(line, ' ', absl::SkipEmpty());
    if (words.size() != 2) continue;
    unsigned minor = 0;
    if (!absl::SimpleAtoi(words[1], &minor)) continue;
    if (words[0] == gi_key) {
      out.gpu_instance = minor;
      gi_found = true;
    } else if (words[0] == ci_key) {
      out.compute_instance = minor;
      ci_found = true;
    }
  }
  if (!gi_found || !ci_found) {
    return absl::NotFoundError(
        absl::StrCat("no ", gi_found ? ci_key : gi_key, " line in ", kMigMinorsPath));
  }
  return out;
}

std::vector<std::string> MigDeviceFiles(unsigned gpu_minor, const MigCapMinors& caps) {
  return {absl::StrCat("/dev/nvidia", gpu_minor),
          absl::StrCat("/dev/nvidia-caps/nvidia-cap", caps.gpu_instance),
          absl::StrCat("/dev/nvidia-caps/nvidia-cap", caps.compute_instance)};
}

std::string CudaDeviceList(const std::vector<int>& indices,
                           const std::vector<std::string>& cuda_names) {
  std::vector<std::string> out;
  for (int index : indices) {
    const bool named = index >= 0 && static_cast<size_t>(index) < cuda_names.size() &&
                       !cuda_names[static_cast<size_t>(index)].empty();
    out.push_back(named ? cuda_names[static_cast<size_t>(index)] : absl::StrCat(index));
  }
  return absl::StrJoin(out, ",");
}

}  // namespace skiff::noded
