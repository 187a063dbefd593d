#include "cli/squeue/squeue_format.h"

#include <time.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/common/job_text.h"
#include "common/hostlist.h"
#include "common/time_format.h"

namespace skiff {
namespace {

std::string OrNull(const std::string& text) { return text.empty() ? "(null)" : text; }

std::string Partition(const v1::JobInfo& job) {
  return job.partition().empty() ? job.spec().partition() : job.partition();
}

std::string ReasonText(const v1::JobInfo& job) {
  if (!job.state_description().empty()) return job.state_description();
  return job.state_reason().empty() ? "None" : job.state_reason();
}

// Seconds the job has run (squeue TIME, Slurm's job_time_used).
int64_t TimeUsed(const v1::JobInfo& job, int64_t now) {
  if (job.state() == v1::PENDING || job.start_time() == 0) return 0;
  int64_t end = job.end_time() != 0 && !IsActiveJobState(job.state()) ? job.end_time() : now;
  return std::max<int64_t>(0, end - job.start_time());
}

std::string Timestamp(int64_t t) { return t == 0 ? "N/A" : FormatTimestamp(t); }

std::string Fit(const std::string& value, const SqueueFormatItem& item) {
  if (item.width <= 0) return value;
  size_t width = static_cast<size_t>(item.width);
  if (value.size() >= width) return value.substr(0, width);
  std::string fill(width - value.size(), ' ');
  return item.right ? fill + value : value + fill;
}

// A collapsed array line's task set: "1-5", with the array's "%N" throttle.
std::string TaskSetText(const v1::JobInfo& job, const std::vector<int32_t>& tasks) {
  std::string text = FormatTaskRanges(tasks);
  if (job.array_max_running() > 0) absl::StrAppend(&text, "%", job.array_max_running());
  return text;
}

// -O names, lower case, and the field each prints (Slurm's squeue opts.c).
struct LongField {
  const char* name;
  char field;
};
constexpr LongField kLongFields[] = {
    {"account", 'a'},
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
};

std::string TimestampLine(int64_t now) {
  time_t t = static_cast<time_t>(now);
  struct tm tm;
  localtime_r(&t, &tm);
  char buf[64];
  strftime(buf, sizeof(buf), "%a %b %d %H:%M:%S %Y", &tm);
  return absl::StrCat(buf, "\n");
}

}  // namespace

std::string SqueueFieldHeader(char field) {
  switch (field) {
    case 'a':
      return "ACCOUNT";
    case 'A':
      return "JOBID";
    case 'b':
      return "TRES_PER_NODE";
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
      return "";
  }
}

absl::StatusOr<std::vector<SqueueFormatItem>> ParseSqueueFormat(std::string_view format) {
  return ParsePercentFormat(format, [](char field) {
    return absl::ascii_isalpha(static_cast<unsigned char>(field)) &&
           !SqueueFieldHeader(field).empty();
  });
}

absl::StatusOr<std::vector<SqueueFormatItem>> ParseSqueueLongFormat(std::string_view format) {
  std::vector<SqueueFormatItem> items;
  for (const std::string& token : SplitCommaList(format)) {
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
    absl::AsciiStrToLower(&name);
    auto it = std::find_if(std::begin(kLongFields), std::end(kLongFields),
                           [&](const LongField& f) { return name == f.name; });
    if (it == std::end(kLongFields)) {
      return absl::InvalidArgumentError(
          absl::StrCat("Invalid job format specification: ", token.substr(0, token.find(':'))));
    }
    item.field = it->field;
    items.push_back(item);
    if (!suffix.empty()) {
      SqueueFormatItem literal;
      literal.literal = suffix;
      items.push_back(literal);
    }
  }
  if (items.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid job format specification: \"", std::string(format), "\""));
  }
  return items;
}

std::string SqueueFieldValue(const v1::JobInfo& job, char field, int64_t now) {
  const v1::JobSpec& spec = job.spec();
  switch (field) {
    case 'a':
      return OrNull(job.account().empty() ? spec.account() : job.account());
    case 'A':
      return absl::StrCat(job.job_id());
    case 'b': {
      if (spec.gres().empty()) return "N/A";
      std::vector<std::string> parts;
      for (const std::string& g : spec.gres()) parts.push_back("gres:" + g);
      return absl::StrJoin(parts, ",");
    }
    case 'C':
      return absl::StrCat(job.num_cpus() > 0 ? job.num_cpus() : 1);
    case 'D':
      return absl::StrCat(job.num_nodes() > 0    ? job.num_nodes()
                          : spec.min_nodes() > 0 ? spec.min_nodes()
                                                 : 1);
    case 'e': {
      int64_t end = job.end_time();
      if (end == 0 && job.start_time() != 0 && job.time_limit() >= 0) {
        end = job.start_time() + job.time_limit();
      }
      return Timestamp(end);
    }
    case 'E':
      return OrNull(spec.dependency());
    case 'F':
      return absl::StrCat(IsArrayTask(job) ? job.array_job_id() : job.job_id());
    case 'g':
      return job.group_name().empty() ? GroupNameOf(job.group_id()) : job.group_name();
    case 'G':
      return absl::StrCat(job.group_id());
    case 'i':
      return JobIdText(job);
    case 'j':
      return spec.name();
    case 'k':
      return OrNull(spec.comment());
    case 'K':
      return IsArrayTask(job) ? absl::StrCat(job.array_task_id()) : "N/A";
    case 'l':
      return FormatElapsed(job.time_limit());
    case 'L': {
      if (job.time_limit() == kInfiniteDuration) return "UNLIMITED";
      return FormatElapsed(std::max<int64_t>(0, job.time_limit() - TimeUsed(job, now)));
    }
    case 'm':
      if (spec.mem_per_cpu_mb() > 0) return FormatMemoryMb(spec.mem_per_cpu_mb());
      if (spec.mem_per_node_mb() > 0) return FormatMemoryMb(spec.mem_per_node_mb());
      return FormatMemoryMb(job.mem_per_node_mb());
    case 'M':
      return FormatElapsed(TimeUsed(job, now));
    case 'N':
      return CompressHostlist({job.nodes().begin(), job.nodes().end()});
    case 'o':
      return spec.command().empty() || spec.command() == "(wrap)" ? "(null)" : spec.command();
    case 'P':
      return Partition(job);
    case 'q':
      return OrNull(job.qos().empty() ? spec.qos() : job.qos());
    case 'Q':
      return absl::StrCat(job.priority());
    case 'r':
      return ReasonText(job);
    case 'R': {
      // Slurm shows the reason for jobs waiting or ended by their own failure, and
      // the nodes otherwise.
      v1::JobState s = job.state();
      if (s == v1::PENDING || s == v1::TIMEOUT || s == v1::OUT_OF_MEMORY || s == v1::FAILED) {
        return absl::StrCat("(", ReasonText(job), ")");
      }
      return CompressHostlist({job.nodes().begin(), job.nodes().end()});
    }
    case 'S':
      // Actual start, or for a pending job the scheduler's estimate.
      if (job.start_time() == 0 && job.state() == v1::PENDING) {
        return Timestamp(job.expected_start());
      }
      return Timestamp(job.start_time());
    case 't':
      return JobStateCode(job.state());
    case 'T':
      return JobStateName(job.state());
    case 'u':
      return job.user_name().empty() ? UserNameOf(job.user_id()) : job.user_name();
    case 'U':
      return absl::StrCat(job.user_id());
    case 'V':
      return Timestamp(job.submit_time());
    case 'Y':
      // Skiff does not publish the nodes a pending job is expected to start on.
      return "(null)";
    case 'Z':
      return spec.work_dir();
    case kFieldBurstBuffer:
      return OrNull(spec.burst_buffer());
    case kFieldBurstBufferState:
      return OrNull(job.burst_buffer_state());
    default:
      return "";
  }
}

std::string SqueueRowValue(const SqueueRow& row, char field, int64_t now) {
  const v1::JobInfo& job = *row.job;
  if (row.tasks.empty()) return SqueueFieldValue(job, field, now);
  switch (field) {
    case 'i':
      return absl::StrCat(job.array_job_id(), "_[", TaskSetText(job, row.tasks), "]");
    case 'K':
      return TaskSetText(job, row.tasks);
    case 'A':
    case 'F':
      return absl::StrCat(job.array_job_id());
    default:
      return SqueueFieldValue(job, field, now);
  }
}

std::vector<const v1::JobInfo*> SelectAndSortJobs(const v1::GetJobsReply& reply,
                                                  const SqueueOptions& options) {
  std::vector<const v1::JobInfo*> jobs;
  for (const v1::JobInfo& job : reply.jobs()) {
    bool wanted = options.states.empty() ? IsActiveJobState(job.state())
                                         : std::find(options.states.begin(), options.states.end(),
                                                     job.state()) != options.states.end();
    if (wanted) jobs.push_back(&job);
  }
  std::stable_sort(jobs.begin(), jobs.end(), [](const v1::JobInfo* a, const v1::JobInfo* b) {
    std::string pa = Partition(*a), pb = Partition(*b);
    if (pa != pb) return pa < pb;
    std::string sa = JobStateCode(a->state()), sb = JobStateCode(b->state());
    if (sa != sb) return sa < sb;
    return a->priority() > b->priority();
  });
  return jobs;
}

std::vector<SqueueRow> SelectAndSortRows(const v1::GetJobsReply& reply,
                                         const SqueueOptions& options) {
  std::vector<SqueueRow> rows;
  // Index in `rows` of each collapsible group's row.
  std::map<std::tuple<uint64_t, std::string, std::string>, size_t> groups;
  for (const v1::JobInfo* job : SelectAndSortJobs(reply, options)) {
    if (options.array || job->state() != v1::PENDING || !IsArrayTask(*job)) {
      rows.push_back(SqueueRow{job, {}});
      continue;
    }
    auto key = std::make_tuple(job->array_job_id(), Partition(*job), ReasonText(*job));
    auto [it, inserted] = groups.emplace(key, rows.size());
    if (inserted) {
      rows.push_back(SqueueRow{job, {job->array_task_id()}});
    } else {
      rows[it->second].tasks.push_back(job->array_task_id());
    }
  }
  // A group of one is a plain line ("15400_5"), as Slurm shows an array's last
  // pending task.
  for (SqueueRow& row : rows) {
    if (row.tasks.size() == 1) row.tasks.clear();
  }
  if (options.start) {
    std::stable_sort(rows.begin(), rows.end(), [](const SqueueRow& a, const SqueueRow& b) {
      int64_t ta = a.job->expected_start(), tb = b.job->expected_start();
      if ((ta == 0) != (tb == 0)) return tb == 0;
      return ta < tb;
    });
  }
  return rows;
}

absl::StatusOr<std::string> FormatSqueue(const v1::GetJobsReply& reply,
                                         const SqueueOptions& options) {
  absl::StatusOr<std::vector<SqueueFormatItem>> items;
  if (options.format.empty() && !options.format_fields.empty()) {
    items = ParseSqueueLongFormat(options.format_fields);
  } else {
    std::string format = options.format;
    if (format.empty()) {
      format = options.start         ? kSqueueStartFormat
               : options.long_format ? kSqueueLongFormat
                                     : kSqueueDefaultFormat;
    }
    items = ParseSqueueFormat(format);
  }
  if (!items.ok()) return items.status();

  std::string out;
  if (options.long_format) out += TimestampLine(options.now);
  auto line = [&](auto value_of) {
    std::string text;
    for (const SqueueFormatItem& item : *items) {
      text += item.field == 0 ? item.literal : Fit(value_of(item.field), item);
    }
    absl::StrAppend(&out, text, "\n");
  };
  if (!options.no_header) line([](char field) { return SqueueFieldHeader(field); });
  for (const SqueueRow& row : SelectAndSortRows(reply, options)) {
    int64_t now = options.now != 0 ? options.now : row.job->now();
    line([&](char field) { return SqueueRowValue(row, field, now); });
  }
  return out;
}

}  // namespace skiff
