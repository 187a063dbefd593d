#include "cli/sacct/sacct_options.h"

#include <ctime>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "client/job_text.h"
#include "common/time_format.h"

namespace skiff::cli {
namespace {

absl::Status Invalid(const std::string& message) { return absl::InvalidArgumentError(message); }

std::vector<std::string> List(const std::string& text) {
  std::vector<std::string> out;
  for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    out.emplace_back(absl::StripAsciiWhitespace(item));
  }
  return out;
}

// "15", "15_7", "15.batch", "15_7.0", "15_[1-3]" -> selectors.
absl::Status AddJobs(const std::string& text, v1::GetAccountingRequest* request) {
  for (const std::string& item : List(text)) {
    std::string id = item, step;
    if (size_t dot = item.find('.'); dot != std::string::npos) {
      id = item.substr(0, dot);
      step = item.substr(dot + 1);
      if (step.empty()) return Invalid(absl::StrCat("Invalid job id: ", item));
    }
    std::vector<int32_t> tasks = {-1};
    if (size_t underscore = id.find('_'); underscore != std::string::npos) {
      std::string task = id.substr(underscore + 1);
      id = id.substr(0, underscore);
      tasks.clear();
      if (task.size() > 2 && task.front() == '[' && task.back() == ']') {
        for (const std::string& part : List(task.substr(1, task.size() - 2))) {
          std::vector<std::string> bounds = absl::StrSplit(part, '-');
          int32_t lo = 0, hi = 0;
          if (bounds.size() > 2 || !absl::SimpleAtoi(bounds.front(), &lo) ||
              !absl::SimpleAtoi(bounds.back(), &hi) || lo < 0 || hi < lo || hi - lo > 100000) {
            return Invalid(absl::StrCat("Invalid job id: ", item));
          }
          for (int32_t t = lo; t <= hi; ++t) tasks.push_back(t);
        }
      } else {
        int32_t t = 0;
        if (!absl::SimpleAtoi(task, &t) || t < 0) {
          return Invalid(absl::StrCat("Invalid job id: ", item));
        }
        tasks.push_back(t);
      }
    }
    uint64_t job_id = 0;
    if (!absl::SimpleAtoi(id, &job_id) || job_id == 0) {
      return Invalid(absl::StrCat("Invalid job id: ", item));
    }
    for (int32_t task : tasks) {
      v1::AcctJobSelector* selector = request->add_jobs();
      selector->set_job_id(job_id);
      selector->set_array_task_id(task);
      selector->set_step(step);
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<SacctPlan> PlanSacct(const SacctCommandLine& line, const SacctContext& context) {
  SacctPlan plan;
  v1::GetAccountingRequest& request = plan.request;
  if (line.long_format && !line.format.empty()) {
    return Invalid(
        "Options -o(--format) and -l(--long) are mutually exclusive. Please remove one and "
        "retry.");
  }
  if (!line.clusters.empty() && line.clusters != "all" && line.clusters != "-1") {
    for (const std::string& cluster : List(line.clusters)) {
      if (cluster != context.cluster) {
        return Invalid(absl::StrCat("Invalid cluster name: ", cluster));
      }
    }
  }
  std::string format = line.format;
  if (format.empty()) {
    format = line.brief         ? kSacctBriefFields
             : line.long_format ? kSacctLongFields
                                : kSacctDefaultFields;
  }
  absl::StatusOr<std::vector<SacctField>> fields = ParseSacctFormat(format);
  if (!fields.ok()) return fields.status();
  plan.fields = std::move(*fields);

  for (const std::string& jobs : line.jobs) {
    if (absl::Status s = AddJobs(jobs, &request); !s.ok()) return s;
  }
  for (const std::string& state : List(line.states)) {
    std::optional<std::string> name = client::SacctStateName(state);
    if (!name) return Invalid(absl::StrCat("unrecognized job state value '", state, "'"));
    request.add_states(*name);
  }
  int64_t start = 0, end = 0;
  if (!line.start_time.empty()) {
    absl::StatusOr<int64_t> t = ParseSlurmTime(line.start_time, context.now, /*past=*/true);
    if (!t.ok()) return t.status();
    start = *t;
  }
  if (!line.end_time.empty()) {
    absl::StatusOr<int64_t> t = ParseSlurmTime(line.end_time, context.now, /*past=*/true);
    if (!t.ok()) return t.status();
    end = *t;
  }
  // Slurm's defaults (slurmdb_job_cond_def_start_end).
  const bool with_jobs = !line.jobs.empty();
  if (!line.states.empty()) {
    if (start == 0 && !with_jobs) start = context.now;
    if (start != 0 && end == 0) end = start;
  } else if (!with_jobs && start == 0) {
    time_t now_t = static_cast<time_t>(context.now);
    struct tm midnight;
    localtime_r(&now_t, &midnight);
    midnight.tm_hour = midnight.tm_min = midnight.tm_sec = 0;
    midnight.tm_isdst = -1;
    start = static_cast<int64_t>(mktime(&midnight));
  }
  if (end == 0) end = context.now;
  if (start > end) {
    return Invalid(absl::StrCat("Start time (", FormatTimestamp(start),
                                ") requested is after end time (", FormatTimestamp(end), ")."));
  }
  request.set_window_start(start);
  request.set_window_end(end);

  // Users: -u, else everyone with -a or for root, else the caller.
  bool all_users = line.all_users || context.uid == 0;
  if (!line.users.empty()) {
    if (line.users == "-1") {
      all_users = true;
    } else {
      all_users = false;
      for (const std::string& user : List(line.users)) {
        std::optional<uid_t> uid = context.uid_of ? context.uid_of(user) : std::nullopt;
        if (!uid) return Invalid(absl::StrCat("Invalid user id: ", user));
        request.add_uids(*uid);
      }
    }
  }
  if (!all_users && request.uids().empty()) request.add_uids(context.uid);
  for (const std::string& group : List(line.groups)) {
    std::optional<gid_t> gid = context.gid_of ? context.gid_of(group) : std::nullopt;
    if (!gid) return Invalid(absl::StrCat("Invalid group id: ", group));
    request.add_gids(*gid);
  }
  for (const std::string& account : List(line.accounts)) request.add_accounts(account);
  for (const std::string& name : List(line.names)) request.add_names(name);
  for (const std::string& partition : List(line.partitions)) request.add_partitions(partition);
  for (const std::string& qos : List(line.qos)) request.add_qos(qos);
  if (!line.nodes.empty()) request.add_nodes(line.nodes);
  request.set_steps(!line.allocations);

  plan.layout.no_header = line.no_header;
  plan.layout.parsable = line.parsable;
  plan.layout.parsable2 = line.parsable2;
  plan.layout.delimiter = line.delimiter;
  if (!line.delimiter.empty() && !line.parsable) plan.layout.parsable2 = true;
  plan.layout.truncate = line.truncate;
  if (!line.units.empty()) {
    absl::StatusOr<int> units = ParseSacctUnits(line.units);
    if (!units.ok()) return units.status();
    plan.layout.units = *units;
  }
  plan.layout.window_start = start;
  plan.layout.window_end = end;
  return plan;
}

}  // namespace skiff::cli
