#include "noded/steps/task_usage.h"

#include <dirent.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

namespace skiff::noded {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

uint64_t StatusKb(const std::string& text, const std::string& key) {
  const size_t at = text.find("\n" + key + ":");
  if (at == std::string::npos) return 0;
  return std::strtoull(text.c_str() + at + key.size() + 2, nullptr, 10);
}

}  // namespace

std::optional<ProcStat> ParseProcStat(const std::string& text) {
  // "pid (comm) state ppid ..."; comm may hold spaces and parentheses.
  const size_t close = text.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  ProcStat stat;
  if (!absl::SimpleAtoi(text.substr(0, text.find(' ')), &stat.pid)) return std::nullopt;
  std::vector<std::string> f = absl::StrSplit(text.substr(close + 2), ' ', absl::SkipEmpty());
  // f[0] is field 3 (state): field N is f[N - 3].
  if (f.size() < 22) return std::nullopt;
  auto num = [&](int field) {
    return std::strtoull(f[static_cast<size_t>(field - 3)].c_str(), nullptr, 10);
  };
  stat.ppid = static_cast<pid_t>(num(4));
  stat.majflt = num(12);
  stat.utime = num(14);
  stat.stime = num(15);
  stat.cutime = num(16);
  stat.cstime = num(17);
  stat.rss_pages = num(24);
  return stat;
}

ProcMemory ParseProcStatus(const std::string& text) {
  const std::string padded = "\n" + text;
  return {StatusKb(padded, "VmHWM"), StatusKb(padded, "VmPeak"), StatusKb(padded, "VmSize")};
}

void ParseProcIo(const std::string& text, uint64_t* read_bytes, uint64_t* write_bytes) {
  const std::string padded = "\n" + text;
  *read_bytes = StatusKb(padded, "read_bytes");
  *write_bytes = StatusKb(padded, "write_bytes");
}

TaskUsage SumTaskTree(pid_t root, const std::vector<ProcStat>& stats,
                      const std::vector<ProcMemory>& memory,
                      const std::vector<std::pair<uint64_t, uint64_t>>& io, long ticks_per_second,
                      long page_size) {
  std::multimap<pid_t, size_t> children;
  std::map<pid_t, size_t> index;
  for (size_t i = 0; i < stats.size(); ++i) {
    children.emplace(stats[i].ppid, i);
    index[stats[i].pid] = i;
  }
  TaskUsage usage;
  auto it = index.find(root);
  if (it == index.end()) return usage;
  std::vector<size_t> queue{it->second};
  uint64_t ticks = stats[it->second].cutime + stats[it->second].cstime;  // reaped children
  for (size_t next = 0; next < queue.size(); ++next) {
    const size_t i = queue[next];
    const ProcStat& s = stats[i];
    usage.pids.push_back(s.pid);
    ticks += s.utime + s.stime;
    usage.rss_bytes += s.rss_pages * static_cast<uint64_t>(page_size);
    usage.pages += s.majflt;
    usage.max_rss_bytes += memory[i].hwm_kb * 1024;
    usage.vmsize_bytes += memory[i].size_kb * 1024;
    usage.max_vmsize_bytes += memory[i].peak_kb * 1024;
    usage.read_bytes += io[i].first;
    usage.write_bytes += io[i].second;
    auto range = children.equal_range(s.pid);
    for (auto c = range.first; c != range.second; ++c) queue.push_back(c->second);
  }
  usage.cpu_seconds = static_cast<double>(ticks) / static_cast<double>(ticks_per_second);
  if (usage.max_rss_bytes < usage.rss_bytes) usage.max_rss_bytes = usage.rss_bytes;
  if (usage.max_vmsize_bytes < usage.vmsize_bytes) usage.max_vmsize_bytes = usage.vmsize_bytes;
  return usage;
}

TaskUsage SampleTaskUsage(pid_t root) {
  std::vector<ProcStat> stats;
  std::vector<ProcMemory> memory;
  std::vector<std::pair<uint64_t, uint64_t>> io;
  if (DIR* proc = opendir("/proc"); proc != nullptr) {
    while (dirent* entry = readdir(proc)) {
      pid_t pid = 0;
      if (!absl::SimpleAtoi(entry->d_name, &pid)) continue;
      const std::string dir = std::string("/proc/") + entry->d_name;
      std::optional<ProcStat> stat = ParseProcStat(Slurp(dir + "/stat"));
      if (!stat) continue;
      stats.push_back(*stat);
      memory.push_back(ParseProcStatus(Slurp(dir + "/status")));
      uint64_t r = 0, w = 0;
      ParseProcIo(Slurp(dir + "/io"), &r, &w);
      io.emplace_back(r, w);
    }
    closedir(proc);
  }
  return SumTaskTree(root, stats, memory, io, sysconf(_SC_CLK_TCK), sysconf(_SC_PAGESIZE));
}

}  // namespace skiff::noded
