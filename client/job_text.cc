#include "client/job_text.h"

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <climits>
#include <csignal>
#include <string>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/size.h"

namespace skiff::client {
namespace {

struct StateWords {
  v1::JobState state;
  const char* name;
  const char* code;
};

// Slurm's order (job_state_string / job_state_string_compact).
constexpr StateWords kStates[] = {
    {v1::PENDING, "PENDING", "PD"},     {v1::CONFIGURING, "CONFIGURING", "CF"},
    {v1::RUNNING, "RUNNING", "R"},      {v1::COMPLETING, "COMPLETING", "CG"},
    {v1::COMPLETED, "COMPLETED", "CD"}, {v1::FAILED, "FAILED", "F"},
    {v1::CANCELLED, "CANCELLED", "CA"}, {v1::TIMEOUT, "TIMEOUT", "TO"},
    {v1::NODE_FAIL, "NODE_FAIL", "NF"}, {v1::OUT_OF_MEMORY, "OUT_OF_MEMORY", "OOM"},
    {v1::DEADLINE, "DEADLINE", "DL"},   {v1::PREEMPTED, "PREEMPTED", "PR"},
    {v1::REQUEUED, "REQUEUED", "RQ"},   {v1::STAGE_OUT, "STAGE_OUT", "SO"},
    {v1::SUSPENDED, "SUSPENDED", "S"},
};

struct SignalWord {
  const char* name;
  int number;
};

constexpr SignalWord kSignals[] = {
    {"HUP", SIGHUP},       {"INT", SIGINT},   {"QUIT", SIGQUIT},   {"ILL", SIGILL},
    {"TRAP", SIGTRAP},     {"ABRT", SIGABRT}, {"BUS", SIGBUS},     {"FPE", SIGFPE},
    {"KILL", SIGKILL},     {"USR1", SIGUSR1}, {"SEGV", SIGSEGV},   {"USR2", SIGUSR2},
    {"PIPE", SIGPIPE},     {"ALRM", SIGALRM}, {"TERM", SIGTERM},   {"CHLD", SIGCHLD},
    {"CONT", SIGCONT},     {"STOP", SIGSTOP}, {"TSTP", SIGTSTP},   {"TTIN", SIGTTIN},
    {"TTOU", SIGTTOU},     {"URG", SIGURG},   {"XCPU", SIGXCPU},   {"XFSZ", SIGXFSZ},
    {"VTALRM", SIGVTALRM}, {"PROF", SIGPROF}, {"WINCH", SIGWINCH},
};

bool AllDigits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
  });
}

// Parses a non-empty all-digit string; false on overflow.
bool ParseUnsigned(std::string_view text, uint64_t* value) {
  if (!AllDigits(text)) return false;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *value);
  return ec == std::errc() && ptr == text.data() + text.size();
}

absl::Status StepIdError(std::string_view text) {
  return absl::InvalidArgumentError(
      absl::StrCat("Invalid job id ", std::string(text),
                   ": this command acts on jobs, not steps; give the job id"));
}

std::string Upper(std::string_view text) {
  std::string out(text);
  absl::AsciiStrToUpper(&out);
  return out;
}

}  // namespace

std::string JobStateName(v1::JobState state) {
  for (const StateWords& w : kStates) {
    if (w.state == state) return w.name;
  }
  return "UNKNOWN";
}

std::string JobStateCode(v1::JobState state) {
  for (const StateWords& w : kStates) {
    if (w.state == state) return w.code;
  }
  return "?";
}

std::vector<v1::JobState> AllJobStates() {
  std::vector<v1::JobState> out;
  for (const StateWords& w : kStates) out.push_back(w.state);
  return out;
}

std::vector<v1::JobState> ActiveJobStates() {
  return {v1::PENDING, v1::CONFIGURING, v1::RUNNING, v1::COMPLETING, v1::STAGE_OUT, v1::SUSPENDED};
}

bool IsActiveJobState(v1::JobState state) {
  const std::vector<v1::JobState> active = ActiveJobStates();
  return std::find(active.begin(), active.end(), state) != active.end();
}

absl::StatusOr<v1::JobState> ParseJobState(std::string_view text) {
  std::string upper = Upper(text);
  for (const StateWords& w : kStates) {
    if (upper == w.name || upper == w.code) return w.state;
  }
  // Slurm accepts COMPLETE for COMPLETED and CANCELED for CANCELLED.
  if (upper == "COMPLETE") return v1::COMPLETED;
  if (upper == "CANCELED") return v1::CANCELLED;
  return absl::InvalidArgumentError(
      absl::StrCat("Invalid job state specified: ", std::string(text)));
}

absl::StatusOr<std::vector<v1::JobState>> ParseJobStateList(std::string_view text) {
  std::vector<v1::JobState> out;
  for (const std::string& item : SplitCommaList(text)) {
    if (Upper(item) == "ALL") {
      for (v1::JobState s : AllJobStates()) {
        if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
      }
      continue;
    }
    absl::StatusOr<v1::JobState> state = ParseJobState(item);
    if (!state.ok()) return state.status();
    if (std::find(out.begin(), out.end(), *state) == out.end()) out.push_back(*state);
  }
  if (out.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid job state specified: ", std::string(text)));
  }
  return out;
}

absl::StatusOr<int> ParseSignal(std::string_view text) {
  uint64_t number = 0;
  if (ParseUnsigned(text, &number)) {
    if (number >= 1 && number <= 64) return static_cast<int>(number);
  } else {
    std::string upper = Upper(text);
    std::string_view name = upper;
    if (name.size() > 3 && name.substr(0, 3) == "SIG") name.remove_prefix(3);
    for (const SignalWord& s : kSignals) {
      if (name == s.name) return s.number;
    }
  }
  return absl::InvalidArgumentError(absl::StrCat("Unknown job signal: ", std::string(text)));
}

std::string SignalName(int number) {
  for (const SignalWord& s : kSignals) {
    if (s.number == number) return s.name;
  }
  return absl::StrCat(number);
}

absl::StatusOr<uint64_t> ParseJobId(std::string_view text) {
  uint64_t id = 0;
  if (ParseUnsigned(text, &id) && id > 0) return id;
  size_t sep = text.find_first_of("_.");
  if (sep != std::string_view::npos && sep > 0 && AllDigits(text.substr(0, sep))) {
    if (text.find('.') != std::string_view::npos) return StepIdError(text);
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid job id ", std::string(text),
                     ": this command takes no array task; give the plain job id"));
  }
  return absl::InvalidArgumentError(absl::StrCat("Invalid job id: ", std::string(text)));
}

absl::StatusOr<std::vector<v1::JobRef>> ParseJobRef(std::string_view text) {
  auto invalid = [&] {
    return absl::InvalidArgumentError(absl::StrCat("Invalid job id: ", std::string(text)));
  };
  size_t sep = text.find_first_of("_.");
  uint64_t job_id = 0;
  if (!ParseUnsigned(text.substr(0, sep), &job_id) || job_id == 0) return invalid();
  std::vector<v1::JobRef> refs;
  if (sep == std::string_view::npos) {
    refs.emplace_back().set_job_id(job_id);
    return refs;
  }
  if (text.find('.', sep) != std::string_view::npos) return StepIdError(text);
  std::string_view tasks = text.substr(sep + 1);
  auto add_task = [&](uint64_t task) {
    v1::JobRef& ref = refs.emplace_back();
    ref.set_job_id(job_id);
    ref.set_array_task_id(static_cast<int32_t>(task));
  };
  uint64_t task = 0;
  if (ParseUnsigned(tasks, &task)) {
    if (task > static_cast<uint64_t>(INT32_MAX)) return invalid();
    add_task(task);
    return refs;
  }
  if (tasks.size() < 3 || tasks.front() != '[' || tasks.back() != ']') return invalid();
  tasks = tasks.substr(1, tasks.size() - 2);
  for (const std::string& range : SplitCommaList(tasks)) {
    // "a", "a-b" or "a-b:step".
    std::string_view r = range;
    uint64_t step = 1;
    if (size_t colon = r.find(':'); colon != std::string_view::npos) {
      if (!ParseUnsigned(r.substr(colon + 1), &step) || step == 0) return invalid();
      r = r.substr(0, colon);
    }
    uint64_t first = 0, last = 0;
    size_t dash = r.find('-');
    if (!ParseUnsigned(r.substr(0, dash), &first)) return invalid();
    last = first;
    if (dash != std::string_view::npos && !ParseUnsigned(r.substr(dash + 1), &last)) {
      return invalid();
    }
    if (last < first || last > static_cast<uint64_t>(INT32_MAX)) return invalid();
    if (static_cast<int64_t>(refs.size()) + static_cast<int64_t>((last - first) / step) >=
        kMaxArrayTaskRefs) {
      return absl::InvalidArgumentError(absl::StrCat("Invalid job id ", std::string(text),
                                                     ": names more than ", kMaxArrayTaskRefs,
                                                     " array tasks"));
    }
    for (uint64_t t = first; t <= last; t += step) add_task(t);
  }
  if (refs.empty()) return invalid();
  return refs;
}

absl::StatusOr<std::vector<v1::JobRef>> ParseJobRefList(std::string_view text) {
  std::vector<v1::JobRef> refs;
  size_t start = 0;
  int depth = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size()) {
      if (text[i] == '[') ++depth;
      if (text[i] == ']') --depth;
      if (text[i] != ',' || depth > 0) continue;
    }
    std::string_view item = text.substr(start, i - start);
    start = i + 1;
    if (item.empty()) continue;
    absl::StatusOr<std::vector<v1::JobRef>> parsed = ParseJobRef(item);
    if (!parsed.ok()) return parsed.status();
    refs.insert(refs.end(), parsed->begin(), parsed->end());
  }
  if (refs.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("Invalid job id: ", std::string(text)));
  }
  return refs;
}

std::string JobRefText(const v1::JobRef& ref) {
  if (!ref.has_array_task_id()) return absl::StrCat(ref.job_id());
  return absl::StrCat(ref.job_id(), "_", ref.array_task_id());
}

bool IsArrayTask(const v1::JobInfo& job) {
  return job.array_job_id() != 0 && job.array_task_id() >= 0;
}

std::string JobIdText(const v1::JobInfo& job) {
  if (!IsArrayTask(job)) return absl::StrCat(job.job_id());
  return absl::StrCat(job.array_job_id(), "_", job.array_task_id());
}

std::string FormatTaskRanges(std::vector<int32_t> task_ids) {
  std::sort(task_ids.begin(), task_ids.end());
  task_ids.erase(std::unique(task_ids.begin(), task_ids.end()), task_ids.end());
  std::string out;
  for (size_t i = 0; i < task_ids.size();) {
    size_t j = i;
    while (j + 1 < task_ids.size() && task_ids[j + 1] == task_ids[j] + 1) ++j;
    if (!out.empty()) out += ',';
    absl::StrAppend(&out, task_ids[i]);
    if (j > i) absl::StrAppend(&out, "-", task_ids[j]);
    i = j + 1;
  }
  return out;
}

absl::StatusOr<std::vector<uint64_t>> ParseJobIdList(std::string_view text) {
  std::vector<uint64_t> ids;
  for (const std::string& item : SplitCommaList(text)) {
    absl::StatusOr<uint64_t> id = ParseJobId(item);
    if (!id.ok()) return id.status();
    ids.push_back(*id);
  }
  if (ids.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("Invalid job id: ", std::string(text)));
  }
  return ids;
}

std::string UserNameOf(uint32_t uid) {
  struct passwd pw;
  struct passwd* result = nullptr;
  char buf[4096];
  if (getpwuid_r(uid, &pw, buf, sizeof(buf), &result) == 0 && result != nullptr) {
    return result->pw_name;
  }
  return std::to_string(uid);
}

std::string GroupNameOf(uint32_t gid) {
  struct group gr;
  struct group* result = nullptr;
  char buf[4096];
  if (getgrgid_r(gid, &gr, buf, sizeof(buf), &result) == 0 && result != nullptr) {
    return result->gr_name;
  }
  return std::to_string(gid);
}

absl::StatusOr<std::string> ResolveUserName(std::string_view text) {
  struct passwd pw;
  struct passwd* result = nullptr;
  char buf[4096];
  std::string name(text);
  if (!name.empty() && getpwnam_r(name.c_str(), &pw, buf, sizeof(buf), &result) == 0 &&
      result != nullptr) {
    return std::string(result->pw_name);
  }
  uint64_t uid = 0;
  if (ParseUnsigned(text, &uid) && uid <= UINT32_MAX &&
      getpwuid_r(static_cast<uid_t>(uid), &pw, buf, sizeof(buf), &result) == 0 &&
      result != nullptr) {
    return std::string(result->pw_name);
  }
  return absl::InvalidArgumentError(absl::StrCat("Invalid user: ", name));
}

std::string FormatMemoryMb(uint64_t mb) { return FormatSize(mb * kMiB); }

std::string JobOverSubscribeText(const v1::JobSpec& spec) {
  if (spec.exclusive()) {
    if (spec.exclusive_kind() == "user") return "USER";
    if (spec.exclusive_kind() == "mcs") return "MCS";
    return "NO";
  }
  return spec.oversubscribe() ? "YES" : "OK";
}

std::string SlurmJobErrorText(const absl::Status& status, JobRpc rpc) {
  switch (status.code()) {
    case absl::StatusCode::kNotFound:
      return "Invalid job id specified";
    case absl::StatusCode::kPermissionDenied:
      // ctld says which refusal ("Invalid user id" for someone else's job,
      // "Access/permission denied (...)" with the reason otherwise).
      if (rpc == JobRpc::kUpdate) {
        return status.message().empty() ? "Invalid user id" : std::string(status.message());
      }
      return "Access/permission denied";
    case absl::StatusCode::kFailedPrecondition:
      if (rpc == JobRpc::kCancel || status.message().empty()) {
        return "Job/step already completing or completed";
      }
      return std::string(status.message());
    default:
      return std::string(status.message());
  }
}

std::vector<std::string> SplitCommaList(std::string_view text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    std::string_view item = text.substr(start, comma - start);
    if (!item.empty()) out.emplace_back(item);
    start = comma + 1;
  }
  return out;
}

std::optional<std::string> SacctStateName(const std::string& text) {
  static const std::pair<const char*, const char*> kStates[] = {
      {"BF", "BOOT_FAIL"},      {"CA", "CANCELLED"}, {"CD", "COMPLETED"}, {"CF", "CONFIGURING"},
      {"CG", "COMPLETING"},     {"DL", "DEADLINE"},  {"F", "FAILED"},     {"NF", "NODE_FAIL"},
      {"OOM", "OUT_OF_MEMORY"}, {"PD", "PENDING"},   {"PR", "PREEMPTED"}, {"R", "RUNNING"},
      {"RQ", "REQUEUED"},       {"RS", "RESIZING"},  {"RV", "REVOKED"},   {"S", "SUSPENDED"},
      {"TO", "TIMEOUT"},
  };
  const std::string upper = absl::AsciiStrToUpper(text);
  for (const auto& [code, name] : kStates) {
    if (upper == code || upper == name) return std::string(name);
  }
  return std::nullopt;
}

}  // namespace skiff::client
