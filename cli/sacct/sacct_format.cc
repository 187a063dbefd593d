#include "cli/sacct/sacct_format.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "cli/common/print_fields.h"
#include "client/gpu_usage_summary.h"
#include "client/json_writer.h"
#include "common/time_format.h"

namespace skiff::cli {
namespace {

enum Column {
  kAccount,
  kAllocCpus,
  kAllocNodes,
  kAllocTres,
  kArrayJobId,
  kArrayTaskId,
  kCluster,
  kComment,
  kConstraints,
  kCpuTime,
  kCpuTimeRaw,
  kDerivedExitCode,
  kElapsed,
  kElapsedRaw,
  kEligible,
  kEnd,
  kExitCode,
  kGid,
  kGroup,
  kJobId,
  kJobIdRaw,
  kJobName,
  kNCpus,
  kNNodes,
  kNodeList,
  kNTasks,
  kPartition,
  kPriority,
  kQos,
  kReason,
  kReqCpus,
  kReqMem,
  kReqNodes,
  kReqTres,
  kReservation,
  kRestarts,
  kStart,
  kState,
  kSubmit,
  kSuspended,
  kTimelimit,
  kTimelimitRaw,
  kUid,
  kUser,
  kWorkDir,
  // A step's usage, from its tasks' rusage (blank when not measured).
  kTotalCpu,
  kUserCpu,
  kSystemCpu,
  kMaxRss,
  kMaxRssNode,
  kMaxRssTask,
  kAveRss,
  // Fields Skiff keeps no data for: blank, as Slurm prints them without a
  // gathering plugin (jobacct_gather/none).
  kTresUsageInTot,
  kTresUsageInAve,
  kTresUsageInMax,
  kNoData,
  kAssocId,
  kConsumedEnergy,
  kConsumedEnergyRaw,
  kDbIndex,
  kReqCpuFreq,
  kReserved,
  kResvCpu,
  kResvCpuRaw,
  kSubmitLine,
  kWckeyId,
};

struct Known {
  const char* name;
  int width;
  Column column;
};

// Slurm 22.05's names and default widths (src/sacct/sacct.c), in its order,
// which sacct -e lists; ArrayJobID, ArrayTaskID and Restarts are Skiff's
// (later Slurm's) too.
constexpr Known kKnown[] = {
    {"Account", 10, kAccount},
    {"AdminComment", 15, kNoData},
    {"AllocCPUS", 10, kAllocCpus},
    {"AllocNodes", 10, kAllocNodes},
    {"AllocTRES", 10, kAllocTres},
    {"ArrayJobID", 15, kArrayJobId},
    {"ArrayTaskID", 16, kArrayTaskId},
    {"AssocID", 7, kAssocId},
    {"AveCPU", 10, kNoData},
    {"AveCPUFreq", 10, kNoData},
    {"AveDiskRead", 14, kNoData},
    {"AveDiskWrite", 14, kNoData},
    {"AvePages", 10, kNoData},
    {"AveRSS", 10, kAveRss},
    {"AveVMSize", 10, kNoData},
    {"BlockID", 16, kNoData},
    {"Cluster", 10, kCluster},
    {"Comment", 14, kComment},
    {"Constraints", 19, kConstraints},
    {"ConsumedEnergy", 14, kConsumedEnergy},
    {"ConsumedEnergyRaw", 17, kConsumedEnergyRaw},
    {"Container", 19, kNoData},
    {"CPUTime", 10, kCpuTime},
    {"CPUTimeRAW", 10, kCpuTimeRaw},
    {"DBIndex", -10, kDbIndex},
    {"DerivedExitCode", 15, kDerivedExitCode},
    {"Elapsed", 10, kElapsed},
    {"ElapsedRaw", 10, kElapsedRaw},
    {"Eligible", 19, kEligible},
    {"End", 19, kEnd},
    {"ExitCode", 8, kExitCode},
    {"Flags", 19, kNoData},
    {"GID", 6, kGid},
    {"Group", 9, kGroup},
    {"JobID", -12, kJobId},
    {"JobIDRaw", -12, kJobIdRaw},
    {"JobName", 10, kJobName},
    {"Layout", 9, kNoData},
    {"MaxDiskRead", 12, kNoData},
    {"MaxDiskReadNode", 15, kNoData},
    {"MaxDiskReadTask", 15, kNoData},
    {"MaxDiskWrite", 12, kNoData},
    {"MaxDiskWriteNode", 16, kNoData},
    {"MaxDiskWriteTask", 16, kNoData},
    {"MaxPages", 8, kNoData},
    {"MaxPagesNode", 12, kNoData},
    {"MaxPagesTask", 14, kNoData},
    {"MaxRSS", 10, kMaxRss},
    {"MaxRSSNode", 10, kMaxRssNode},
    {"MaxRSSTask", 10, kMaxRssTask},
    {"MaxVMSize", 10, kNoData},
    {"MaxVMSizeNode", 14, kNoData},
    {"MaxVMSizeTask", 14, kNoData},
    {"McsLabel", 12, kNoData},
    {"MinCPU", 10, kNoData},
    {"MinCPUNode", 10, kNoData},
    {"MinCPUTask", 10, kNoData},
    {"NCPUS", 10, kNCpus},
    {"NNodes", 8, kNNodes},
    {"NodeList", 15, kNodeList},
    {"NTasks", 8, kNTasks},
    {"Partition", 10, kPartition},
    {"Priority", 10, kPriority},
    {"QOS", 10, kQos},
    {"QOSRAW", 6, kNoData},
    {"Reason", 22, kReason},
    {"ReqCPUFreq", 10, kReqCpuFreq},
    {"ReqCPUFreqGov", 13, kReqCpuFreq},
    {"ReqCPUFreqMax", 13, kReqCpuFreq},
    {"ReqCPUFreqMin", 13, kReqCpuFreq},
    {"ReqCPUS", 8, kReqCpus},
    {"ReqMem", 10, kReqMem},
    {"ReqNodes", 8, kReqNodes},
    {"ReqTRES", 10, kReqTres},
    {"Reservation", 20, kReservation},
    {"ReservationId", 8, kNoData},
    {"Reserved", 10, kReserved},
    {"ResvCPU", 10, kResvCpu},
    {"ResvCPURAW", 10, kResvCpuRaw},
    {"Restarts", 8, kRestarts},
    {"Start", 19, kStart},
    {"State", 10, kState},
    {"Submit", 19, kSubmit},
    {"SubmitLine", 20, kSubmitLine},
    {"Suspended", 10, kSuspended},
    {"SystemComment", 15, kNoData},
    {"SystemCPU", 10, kSystemCpu},
    {"Timelimit", 10, kTimelimit},
    {"TimelimitRaw", 10, kTimelimitRaw},
    {"TotalCPU", 10, kTotalCpu},
    {"TRESUsageInAve", 14, kTresUsageInAve},
    {"TRESUsageInMax", 14, kTresUsageInMax},
    {"TRESUsageInMaxNode", 18, kNoData},
    {"TRESUsageInMaxTask", 18, kNoData},
    {"TRESUsageInMin", 14, kNoData},
    {"TRESUsageInMinNode", 18, kNoData},
    {"TRESUsageInMinTask", 18, kNoData},
    {"TRESUsageInTot", 14, kTresUsageInTot},
    {"TRESUsageOutAve", 15, kNoData},
    {"TRESUsageOutMax", 15, kNoData},
    {"TRESUsageOutMaxNode", 19, kNoData},
    {"TRESUsageOutMaxTask", 19, kNoData},
    {"TRESUsageOutMin", 15, kNoData},
    {"TRESUsageOutMinNode", 19, kNoData},
    {"TRESUsageOutMinTask", 19, kNoData},
    {"TRESUsageOutTot", 15, kNoData},
    {"UID", 6, kUid},
    {"User", 9, kUser},
    {"UserCPU", 10, kUserCpu},
    {"WCKey", 10, kNoData},
    {"WCKeyID", 10, kWckeyId},
    {"WorkDir", 20, kWorkDir},
};

// One printed row: a job, a step of it, or a run of pending array tasks.
struct Row {
  const v1::AcctJob* job = nullptr;
  const v1::AcctStep* step = nullptr;  // null: the job's own row
  std::string task_range;              // "[1-5]" for collapsed pending tasks
};

std::string Exit(int code, int signal) { return absl::StrCat(code, ":", signal); }

std::string Date(int64_t t) { return FormatTimestamp(t); }

std::string JobIdText(const v1::AcctJob& job, const std::string& range) {
  if (!range.empty()) return absl::StrCat(job.array_job_id(), "_", range);
  if (job.array_job_id() != 0) return absl::StrCat(job.array_job_id(), "_", job.array_task_id());
  return absl::StrCat(job.job_id());
}

int64_t Elapsed(int64_t start, int64_t end, int64_t suspended, int64_t now) {
  if (start == 0) return 0;
  const int64_t stop = end != 0 ? end : now;
  return std::max<int64_t>(0, stop - start - suspended);
}

// Slurm's Elapsed form: "HH:MM:SS" or "D-HH:MM:SS".
std::string Duration(int64_t seconds) {
  const int64_t days = seconds / 86400;
  const std::string clock =
      absl::StrFormat("%02d:%02d:%02d", (seconds / 3600) % 24, (seconds / 60) % 60, seconds % 60);
  return days > 0 ? absl::StrCat(days, "-", clock) : clock;
}

// Slurm's convert_num_unit (sacct's CONVERT_NUM_UNIT_EXACT): `number` counted
// in `unit` (0 none, 1 K, 2 M, ...), to `units` (1 K ... 5 P) when given, else
// to the largest unit that keeps it exact, halves included ("100M", "1.50M").
std::string ConvertNumUnit(double number, int unit, int units) {
  if (static_cast<int64_t>(number) == 0) return "0";
  constexpr char kUnit[] = "\0KMGTP";
  if (units >= 1 && units <= 5) {
    for (; unit < units; ++unit) number /= 1024;
    for (; unit > units; --unit) number *= 1024;
  } else {
    while (number >= 1024 && static_cast<uint64_t>(number) % 512 == 0) {
      number /= 1024;
      ++unit;
    }
  }
  const uint64_t whole = static_cast<uint64_t>(number);
  const std::string suffix = unit == 0 ? "" : std::string(1, kUnit[unit]);
  if (static_cast<double>(whole) == number) return absl::StrCat(whole, suffix);
  return absl::StrCat(absl::StrFormat("%.2f", number), suffix);
}

// The job's sampled GPUs as Slurm 23.02's input TRES, on its batch step's
// row ("gres/gpumem=2G,gres/gpuutil=45"): averages, or peaks with `max`.
// Blank elsewhere and for a job whose GPUs were not sampled.
std::string GpuTres(const Row& row, bool max, int units) {
  if (row.step == nullptr || row.step->step_id() != "batch") return "";
  const client::GpuUsageSummary gpus = client::SummarizeGpuUsage(row.job->gpus());
  if (!gpus.measured) return "";
  return absl::StrCat(
      "gres/gpumem=",
      ConvertNumUnit(static_cast<double>(max ? gpus.memory_max : gpus.memory_ave), 0, units),
      ",gres/gpuutil=", max ? gpus.util_max : gpus.util_ave);
}

// A count of MB as Slurm prints memory ("100M", "2G").
std::string MegaBytes(uint64_t mb, int units) {
  return ConvertNumUnit(static_cast<double>(mb), 2, units);
}

// CPU time as Slurm's sacct prints it (_elapsed_time): D-HH:MM:SS, HH:MM:SS,
// MM:SS.mmm with a fraction of a second, else 00:MM:SS.
std::string CpuTime(int64_t usec) {
  const int64_t secs = usec / 1000000;
  const int64_t millis = (usec % 1000000) / 1000;
  const int64_t days = secs / 86400, hours = (secs / 3600) % 24;
  const int64_t minutes = (secs / 60) % 60, seconds = secs % 60;
  if (days > 0) return absl::StrFormat("%d-%02d:%02d:%02d", days, hours, minutes, seconds);
  if (hours > 0) return absl::StrFormat("%02d:%02d:%02d", hours, minutes, seconds);
  if (millis > 0) return absl::StrFormat("%02d:%02d.%03d", minutes, seconds, millis);
  return absl::StrFormat("00:%02d:%02d", minutes, seconds);
}

// A row's CPU time in microseconds (`which`: user, system or both): a step's
// own, a job's summed over its measured steps; -1 when none was measured.
int64_t CpuUsec(const Row& row, Column which) {
  auto of = [&](const v1::AcctStep& step) {
    return (which == kSystemCpu ? 0 : step.user_cpu_usec()) +
           (which == kUserCpu ? 0 : step.system_cpu_usec());
  };
  if (row.step != nullptr) return row.step->has_usage() ? of(*row.step) : -1;
  int64_t total = -1;
  for (const v1::AcctStep& step : row.job->steps()) {
    if (step.has_usage()) total = std::max<int64_t>(total, 0) + of(step);
  }
  return total;
}

std::string Value(const Row& row, Column column, int64_t now, int units) {
  const v1::AcctJob& job = *row.job;
  const v1::AcctStep* step = row.step;
  switch (column) {
    case kAccount:
      return job.account();
    case kAllocCpus:
    case kNCpus:
      return absl::StrCat(step ? step->alloc_cpus() : job.alloc_cpus());
    case kAllocNodes:
      return absl::StrCat(step ? step->num_nodes() : job.alloc_nodes());
    case kAllocTres:
      return step ? step->alloc_tres() : job.alloc_tres();
    case kArrayJobId:
      return job.array_job_id() != 0 ? absl::StrCat(job.array_job_id()) : "";
    case kArrayTaskId:
      if (job.array_job_id() == 0) return "";
      return !row.task_range.empty() ? row.task_range.substr(1, row.task_range.size() - 2)
                                     : absl::StrCat(job.array_task_id());
    case kCluster:
      return job.cluster();
    case kComment:
      return step ? "" : job.comment();
    case kConstraints:
      return step ? "" : job.constraints();
    case kCpuTime:
    case kCpuTimeRaw: {
      const int64_t seconds =
          step ? Elapsed(step->start_time(), step->end_time(), step->suspended(), now) *
                     step->alloc_cpus()
               : Elapsed(job.start_time(), job.end_time(), job.suspended(), now) * job.alloc_cpus();
      return column == kCpuTime ? Duration(seconds) : absl::StrCat(seconds);
    }
    case kDerivedExitCode:
      return step ? "" : Exit(job.derived_exit_code(), job.derived_exit_signal());
    case kElapsed:
    case kElapsedRaw: {
      const int64_t seconds =
          step ? Elapsed(step->start_time(), step->end_time(), step->suspended(), now)
               : Elapsed(job.start_time(), job.end_time(), job.suspended(), now);
      return column == kElapsed ? Duration(seconds) : absl::StrCat(seconds);
    }
    case kEligible:
      return Date(step ? step->start_time() : job.eligible_time());
    case kEnd:
      return Date(step ? step->end_time() : job.end_time());
    case kExitCode:
      return step ? Exit(step->exit_code(), step->exit_signal())
                  : Exit(job.exit_code(), job.exit_signal());
    case kGid:
      return step ? "" : absl::StrCat(job.gid());
    case kGroup:
      return step ? "" : job.group();
    case kJobId:
      return step ? absl::StrCat(JobIdText(job, ""), ".", step->step_id())
                  : JobIdText(job, row.task_range);
    case kJobIdRaw:
      return step ? absl::StrCat(job.job_id(), ".", step->step_id()) : absl::StrCat(job.job_id());
    case kJobName:
      return step ? step->name() : job.name();
    case kNNodes:
      return absl::StrCat(step ? step->num_nodes()
                               : (job.alloc_nodes() > 0 ? job.alloc_nodes() : job.req_nodes()));
    case kNodeList: {
      const std::string& nodes = step ? step->node_list() : job.node_list();
      return nodes.empty() ? "None assigned" : nodes;
    }
    case kNTasks:
      return step ? absl::StrCat(step->ntasks()) : "";
    case kPartition:
      return step ? "" : job.partition();
    case kPriority:
      return step ? "" : absl::StrCat(job.priority());
    case kQos:
      return step ? "" : job.qos();
    case kReason:
      return step ? "" : job.reason();
    case kReqCpus:
      return absl::StrCat(step ? step->alloc_cpus() : job.req_cpus());
    case kReqMem:
      if (step || job.req_mem_mb() == 0) return step ? "" : "0";
      return MegaBytes(job.req_mem_mb(), units);
    case kReqNodes:
      return absl::StrCat(step ? step->num_nodes() : job.req_nodes());
    case kReqTres:
      return step ? step->req_tres() : job.req_tres();
    case kReservation:
      return "";
    case kRestarts:
      return step ? "" : absl::StrCat(job.restart_count());
    case kStart: {
      const int64_t start = step ? step->start_time() : job.start_time();
      // Slurm's database: a job that ended without starting has no start ("None").
      if (start == 0 && !step && job.state() != "PENDING") return "None";
      return Date(start);
    }
    case kState: {
      const std::string state = step ? step->state() : job.state();
      if (!step && job.cancelled_by_known()) return absl::StrCat(state, " by ", job.cancelled_by());
      return state;
    }
    case kSubmit:
      return Date(step ? step->start_time() : job.submit_time());
    case kSuspended:
      return Duration(step ? step->suspended() : job.suspended());
    case kTimelimit:
      if (step) return "";
      return job.time_limit() < 0 ? "UNLIMITED" : FormatTimeLimit(job.time_limit());
    case kTimelimitRaw:
      if (step) return "";
      return job.time_limit() < 0 ? "UNLIMITED" : absl::StrCat(job.time_limit() / 60);
    case kUid:
      return step ? "" : absl::StrCat(job.uid());
    case kUser:
      return step ? "" : job.user();
    case kWorkDir:
      return step ? "" : job.work_dir();
    case kTotalCpu:
    case kUserCpu:
    case kSystemCpu: {
      const int64_t usec = CpuUsec(row, column);
      return usec < 0 ? "" : CpuTime(usec);
    }
    // Memory high-water marks are the steps' (the job's own row is blank, as Slurm's).
    case kMaxRss:
      return step && step->has_usage() ? ConvertNumUnit(step->max_rss_kb() * 1024.0, 0, units) : "";
    case kMaxRssNode:
      return step && step->has_usage() ? step->max_rss_node() : "";
    case kMaxRssTask:
      return step && step->has_usage() ? absl::StrCat(step->max_rss_task()) : "";
    case kAveRss:
      return step && step->has_usage() ? ConvertNumUnit(step->ave_rss_kb() * 1024.0, 0, units) : "";
    case kTresUsageInTot: {
      // What Skiff measures of a step's tasks: their CPU time and their
      // memory summed (average x tasks), and on the batch step the job's
      // sampled GPUs. Slurm's other input TRES (energy, fs/disk, pages, vmem)
      // are not measured, so not printed.
      if (!step || !step->has_usage()) return "";
      const int64_t tasks = std::max(1, step->ntasks());
      // Names sorted, as Slurm prints TRES: cpu, gres/..., mem.
      const std::string gpus = GpuTres(row, false, units);
      return absl::StrCat(
          "cpu=", CpuTime(step->user_cpu_usec() + step->system_cpu_usec()), gpus.empty() ? "" : ",",
          gpus, ",mem=",
          ConvertNumUnit(static_cast<double>(step->ave_rss_kb()) * 1024.0 * tasks, 0, units));
    }
    case kTresUsageInAve:
      return GpuTres(row, false, units);
    case kTresUsageInMax:
      return GpuTres(row, true, units);
    case kNoData:
      return "";
    case kConsumedEnergy:
    case kConsumedEnergyRaw: {
      // The GPUs' energy (NVML), on the job's row and its batch step's.
      const bool job_or_batch = step == nullptr || step->step_id() == "batch";
      const uint64_t joules =
          job_or_batch ? client::SummarizeGpuUsage(job.gpus()).energy_joules : 0;
      return column == kConsumedEnergyRaw ? absl::StrCat(joules)
                                          : ConvertNumUnit(static_cast<double>(joules), 0, units);
    }
    case kAssocId:
    case kWckeyId:
      return "0";
    case kDbIndex:
      return absl::StrCat(job.job_id());
    case kReqCpuFreq:
      return "Unknown";
    case kReserved:
    case kResvCpu:
    case kResvCpuRaw: {
      // Slurm's Reserved: from eligible to start (or to now, still waiting).
      if (step) return "";
      const int64_t from = job.eligible_time();
      const int64_t until = job.start_time() != 0 ? job.start_time()
                            : job.end_time() != 0 ? job.end_time()
                                                  : now;
      const int64_t seconds = from != 0 && until > from ? until - from : 0;
      if (column == kReserved) return Duration(seconds);
      const int64_t cpu_seconds = seconds * job.req_cpus();
      return column == kResvCpu ? Duration(cpu_seconds) : absl::StrCat(cpu_seconds);
    }
    case kSubmitLine:
      return step ? "" : job.submit_line();
  }
  return "";
}

// Pending tasks of one array that never started and share a state: one row.
std::vector<Row> Rows(const v1::GetAccountingReply& reply) {
  std::vector<Row> rows;
  const auto& jobs = reply.jobs();
  for (int i = 0; i < jobs.size(); ++i) {
    const v1::AcctJob& job = jobs[i];
    const bool collapsible = job.array_job_id() != 0 && job.start_time() == 0 && !job.steps_only();
    if (collapsible) {
      int j = i;
      std::vector<int32_t> tasks;
      while (j < jobs.size() && jobs[j].array_job_id() == job.array_job_id() &&
             jobs[j].start_time() == 0 && jobs[j].state() == job.state() &&
             jobs[j].cancelled_by() == job.cancelled_by() && !jobs[j].steps_only()) {
        tasks.push_back(jobs[j].array_task_id());
        ++j;
      }
      if (tasks.size() > 1) {
        // "1-5" for a run, "1,3,7" otherwise (Slurm's task string).
        std::string range;
        bool consecutive = true;
        for (size_t k = 1; k < tasks.size(); ++k) consecutive &= tasks[k] == tasks[k - 1] + 1;
        if (consecutive) {
          range = absl::StrCat(tasks.front(), "-", tasks.back());
        } else {
          for (int32_t t : tasks) absl::StrAppend(&range, range.empty() ? "" : ",", t);
        }
        rows.push_back({&job, nullptr, absl::StrCat("[", range, "]")});
        i = j - 1;
        continue;
      }
    }
    if (!job.steps_only()) rows.push_back({&job, nullptr, ""});
    for (const v1::AcctStep& step : job.steps()) rows.push_back({&job, &step, ""});
  }
  return rows;
}

}  // namespace

absl::StatusOr<std::vector<SacctField>> ParseSacctFormat(const std::string& format) {
  std::vector<SacctField> out;
  for (const FieldRequest& item : SplitFieldList(format)) {
    const Known* found = nullptr;
    for (const Known& known : kKnown) {
      if (absl::EqualsIgnoreCase(item.name, known.name)) found = &known;
    }
    if (found == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("Invalid field requested: \"", item.name, "\""));
    }
    SacctField field{found->name, found->width, static_cast<int>(found->column)};
    if (item.width != 0) {
      field.width = found->width < 0 ? -std::abs(item.width) : std::abs(item.width);
    }
    out.push_back(field);
  }
  return out;
}

std::string FormatSacct(const v1::GetAccountingReply& reply, const std::vector<SacctField>& fields,
                        const SacctLayout& layout) {
  PrintFieldsLayout print;
  print.no_header = layout.no_header;
  print.parsable = layout.parsable;
  print.parsable2 = layout.parsable2;
  print.delimiter = layout.delimiter;
  std::vector<std::string> names;
  std::vector<int> widths;
  for (const SacctField& field : fields) {
    names.push_back(field.name);
    widths.push_back(field.width);
  }
  std::string out = PrintFieldsHeader(names, widths, print);
  for (const Row& row : Rows(reply)) {
    std::vector<std::string> cells;
    for (const SacctField& field : fields) {
      std::string value = Value(row, static_cast<Column>(field.column), reply.now(), layout.units);
      if (layout.truncate && (field.column == kStart || field.column == kEnd)) {
        const int64_t t = field.column == kStart
                              ? (row.step ? row.step->start_time() : row.job->start_time())
                              : (row.step ? row.step->end_time() : row.job->end_time());
        if (t != 0 && field.column == kStart && t < layout.window_start) {
          value = Date(layout.window_start);
        }
        if (field.column == kEnd && layout.window_end != 0 && (t == 0 || t > layout.window_end)) {
          value = Date(layout.window_end);
        }
      }
      cells.push_back(std::move(value));
    }
    out += PrintFieldsLine(cells, widths, print);
  }
  return out;
}

absl::StatusOr<int> ParseSacctUnits(const std::string& text) {
  constexpr char kUnits[] = "KMGTP";
  const char* at = text.empty()
                       ? nullptr
                       : std::strchr(kUnits, std::toupper(static_cast<unsigned char>(text[0])));
  if (at == nullptr || *at == '\0') {
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid unit type '", text.substr(0, 1), "'. Possible options are 'KMGTP'"));
  }
  return static_cast<int>(at - kUnits) + 1;
}

std::string SacctHelpFormat() {
  std::string out;
  int in_line = 0;
  for (const Known& known : kKnown) {
    std::string name = known.name;
    out += name + std::string(name.size() < 20 ? 20 - name.size() : 1, ' ');
    if (++in_line == 4) {
      out += "\n";
      in_line = 0;
    }
  }
  if (in_line != 0) out += "\n";
  return out;
}

client::Json SacctTresArray(const std::string& tres) {
  struct Entry {
    int id;
    std::string type, name;
    int64_t count;
  };
  std::vector<Entry> entries;
  for (absl::string_view item : absl::StrSplit(tres, ',', absl::SkipEmpty())) {
    const size_t eq = item.find('=');
    if (eq == absl::string_view::npos) continue;
    const std::string key(item.substr(0, eq));
    std::string value(item.substr(eq + 1));
    int64_t scale = 1;  // memory and burst buffers count in MB
    if (!value.empty() && (key == "mem" || key.rfind("bb/", 0) == 0)) {
      switch (value.back()) {
        case 'K':
          scale = 0;
          break;
        case 'M':
          scale = 1;
          break;
        case 'G':
          scale = 1024;
          break;
        case 'T':
          scale = 1024 * 1024;
          break;
        default:
          break;
      }
      if (!std::isdigit(static_cast<unsigned char>(value.back()))) value.pop_back();
    }
    double number = 0;
    if (!absl::SimpleAtod(value, &number)) continue;
    const int64_t count = scale == 0 ? static_cast<int64_t>(number / 1024)
                                     : static_cast<int64_t>(number * static_cast<double>(scale));
    Entry e{0, key, "", count};
    const size_t slash = key.find('/');
    if (slash != std::string::npos) {
      e.type = key.substr(0, slash);
      e.name = key.substr(slash + 1);
    }
    static const std::map<std::string, int> kIds = {
        {"cpu", 1},     {"mem", 2},  {"energy", 3}, {"node", 4},        {"billing", 5},
        {"fs/disk", 6}, {"vmem", 7}, {"pages", 8},  {"gres/gpu", 1001}, {"bb/lua", 1002}};
    auto id = kIds.find(key);
    e.id = id != kIds.end() ? id->second : 1100 + static_cast<int>(entries.size());
    entries.push_back(std::move(e));
  }
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.id < b.id; });
  client::Json out = client::Json::Array();
  for (const Entry& e : entries) {
    client::Json t = client::Json::Object();
    t.Set("type", e.type);
    t.Set("name", e.name.empty() ? client::Json() : client::Json(e.name));
    t.Set("id", e.id);
    t.Set("count", static_cast<long long>(e.count));
    out.Push(std::move(t));
  }
  return out;
}

void WriteSacctJson(const v1::GetAccountingReply& reply,
                    const std::function<void(std::string_view)>& write) {
  auto time_object = [](const auto& record, int64_t submit, int64_t eligible, int64_t limit,
                        int64_t now) {
    client::Json time = client::Json::Object();
    const int64_t elapsed =
        Elapsed(record.start_time(), record.end_time(), record.suspended(), now);
    time.Set("elapsed", static_cast<long long>(elapsed));
    time.Set("eligible", static_cast<long long>(eligible));
    time.Set("end", static_cast<long long>(record.end_time()));
    time.Set("start", static_cast<long long>(record.start_time()));
    time.Set("submission", static_cast<long long>(submit));
    time.Set("suspended", static_cast<long long>(record.suspended()));
    if (limit >= 0) time.Set("limit", static_cast<long long>(limit / 60));
    return time;
  };
  auto exit_code = [](const std::string& state, int code, int signal) {
    client::Json exit = client::Json::Object();
    exit.Set("status", signal != 0 ? "SIGNALED" : (code != 0 ? "FAILED" : "SUCCESS"));
    exit.Set("return_code", code);
    if (signal != 0) {
      client::Json sig = client::Json::Object();
      sig.Set("signal_id", signal);
      exit.Set("signal", std::move(sig));
    }
    (void)state;
    return exit;
  };
  auto job_json = [&](const v1::AcctJob& job) {
    client::Json j = client::Json::Object();
    j.Set("account", job.account());
    client::Json array = client::Json::Object();
    array.Set("job_id", static_cast<unsigned long long>(job.array_job_id()));
    client::Json limits = client::Json::Object();
    client::Json max = client::Json::Object();
    client::Json running = client::Json::Object();
    running.Set("tasks", job.array_max_running());
    max.Set("running", std::move(running));
    limits.Set("max", std::move(max));
    array.Set("limits", std::move(limits));
    array.Set("task", job.array_job_id() != 0 ? absl::StrCat(job.array_task_id()) : "");
    array.Set("task_id",
              job.array_job_id() != 0 ? client::Json(job.array_task_id()) : client::Json());
    j.Set("array", std::move(array));
    j.Set("cluster", job.cluster());
    j.Set("constraints", job.constraints());
    client::Json derived =
        exit_code(job.state(), job.derived_exit_code(), job.derived_exit_signal());
    j.Set("derived_exit_code", std::move(derived));
    j.Set("time",
          time_object(job, job.submit_time(), job.eligible_time(), job.time_limit(), reply.now()));
    j.Set("comment", job.comment());
    j.Set("exit_code", exit_code(job.state(), job.exit_code(), job.exit_signal()));
    j.Set("group", job.group());
    j.Set("job_id", static_cast<unsigned long long>(job.job_id()));
    j.Set("name", job.name());
    j.Set("nodes", job.node_list().empty() ? "None assigned" : job.node_list());
    j.Set("partition", job.partition());
    j.Set("priority", static_cast<long long>(job.priority()));
    j.Set("qos", job.qos());
    j.Set("required", [&] {
      client::Json required = client::Json::Object();
      required.Set("CPUs", job.req_cpus());
      required.Set("memory", static_cast<unsigned long long>(job.req_mem_mb()));
      return required;
    }());
    client::Json state = client::Json::Object();
    state.Set("current", job.state());
    state.Set("reason", job.reason());
    j.Set("state", std::move(state));
    client::Json steps = client::Json::Array();
    for (const v1::AcctStep& step : job.steps()) {
      client::Json s = client::Json::Object();
      s.Set("time", time_object(step, step.start_time(), step.start_time(), -1, reply.now()));
      s.Set("exit_code", exit_code(step.state(), step.exit_code(), step.exit_signal()));
      client::Json nodes = client::Json::Object();
      nodes.Set("count", step.num_nodes());
      nodes.Set("range", step.node_list());
      s.Set("nodes", std::move(nodes));
      client::Json tasks = client::Json::Object();
      tasks.Set("count", step.ntasks());
      s.Set("tasks", std::move(tasks));
      s.Set("state", step.state());
      client::Json id = client::Json::Object();
      id.Set("job_id", static_cast<unsigned long long>(job.job_id()));
      id.Set("step_id", step.step_id());
      client::Json step_name = client::Json::Object();
      step_name.Set("id", absl::StrCat(job.job_id(), ".", step.step_id()));
      step_name.Set("name", step.name());
      s.Set("step", std::move(step_name));
      // A step's requested/consumed TRES are usage statistics (sstat's), not
      // kept once the step ends: empty, in Slurm's shape.
      client::Json usage = client::Json::Object();
      for (const char* key : {"max", "min", "average", "total"})
        usage.Set(key, client::Json::Array());
      client::Json tres = client::Json::Object();
      tres.Set("requested", usage);
      tres.Set("consumed", std::move(usage));
      tres.Set("allocated", SacctTresArray(step.alloc_tres()));
      s.Set("tres", std::move(tres));
      steps.Push(std::move(s));
    }
    j.Set("steps", std::move(steps));
    client::Json tres = client::Json::Object();
    tres.Set("allocated", SacctTresArray(job.alloc_tres()));
    tres.Set("requested", SacctTresArray(job.req_tres()));
    j.Set("tres", std::move(tres));
    j.Set("user", job.user());
    j.Set("working_directory", job.work_dir());
    return j;
  };
  client::Json document = client::SlurmJsonEnvelope();
  document.Set("jobs", client::Json::Array());
  client::Json::DumpWithElements(
      document, static_cast<size_t>(reply.jobs_size()),
      [&](size_t i) { return job_json(reply.jobs(static_cast<int>(i))); }, write);
}

}  // namespace skiff::cli
