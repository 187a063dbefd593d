#include "noded/gpu/gpu_usage.h"

#include <algorithm>
#include <cctype>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace skiff::noded {
namespace {

constexpr uint64_t kMiB = 1024 * 1024;

// The decimal number at `at` in `text`, if it is one whole path component.
std::optional<uint64_t> NumberAfter(absl::string_view text, size_t at) {
  size_t end = at;
  while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
  uint64_t value = 0;
  if (end == at || !absl::SimpleAtoi(text.substr(at, end - at), &value)) return std::nullopt;
  // The number must end the path component: job_12 is not job_123's prefix.
  if (end < text.size() && text[end] != '/' && text[end] != '\n') return std::nullopt;
  return value;
}

}  // namespace

void AddReading(const GpuReading& reading, uint64_t job_id,
                const std::map<pid_t, uint64_t>& job_of_pid, GpuUse* use) {
  use->minor = reading.minor;
  if (!reading.error.empty()) return;
  if (reading.util_percent) {
    const int util = static_cast<int>(std::min(*reading.util_percent, 100u));
    ++use->samples;
    use->util_sum += util;
    use->util_max = std::max(use->util_max, util);
  }
  std::optional<uint64_t> memory;
  if (reading.processes) {
    uint64_t sum = 0;
    for (const GpuProcess& p : *reading.processes) {
      auto it = job_of_pid.find(p.pid);
      if (it != job_of_pid.end() && it->second == job_id && p.used_bytes) sum += *p.used_bytes;
    }
    memory = sum;
  } else {
    memory = reading.memory_used_bytes;
  }
  if (memory) {
    ++use->memory_samples;
    use->memory_sum_mib += *memory / kMiB;
    use->memory_max_bytes = std::max(use->memory_max_bytes, *memory);
  }
  if (reading.memory_total_bytes) use->memory_total_bytes = *reading.memory_total_bytes;
  if (reading.energy_mj) {
    if (!use->energy_first_mj) use->energy_first_mj = reading.energy_mj;
    use->energy_last_mj = reading.energy_mj;
  }
}

std::vector<StrayGpuProcess> StrayGpuProcesses(
    const std::vector<GpuReading>& readings,
    const std::map<unsigned, std::vector<uint64_t>>& holders_of_minor,
    const std::map<pid_t, uint64_t>& job_of_pid) {
  std::vector<StrayGpuProcess> strays;
  for (const GpuReading& reading : readings) {
    if (!reading.processes) continue;
    auto holders = holders_of_minor.find(reading.minor);
    for (const GpuProcess& p : *reading.processes) {
      auto job = job_of_pid.find(p.pid);
      const uint64_t job_id = job == job_of_pid.end() ? 0 : job->second;
      if (job_id != 0 && holders != holders_of_minor.end() &&
          std::find(holders->second.begin(), holders->second.end(), job_id) !=
              holders->second.end()) {
        continue;
      }
      strays.push_back({reading.minor, p.pid, job_id});
    }
  }
  return strays;
}

std::optional<uint64_t> JobOfProcess(const std::string& node_name, const std::string& cgroup_text,
                                     const std::string& environ_text) {
  const std::string marker = absl::StrCat("skiff/", node_name, "/job_");
  for (size_t at = cgroup_text.find(marker); at != std::string::npos;
       at = cgroup_text.find(marker, at + 1)) {
    // Only a whole path component: "/skiff/..." or the path's start.
    if (at != 0 && cgroup_text[at - 1] != '/' && cgroup_text[at - 1] != ':') continue;
    if (std::optional<uint64_t> id = NumberAfter(cgroup_text, at + marker.size()); id) return id;
  }
  for (absl::string_view entry : absl::StrSplit(environ_text, '\0')) {
    if (!absl::ConsumePrefix(&entry, "SLURM_JOB_ID=")) continue;
    uint64_t id = 0;
    if (absl::SimpleAtoi(entry, &id) && id != 0) return id;
  }
  return std::nullopt;
}

std::optional<unsigned> DeviceFileMinor(const std::string& path) {
  size_t start = path.size();
  while (start > 0 && std::isdigit(static_cast<unsigned char>(path[start - 1]))) --start;
  unsigned minor = 0;
  if (start == path.size() || !absl::SimpleAtoi(path.substr(start), &minor)) return std::nullopt;
  return minor;
}

std::string FormatGpuUses(const std::vector<GpuUse>& uses) {
  std::string out;
  for (const GpuUse& u : uses) {
    out += "gpu";
    if (!u.node.empty()) absl::StrAppend(&out, " node=", u.node);
    absl::StrAppend(&out, " index=", u.index, " minor=", u.minor, " samples=", u.samples,
                    " util_sum=", u.util_sum, " util_max=", u.util_max,
                    " memory_samples=", u.memory_samples, " memory_sum_mib=", u.memory_sum_mib,
                    " memory_max=", u.memory_max_bytes, " memory_total=", u.memory_total_bytes);
    if (u.energy_first_mj) absl::StrAppend(&out, " energy_first=", *u.energy_first_mj);
    if (u.energy_last_mj) absl::StrAppend(&out, " energy_last=", *u.energy_last_mj);
    out += '\n';
  }
  return out;
}

absl::StatusOr<std::vector<GpuUse>> ParseGpuUses(const std::string& text) {
  std::vector<GpuUse> uses;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    std::vector<absl::string_view> words = absl::StrSplit(line, ' ', absl::SkipEmpty());
    if (words.empty() || words[0] != "gpu") continue;
    GpuUse u;
    for (size_t i = 1; i < words.size(); ++i) {
      std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(words[i], '=');
      bool ok = true;
      uint64_t energy = 0;
      if (kv.first == "node") {
        u.node = std::string(kv.second);
      } else if (kv.first == "index") {
        ok = absl::SimpleAtoi(kv.second, &u.index);
      } else if (kv.first == "minor") {
        ok = absl::SimpleAtoi(kv.second, &u.minor);
      } else if (kv.first == "samples") {
        ok = absl::SimpleAtoi(kv.second, &u.samples);
      } else if (kv.first == "util_sum") {
        ok = absl::SimpleAtoi(kv.second, &u.util_sum);
      } else if (kv.first == "util_max") {
        ok = absl::SimpleAtoi(kv.second, &u.util_max);
      } else if (kv.first == "memory_samples") {
        ok = absl::SimpleAtoi(kv.second, &u.memory_samples);
      } else if (kv.first == "memory_sum_mib") {
        ok = absl::SimpleAtoi(kv.second, &u.memory_sum_mib);
      } else if (kv.first == "memory_max") {
        ok = absl::SimpleAtoi(kv.second, &u.memory_max_bytes);
      } else if (kv.first == "memory_total") {
        ok = absl::SimpleAtoi(kv.second, &u.memory_total_bytes);
      } else if (kv.first == "energy_first") {
        ok = absl::SimpleAtoi(kv.second, &energy);
        u.energy_first_mj = energy;
      } else if (kv.first == "energy_last") {
        ok = absl::SimpleAtoi(kv.second, &energy);
        u.energy_last_mj = energy;
      }
      if (!ok) {
        return absl::InvalidArgumentError(
            absl::StrCat(kGpuUsageFileName, ": bad value in '", words[i], "'"));
      }
    }
    uses.push_back(u);
  }
  return uses;
}

}  // namespace skiff::noded
