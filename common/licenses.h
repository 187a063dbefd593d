// Licenses: counted resources of the whole cluster (Slurm's Licenses= in
// slurm.conf, a job's -L/--licenses), such as a site's MATLAB seats.
//
// Both use Slurm's grammar (slurmctld/licenses.c, _build_license_list):
// NAME[:COUNT] items separated by ',' or ';', COUNT a non-negative integer
// (1 when left out), no white space anywhere; a name given twice adds up.
//
// Pure: no I/O, no globals.
#ifndef SKIFF_COMMON_LICENSES_H_
#define SKIFF_COMMON_LICENSES_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace skiff {

struct LicenseCount {
  std::string name;
  int64_t count = 0;

  bool operator==(const LicenseCount& other) const {
    return name == other.name && count == other.count;
  }
};

// The items of `text` in order of first appearance, duplicates summed; an
// empty list for "". InvalidArgument naming the item that breaks the grammar.
absl::StatusOr<std::vector<LicenseCount>> ParseLicenses(std::string_view text);

// "name:count,..." as Slurm writes a license list back.
std::string FormatLicenses(const std::vector<LicenseCount>& licenses);

// Whether a job may ever hold `requested`: every name is configured, with at
// least the count asked. InvalidArgument with Slurm's ESLURM_INVALID_LICENSES
// text ("Invalid license specification") otherwise.
absl::Status CheckLicenseRequest(const std::vector<LicenseCount>& requested,
                                 const std::vector<LicenseCount>& configured);

// Slurm's text for a license request the cluster cannot grant.
inline constexpr char kInvalidLicenses[] = "Invalid license specification";

}  // namespace skiff

#endif  // SKIFF_COMMON_LICENSES_H_
