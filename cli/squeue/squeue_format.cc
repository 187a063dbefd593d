// squeue's rows and lines: which jobs are shown, in which order, the value of
// each field, and the job and step listings (field names and formats:
// squeue_fields.cc).
#include "cli/squeue/squeue_format.h"

#include <stdio.h>
#include <time.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "cli/squeue/squeue_fields.h"
#include "cli/squeue/squeue_sort.h"
#include "client/job_fields.h"
#include "client/job_text.h"
#include "common/hostlist.h"
#include "common/node_topology.h"
#include "common/time_format.h"

namespace skiff::cli {

using squeue_internal::ExtraField;
using squeue_internal::ExtraFieldOf;
using squeue_internal::OrNull;
using squeue_internal::Timestamp;

namespace {

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
  int64_t end =
      job.end_time() != 0 && !client::IsActiveJobState(job.state()) ? job.end_time() : now;
  // Time suspended is not time used (a suspended job's TIME stands still).
  return std::max<int64_t>(0, end - job.start_time() - job.suspended_seconds());
}

// A collapsed array line's task set: "1-5", with the array's "%N" throttle.
std::string TaskSetText(const v1::JobInfo& job, const std::vector<int32_t>& tasks) {
  std::string text = client::FormatTaskRanges(tasks);
  if (job.array_max_running() > 0) absl::StrAppend(&text, "%", job.array_max_running());
  return text;
}

// Slurm prints these whole even when wider than their column (print.c calls
// _print_str with cut_output false): node lists and durations.
bool NeverCut(char field, bool header, const v1::JobInfo* job) {
  switch (field) {
    case 'N':
    case 'Y':
      return true;
    case 'M':
    case 'l':
    case 'L':
      return !header;
    case 'R':
      return header || job == nullptr ||
             !(job->state() == v1::PENDING || job->state() == v1::TIMEOUT ||
               job->state() == v1::OUT_OF_MEMORY || job->state() == v1::FAILED);
    default:
      return false;
  }
}

std::string Pad(const std::string& value, const SqueueFormatItem& item, bool cut) {
  if (item.width <= 0) return value;
  size_t width = static_cast<size_t>(item.width);
  if (value.size() >= width) return cut ? value.substr(0, width) : value;
  std::string fill(width - value.size(), ' ');
  return item.right ? fill + value : value + fill;
}

std::string StepFieldHeader(char field) {
  switch (field) {
    case 'A':
      return "TASKS";
    case 'b':
      return "TRES_PER_NODE";
    case 'i':
      return "STEPID";
    case 'j':
      return "NAME";
    case 'l':
      return "TIME_LIMIT";
    case 'M':
      return "TIME";
    case 'N':
      return "NODELIST";
    case 'P':
      return "PARTITION";
    case 'S':
      return "START_TIME";
    case 'U':
      return "UID";
    case 'u':
      return "USER";
    default:
      return "";
  }
}

}  // namespace

namespace {

// The fields SqueueFieldValue reads from the submitted spec beyond what ctld
// keeps in memory: %b gres, %E the dependency as submitted, %h exclusive,
// %m memory, %o command, %O contiguous, %Z working directory.
bool ReadsWholeSpec(char field) {
  if (ExtraFieldOf(field) != nullptr) return true;
  return std::string_view("bEhmoOZ").find(field) != std::string_view::npos;
}

}  // namespace

bool SqueueNeedsOnlySummary(const SqueueOptions& options) {
  for (const SqueueFormatItem& item : SqueueFormatFor(options).items) {
    if (item.field != 0 && ReadsWholeSpec(item.field)) return false;
  }
  std::string sort_spec = options.sort;
  if (sort_spec.empty()) sort_spec = options.start ? kSqueueStartSort : kSqueueDefaultSort;
  absl::StatusOr<SqueueSort> sort = ParseSqueueSort(sort_spec);
  if (!sort.ok()) return false;
  for (const SqueueSortKey& key : sort->keys) {
    if (key.field == 'm') return false;  // MinMemory reads the spec
  }
  return true;
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
      // The dependencies still to be met, marked as Slurm marks them.
      return client::JobDependencyText(job);
    case 'F':
      return absl::StrCat(client::IsArrayTask(job) ? job.array_job_id() : job.job_id());
    case 'g':
      return job.group_name().empty() ? client::GroupNameOf(job.group_id()) : job.group_name();
    case 'G':
      return absl::StrCat(job.group_id());
    case 'i':
      return client::JobIdText(job);
    case 'j':
      return spec.name();
    case 'k':
      return OrNull(spec.comment());
    case 'K':
      return client::IsArrayTask(job) ? absl::StrCat(job.array_task_id()) : "N/A";
    case 'l':
      return FormatElapsed(job.time_limit());
    case 'L': {
      if (job.time_limit() == kInfiniteDuration) return "UNLIMITED";
      return FormatElapsed(std::max<int64_t>(0, job.time_limit() - TimeUsed(job, now)));
    }
    case 'm':
      if (spec.mem_per_cpu_mb() > 0) return client::FormatMemoryMb(spec.mem_per_cpu_mb());
      if (spec.mem_per_node_mb() > 0) return client::FormatMemoryMb(spec.mem_per_node_mb());
      return client::FormatMemoryMb(job.mem_per_node_mb());
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
      return client::JobStateCode(job.state());
    case 'T':
      return client::JobStateName(job.state());
    case 'u':
      return job.user_name().empty() ? client::UserNameOf(job.user_id()) : job.user_name();
    case 'U':
      return absl::StrCat(job.user_id());
    case 'V':
      return Timestamp(job.submit_time());
    case 'Y':
      // Where backfill plans a pending job (squeue --start's SCHEDNODES).
      return OrNull(job.sched_nodes());
    case 'B':
      return job.nodes().empty() ? "n/a" : job.nodes(0);
    case 'c':
      return absl::StrCat(std::max(1, job.cpus_per_task()));
    case 'd':
      return client::FormatMemoryMb(spec.min_tmp_disk_mb());
    case 'f':
      return OrNull(spec.constraint());
    case 'h':
      return client::JobOverSubscribeText(spec);
    case 'H':
    case 'I':
    case 'J':
      return "*";
    case 'n':
      return CompressHostlist({spec.nodelist().begin(), spec.nodelist().end()});
    case 'O':
      return spec.contiguous() ? "1" : "0";
    case 'p': {
      char text[32];
      snprintf(text, sizeof(text), "%16.14f",
               static_cast<double>(job.priority()) / static_cast<double>(0xffffffffu));
      return text;
    }
    case 's':
      return "";
    case 'v':
      return spec.reservation().empty() ? "(null)" : spec.reservation();
    case 'w':
      return "(null)";
    case 'W':
      return spec.licenses().empty() ? "(null)" : spec.licenses();
    case 'x':
      return CompressHostlist({spec.exclude().begin(), spec.exclude().end()});
    case 'X':
      return "N/A";
    case 'y':
      return absl::StrCat(job.nice());
    case 'z':
      return FormatSocketsCoresThreads(
          {spec.sockets_per_node(), spec.cores_per_socket(), spec.threads_per_core()});
    case 'Z':
      return spec.work_dir();
    case kFieldBurstBuffer:
      return OrNull(spec.burst_buffer());
    case kFieldBurstBufferState:
      return OrNull(job.burst_buffer_state());
    default:
      if (const ExtraField* extra = ExtraFieldOf(field)) return extra->value(job, now);
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

namespace {

// squeue -L's test (Slurm's _filter_job): a name of the job's -L list, its
// ":count" aside, is one of `names`.
bool AsksForLicense(const v1::JobInfo& job, const std::vector<std::string>& names) {
  for (absl::string_view item : absl::StrSplit(job.spec().licenses(), ',', absl::SkipEmpty())) {
    const absl::string_view name = item.substr(0, item.find(':'));
    if (std::find(names.begin(), names.end(), name) != names.end()) return true;
  }
  return false;
}

}  // namespace

std::vector<SqueueRow> SelectAndSortRows(const v1::GetJobsReply& reply,
                                         const SqueueOptions& options) {
  std::vector<const v1::JobInfo*> jobs;
  for (const v1::JobInfo& job : reply.jobs()) {
    bool wanted = !options.states_given ? client::IsActiveJobState(job.state())
                                        : std::find(options.states.begin(), options.states.end(),
                                                    job.state()) != options.states.end();
    if (wanted && options.licenses_given) wanted = AsksForLicense(job, options.licenses);
    if (wanted) jobs.push_back(&job);
  }
  std::string sort_spec = options.sort;
  if (sort_spec.empty()) sort_spec = options.start ? kSqueueStartSort : kSqueueDefaultSort;
  absl::StatusOr<SqueueSort> sort = ParseSqueueSort(sort_spec);
  if (sort.ok()) SortSqueueJobs(sort->keys, options.now, &jobs);

  std::vector<SqueueRow> rows;
  // Index in `rows` of each collapsible group's row.
  // Pending tasks of an array, and those cancelled with it before they
  // started, fold into the array's record as in Slurm ("15400_[1-5]").
  std::map<std::tuple<uint64_t, v1::JobState, std::string, std::string>, size_t> groups;
  for (const v1::JobInfo* job : jobs) {
    if (options.array || !client::IsArrayTask(*job) ||
        (job->state() != v1::PENDING && !job->cancelled_with_array())) {
      rows.push_back(SqueueRow{job, {}});
      continue;
    }
    auto key =
        std::make_tuple(job->array_job_id(), job->state(), Partition(*job), ReasonText(*job));
    auto [it, inserted] = groups.emplace(key, rows.size());
    if (inserted) rows.push_back(SqueueRow{job, {}});
    std::vector<int32_t>& tasks = rows[it->second].tasks;
    if (job->collapsed_task_ids_size() > 0) {  // ctld collapsed them already
      tasks.insert(tasks.end(), job->collapsed_task_ids().begin(), job->collapsed_task_ids().end());
    } else {
      tasks.push_back(job->array_task_id());
    }
  }
  for (SqueueRow& row : rows) {
    // A group of one is a plain line ("15400_5"), as Slurm shows an array's
    // last pending task.
    if (row.tasks.size() == 1) row.tasks.clear();
    if (!std::is_sorted(row.tasks.begin(), row.tasks.end())) {
      std::sort(row.tasks.begin(), row.tasks.end());
    }
  }
  return rows;
}

namespace {

std::string Lines(const SqueueFormatSpec& spec, bool no_header, const std::vector<SqueueRow>& rows,
                  int64_t now, std::string (*header_of)(char)) {
  std::string out;
  auto line = [&](const v1::JobInfo* job, auto value_of) {
    std::string text;
    for (const SqueueFormatItem& item : spec.items) {
      if (item.field == 0) {
        text += item.literal;
      } else {
        text += Pad(value_of(item.field), item, !NeverCut(item.field, job == nullptr, job));
      }
    }
    absl::StrAppend(&out, text, "\n");
  };
  if (!no_header) line(nullptr, header_of);
  for (const SqueueRow& row : rows) {
    int64_t at = now != 0 ? now : row.job->now();
    line(row.job, [&](char field) { return SqueueRowValue(row, field, at); });
  }
  return out;
}

}  // namespace

std::string FormatSqueue(const v1::GetJobsReply& reply, const SqueueOptions& options) {
  return Lines(SqueueFormatFor(options), options.no_header, SelectAndSortRows(reply, options),
               options.now, &SqueueFieldHeader);
}

std::string SqueueStepId(const v1::StepInfo& step) {
  if (step.array_job_id() != 0 && step.array_task_id() >= 0) {
    return absl::StrCat(step.array_job_id(), "_", step.array_task_id(), ".", step.step().step_id());
  }
  return absl::StrCat(step.job_id(), ".", step.step().step_id());
}

std::string SqueueStepValue(const v1::StepInfo& step, char field, int64_t now) {
  const v1::AcctStep& s = step.step();
  switch (field) {
    case 'A':
      return absl::StrCat(s.ntasks());
    case 'b':
      return "N/A";
    case 'i':
      return SqueueStepId(step);
    case 'j':
      return s.name();
    case 'l':
      return "UNLIMITED";
    case 'M':
      return FormatElapsed(s.start_time() > 0 && now > s.start_time() ? now - s.start_time() : 0);
    case 'N':
      return s.node_list();
    case 'P':
      return step.partition();
    case 'S':
      return Timestamp(s.start_time());
    case 'U':
      return absl::StrCat(step.uid());
    case 'u':
      return step.user();
    default:
      return "";
  }
}

std::string FormatSqueueSteps(const std::string& format, bool no_header,
                              const std::vector<v1::StepInfo>& steps, int64_t now) {
  const SqueueFormatSpec spec = ParseSqueueFormat(format.empty() ? kSqueueStepFormat : format);
  std::string out;
  auto line = [&](bool header, auto value_of) {
    std::string text;
    for (const SqueueFormatItem& item : spec.items) {
      if (item.field == 0) {
        text += item.literal;
      } else {
        const bool never_cut = item.field == 'N' || (!header && item.field == 'M');
        text += Pad(value_of(item.field), item, !never_cut);
      }
    }
    absl::StrAppend(&out, text, "\n");
  };
  if (!no_header) line(true, &StepFieldHeader);
  for (const v1::StepInfo& step : steps) {
    line(false, [&](char field) { return SqueueStepValue(step, field, now); });
  }
  return out;
}

}  // namespace skiff::cli
