#include "common/cpu_list.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace skiff {

std::vector<int> ChooseCpuIds(int count, int node_cpus, const std::set<int>& used) {
  std::vector<int> chosen;
  if (count <= 0 || node_cpus <= 0) return chosen;
  for (int id = 0; id < node_cpus && static_cast<int>(chosen.size()) < count; ++id) {
    if (used.count(id) == 0) chosen.push_back(id);
  }
  for (int id = 0; id < node_cpus && static_cast<int>(chosen.size()) < count; ++id) {
    if (used.count(id) != 0) chosen.push_back(id);
  }
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

std::string FormatCpuList(std::vector<int> cpus) {
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ",";
    absl::StrAppend(&out, cpus[i]);
    if (j > i) absl::StrAppend(&out, "-", cpus[j]);
    i = j + 1;
  }
  return out;
}

absl::StatusOr<std::vector<int>> ParseCpuList(const std::string& text) {
  std::vector<int> cpus;
  absl::string_view body = absl::StripAsciiWhitespace(text);
  if (body.empty()) return cpus;
  for (absl::string_view part : absl::StrSplit(body, ',')) {
    std::vector<absl::string_view> range = absl::StrSplit(part, absl::MaxSplits('-', 1));
    int first = 0;
    int last = 0;
    if (!absl::SimpleAtoi(range[0], &first) ||
        (range.size() == 2 ? !absl::SimpleAtoi(range[1], &last) : (last = first, false)) ||
        first < 0 || last < first) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad CPU list '", std::string(body), "' at '", std::string(part), "'"));
    }
    for (int cpu = first; cpu <= last; ++cpu) cpus.push_back(cpu);
  }
  return cpus;
}

}  // namespace skiff
