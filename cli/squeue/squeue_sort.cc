#include "cli/squeue/squeue_sort.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "client/job_text.h"
#include "common/hostlist.h"

namespace skiff::cli {
namespace {

constexpr char kSortable[] = "BCdDegGHiIjJlLmMNpPQStTuUvVz";
constexpr char kIgnored[] = "cfhnO";
constexpr char kCluster[] = "cluster";
constexpr size_t kClusterLength = sizeof(kCluster) - 1;
constexpr char kClusterKey = '\x01';  // one cluster: every job ties

template <typename T>
int Compare(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}
int Compare(const std::string& a, const std::string& b) {
  const int c = a.compare(b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

// A reference, not a copy: the sort calls it twice per comparison, and a copy
// per call was most of squeue's time with 100,000 jobs.
const std::string& PartitionOf(const v1::JobInfo& job) {
  return job.partition().empty() ? job.spec().partition() : job.partition();
}

int64_t TimeUsed(const v1::JobInfo& job, int64_t now) {
  if (job.state() == v1::PENDING || job.start_time() == 0) return 0;
  int64_t end =
      job.end_time() != 0 && !client::IsActiveJobState(job.state()) ? job.end_time() : now;
  return std::max<int64_t>(0, end - job.start_time());
}

int64_t StartTime(const v1::JobInfo& job) {
  return job.state() == v1::PENDING ? job.expected_start() : job.start_time();
}

// The numeric suffix-aware comparison of two jobs' first nodes (Slurm's
// hostlist_cmp_first): "n2" < "n10".
int CompareFirstNode(const v1::JobInfo& a, const v1::JobInfo& b) {
  auto first = [](const v1::JobInfo& job) {
    std::vector<std::string> nodes(job.nodes().begin(), job.nodes().end());
    std::sort(nodes.begin(), nodes.end());
    return nodes.empty() ? std::string() : nodes.front();
  };
  std::string x = first(a), y = first(b);
  size_t i = x.find_last_not_of("0123456789") + 1, j = y.find_last_not_of("0123456789") + 1;
  if (x.compare(0, i, y, 0, j) != 0 || i == x.size() || j == y.size()) return Compare(x, y);
  return Compare(std::stoull(x.substr(i)), std::stoull(y.substr(j)));
}

uint64_t MinMemory(const v1::JobInfo& job) {
  if (job.spec().mem_per_cpu_mb() > 0) return job.spec().mem_per_cpu_mb();
  if (job.spec().mem_per_node_mb() > 0) return job.spec().mem_per_node_mb();
  return job.mem_per_node_mb();
}

int CompareBy(char field, const v1::JobInfo& a, const v1::JobInfo& b, int64_t now) {
  switch (field) {
    case 'B': {
      auto host = [](const v1::JobInfo& j) { return j.nodes().empty() ? "" : j.nodes(0); };
      return Compare(std::string(host(a)), std::string(host(b)));
    }
    case 'C':
      return Compare(a.num_cpus(), b.num_cpus());
    case 'D':
      return Compare(a.num_nodes(), b.num_nodes());
    case 'e':
      return Compare(a.end_time(), b.end_time());
    case 'g':
      return Compare(a.group_name(), b.group_name());
    case 'G':
      return Compare(a.group_id(), b.group_id());
    case 'i': {
      uint64_t x = client::IsArrayTask(a) ? a.array_job_id() : a.job_id();
      uint64_t y = client::IsArrayTask(b) ? b.array_job_id() : b.job_id();
      if (x != y) return Compare(x, y);
      return Compare(a.array_task_id(), b.array_task_id());
    }
    case 'j':
      return Compare(a.spec().name(), b.spec().name());
    case 'l':
      return Compare(static_cast<uint64_t>(a.time_limit()), static_cast<uint64_t>(b.time_limit()));
    case 'L': {
      auto left = [&](const v1::JobInfo& j) {
        return j.time_limit() < 0 ? INT64_MAX : j.time_limit() - TimeUsed(j, now);
      };
      return Compare(left(a), left(b));
    }
    case 'm':
      return Compare(MinMemory(a), MinMemory(b));
    case 'M':
      return Compare(TimeUsed(a, now), TimeUsed(b, now));
    case 'N':
      return CompareFirstNode(a, b);
    case 'p':
    case 'Q':
      return Compare(a.priority(), b.priority());
    case 'P':
      return Compare(PartitionOf(a), PartitionOf(b));
    case 't':
      return Compare(client::JobStateCode(a.state()), client::JobStateCode(b.state()));
    case 'T':
      return Compare(client::JobStateName(a.state()), client::JobStateName(b.state()));
    case 'u':
      return Compare(a.user_name(), b.user_name());
    case 'U':
      return Compare(a.user_id(), b.user_id());
    case 'V':
      return Compare(a.submit_time(), b.submit_time());
    default:  // d H I J v z: Skiff's jobs all have Slurm's defaults for these
      return 0;
  }
}

}  // namespace

absl::StatusOr<SqueueSort> ParseSqueueSort(std::string_view spec) {
  SqueueSort sort;
  // Right to left, as Slurm applies them; keys[] is then reversed.
  for (int i = static_cast<int>(spec.size()) - 1; i >= 0; --i) {
    const char c = spec[i];
    if (c == ',' || c == '+' || c == '-') continue;
    bool reverse = i > 0 && spec[i - 1] == '-';
    if (static_cast<size_t>(i + 1) >= kClusterLength &&
        absl::EqualsIgnoreCase(std::string(spec.substr(i + 1 - kClusterLength, kClusterLength)),
                               kCluster)) {
      i -= static_cast<int>(kClusterLength) - 1;
      sort.keys.push_back({kClusterKey, reverse});
      continue;
    }
    if (c == 'b') {
      sort.notes.push_back("Invalid sort specification: b");
      continue;
    }
    if (c != '\0' && std::strchr(kIgnored, c) != nullptr) continue;
    if (c == '\0' || std::strchr(kSortable, c) == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("Invalid sort specification: ", std::string(1, c)));
    }
    sort.keys.push_back({c, reverse});
  }
  std::reverse(sort.keys.begin(), sort.keys.end());
  return sort;
}

void SortSqueueJobs(const std::vector<SqueueSortKey>& keys, int64_t now,
                    std::vector<const v1::JobInfo*>* jobs) {
  std::stable_sort(jobs->begin(), jobs->end(), [&](const v1::JobInfo* a, const v1::JobInfo* b) {
    for (const SqueueSortKey& key : keys) {
      if (key.field == 'S') {
        // Slurm's _sort_job_by_time_start: no start time sorts last, either way.
        const int64_t sa = StartTime(*a), sb = StartTime(*b);
        if ((sa == 0) != (sb == 0)) return sb == 0;
        if (sa == 0) continue;
        auto at = [&](const v1::JobInfo& j, int64_t s) {
          return j.state() == v1::PENDING && s < now ? now : s;
        };
        int diff = Compare(at(*a, sa), at(*b, sb));
        if (diff != 0) return key.reverse ? diff > 0 : diff < 0;
        continue;
      }
      int diff = CompareBy(key.field, *a, *b, now);
      if (diff != 0) return key.reverse ? diff > 0 : diff < 0;
    }
    return false;
  });
}

}  // namespace skiff::cli
