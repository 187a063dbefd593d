#include "cli/scontrol/scontrol_format.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "client/job_fields.h"
#include "client/job_text.h"
#include "common/config/config.h"
#include "common/cpu_list.h"
#include "common/hostlist.h"
#include "common/node_topology.h"
#include "common/size.h"
#include "common/time_format.h"

namespace skiff::cli {
namespace {

std::string OrNull(const std::string& text) { return text.empty() ? "(null)" : text; }

std::string OrWord(const std::string& text, const std::string& word) {
  return text.empty() ? word : text;
}

std::string JoinOr(const google::protobuf::RepeatedPtrField<std::string>& items,
                   const std::string& word) {
  return items.empty() ? word : absl::StrJoin(items, ",");
}

std::string YesNo(bool b) { return b ? "YES" : "NO"; }

// Joins lines the way Slurm does: "\n   " between lines, or " " with -o.
class Record {
 public:
  explicit Record(bool one_liner) : sep_(one_liner ? " " : "\n   "), one_liner_(one_liner) {}
  void Line(const std::string& text) {
    if (!first_) out_ += sep_;
    out_ += text;
    first_ = false;
  }
  // Ends a job record: Slurm appends one more separator, then the blank line.
  std::string EndJob() { return out_ + sep_ + (one_liner_ ? "\n" : "\n\n"); }
  // Ends a node or partition record.
  std::string End() { return out_ + (one_liner_ ? "\n" : "\n\n"); }

 private:
  std::string sep_;
  bool one_liner_;
  std::string out_;
  bool first_ = true;
};

// Slurm's mail event bits, in the order print_mail_type lists them.
constexpr const char* kMailTypeOrder[] = {
    "ARRAY_TASKS", "INVALID_DEPEND", "BEGIN",         "END",           "FAIL",       "REQUEUE",
    "STAGE_OUT",   "TIME_LIMIT_50",  "TIME_LIMIT_80", "TIME_LIMIT_90", "TIME_LIMIT",
};

// --mail-type as Slurm prints it back: known names in its order, ALL spelled
// out, "" for NONE (a NONE ends the list, as in Slurm's parse_mail_type).
std::string MailType(const std::string& text) {
  std::set<std::string> types;
  for (const std::string& item : client::SplitCommaList(text)) {
    std::string t = absl::AsciiStrToUpper(item);
    if (t == "NONE") {
      types.clear();
      break;
    }
    if (t == "ALL") {
      types.insert({"INVALID_DEPEND", "BEGIN", "END", "FAIL", "REQUEUE", "STAGE_OUT"});
    } else {
      types.insert(t);
    }
  }
  std::vector<std::string> out;
  for (const char* t : kMailTypeOrder) {
    if (types.count(t)) out.push_back(t);
  }
  return absl::StrJoin(out, ",");
}

// "gres:gpu:..." entries for each item of a -G/--gpus-per-node value.
std::vector<std::string> GpuTres(const std::string& value) {
  std::vector<std::string> out;
  for (const std::string& item : client::SplitCommaList(value)) out.push_back("gres:gpu:" + item);
  return out;
}

// Expands the few patterns a fallback output path may hold.
std::string ExpandPath(const std::string& pattern, const v1::JobInfo& job) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%' || i + 1 == pattern.size()) {
      out += pattern[i];
      continue;
    }
    char c = pattern[++i];
    switch (c) {
      case 'j':
        absl::StrAppend(&out, job.job_id());
        break;
      case 'A':
        absl::StrAppend(&out, job.array_job_id() != 0 ? job.array_job_id() : job.job_id());
        break;
      case 'a':
        // Slurm's NO_VAL for a job that is not an array task.
        if (job.array_job_id() != 0) {
          absl::StrAppend(&out, job.array_task_id());
        } else {
          out += "4294967294";
        }
        break;
      case 'x':
        out += job.spec().name();
        break;
      case 'u':
        out += job.user_name();
        break;
      case '%':
        out += '%';
        break;
      default:
        out += '%';
        out += c;
        break;
    }
  }
  if (!out.empty() && out[0] != '/') out = job.spec().work_dir() + "/" + out;
  return out;
}

std::string StdOut(const v1::JobInfo& job) {
  if (!job.stdout_path().empty()) return job.stdout_path();
  std::string pattern = job.spec().stdout_pattern();
  if (pattern.empty()) pattern = client::IsArrayTask(job) ? "slurm-%A_%a.out" : "slurm-%j.out";
  return ExpandPath(pattern, job);
}

std::string StdErr(const v1::JobInfo& job) {
  if (!job.stderr_path().empty()) return job.stderr_path();
  if (job.spec().stderr_pattern().empty()) return StdOut(job);
  return ExpandPath(job.spec().stderr_pattern(), job);
}

int64_t RunTime(const v1::JobInfo& job, int64_t now) {
  if (job.state() == v1::PENDING || job.start_time() == 0) return 0;
  int64_t end = client::IsActiveJobState(job.state()) || job.end_time() == 0 ? now : job.end_time();
  return std::max<int64_t>(0, end - job.start_time() - job.suspended_seconds());
}

std::string NodeState(const v1::NodeInfo& node) {
  std::string state = OrWord(node.state(), "UNKNOWN");
  if (node.drain()) state += "+DRAIN";
  if (node.fail()) state += "+FAIL";
  // Slurm names the flags in alphabetical order ("MIXED+MAINTENANCE+RESERVED").
  if (node.maint()) state += "+MAINTENANCE";
  if (node.not_responding()) state += "+NOT_RESPONDING";
  if (node.reserved()) state += "+RESERVED";
  return state;
}

std::string NodeGres(const v1::NodeInfo& node) {
  std::vector<std::string> parts;
  for (const v1::Gres& g : node.gres()) {
    parts.push_back(g.type().empty() ? absl::StrCat(g.name(), ":", g.count())
                                     : absl::StrCat(g.name(), ":", g.type(), ":", g.count()));
  }
  return parts.empty() ? "(null)" : absl::StrJoin(parts, ",");
}

std::string TimeOrNone(int64_t t) { return t == 0 ? "None" : FormatTimestamp(t); }
std::string TimeOrUnknown(int64_t t) { return t == 0 ? "Unknown" : FormatTimestamp(t); }

std::string NodeNames(const google::protobuf::RepeatedPtrField<std::string>& names) {
  return names.empty() ? "(null)" : CompressHostlist({names.begin(), names.end()});
}

// How the array fields of the first line read.
struct ArrayText {
  std::string task_ids;  // ArrayTaskId=
  int32_t throttle = 0;  // ArrayTaskThrottle=, 0 = not shown
};

// The first line's array fields for `job`'s pending tasks `task_ids` (Slurm's
// meta record, which holds an array's tasks until they start), or for one task
// that has left it.
ArrayText ArrayFields(const v1::JobInfo& job, const std::vector<int32_t>& task_ids) {
  ArrayText text;
  if (job.state() != v1::PENDING && !job.cancelled_with_array()) {
    text.task_ids = absl::StrCat(job.array_task_id());
    return text;
  }
  text.task_ids = client::FormatTaskRanges(task_ids);  // Slurm's array_task_str: "1,3,7-9"
  text.throttle = job.array_max_running();
  if (text.throttle > 0) absl::StrAppend(&text.task_ids, "%", text.throttle);
  return text;
}

// The GPU type a job asked for ("a100" of --gres=gpu:a100:1 or
// --gpus-per-node=a100:1), "" when untyped.
std::string RequestedGpuType(const v1::JobSpec& spec) {
  for (const std::string& entry : spec.gres()) {
    std::vector<std::string> parts = absl::StrSplit(entry, ':');
    if (parts.size() == 3 && parts[0] == "gpu") return parts[1];
  }
  for (const std::string& item : client::SplitCommaList(spec.gpus_per_node() + "," + spec.gpus())) {
    std::vector<std::string> parts = absl::StrSplit(item, ':');
    if (parts.size() == 2) return parts[0];
  }
  return "";
}

// -d: "JOB_GRES=gpu:2" and, per run of nodes holding the same, "  Nodes=n[1-2]
// CPU_IDs=0-1 Mem=1024 GRES=gpu:1(IDX:0)" (Slurm's slurm_sprint_job_info).
void DetailLines(const v1::JobInfo& job, Record* r) {
  if (job.node_resources_size() == 0 || job.node_resources_size() > job.nodes_size()) return;
  const std::string type = RequestedGpuType(job.spec());
  const std::string gpu = type.empty() ? "gpu:" : "gpu:" + type + ":";
  int64_t total_gpus = 0;
  for (const v1::JobNodeResources& node : job.node_resources())
    total_gpus += node.gpu_indices_size();
  r->Line("JOB_GRES=" + (total_gpus > 0 ? absl::StrCat(gpu, total_gpus) : std::string("(null)")));
  std::vector<std::string> group;
  std::string last;
  auto flush = [&] {
    if (!group.empty()) r->Line(absl::StrCat("  Nodes=", CompressHostlist(group), " ", last));
    group.clear();
  };
  for (int i = 0; i < job.node_resources_size(); ++i) {
    const v1::JobNodeResources& node = job.node_resources(i);
    std::string gres;
    if (node.gpu_indices_size() > 0) {
      gres = absl::StrCat(
          gpu, node.gpu_indices_size(),
          "(IDX:", FormatCpuList({node.gpu_indices().begin(), node.gpu_indices().end()}), ")");
    }
    const std::string held =
        absl::StrCat("CPU_IDs=", FormatCpuList({node.cpu_ids().begin(), node.cpu_ids().end()}),
                     " Mem=", job.mem_per_node_mb(), " GRES=", gres);
    if (held != last) flush();
    last = held;
    group.push_back(job.nodes(i));
  }
  flush();
}

std::string FormatJob(const v1::JobInfo& job, const ShowOptions& options, const ArrayText& array) {
  const v1::JobSpec& spec = job.spec();
  int64_t now = options.now != 0 ? options.now : job.now();
  Record r(options.one_liner);
  std::string first = absl::StrCat("JobId=", job.job_id(), " ");
  if (job.array_job_id() != 0) {
    absl::StrAppend(&first, "ArrayJobId=", job.array_job_id(), " ArrayTaskId=", array.task_ids,
                    " ");
    if (array.throttle > 0) absl::StrAppend(&first, "ArrayTaskThrottle=", array.throttle, " ");
  }
  r.Line(first + "JobName=" + spec.name());
  std::string user = job.user_name().empty() ? client::UserNameOf(job.user_id()) : job.user_name();
  std::string group =
      job.group_name().empty() ? client::GroupNameOf(job.group_id()) : job.group_name();
  r.Line(absl::StrCat("UserId=", user, "(", job.user_id(), ") GroupId=", group, "(", job.group_id(),
                      ") MCS_label=N/A"));
  r.Line(absl::StrCat("Priority=", job.priority(), " Nice=", job.nice(),
                      " Account=", OrNull(job.account().empty() ? spec.account() : job.account()),
                      " QOS=", OrNull(job.qos().empty() ? spec.qos() : job.qos())));
  std::string reason = job.state_reason().empty() ? "None" : job.state_reason();
  if (!job.state_description().empty()) reason = job.state_description();
  // Slurm's: white space becomes '_' so that the line still splits on spaces.
  std::replace_if(
      reason.begin(), reason.end(),
      [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }, '_');
  r.Line(absl::StrCat("JobState=", client::JobStateName(job.state()), " Reason=", reason,
                      " Dependency=", client::JobDependencyText(job)));
  r.Line(absl::StrCat("Requeue=", spec.has_requeue() ? (spec.requeue() ? 1 : 0) : 1,
                      " Restarts=", job.restart_count(),
                      // salloc's and srun's allocations have no batch script.
                      " BatchFlag=", spec.interactive() ? 0 : 1,
                      " Reboot=0 ExitCode=", job.exit_code(), ":", job.exit_signal()));
  // -d: the highest exit code of the job's steps (0:0 until a step ends), as Slurm.
  if (options.details > 0) {
    r.Line(
        absl::StrCat("DerivedExitCode=", job.derived_exit_code(), ":", job.derived_exit_signal()));
  }
  r.Line(absl::StrCat("RunTime=", FormatTimeLimit(RunTime(job, now)),
                      " TimeLimit=", FormatTimeLimit(job.time_limit()), " TimeMin=",
                      spec.time_min() == 0 ? "N/A" : FormatTimeLimit(spec.time_min())));
  r.Line(absl::StrCat("SubmitTime=", FormatTimestamp(job.submit_time()),
                      " EligibleTime=", FormatTimestamp(job.eligible_time())));
  r.Line(absl::StrCat("AccrueTime=", FormatTimestamp(job.held() ? 0 : job.eligible_time())));
  // A pending job shows backfill's estimate, as Slurm's backfill sets the
  // start time of the jobs it plans (and marks them Scheduler=Backfill:*).
  const bool estimated =
      job.state() == v1::PENDING && job.start_time() == 0 && job.expected_start() != 0;
  const int64_t start = estimated ? job.expected_start() : job.start_time();
  int64_t end = job.end_time();
  if (end == 0 && start != 0 && job.time_limit() >= 0) {
    end = start + job.time_limit() + job.suspended_seconds();
  }
  r.Line(
      absl::StrCat("StartTime=", FormatTimestamp(start), " EndTime=", FormatTimestamp(end),
                   " Deadline=", spec.deadline() != 0 ? FormatTimestamp(spec.deadline()) : "N/A"));
  // SecsPreSuspend: the run time before the last suspend, as Slurm.
  const bool suspended_once = job.suspend_time() != 0;
  r.Line(absl::StrCat(
      "SuspendTime=", suspended_once ? FormatTimestamp(job.suspend_time()) : "None",
      " SecsPreSuspend=",
      job.state() == v1::SUSPENDED
          ? std::max<int64_t>(
                0, job.suspend_time() - job.start_time() -
                       (job.suspended_seconds() - std::max<int64_t>(0, now - job.suspend_time())))
          : 0,
      " LastSchedEval=",
      FormatTimestamp(job.start_time() != 0 ? job.start_time() : job.submit_time()),
      // Backfill:* while backfill plans it; Backfill for a job it planned that
      // ended without running (ctld sends no plan for any other).
      " Scheduler=",
      estimated                   ? "Backfill:*"
      : job.expected_start() != 0 ? "Backfill"
                                  : "Main"));
  r.Line(absl::StrCat("Partition=", job.partition().empty() ? spec.partition() : job.partition(),
                      " AllocNode:Sid=", OrNull(spec.submit_host()), ":0"));
  r.Line(absl::StrCat("ReqNodeList=", NodeNames(spec.nodelist()),
                      " ExcNodeList=", NodeNames(spec.exclude())));
  std::vector<std::string> nodes(job.nodes().begin(), job.nodes().end());
  // A pending job (or one that ended pending): where backfill planned to start
  // it, as Slurm's.
  r.Line(absl::StrCat(
      "NodeList=", CompressHostlist(nodes),
      nodes.empty() && !job.sched_nodes().empty() ? " SchedNodeList=" + job.sched_nodes() : ""));
  if (!nodes.empty()) r.Line("BatchHost=" + nodes.front());
  // A pending job shows the -N range it asked for ("2-2" for -N2), as Slurm's.
  const std::string num_nodes =
      job.state() == v1::PENDING && spec.max_nodes() > 0
          ? absl::StrCat(client::JobNumNodes(job), "-",
                         std::max(spec.max_nodes(), client::JobNumNodes(job)))
          : absl::StrCat(client::JobNumNodes(job));
  r.Line(absl::StrCat("NumNodes=", num_nodes, " NumCPUs=", client::JobNumCpus(job),
                      " NumTasks=", job.num_tasks() > 0 ? absl::StrCat(job.num_tasks()) : "N/A",
                      " CPUs/Task=", job.cpus_per_task() > 0 ? job.cpus_per_task() : 1,
                      // Boards and sockets per board: Slurm's 0 (no board is asked).
                      " ReqB:S:C:T=0:0:", TopologyField(spec.cores_per_socket()), ":",
                      TopologyField(spec.threads_per_core())));
  r.Line("TRES=" + client::JobTresText(job));
  r.Line(absl::StrCat("Socks/Node=", TopologyField(spec.sockets_per_node()),
                      " NtasksPerN:B:S:C=0:0:*:* CoreSpec=*"));
  if (options.details > 0) DetailLines(job, &r);
  std::string min_memory;
  if (spec.mem_per_cpu_mb() > 0) {
    min_memory = "MinMemoryCPU=" + client::FormatMemoryMb(spec.mem_per_cpu_mb());
  } else {
    min_memory = "MinMemoryNode=" + client::FormatMemoryMb(spec.mem_per_node_mb() > 0
                                                               ? spec.mem_per_node_mb()
                                                               : job.mem_per_node_mb());
  }
  r.Line(absl::StrCat("MinCPUsNode=", job.cpus_per_task() > 0 ? job.cpus_per_task() : 1, " ",
                      min_memory,
                      " MinTmpDiskNode=", client::FormatMemoryMb(spec.min_tmp_disk_mb())));
  r.Line("Features=" + OrNull(spec.constraint()) + " DelayBoot=00:00:00");
  if (!spec.prefer().empty()) r.Line("Prefer=" + spec.prefer());
  if (!spec.reservation().empty()) r.Line("Reservation=" + spec.reservation());
  r.Line(absl::StrCat("OverSubscribe=", client::JobOverSubscribeText(spec),
                      " Contiguous=", spec.contiguous() ? 1 : 0,
                      " Licenses=", OrNull(spec.licenses()), " Network=(null)"));
  r.Line("Command=" +
         (spec.command() == "(wrap)" ? std::string("(null)") : OrNull(spec.command())));
  r.Line("WorkDir=" + spec.work_dir());
  if (!spec.comment().empty()) r.Line("Comment=" + spec.comment() + " ");
  r.Line("StdErr=" + StdErr(job));
  r.Line("StdIn=" + OrWord(spec.stdin_path(), "/dev/null"));
  r.Line("StdOut=" + StdOut(job));
  if (!spec.burst_buffer().empty()) {
    std::string bb = spec.burst_buffer();
    while (!bb.empty() && bb.back() == '\n') bb.pop_back();
    r.Line("BurstBuffer=" + bb);
  }
  if (!job.burst_buffer_state().empty()) {
    r.Line("BurstBufferState=" + job.burst_buffer_state());
  }
  r.Line("Power=");
  // Slurm's spelling, typo included.
  if (spec.kill_on_invalid_dep()) r.Line("KillOInInvalidDependent=Yes");
  // In Slurm's order: CpusPerTres, MemPerTres, TresPerJob, TresPerNode, TresPerTask.
  if (spec.cpus_per_gpu() > 0) r.Line(absl::StrCat("CpusPerTres=gres:gpu:", spec.cpus_per_gpu()));
  if (spec.mem_per_gpu_mb() > 0)
    r.Line(absl::StrCat("MemPerTres=gres:gpu:", spec.mem_per_gpu_mb()));
  if (!spec.gpus().empty()) r.Line("TresPerJob=" + absl::StrJoin(GpuTres(spec.gpus()), ","));
  std::vector<std::string> per_node;
  for (const std::string& g : spec.gres()) per_node.push_back("gres:" + g);
  for (const std::string& g : GpuTres(spec.gpus_per_node())) per_node.push_back(g);
  if (!per_node.empty()) r.Line("TresPerNode=" + absl::StrJoin(per_node, ","));
  if (!spec.gpus_per_task().empty()) {
    r.Line("TresPerTask=" + absl::StrJoin(GpuTres(spec.gpus_per_task()), ","));
  }
  if (std::string mail = MailType(spec.mail_type()); !mail.empty()) {
    r.Line(absl::StrCat("MailUser=", spec.mail_user().empty() ? user : spec.mail_user(),
                        " MailType=", mail));
  }
  // Slurm's --container, its OCI bundle (job_info.c's line after MailUser=).
  // A pyxis image is a SPANK option Slurm's job record never holds, so a job
  // with one shows nothing here, as in Slurm.
  if (!spec.container().bundle().empty()) r.Line("Container=" + spec.container().bundle());
  return r.EndJob();
}

// An array's pending tasks share one record, as in Slurm, when they are alike
// in what the record shows about their state; so do the tasks cancelled with
// the array before they started (Slurm's meta record, then CANCELLED).
std::string PendingGroupKey(const v1::JobInfo& job) {
  return absl::StrCat(job.array_job_id(), "/", job.state(), "/", job.state_reason(), "/",
                      job.held(), "/", job.held_by_admin(), "/", job.state_description());
}

bool IsPendingArrayTask(const v1::JobInfo& job) {
  return job.array_job_id() != 0 && (job.state() == v1::PENDING || job.cancelled_with_array());
}

}  // namespace

std::string FormatJobRecord(const v1::JobInfo& job, const ShowOptions& options) {
  return FormatJob(job, options, ArrayFields(job, {job.array_task_id()}));
}

std::string FormatJobRecords(const v1::GetJobsReply& reply, const ShowOptions& options) {
  if (reply.jobs().empty()) return "No jobs in the system\n";
  ShowOptions o = options;
  if (o.now == 0) o.now = reply.now();
  // Pending tasks of one array fold into the record of the first of them.
  std::map<std::string, std::vector<int32_t>> groups;
  for (const v1::JobInfo& job : reply.jobs()) {
    if (IsPendingArrayTask(job)) groups[PendingGroupKey(job)].push_back(job.array_task_id());
  }
  std::string out;
  std::set<std::string> printed;
  for (const v1::JobInfo& job : reply.jobs()) {
    if (!IsPendingArrayTask(job)) {
      out += FormatJobRecord(job, o);
      continue;
    }
    std::string key = PendingGroupKey(job);
    if (!printed.insert(key).second) continue;
    out += FormatJob(job, o, ArrayFields(job, groups[key]));
  }
  return out;
}

std::string FormatNodeRecord(const v1::NodeInfo& node, const ShowOptions& options,
                             int slurmd_port) {
  Record r(options.one_liner);
  r.Line(absl::StrCat("NodeName=", node.name(), " Arch=", OrNull(node.arch()),
                      " CoresPerSocket=", node.cores_per_socket(), " "));
  r.Line(absl::StrCat(
      "CPUAlloc=", node.alloc_cpus(), " CPUEfctv=", node.cpus(), " CPUTot=", node.cpus(),
      " CPULoad=",
      node.has_cpu_load() ? absl::StrFormat("%.2f", node.cpu_load() / 100.0) : std::string("N/A")));
  r.Line("AvailableFeatures=" + JoinOr(node.features(), "(null)"));
  r.Line("ActiveFeatures=" + JoinOr(node.features(), "(null)"));
  r.Line("Gres=" + NodeGres(node));
  std::string addr =
      absl::StrCat("NodeAddr=", OrNull(node.addr()), " NodeHostName=", OrNull(node.hostname()));
  if (slurmd_port == 0 || node.port() != slurmd_port) absl::StrAppend(&addr, " Port=", node.port());
  if (!node.version().empty()) absl::StrAppend(&addr, " Version=", node.version());
  r.Line(addr);
  if (!node.os().empty()) r.Line("OS=" + node.os() + " ");
  r.Line(absl::StrCat(
      "RealMemory=", node.real_memory_mb(), " AllocMem=", node.alloc_memory_mb(), " FreeMem=",
      node.has_free_memory_mb() ? absl::StrCat(node.free_memory_mb()) : std::string("N/A"),
      " Sockets=", node.sockets(), " Boards=1"));
  r.Line(absl::StrCat("State=", NodeState(node), " ThreadsPerCore=", node.threads_per_core(),
                      " TmpDisk=", node.tmp_disk_mb(), " Weight=", node.weight(),
                      " Owner=N/A MCS_label=N/A"));
  if (!node.partitions().empty())
    r.Line("Partitions=" + absl::StrJoin(node.partitions(), ",") + " ");
  r.Line(absl::StrCat("BootTime=", TimeOrNone(node.boot_time()),
                      " SlurmdStartTime=", TimeOrNone(node.last_registered())));
  r.Line("LastBusyTime=" + TimeOrUnknown(node.last_busy_time()));
  std::vector<std::string> cfg = {absl::StrCat("cpu=", node.cpus()),
                                  "mem=" + client::FormatMemoryMb(node.real_memory_mb()),
                                  absl::StrCat("billing=", node.cpus())};
  std::map<std::string, int64_t> gres;
  for (const v1::Gres& g : node.gres()) gres[g.name()] += g.count();
  for (const auto& [name, count] : gres) cfg.push_back(absl::StrCat("gres/", name, "=", count));
  r.Line("CfgTRES=" + absl::StrJoin(cfg, ","));
  std::vector<std::string> alloc;
  if (node.alloc_cpus() > 0) alloc.push_back(absl::StrCat("cpu=", node.alloc_cpus()));
  if (node.alloc_memory_mb() > 0)
    alloc.push_back("mem=" + client::FormatMemoryMb(node.alloc_memory_mb()));
  if (node.alloc_gpu_indices_size() > 0) {
    alloc.push_back(absl::StrCat("gres/gpu=", node.alloc_gpu_indices_size()));
  }
  r.Line("AllocTRES=" + absl::StrJoin(alloc, ","));
  r.Line("CapWatts=n/a");
  r.Line("CurrentWatts=0 AveWatts=0");
  r.Line("ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s");
  if (!node.reason().empty()) r.Line("Reason=" + node.reason());
  return r.End();
}

std::string FormatPartitionRecords(const v1::GetPartitionsReply& reply,
                                   const ShowOptions& options) {
  std::map<std::string, const v1::NodeInfo*> nodes;
  for (const v1::NodeInfo& node : reply.nodes()) nodes[node.name()] = &node;
  std::string out;
  for (const v1::PartitionInfo& p : reply.partitions()) {
    int64_t cpus = 0;
    uint64_t mem = 0;
    std::map<std::string, int64_t> gres;
    for (const std::string& name : p.nodes()) {
      auto it = nodes.find(name);
      if (it == nodes.end()) continue;
      cpus += it->second->cpus();
      mem += it->second->real_memory_mb();
      for (const v1::Gres& g : it->second->gres()) gres[g.name()] += g.count();
    }
    Record r(options.one_liner);
    r.Line("PartitionName=" + p.name());
    r.Line(absl::StrCat("AllowGroups=", JoinOr(p.allow_groups(), "ALL"),
                        " AllowAccounts=", JoinOr(p.allow_accounts(), "ALL"),
                        " AllowQos=", JoinOr(p.allow_qos(), "ALL")));
    r.Line(absl::StrCat("AllocNodes=ALL Default=", YesNo(p.is_default()),
                        " QoS=", OrWord(p.qos(), "N/A")));
    r.Line(absl::StrCat(
        "DefaultTime=", p.default_time() < 0 ? "NONE" : FormatTimeLimit(p.default_time()),
        " DisableRootJobs=NO ExclusiveUser=NO GraceTime=", p.grace_time(),
        " Hidden=", YesNo(p.hidden())));
    r.Line(absl::StrCat("MaxNodes=", p.max_nodes() < 0 ? "UNLIMITED" : absl::StrCat(p.max_nodes()),
                        " MaxTime=", FormatTimeLimit(p.max_time()), " MinNodes=", p.min_nodes(),
                        " LLN=NO MaxCPUsPerNode=UNLIMITED"));
    r.Line("Nodes=" + CompressHostlist({p.nodes().begin(), p.nodes().end()}));
    r.Line(absl::StrCat("PriorityJobFactor=", p.priority_job_factor(),
                        " PriorityTier=", p.priority_tier(), " RootOnly=", YesNo(p.root_only()),
                        " ReqResv=NO OverSubscribe=", OrWord(p.oversubscribe(), "NO")));
    r.Line("OverTimeLimit=NONE PreemptMode=" + OrWord(p.preempt_mode(), "OFF"));
    r.Line(absl::StrCat("State=", OrWord(p.state(), "UP"), " TotalCPUs=", cpus,
                        " TotalNodes=", p.nodes_size(), " SelectTypeParameters=NONE"));
    r.Line("JobDefaults=(null)");
    r.Line("DefMemPerNode=UNLIMITED MaxMemPerNode=UNLIMITED");
    std::vector<std::string> tres = {
        absl::StrCat("cpu=", cpus), "mem=" + client::FormatMemoryMb(mem),
        absl::StrCat("node=", p.nodes_size()), absl::StrCat("billing=", cpus)};
    if (options.bb_total_bytes > 0) {
      tres.push_back("bb/lua=" + client::FormatMemoryMb(options.bb_total_bytes / (1024 * 1024)));
    }
    for (const auto& [name, count] : gres) tres.push_back(absl::StrCat("gres/", name, "=", count));
    r.Line("TRES=" + absl::StrJoin(tres, ","));
    out += r.End();
  }
  return out;
}

std::string FormatConfig(const v1::GetConfigReply& reply, int64_t now, const std::string& ctld_host,
                         bool ctld_up) {
  std::string out = absl::StrCat("Configuration data as of ", FormatTimestamp(now), "\n");
  for (const v1::ConfigEntry& e : reply.entries()) {
    std::string key = e.key();
    if (key.size() < 23) key.resize(23, ' ');
    absl::StrAppend(&out, key, " = ", e.value(), "\n");
  }
  absl::StrAppend(&out, "\n", FormatPing(ctld_host, ctld_up));
  return out;
}

std::string FormatPings(const std::vector<ControllerPing>& pings, bool root) {
  std::string out;
  bool down = false;
  std::string serving;
  for (size_t i = 0; i < pings.size(); ++i) {
    absl::StrAppend(&out, "Slurmctld(", ControllerMode(i, pings.size()), ") at ", pings[i].name,
                    " is ", pings[i].up ? "UP" : "DOWN", "\n");
    down = down || !pings[i].up;
    if (pings[i].up && pings[i].serving) serving = pings[i].name;
  }
  if (down && root) {
    absl::StrAppend(&out,
                    "*****************************************\n"
                    "** RESTORE SLURMCTLD DAEMON TO SERVICE **\n"
                    "*****************************************\n");
  }
  if (pings.size() > 1) {
    absl::StrAppend(&out, "Serving: ", serving.empty() ? "none" : serving, "\n");
  }
  return out;
}

std::string FormatPing(const std::string& ctld_host, bool up) {
  return absl::StrCat("Slurmctld(primary) at ", ctld_host, " is ", up ? "UP" : "DOWN", "\n");
}

std::string FormatBbSize(uint64_t bytes) {
  if (bytes == 0) return "0";
  struct Unit {
    uint64_t size;
    const char* suffix;
  };
  // Largest first, binary before decimal at each step, as Slurm's _get_size_str.
  static const Unit kUnits[] = {
      {kTiB * 1024, "PiB"}, {1000ULL * 1000 * 1000 * 1000 * 1000, "PB"},
      {kTiB, "TiB"},        {1000ULL * 1000 * 1000 * 1000, "TB"},
      {kGiB, "GiB"},        {1000ULL * 1000 * 1000, "GB"},
      {kMiB, "MiB"},        {1000ULL * 1000, "MB"},
      {kKiB, "KiB"},        {1000, "KB"},
  };
  for (const Unit& unit : kUnits) {
    if (bytes % unit.size == 0) return absl::StrCat(bytes / unit.size, unit.suffix);
  }
  return absl::StrCat(bytes);
}

std::string FormatLicenses(const v1::GetLicensesReply& reply, const std::string& name,
                           const ShowOptions& options) {
  if (reply.licenses().empty()) return "No licenses configured in Slurm.\n";
  std::vector<const v1::LicenseInfo*> sorted;
  for (const v1::LicenseInfo& license : reply.licenses()) sorted.push_back(&license);
  std::sort(sorted.begin(), sorted.end(), [](const v1::LicenseInfo* a, const v1::LicenseInfo* b) {
    return a->name() < b->name();
  });
  std::string out;
  for (const v1::LicenseInfo* license : sorted) {
    if (!name.empty() && license->name() != name) continue;
    absl::StrAppend(&out, "LicenseName=", license->name(), options.one_liner ? " " : "\n    ",
                    "Total=", license->total(), " Used=", license->used(),
                    " Free=", std::max<int64_t>(0, license->total() - license->used()),
                    " Reserved=0 Remote=no\n");
  }
  return out;
}

std::string FormatBurstBuffers(const v1::GetBurstBuffersReply& reply, const ShowOptions& options) {
  if (!reply.enabled()) return "";
  const std::string sep = options.one_liner ? " " : "\n  ";
  // The plugin's own line: burst_buffer/lua keeps its space in pools, so the
  // unnamed default pool is always empty.
  std::string out = absl::StrCat("Name=lua DefaultPool=", OrNull(reply.default_pool()),
                                 " Granularity=1 TotalSpace=0 FreeSpace=0 UsedSpace=0");
  for (int i = 0; i < reply.pools_size(); ++i) {
    const v1::BbPoolInfo& pool = reply.pools(i);
    uint64_t free =
        pool.total_bytes() > pool.used_bytes() ? pool.total_bytes() - pool.used_bytes() : 0;
    absl::StrAppend(&out, sep, "PoolName[", i, "]=", pool.name(),
                    " Granularity=", FormatBbSize(pool.granularity()),
                    " TotalSpace=", FormatBbSize(pool.total_bytes()),
                    " FreeSpace=", FormatBbSize(free),
                    " UsedSpace=", FormatBbSize(pool.used_bytes()));
  }
  absl::StrAppend(&out, sep, "Flags=", reply.flags());
  absl::StrAppend(&out, sep, "StageInTimeout=", reply.stage_in_timeout(),
                  " StageOutTimeout=", reply.stage_out_timeout(),
                  " ValidateTimeout=", reply.validate_timeout(),
                  " OtherTimeout=", reply.other_timeout());
  if (!reply.allow_users().empty()) {
    absl::StrAppend(&out, sep, "AllowUsers=", absl::StrJoin(reply.allow_users(), ","));
  } else if (!reply.deny_users().empty()) {
    absl::StrAppend(&out, sep, "DenyUsers=", absl::StrJoin(reply.deny_users(), ","));
  }
  absl::StrAppend(&out, sep, "GetSysState=(null)", sep, "GetSysStatus=(null)\n");

  auto user = [](uint32_t uid, const std::string& name) {
    return absl::StrCat(name.empty() ? client::UserNameOf(uid) : name, "(", uid, ")");
  };
  if (!reply.allocations().empty()) out += "  Allocated Buffers:\n";
  std::map<uint32_t, std::pair<std::string, uint64_t>> use;  // uid -> (name, bytes)
  for (const v1::BbAllocationInfo& a : reply.allocations()) {
    // Slurm prints the present time for a buffer without a creation time.
    int64_t created = a.create_time() != 0 ? a.create_time() : options.now;
    absl::StrAppend(&out, "    JobID=", a.job_id(), " CreateTime=", FormatTimestamp(created),
                    " Pool=", a.pool(), " Size=", FormatBbSize(a.size_bytes()),
                    " State=", a.state(), " UserID=", user(a.user_id(), a.user_name()), "\n");
    auto& entry = use[a.user_id()];
    if (entry.first.empty()) entry.first = a.user_name();
    entry.second += a.size_bytes();
  }
  if (!use.empty()) out += "  Per User Buffer Use:\n";
  for (const auto& [uid, entry] : use) {
    absl::StrAppend(&out, "    UserID=", user(uid, entry.first),
                    " Used=", FormatBbSize(entry.second), "\n");
  }
  return out;
}

std::string FormatBbStatus(const v1::GetBbStatusReply& reply) {
  std::string out = reply.output();
  if (!out.empty() && out.back() != '\n') out += '\n';
  return out;
}

std::string FormatStepRecord(const v1::StepInfo& step, const ShowOptions& options) {
  const v1::AcctStep& s = step.step();
  const char* line_end = options.one_liner ? " " : "\n   ";
  std::string out = "StepId=";
  if (step.array_job_id() != 0 && step.array_task_id() >= 0) {
    absl::StrAppend(&out, step.array_job_id(), "_", step.array_task_id(), ".");
  } else {
    absl::StrAppend(&out, step.job_id(), ".");
  }
  const bool batch = s.step_id() == "batch";
  absl::StrAppend(&out, s.step_id(), " UserId=", step.uid(),
                  " StartTime=", FormatTimestamp(s.start_time()), " TimeLimit=UNLIMITED");
  absl::StrAppend(&out, line_end, "State=", s.end_time() == 0 ? "RUNNING" : s.state(),
                  " Partition=", step.partition(), " NodeList=", s.node_list());
  absl::StrAppend(&out, line_end, "Nodes=", s.num_nodes(), " CPUs=", s.alloc_cpus(),
                  " Tasks=", s.ntasks(), " Name=", s.name(), " Network=(null)");
  absl::StrAppend(&out, line_end, "TRES=", s.alloc_tres());
  absl::StrAppend(&out, line_end, "ResvPorts=(null)");
  absl::StrAppend(&out, line_end, "CPUFreqReq=Default", batch ? "" : " Dist=Block");
  absl::StrAppend(&out, line_end, "SrunHost:Pid=", s.srun_host().empty() ? "(null)" : s.srun_host(),
                  ":", s.srun_pid());
  absl::StrAppend(&out, options.one_liner ? "\n" : "\n\n");
  return out;
}

}  // namespace skiff::cli
