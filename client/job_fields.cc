#include "client/job_fields.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "client/job_text.h"
#include "common/size.h"

namespace skiff::client {
namespace {

// The count in a gres entry: "gpu:2" -> 2, "gpu:a100:1" -> 1, "gpu" -> 1.
int64_t GresCount(const std::string& entry) {
  size_t colon = entry.rfind(':');
  if (colon == std::string::npos) return 1;
  std::string tail = entry.substr(colon + 1);
  if (tail.empty() || !std::all_of(tail.begin(), tail.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) != 0;
      })) {
    return 1;
  }
  return std::stoll(tail);
}

std::string GresName(const std::string& entry) { return entry.substr(0, entry.find(':')); }

// The count in a -G/--gpus-per-node item: "4" -> 4, "a100:2" -> 2.
int64_t GpuCount(const std::string& item) {
  std::string tail = item.substr(item.rfind(':') + 1);  // npos + 1 == 0: the whole item
  if (tail.empty() || tail.size() > 9 || !std::all_of(tail.begin(), tail.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) != 0;
      })) {
    return 1;
  }
  return std::stoll(tail);
}

// "capacity=2G" in a burst-buffer request, normalised the way Slurm prints TRES.
std::string BurstBufferCapacity(const std::string& bb) {
  size_t at = bb.find("capacity=");
  if (at == std::string::npos) return "";
  size_t start = at + 9;
  size_t end = bb.find_first_of(" \t\n,", start);
  std::string value = bb.substr(start, end == std::string::npos ? std::string::npos : end - start);
  absl::StatusOr<uint64_t> bytes = ParseSize(value, kMiB);
  return bytes.ok() ? FormatSize(*bytes) : value;
}

}  // namespace

// The remaining dependencies as Slurm shows them: ctld's text as is when it
// carries Slurm's state marks, else one element per job id ("afterok:1:2" ->
// "afterok:1(m),afterok:2(m)"), each marked "(unfulfilled)", or "(failed)" once
// the job can never run (DependencyNeverSatisfied).
std::string JobDependencyText(const v1::JobInfo& job) {
  const std::string& dep = job.dependency();
  if (dep.empty()) return "(null)";
  if (dep.find('(') != std::string::npos) return dep;
  const std::string mark =
      job.state_reason() == "DependencyNeverSatisfied" ? "(failed)" : "(unfulfilled)";
  // '?' joins alternatives (any one suffices), ',' requirements (all must hold).
  const char sep = dep.find('?') != std::string::npos ? '?' : ',';
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= dep.size()) {
    size_t end = dep.find_first_of(",?", start);
    if (end == std::string::npos) end = dep.size();
    std::string element = dep.substr(start, end - start);
    start = end + 1;
    if (element.empty()) continue;
    size_t colon = element.find(':');
    if (colon == std::string::npos) {
      out.push_back(element + mark);
      continue;
    }
    std::string type = element.substr(0, colon);
    for (const std::string& id :
         std::vector<std::string>(absl::StrSplit(element.substr(colon + 1), ':'))) {
      out.push_back(absl::StrCat(type, ":", id, mark));
    }
  }
  return absl::StrJoin(out, std::string(1, sep));
}

int32_t JobNumNodes(const v1::JobInfo& job) {
  if (job.num_nodes() > 0) return job.num_nodes();
  return job.spec().min_nodes() > 0 ? job.spec().min_nodes() : 1;
}

int32_t JobNumCpus(const v1::JobInfo& job) { return job.num_cpus() > 0 ? job.num_cpus() : 1; }

// Total memory of the job in MiB, 0 when unknown.
uint64_t JobTotalMemoryMb(const v1::JobInfo& job) {
  const v1::JobSpec& spec = job.spec();
  if (job.mem_per_node_mb() > 0) return job.mem_per_node_mb() * JobNumNodes(job);
  if (spec.mem_per_node_mb() > 0) return spec.mem_per_node_mb() * JobNumNodes(job);
  return spec.mem_per_cpu_mb() * JobNumCpus(job);
}

std::string JobTresText(const v1::JobInfo& job) {
  std::vector<std::string> parts;
  parts.push_back(absl::StrCat("cpu=", JobNumCpus(job)));
  if (uint64_t mem = JobTotalMemoryMb(job); mem > 0) {
    parts.push_back(absl::StrCat("mem=", FormatMemoryMb(mem)));
  }
  parts.push_back(absl::StrCat("node=", JobNumNodes(job)));
  parts.push_back(absl::StrCat("billing=", JobNumCpus(job)));
  if (std::string bb = BurstBufferCapacity(job.spec().burst_buffer()); !bb.empty()) {
    parts.push_back("bb/lua=" + bb);
  }
  std::map<std::string, int64_t> gres;
  for (const std::string& entry : job.spec().gres()) {
    gres[GresName(entry)] += GresCount(entry) * JobNumNodes(job);
  }
  for (const std::string& entry : SplitCommaList(job.spec().gpus_per_node())) {
    gres["gpu"] += GpuCount(entry) * JobNumNodes(job);
  }
  for (const std::string& entry : SplitCommaList(job.spec().gpus())) gres["gpu"] += GpuCount(entry);
  // --gpus-per-task counts per task, unless -G gave the job's total.
  if (job.spec().gpus().empty() && !job.spec().gpus_per_task().empty()) {
    gres["gpu"] += GpuCount(job.spec().gpus_per_task()) * std::max(1, job.spec().ntasks());
  }
  for (const auto& [name, count] : gres) parts.push_back(absl::StrCat("gres/", name, "=", count));
  return absl::StrJoin(parts, ",");
}

}  // namespace skiff::client
