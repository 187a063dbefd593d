// squeue's fields by name: the -O names and the values of those without an -o
// letter, every field's header, and the parsing of -o and -O formats.
#include "cli/squeue/squeue_fields.h"

#include <algorithm>
#include <iterator>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "cli/squeue/squeue_format.h"
#include "client/job_fields.h"
#include "client/job_text.h"
#include "common/time_format.h"

namespace skiff::cli {

using squeue_internal::ExtraField;
using squeue_internal::OrNull;
using squeue_internal::Timestamp;

namespace {

// -O names, lower case, and the field each prints (Slurm's squeue opts.c).
struct LongField {
  const char* name;
  char field;
};
constexpr LongField kLongFields[] = {
    {"account", 'a'},
    {"batchhost", 'B'},
    {"contiguous", 'O'},
    {"cores", 'I'},
    {"corespec", 'X'},
    {"excnodes", 'x'},
    {"features", 'f'},
    {"licenses", 'W'},
    {"mincpus", 'c'},
    {"mintmpdisk", 'd'},
    {"nice", 'y'},
    {"oversubscribe", 'h'},
    {"priority", 'p'},
    {"reqnodes", 'n'},
    {"reservation", 'v'},
    {"sct", 'z'},
    {"sockets", 'H'},
    {"threads", 'J'},
    {"wckey", 'w'},
    {"arrayjobid", 'F'},
    {"arraytaskid", 'K'},
    {"burstbuffer", kFieldBurstBuffer},
    {"burstbufferstate", kFieldBurstBufferState},
    {"command", 'o'},
    {"comment", 'k'},
    {"dependency", 'E'},
    {"endtime", 'e'},
    {"gres", 'b'},
    {"groupid", 'G'},
    {"groupname", 'g'},
    {"jobarrayid", 'i'},
    {"jobid", 'A'},
    {"minmemory", 'm'},
    {"name", 'j'},
    {"nodelist", 'N'},
    {"numcpus", 'C'},
    {"numnodes", 'D'},
    {"partition", 'P'},
    {"prioritylong", 'Q'},
    {"qos", 'q'},
    {"reason", 'r'},
    {"reasonlist", 'R'},
    {"schednodes", 'Y'},
    {"starttime", 'S'},
    {"state", 'T'},
    {"statecompact", 't'},
    {"submittime", 'V'},
    {"timeleft", 'L'},
    {"timelimit", 'l'},
    {"timeused", 'M'},
    {"tres-per-node", 'b'},
    {"userid", 'U'},
    {"username", 'u'},
    {"workdir", 'Z'},
    {"feature", 'f'},
    {"gres", 'b'},
    {"shared", 'h'},
    {"timelimit", 'l'},
    {"selectjobinfo", 's'},
};

// The -O names without an -o letter, with their headers and values
// (ExtraField). Where Skiff has no such thing the value is what Slurm prints for
// a job without it.
std::string NullText(const v1::JobInfo&, int64_t) { return "(null)"; }
std::string NotApplicable(const v1::JobInfo&, int64_t) { return "N/A"; }
std::string NotAvailable(const v1::JobInfo&, int64_t) { return "NA"; }
std::string Zero(const v1::JobInfo&, int64_t) { return "0"; }
std::string ZeroTime(const v1::JobInfo&, int64_t) { return FormatElapsed(0); }

constexpr ExtraField kExtraFields[] = {
    {"container", "CONTAINER",
     [](const v1::JobInfo& job, int64_t) { return OrNull(job.spec().container().bundle()); }},
    {"cluster", "CLUSTER", NullText},
    {"delayboot", "DELAY_BOOT", ZeroTime},
    {"clusterfeature", "CLUSTER_FEATURES", NullText},
    {"prefer", "PREFER", NullText},
    {"admin_comment", "ADMIN_COMMENT", NullText},
    {"system_comment", "SYSTEM_COMMENT", NullText},
    {"lastschedeval", "LAST_SCHED_EVAL",
     [](const v1::JobInfo& job, int64_t now) {
       // Skiff's scheduler looks at every pending job on each pass.
       return Timestamp(job.start_time() != 0 ? job.start_time() : now);
     }},
    {"pendingtime", "PENDING_TIME",
     [](const v1::JobInfo& job, int64_t now) {
       const int64_t until =
           job.start_time() != 0 && job.start_time() < now ? job.start_time() : now;
       return absl::StrCat(until - job.submit_time());
     }},
    {"accruetime", "ACCRUE_TIME",
     [](const v1::JobInfo& job, int64_t) {
       return Timestamp(job.held() || !job.dependency().empty() ? 0 : job.eligible_time());
     }},
    {"allocnodes", "ALLOC_NODES",
     [](const v1::JobInfo& job, int64_t) { return OrNull(job.spec().submit_host()); }},
    {"allocsid", "ALLOC_SID", Zero},
    {"associd", "ASSOC_ID", Zero},
    {"batchflag", "BATCH_FLAG",
     [](const v1::JobInfo& job, int64_t) -> std::string {
       return job.spec().interactive() ? "0" : "1";
     }},
    {"boardspernode", "BOARDS_PER_NODE", Zero},
    {"cpuspertask", "CPUS_PER_TASK",
     [](const v1::JobInfo& job, int64_t) {
       return absl::StrCat(std::max(1, job.cpus_per_task()));
     }},
    {"cpus-per-task", "CPUS_PER_TASK",
     [](const v1::JobInfo& job, int64_t) {
       return absl::StrCat(std::max(1, job.cpus_per_task()));
     }},
    {"derivedec", "DERIVED_EC",
     [](const v1::JobInfo& job, int64_t) { return absl::StrCat(job.derived_exit_code()); }},
    {"eligibletime", "ELIGIBLE_TIME",
     [](const v1::JobInfo& job, int64_t) { return Timestamp(job.eligible_time()); }},
    {"exit_code", "EXIT_CODE",
     [](const v1::JobInfo& job, int64_t) {
       // Slurm's wait status: code << 8, or the signal.
       return absl::StrCat(job.exit_signal() != 0 ? job.exit_signal() : job.exit_code() << 8);
     }},
    {"origin", "ORIGIN", NotAvailable},
    {"originraw", "ORIGIN_RAW", NotAvailable},
    {"siblingsactive", "ACTIVE_SIBLINGS", NotAvailable},
    {"siblingsactiveraw", "ACTIVE_SIBLINGS_RAW", NotAvailable},
    {"siblingsviable", "VIABLE_SIBLINGS", NotAvailable},
    {"siblingsviableraw", "VIALBLE_SIBLINGS_RAW", NotAvailable},  // sic, Slurm's header
    {"maxcpus", "MAX_CPUS",
     [](const v1::JobInfo& job, int64_t) {
       return absl::StrCat(job.num_cpus() > 0 ? job.num_cpus() : 1);
     }},
    {"maxnodes", "MAX_NODES",
     [](const v1::JobInfo& job, int64_t) {
       const int32_t max = job.spec().max_nodes() > 0 ? job.spec().max_nodes() : job.num_nodes();
       return absl::StrCat(max > 0 ? max : 1);
     }},
    {"network", "NETWORK", NullText},
    {"ntpercore", "NTASKS_PER_CORE", NotApplicable},
    {"ntpernode", "NTASKS_PER_NODE",
     [](const v1::JobInfo& job, int64_t) { return absl::StrCat(job.spec().ntasks_per_node()); }},
    {"ntpersocket", "NTASKS_PER_SOCKET", NotApplicable},
    {"ntperboard", "NTASKS_PER_BOARD", Zero},
    {"preempttime", "PREEMPT_TIME", NotApplicable},
    {"profile", "PROFILE", [](const v1::JobInfo&, int64_t) -> std::string { return "NotSet"; }},
    {"reboot", "REBOOT", Zero},
    {"reqswitch", "REQ_SWITCH", Zero},
    {"requeue", "REQUEUE",
     [](const v1::JobInfo& job, int64_t) -> std::string {
       return job.spec().has_requeue() && !job.spec().requeue() ? "0" : "1";
     }},
    {"resizetime", "RESIZE_TIME", NotApplicable},
    {"restartcnt", "RESTART_COUNT",
     [](const v1::JobInfo& job, int64_t) { return absl::StrCat(job.restart_count()); }},
    {"sperboard", "SOCKETS_PER_BOARD", Zero},
    {"stderr", "STDERR",
     [](const v1::JobInfo& job, int64_t) {
       return OrNull(job.stderr_path().empty() ? job.stdout_path() : job.stderr_path());
     }},
    {"stdin", "STDIN",
     [](const v1::JobInfo& job, int64_t) -> std::string {
       return job.spec().stdin_path().empty() ? "/dev/null" : job.spec().stdin_path();
     }},
    {"stdout", "STDOUT", [](const v1::JobInfo& job, int64_t) { return OrNull(job.stdout_path()); }},
    {"mintime", "TIME_MIN", ZeroTime},
    {"wait4switch", "WAIT4SWITCH", ZeroTime},
    {"cpus-per-tres", "CPUS_PER_TRES",
     [](const v1::JobInfo& job, int64_t) -> std::string {
       if (job.spec().cpus_per_gpu() == 0) return "N/A";
       return absl::StrCat("gres:gpu:", job.spec().cpus_per_gpu());
     }},
    {"mem-per-tres", "MEM_PER_TRES",
     [](const v1::JobInfo& job, int64_t) -> std::string {
       if (job.spec().mem_per_gpu_mb() == 0) return "N/A";
       return absl::StrCat("gres:gpu:", job.spec().mem_per_gpu_mb());
     }},
    {"tres", "TRES_ALLOC",
     [](const v1::JobInfo& job, int64_t) { return client::JobTresText(job); }},
    {"tres-alloc", "TRES_ALLOC",
     [](const v1::JobInfo& job, int64_t) { return client::JobTresText(job); }},
    {"tres-bind", "TRES_BIND", NotApplicable},
    {"tres-freq", "TRES_FREQ", NotApplicable},
    {"tres-per-job", "TRES_PER_JOB",
     [](const v1::JobInfo& job, int64_t) -> std::string {
       return job.spec().gpus().empty() ? "N/A" : "gres:gpu:" + job.spec().gpus();
     }},
    {"tres-per-socket", "TRES_PER_SOCKET", NotApplicable},
    {"tres-per-task", "TRES_PER_TASK",
     [](const v1::JobInfo& job, int64_t) -> std::string {
       return job.spec().gpus_per_task().empty() ? "N/A" : "gres:gpu:" + job.spec().gpus_per_task();
     }},
    {"mcslabel", "MCSLABEL", NullText},
    {"deadline", "DEADLINE",
     [](const v1::JobInfo& job, int64_t) { return Timestamp(job.spec().deadline()); }},
    {"packjobid", "HET_JOB_ID", NotApplicable},
    {"hetjobid", "HET_JOB_ID", NotApplicable},
    {"packjoboffset", "HET_JOB_OFFSET", NotApplicable},
    {"hetjoboffset", "HET_JOB_OFFSET", NotApplicable},
    {"packjobidset", "HET_JOB_ID_SET", NotApplicable},
    {"hetjobidset", "HET_JOB_ID_SET", NotApplicable},
    {"numtasks", "TASKS",
     [](const v1::JobInfo& job, int64_t) {
       return absl::StrCat(job.num_tasks() > 0 ? job.num_tasks() : 1);
     }},
};

constexpr int kExtraFieldCount = static_cast<int>(std::size(kExtraFields));

}  // namespace

namespace squeue_internal {

const ExtraField* ExtraFieldOf(char field) {
  const int index = static_cast<unsigned char>(field) - static_cast<unsigned char>(kFieldExtraBase);
  return index >= 0 && index < kExtraFieldCount ? &kExtraFields[index] : nullptr;
}

}  // namespace squeue_internal

using squeue_internal::ExtraFieldOf;

std::string SqueueFieldHeader(char field) {
  switch (field) {
    case 'a':
      return "ACCOUNT";
    case 'A':
      return "JOBID";
    case 'b':
      return "TRES_PER_NODE";
    case 'B':
      return "EXEC_HOST";
    case 'c':
      return "MIN_CPUS";
    case 'd':
      return "MIN_TMP_DISK";
    case 'f':
      return "FEATURES";
    case 'h':
      return "OVER_SUBSCRIBE";
    case 'H':
      return "SOCKETS_PER_NODE";
    case 'I':
      return "CORES_PER_SOCKET";
    case 'J':
      return "THREADS_PER_CORE";
    case 'n':
      return "REQ_NODES";
    case 'O':
      return "CONTIGUOUS";
    case 'p':
      return "PRIORITY";
    case 's':
      return "SELECT_JOBINFO";
    case 'v':
      return "RESERVATION";
    case 'w':
      return "WCKEY";
    case 'W':
      return "LICENSES";
    case 'x':
      return "EXC_NODES";
    case 'X':
      return "CORE_SPEC";
    case 'y':
      return "NICE";
    case 'z':
      return "S:C:T";
    case 'C':
      return "CPUS";
    case 'D':
      return "NODES";
    case 'e':
      return "END_TIME";
    case 'E':
      return "DEPENDENCY";
    case 'F':
      return "ARRAY_JOB_ID";
    case 'g':
    case 'G':
      return "GROUP";
    case 'i':
      return "JOBID";
    case 'j':
      return "NAME";
    case 'k':
      return "COMMENT";
    case 'K':
      return "ARRAY_TASK_ID";
    case 'l':
      return "TIME_LIMIT";
    case 'L':
      return "TIME_LEFT";
    case 'm':
      return "MIN_MEMORY";
    case 'M':
      return "TIME";
    case 'N':
      return "NODELIST";
    case 'o':
      return "COMMAND";
    case 'P':
      return "PARTITION";
    case 'q':
      return "QOS";
    case 'Q':
      return "PRIORITY";
    case 'r':
      return "REASON";
    case 'R':
      return "NODELIST(REASON)";
    case 'S':
      return "START_TIME";
    case 't':
      return "ST";
    case 'T':
      return "STATE";
    case 'u':
      return "USER";
    case 'U':
      return "UID";
    case 'V':
      return "SUBMIT_TIME";
    case 'Y':
      return "SCHEDNODES";
    case 'Z':
      return "WORK_DIR";
    case kFieldBurstBuffer:
      return "BURST_BUFFER";
    case kFieldBurstBufferState:
      return "BURST_BUFFER_STATE";
    default:
      if (const ExtraField* extra = ExtraFieldOf(field)) return extra->header;
      return "";
  }
}

SqueueFormatSpec ParseSqueueFormat(std::string_view format) {
  SqueueFormatSpec spec;
  auto literal = [&](const std::string& text) {
    if (text.empty()) return;
    SqueueFormatItem item;
    item.literal = text;
    spec.items.push_back(item);
  };
  const size_t first = format.find('%');
  literal(std::string(format.substr(0, first)));
  if (first == std::string_view::npos) return spec;
  // strtok(format, "%"): the pieces between '%'s, empty ones skipped.
  size_t i = first;
  while (i < format.size()) {
    size_t end = format.find('%', i + 1);
    if (end == std::string_view::npos) end = format.size();
    const std::string token(format.substr(i + 1, end - i - 1));
    i = end;
    if (token.empty()) continue;
    SqueueFormatItem item;
    size_t k = 0;
    if (token[k] == '.') {
      item.right = true;
      ++k;
    }
    while (k < token.size() && absl::ascii_isdigit(static_cast<unsigned char>(token[k]))) {
      item.width = std::min(item.width * 10 + (token[k] - '0'), 10000);
      ++k;
    }
    const char field = k < token.size() ? token[k] : '\0';
    if (field != '\0' && absl::ascii_isalpha(static_cast<unsigned char>(field))) {
      item.field = field;
      spec.items.push_back(item);
      literal(token.substr(k + 1));
    } else {
      // Slurm prints the whole bad piece, '%' and all, where the field would be.
      spec.errors.push_back(absl::StrCat("Invalid job format specification: ",
                                         field == '\0' ? "" : std::string(1, field)));
      literal("%" + token);
    }
  }
  return spec;
}

SqueueFormatSpec ParseSqueueLongFormat(std::string_view format) {
  SqueueFormatSpec spec;
  for (const std::string& token : client::SplitCommaList(format)) {
    SqueueFormatItem item;
    item.width = 20;
    std::string name = token;
    std::string suffix;
    if (size_t colon = token.find(':'); colon != std::string::npos) {
      name = token.substr(0, colon);
      size_t i = colon + 1;
      if (i < token.size() && token[i] == '.') {
        item.right = true;
        ++i;
      }
      item.width = 0;
      while (i < token.size() && absl::ascii_isdigit(static_cast<unsigned char>(token[i]))) {
        item.width = std::min(item.width * 10 + (token[i] - '0'), 10000);
        ++i;
      }
      suffix = token.substr(i);
    }
    std::string lower = absl::AsciiStrToLower(name);
    // Slurm compares "numtasks" on its first 7 letters only.
    if (lower.rfind("numtask", 0) == 0) lower = "numtasks";
    auto it = std::find_if(std::begin(kLongFields), std::end(kLongFields),
                           [&](const LongField& f) { return lower == f.name; });
    auto extra = std::find_if(std::begin(kExtraFields), std::end(kExtraFields),
                              [&](const ExtraField& f) { return lower == f.name; });
    if (it != std::end(kLongFields)) {
      item.field = it->field;
      spec.items.push_back(item);
    } else if (extra != std::end(kExtraFields)) {
      item.field = static_cast<char>(static_cast<unsigned char>(kFieldExtraBase) +
                                     (extra - std::begin(kExtraFields)));
      spec.items.push_back(item);
    } else {
      spec.errors.push_back(absl::StrCat("Invalid job format specification: ", name));
    }
    if (!suffix.empty()) {
      SqueueFormatItem literal;
      literal.literal = suffix;
      spec.items.push_back(literal);
    }
  }
  return spec;
}

SqueueFormatSpec SqueueFormatFor(const SqueueOptions& options) {
  if (options.format_given) return ParseSqueueFormat(options.format);
  if (options.format_fields_given) return ParseSqueueLongFormat(options.format_fields);
  return ParseSqueueFormat(options.start         ? kSqueueStartFormat
                           : options.long_format ? kSqueueLongFormat
                                                 : kSqueueDefaultFormat);
}

}  // namespace skiff::cli
