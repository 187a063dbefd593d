// What a running task has used so far (sstat), read from /proc: the task's
// process and every descendant still alive, plus the children it has reaped.
// The parsing is pure; SampleTaskUsage reads /proc.
//
// MaxRSS and MaxVMSize are the sums of the processes' high-water marks
// (VmHWM, VmPeak): noded samples on demand rather than polling, so the peak of
// the tree as a whole is bounded from above by this sum.
#ifndef SKIFF_NODED_STEPS_TASK_USAGE_H_
#define SKIFF_NODED_STEPS_TASK_USAGE_H_

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace skiff::noded {

// The fields of /proc/PID/stat that usage needs (times in clock ticks).
struct ProcStat {
  pid_t pid = 0;
  pid_t ppid = 0;
  uint64_t utime = 0, stime = 0, cutime = 0, cstime = 0;
  uint64_t majflt = 0;
  uint64_t rss_pages = 0;
};
std::optional<ProcStat> ParseProcStat(const std::string& text);

// /proc/PID/status: VmHWM, VmPeak, VmSize in kB (0 when absent, as for a
// kernel thread or a zombie).
struct ProcMemory {
  uint64_t hwm_kb = 0, peak_kb = 0, size_kb = 0;
};
ProcMemory ParseProcStatus(const std::string& text);

// /proc/PID/io: read_bytes and write_bytes (0 when unreadable).
void ParseProcIo(const std::string& text, uint64_t* read_bytes, uint64_t* write_bytes);

struct TaskUsage {
  double cpu_seconds = 0;  // user + system, the live tree and reaped children
  uint64_t rss_bytes = 0;  // now
  uint64_t max_rss_bytes = 0;
  uint64_t vmsize_bytes = 0;
  uint64_t max_vmsize_bytes = 0;
  uint64_t pages = 0;  // major page faults
  uint64_t read_bytes = 0;
  uint64_t write_bytes = 0;
  std::vector<pid_t> pids;  // the tree, root first
};

// Sums `stats` over `root` and its descendants (by ppid); `memory` and `io`
// are indexed like `stats`.
TaskUsage SumTaskTree(pid_t root, const std::vector<ProcStat>& stats,
                      const std::vector<ProcMemory>& memory,
                      const std::vector<std::pair<uint64_t, uint64_t>>& io, long ticks_per_second,
                      long page_size);

// Reads /proc for every process and sums the tree of `root`.
TaskUsage SampleTaskUsage(pid_t root);

}  // namespace skiff::noded

#endif  // SKIFF_NODED_STEPS_TASK_USAGE_H_
