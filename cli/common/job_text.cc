#include "cli/common/job_text.h"

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <csignal>
#include <string>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/size.h"

namespace skiff {
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
    {v1::PREEMPTED, "PREEMPTED", "PR"}, {v1::REQUEUED, "REQUEUED", "RQ"},
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

bool IsActiveJobState(v1::JobState state) {
  return state == v1::PENDING || state == v1::CONFIGURING || state == v1::RUNNING ||
         state == v1::COMPLETING;
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

absl::StatusOr<uint64_t> ParseJobId(std::string_view text) {
  uint64_t id = 0;
  if (ParseUnsigned(text, &id) && id > 0) return id;
  size_t sep = text.find_first_of("_.");
  if (sep != std::string_view::npos && sep > 0 && AllDigits(text.substr(0, sep))) {
    const char* what = text[sep] == '_' ? "job arrays" : "job steps";
    return absl::InvalidArgumentError(absl::StrCat(
        "Invalid job id ", std::string(text), ": Skiff has no ", what, "; give the plain job id"));
  }
  return absl::InvalidArgumentError(absl::StrCat("Invalid job id: ", std::string(text)));
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

std::string SlurmJobErrorText(const absl::Status& status, JobRpc rpc) {
  switch (status.code()) {
    case absl::StatusCode::kNotFound:
      return "Invalid job id specified";
    case absl::StatusCode::kPermissionDenied:
      return rpc == JobRpc::kUpdate ? "Invalid user id" : "Access/permission denied";
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

}  // namespace skiff
