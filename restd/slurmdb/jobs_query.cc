#include "restd/slurmdb/jobs_query.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "client/job_text.h"
#include "common/time_format.h"

namespace skiff::restd {
namespace {

absl::Status Invalid(const std::string& parameter, const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat(parameter, ": ", why));
}

std::vector<std::string> CsvOf(const std::string& text) {
  std::vector<std::string> items;
  for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    item = absl::StripAsciiWhitespace(item);
    if (!item.empty()) items.emplace_back(item);
  }
  return items;
}

const std::string* Find(const std::map<std::string, std::string>& query, const char* name) {
  auto it = query.find(name);
  return it == query.end() ? nullptr : &it->second;
}

// Unix seconds, or any of the forms sacct's -S/-E take ("now-1hour",
// "2026-01-01T00:00:00", "midnight").
absl::StatusOr<int64_t> TimeOf(const std::string& parameter, const std::string& text, int64_t now) {
  int64_t seconds = 0;
  if (absl::SimpleAtoi(text, &seconds)) {
    if (seconds < 0)
      return Invalid(parameter, absl::StrCat("Invalid time specification '", text, "'"));
    return seconds;
  }
  absl::StatusOr<int64_t> parsed = ParseSlurmTime(text, now, /*past=*/true);
  if (!parsed.ok()) return Invalid(parameter, std::string(parsed.status().message()));
  return *parsed;
}

// Whether a flag parameter is on: present, and not spelt as false.
bool FlagOn(const std::map<std::string, std::string>& query, const char* name) {
  const std::string* value = Find(query, name);
  if (!value) return false;
  const std::string lower = absl::AsciiStrToLower(*value);
  return lower != "false" && lower != "0" && lower != "no";
}

}  // namespace

absl::StatusOr<v1::AcctJobSelector> JobSelectorOf(const std::string& text) {
  const absl::Status invalid = absl::InvalidArgumentError(absl::StrCat("Invalid job id: ", text));
  std::string id = text;
  v1::AcctJobSelector selector;
  selector.set_array_task_id(-1);
  if (size_t dot = id.find('.'); dot != std::string::npos) {
    selector.set_step(id.substr(dot + 1));
    id = id.substr(0, dot);
    if (selector.step().empty()) return invalid;
  }
  if (size_t underscore = id.find('_'); underscore != std::string::npos) {
    int32_t task = 0;
    if (!absl::SimpleAtoi(id.substr(underscore + 1), &task) || task < 0) return invalid;
    selector.set_array_task_id(task);
    id = id.substr(0, underscore);
  }
  uint64_t job_id = 0;
  if (!absl::SimpleAtoi(id, &job_id) || job_id == 0) return invalid;
  selector.set_job_id(job_id);
  return selector;
}

absl::StatusOr<v1::GetAccountingRequest> JobRequestOf(const std::string& job_id) {
  absl::StatusOr<v1::AcctJobSelector> selector = JobSelectorOf(job_id);
  if (!selector.ok()) return selector.status();
  v1::GetAccountingRequest request;
  *request.add_jobs() = *selector;
  request.set_steps(true);
  return request;
}

absl::StatusOr<v1::GetAccountingRequest> JobsRequestOf(
    const std::map<std::string, std::string>& query, const JobsQueryContext& context) {
  v1::GetAccountingRequest request;
  request.set_steps(!FlagOn(query, "skip_steps"));
  if (const std::string* users = Find(query, "users")) {
    for (const std::string& user : CsvOf(*users)) {
      std::optional<uid_t> uid = context.uid_of ? context.uid_of(user) : std::nullopt;
      if (!uid) return Invalid("users", absl::StrCat("Invalid user id: ", user));
      request.add_uids(*uid);
    }
  }
  if (const std::string* groups = Find(query, "groups")) {
    for (const std::string& group : CsvOf(*groups)) {
      std::optional<gid_t> gid = context.gid_of ? context.gid_of(group) : std::nullopt;
      if (!gid) return Invalid("groups", absl::StrCat("Invalid group id: ", group));
      request.add_gids(*gid);
    }
  }
  if (const std::string* accounts = Find(query, "account")) {
    // Slurm's database keeps account names in lower case.
    for (const std::string& account : CsvOf(*accounts)) {
      request.add_accounts(absl::AsciiStrToLower(account));
    }
  }
  if (const std::string* partitions = Find(query, "partition")) {
    for (const std::string& partition : CsvOf(*partitions)) request.add_partitions(partition);
  }
  if (const std::string* qos = Find(query, "qos")) {
    for (const std::string& name : CsvOf(*qos)) request.add_qos(absl::AsciiStrToLower(name));
  }
  if (const std::string* names = Find(query, "job_name")) {
    for (const std::string& name : CsvOf(*names)) request.add_names(name);
  }
  if (const std::string* node = Find(query, "node"); node && !node->empty()) {
    request.add_nodes(*node);
  }
  if (const std::string* states = Find(query, "state")) {
    for (const std::string& state : CsvOf(*states)) {
      std::optional<std::string> name = client::SacctStateName(state);
      if (!name)
        return Invalid("state", absl::StrCat("unrecognized job state value '", state, "'"));
      request.add_states(*name);
    }
  }
  if (const std::string* steps = Find(query, "step")) {
    for (const std::string& step : CsvOf(*steps)) {
      absl::StatusOr<v1::AcctJobSelector> selector = JobSelectorOf(step);
      if (!selector.ok()) return Invalid("step", std::string(selector.status().message()));
      *request.add_jobs() = *selector;
    }
  }
  int64_t start = 0, end = 0;
  if (const std::string* text = Find(query, "start_time"); text && !text->empty()) {
    absl::StatusOr<int64_t> t = TimeOf("start_time", *text, context.now);
    if (!t.ok()) return t.status();
    start = *t;
  }
  if (const std::string* text = Find(query, "end_time"); text && !text->empty()) {
    absl::StatusOr<int64_t> t = TimeOf("end_time", *text, context.now);
    if (!t.ok()) return t.status();
    end = *t;
  }
  // slurmrestd applies sacct's default window (slurmdb_job_cond_def_start_end)
  // to any query, and none without one.
  if (!query.empty()) {
    const bool with_steps = !request.jobs().empty();
    if (!request.states().empty()) {
      if (start == 0 && !with_steps) start = context.now;
      if (start != 0 && end == 0) end = start;
    } else if (!with_steps && start == 0) {
      start = context.midnight;
    }
  }
  if (end != 0 && start > end) {
    return Invalid("start_time", absl::StrCat("Start time (", start,
                                              ") requested is after end time (", end, ")"));
  }
  request.set_window_start(start);
  request.set_window_end(end);
  return request;
}

}  // namespace skiff::restd
