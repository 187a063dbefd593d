#include "common/licenses.h"

#include <algorithm>
#include <cctype>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace skiff {

absl::StatusOr<std::vector<LicenseCount>> ParseLicenses(std::string_view text) {
  std::vector<LicenseCount> out;
  for (absl::string_view item : absl::StrSplit(absl::string_view(text.data(), text.size()),
                                               absl::ByAnyChar(",;"), absl::SkipEmpty())) {
    auto bad = [&](const char* why) {
      return absl::InvalidArgumentError(absl::StrCat("'", item, "' ", why));
    };
    if (std::any_of(item.begin(), item.end(),
                    [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; })) {
      return bad("contains white space");
    }
    absl::string_view name = item;
    int64_t count = 1;
    const size_t colon = item.find(':');
    if (colon != absl::string_view::npos) {
      name = item.substr(0, colon);
      const absl::string_view number = item.substr(colon + 1);
      // strtol reads "" as 0, as Slurm does ("foo:" asks for none).
      if (number.empty()) {
        count = 0;
      } else if (!absl::SimpleAtoi(number, &count) || count < 0 ||
                 count > std::numeric_limits<int32_t>::max()) {
        return bad("is not NAME[:COUNT] with COUNT a number of licenses");
      }
    }
    if (name.empty()) return bad("has no license name");
    auto same =
        std::find_if(out.begin(), out.end(), [&](const LicenseCount& l) { return l.name == name; });
    if (same != out.end()) {
      same->count = std::min<int64_t>(same->count + count, std::numeric_limits<int32_t>::max());
    } else {
      out.push_back({std::string(name), count});
    }
  }
  return out;
}

std::string FormatLicenses(const std::vector<LicenseCount>& licenses) {
  std::string out;
  for (const LicenseCount& license : licenses) {
    absl::StrAppend(&out, out.empty() ? "" : ",", license.name, ":", license.count);
  }
  return out;
}

absl::Status CheckLicenseRequest(const std::vector<LicenseCount>& requested,
                                 const std::vector<LicenseCount>& configured) {
  for (const LicenseCount& want : requested) {
    auto have = std::find_if(configured.begin(), configured.end(),
                             [&](const LicenseCount& l) { return l.name == want.name; });
    if (have == configured.end() || want.count > have->count) {
      return absl::InvalidArgumentError(kInvalidLicenses);
    }
  }
  return absl::OkStatus();
}

}  // namespace skiff
