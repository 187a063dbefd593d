#include "cli/sstat/sstat_format.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <functional>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "client/gpu_usage_summary.h"

namespace skiff::cli {
namespace {

enum Column {
  kAveCpu,
  kAveCpuFreq,
  kAveDiskRead,
  kAveDiskWrite,
  kAvePages,
  kAveRss,
  kAveVmSize,
  kConsumedEnergy,
  kConsumedEnergyRaw,
  kJobId,
  kMaxDiskRead,
  kMaxDiskReadNode,
  kMaxDiskReadTask,
  kMaxDiskWrite,
  kMaxDiskWriteNode,
  kMaxDiskWriteTask,
  kMaxPages,
  kMaxPagesNode,
  kMaxPagesTask,
  kMaxRss,
  kMaxRssNode,
  kMaxRssTask,
  kMaxVmSize,
  kMaxVmSizeNode,
  kMaxVmSizeTask,
  kMinCpu,
  kMinCpuNode,
  kMinCpuTask,
  kNodelist,
  kNTasks,
  kPids,
  kReqCpuFreq,
  kReqCpuFreqMin,
  kReqCpuFreqMax,
  kReqCpuFreqGov,
  kTresInAve,
  kTresInMax,
  kTresInMaxNode,
  kTresInMaxTask,
  kTresInMin,
  kTresInMinNode,
  kTresInMinTask,
  kTresInTot,
  kTresOutAve,
  kTresOutMax,
  kTresOutMaxNode,
  kTresOutMaxTask,
  kTresOutMin,
  kTresOutMinNode,
  kTresOutMinTask,
  kTresOutTot,
};

struct Known {
  int width;
  const char* name;
  Column column;
};

// Slurm's table (src/sstat/sstat.c), in its order: prefixes match the first.
constexpr Known kKnown[] = {
    {10, "AveCPU", kAveCpu},
    {10, "AveCPUFreq", kAveCpuFreq},
    {12, "AveDiskRead", kAveDiskRead},
    {12, "AveDiskWrite", kAveDiskWrite},
    {10, "AvePages", kAvePages},
    {10, "AveRSS", kAveRss},
    {10, "AveVMSize", kAveVmSize},
    {14, "ConsumedEnergy", kConsumedEnergy},
    {17, "ConsumedEnergyRaw", kConsumedEnergyRaw},
    {-12, "JobID", kJobId},
    {12, "MaxDiskRead", kMaxDiskRead},
    {15, "MaxDiskReadNode", kMaxDiskReadNode},
    {15, "MaxDiskReadTask", kMaxDiskReadTask},
    {12, "MaxDiskWrite", kMaxDiskWrite},
    {16, "MaxDiskWriteNode", kMaxDiskWriteNode},
    {16, "MaxDiskWriteTask", kMaxDiskWriteTask},
    {8, "MaxPages", kMaxPages},
    {12, "MaxPagesNode", kMaxPagesNode},
    {14, "MaxPagesTask", kMaxPagesTask},
    {10, "MaxRSS", kMaxRss},
    {10, "MaxRSSNode", kMaxRssNode},
    {10, "MaxRSSTask", kMaxRssTask},
    {10, "MaxVMSize", kMaxVmSize},
    {14, "MaxVMSizeNode", kMaxVmSizeNode},
    {14, "MaxVMSizeTask", kMaxVmSizeTask},
    {10, "MinCPU", kMinCpu},
    {10, "MinCPUNode", kMinCpuNode},
    {10, "MinCPUTask", kMinCpuTask},
    {20, "Nodelist", kNodelist},
    {8, "NTasks", kNTasks},
    {20, "Pids", kPids},
    {10, "ReqCPUFreq", kReqCpuFreq},
    {13, "ReqCPUFreqMin", kReqCpuFreqMin},
    {13, "ReqCPUFreqMax", kReqCpuFreqMax},
    {13, "ReqCPUFreqGov", kReqCpuFreqGov},
    {14, "TRESUsageInAve", kTresInAve},
    {14, "TRESUsageInMax", kTresInMax},
    {18, "TRESUsageInMaxNode", kTresInMaxNode},
    {18, "TRESUsageInMaxTask", kTresInMaxTask},
    {14, "TRESUsageInMin", kTresInMin},
    {18, "TRESUsageInMinNode", kTresInMinNode},
    {18, "TRESUsageInMinTask", kTresInMinTask},
    {14, "TRESUsageInTot", kTresInTot},
    {15, "TRESUsageOutAve", kTresOutAve},
    {15, "TRESUsageOutMax", kTresOutMax},
    {19, "TRESUsageOutMaxNode", kTresOutMaxNode},
    {19, "TRESUsageOutMaxTask", kTresOutMaxTask},
    {15, "TRESUsageOutMin", kTresOutMin},
    {19, "TRESUsageOutMinNode", kTresOutMinNode},
    {19, "TRESUsageOutMinTask", kTresOutMinTask},
    {15, "TRESUsageOutTot", kTresOutTot},
};

// One measure over the tasks: total, average, and where the max and min are.
struct Spread {
  double total = 0, ave = 0, max = 0, min = 0;
  std::string max_node, min_node;
  int max_task = 0, min_task = 0;
};

Spread SpreadOf(const v1::StatStepReply& usage,
                const std::function<double(const v1::TaskUsage&)>& measure) {
  Spread s;
  bool first = true;
  for (const v1::TaskUsage& task : usage.tasks()) {
    const double v = measure(task);
    s.total += v;
    if (first || v > s.max) s.max = v, s.max_node = task.node(), s.max_task = task.task_id();
    if (first || v < s.min) s.min = v, s.min_node = task.node(), s.min_task = task.task_id();
    first = false;
  }
  if (usage.tasks_size() > 0) s.ave = s.total / usage.tasks_size();
  return s;
}

// Slurm's _print_small_double for disk bytes.
std::string SmallSize(double value) {
  if (value > 1) return SstatSize(value);
  if (value > 0) {
    char buf[32];
    snprintf(buf, sizeof(buf), "%.2fM", value);
    return buf;
  }
  return "0";
}

struct Measures {
  Spread cpu, rss, vmem, pages, read, write;
};

Measures MeasuresOf(const v1::StatStepReply& u) {
  Measures m;
  m.cpu = SpreadOf(u, [](const v1::TaskUsage& t) { return t.cpu_seconds(); });
  m.rss =
      SpreadOf(u, [](const v1::TaskUsage& t) { return static_cast<double>(t.max_rss_bytes()); });
  m.vmem =
      SpreadOf(u, [](const v1::TaskUsage& t) { return static_cast<double>(t.max_vmsize_bytes()); });
  m.pages = SpreadOf(u, [](const v1::TaskUsage& t) { return static_cast<double>(t.pages()); });
  m.read = SpreadOf(u, [](const v1::TaskUsage& t) { return static_cast<double>(t.read_bytes()); });
  m.write =
      SpreadOf(u, [](const v1::TaskUsage& t) { return static_cast<double>(t.write_bytes()); });
  return m;
}

std::string Cpu(double seconds) { return SstatCpuTime(static_cast<uint64_t>(seconds)); }

// TRES usage strings, as Slurm prints them (names sorted, sizes converted).
// `gpus`: "gres/gpumem=...,gres/gpuutil=..." (the batch step of a job whose
// GPUs are sampled), "" for none.
std::string TresIn(const std::string& cpu, const std::string& disk, const std::string& mem,
                   const std::string& pages, const std::string& vmem, const std::string& energy,
                   const std::string& gpus = "") {
  return absl::StrCat("cpu=", cpu, ",energy=", energy, ",fs/disk=", disk, gpus.empty() ? "" : ",",
                      gpus, ",mem=", mem, ",pages=", pages, ",vmem=", vmem);
}

// The job's sampled GPUs as Slurm 23.02's input TRES: averages, or peaks.
std::string GpuTres(const v1::StatStepReply& usage, bool max) {
  const client::GpuUsageSummary gpus = client::SummarizeGpuUsage(usage.gpus());
  if (!gpus.measured) return "";
  return absl::StrCat(
      "gres/gpumem=", SstatSize(static_cast<double>(max ? gpus.memory_max : gpus.memory_ave)),
      ",gres/gpuutil=", max ? gpus.util_max : gpus.util_ave);
}
std::string TresOut(const std::string& energy, const std::string& disk) {
  return absl::StrCat("energy=", energy, ",fs/disk=", disk);
}

std::string Value(const SstatStep& step, const Measures& m, Column column) {
  const v1::StatStepReply& u = step.usage;
  auto size = [](double v) { return SstatSize(v); };
  auto task = [](int t) { return std::to_string(t); };
  switch (column) {
    case kJobId:
      return step.id;
    case kNTasks:
      return std::to_string(u.ntasks() > 0 ? u.ntasks() : u.tasks_size());
    case kNodelist:
      return u.node_list();
    case kPids: {
      std::vector<std::string> pids;
      for (const v1::TaskUsage& t : u.tasks()) {
        for (int32_t p : t.pids()) pids.push_back(std::to_string(p));
      }
      return absl::StrJoin(pids, ",");
    }
    case kAveCpu:
      return Cpu(m.cpu.ave);
    case kMinCpu:
      return Cpu(m.cpu.min);
    case kMinCpuNode:
      return m.cpu.min_node;
    case kMinCpuTask:
      return task(m.cpu.min_task);
    case kAveRss:
      return size(m.rss.ave);
    case kMaxRss:
      return size(m.rss.max);
    case kMaxRssNode:
      return m.rss.max_node;
    case kMaxRssTask:
      return task(m.rss.max_task);
    case kAveVmSize:
      return size(m.vmem.ave);
    case kMaxVmSize:
      return size(m.vmem.max);
    case kMaxVmSizeNode:
      return m.vmem.max_node;
    case kMaxVmSizeTask:
      return task(m.vmem.max_task);
    case kAvePages:
      return size(m.pages.ave);
    case kMaxPages:
      return size(m.pages.max);
    case kMaxPagesNode:
      return m.pages.max_node;
    case kMaxPagesTask:
      return task(m.pages.max_task);
    case kAveDiskRead:
      return SmallSize(m.read.ave);
    case kMaxDiskRead:
      return SmallSize(m.read.max);
    case kMaxDiskReadNode:
      return m.read.max_node;
    case kMaxDiskReadTask:
      return task(m.read.max_task);
    case kAveDiskWrite:
      return SmallSize(m.write.ave);
    case kMaxDiskWrite:
      return SmallSize(m.write.max);
    case kMaxDiskWriteNode:
      return m.write.max_node;
    case kMaxDiskWriteTask:
      return task(m.write.max_task);
    // No energy plugin, no CPU frequency requests: Slurm's values for none.
    case kAveCpuFreq:
      return "0";
    case kConsumedEnergy:
      return "0";
    case kConsumedEnergyRaw:
      return "0";
    case kReqCpuFreq:
    case kReqCpuFreqMin:
    case kReqCpuFreqMax:
    case kReqCpuFreqGov:
      return "Unknown";
    case kTresInAve:
      return TresIn(Cpu(m.cpu.ave), size(m.read.ave), size(m.rss.ave), size(m.pages.ave),
                    size(m.vmem.ave), "0", GpuTres(u, false));
    case kTresInMax:
      return TresIn(Cpu(m.cpu.max), size(m.read.max), size(m.rss.max), size(m.pages.max),
                    size(m.vmem.max), "0", GpuTres(u, true));
    case kTresInMin:
      return TresIn(Cpu(m.cpu.min), size(m.read.min), size(m.rss.min), size(m.pages.min),
                    size(m.vmem.min), "0");
    case kTresInTot:
      return TresIn(Cpu(m.cpu.total), size(m.read.total), size(m.rss.total), size(m.pages.total),
                    size(m.vmem.total), "0", GpuTres(u, false));
    case kTresInMaxNode:
      return TresIn(m.cpu.max_node, m.read.max_node, m.rss.max_node, m.pages.max_node,
                    m.vmem.max_node, m.cpu.max_node);
    case kTresInMinNode:
      return TresIn(m.cpu.min_node, m.read.min_node, m.rss.min_node, m.pages.min_node,
                    m.vmem.min_node, m.cpu.min_node);
    case kTresInMaxTask:
      return TresIn(task(m.cpu.max_task), task(m.read.max_task), task(m.rss.max_task),
                    task(m.pages.max_task), task(m.vmem.max_task), task(m.cpu.max_task));
    case kTresInMinTask:
      return TresIn(task(m.cpu.min_task), task(m.read.min_task), task(m.rss.min_task),
                    task(m.pages.min_task), task(m.vmem.min_task), task(m.cpu.min_task));
    case kTresOutAve:
      return TresOut("0", size(m.write.ave));
    case kTresOutMax:
      return TresOut("0", size(m.write.max));
    case kTresOutMin:
      return TresOut("0", size(m.write.min));
    case kTresOutTot:
      return TresOut("0", size(m.write.total));
    case kTresOutMaxNode:
      return TresOut(m.write.max_node, m.write.max_node);
    case kTresOutMinNode:
      return TresOut(m.write.min_node, m.write.min_node);
    case kTresOutMaxTask:
      return TresOut(task(m.write.max_task), task(m.write.max_task));
    case kTresOutMinTask:
      return TresOut(task(m.write.min_task), task(m.write.min_task));
  }
  return "";
}

}  // namespace

std::string SstatSize(double value) {
  if (static_cast<int64_t>(value) == 0) return "0";
  const char* units = "\0KMGTP";
  int unit = 0;
  while (value >= 1024 && static_cast<uint64_t>(value) % 512 == 0 && unit < 5) {
    value /= 1024;
    ++unit;
  }
  char buf[48];
  const uint64_t whole = static_cast<uint64_t>(value);
  if (static_cast<double>(whole) == value) {
    snprintf(buf, sizeof(buf), "%" PRIu64, whole);
  } else {
    snprintf(buf, sizeof(buf), "%.2f", value);
  }
  std::string out = buf;
  if (unit > 0) out += units[unit];
  return out;
}

std::string SstatCpuTime(uint64_t seconds) {
  const uint64_t days = seconds / 86400, hours = (seconds / 3600) % 24,
                 minutes = (seconds / 60) % 60, secs = seconds % 60;
  char buf[48];
  if (days > 0) {
    snprintf(buf, sizeof(buf), "%" PRIu64 "-%02" PRIu64 ":%02" PRIu64 ":%02" PRIu64, days, hours,
             minutes, secs);
  } else if (hours > 0) {
    snprintf(buf, sizeof(buf), "%02" PRIu64 ":%02" PRIu64 ":%02" PRIu64, hours, minutes, secs);
  } else {
    snprintf(buf, sizeof(buf), "00:%02" PRIu64 ":%02" PRIu64, minutes, secs);
  }
  return buf;
}

absl::StatusOr<std::vector<SstatField>> ParseSstatFormat(const std::string& format) {
  std::vector<SstatField> out;
  for (const FieldRequest& item : SplitFieldList(format)) {
    const Known* found = nullptr;
    for (const Known& known : kKnown) {
      if (!item.name.empty() && absl::StartsWithIgnoreCase(known.name, item.name)) {
        found = &known;
        break;
      }
    }
    if (found == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("Invalid field requested: \"", item.name, "\""));
    }
    SstatField field{found->name, found->width, static_cast<int>(found->column)};
    if (item.width != 0) field.width = item.width;
    out.push_back(field);
  }
  return out;
}

std::string FormatSstat(const std::vector<SstatStep>& steps, const std::vector<SstatField>& fields,
                        const PrintFieldsLayout& layout) {
  std::vector<std::string> names;
  std::vector<int> widths;
  for (const SstatField& field : fields) {
    names.push_back(field.name);
    widths.push_back(field.width);
  }
  std::string out = PrintFieldsHeader(names, widths, layout);
  for (const SstatStep& step : steps) {
    const Measures m = MeasuresOf(step.usage);
    std::vector<std::string> cells;
    for (const SstatField& field : fields) {
      cells.push_back(Value(step, m, static_cast<Column>(field.column)));
    }
    out += PrintFieldsLine(cells, widths, layout);
  }
  return out;
}

std::string SstatHelpFormat() {
  std::string out;
  int i = 0;
  for (const Known& known : kKnown) {
    if (i & 3) {
      out += " ";
    } else if (i) {
      out += "\n";
    }
    char cell[32];
    snprintf(cell, sizeof(cell), "%-19s", known.name);
    out += cell;
    ++i;
  }
  return out + "\n";
}

}  // namespace skiff::cli
