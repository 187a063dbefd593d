#include "common/config/parameters.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace skiff {
namespace {

absl::Status Invalid(const std::string& what) { return absl::InvalidArgumentError(what); }

// `value` as a whole number in [min, max] (or -1 where `minus_one` allows it).
absl::StatusOr<int64_t> Number(const std::string& name, const std::string& value, int64_t min,
                               int64_t max, bool minus_one = false) {
  int64_t number = 0;
  if (absl::SimpleAtoi(value, &number) &&
      ((number >= min && number <= max) || (minus_one && number == -1))) {
    return number;
  }
  return Invalid(absl::StrCat(name, "=", value, " is not a whole number from ", min, " to ", max,
                              minus_one ? " or -1" : ""));
}

// "a=1,b" as {a: "1", b: ""}. InvalidArgument for an entry without a name.
absl::StatusOr<std::map<std::string, std::string>> KeyValues(std::string_view value) {
  std::map<std::string, std::string> out;
  for (absl::string_view piece :
       absl::StrSplit(absl::string_view(value.data(), value.size()), ',', absl::SkipWhitespace())) {
    const std::string item(absl::StripAsciiWhitespace(piece));
    const size_t equals = item.find('=');
    const std::string name = item.substr(0, equals);
    if (name.empty()) return Invalid(absl::StrCat("'", item, "' has no parameter name"));
    out[name] = equals == std::string::npos ? "" : item.substr(equals + 1);
  }
  return out;
}

}  // namespace

absl::StatusOr<SchedulerParameters> ParseSchedulerParameters(std::string_view value) {
  constexpr int64_t kMaxInt = std::numeric_limits<int32_t>::max();
  SchedulerParameters out;
  absl::StatusOr<std::map<std::string, std::string>> entries = KeyValues(value);
  if (!entries.ok()) return entries.status();
  out.as_written = *std::move(entries);
  for (const auto& [name, text] : out.as_written) {
    absl::StatusOr<int64_t> number = 0;  // stays ok for keys without a number
    if (name == "bf_interval") {
      number = Number(name, text, 1, 10800, /*minus_one=*/true);
      if (number.ok() && *number == -1) {
        out.backfill = false;
      } else if (number.ok()) {
        out.bf_interval = *number;
      }
    } else if (name == "bf_max_job_test") {
      number = Number(name, text, 1, 1000000);
      if (number.ok()) out.bf_max_job_test = *number;
    } else if (name == "default_queue_depth") {
      number = Number(name, text, 1, 1000000);
      if (number.ok()) out.default_queue_depth = *number;
    } else if (name == "sched_interval") {
      number = Number(name, text, 0, 86400);
      if (number.ok()) out.sched_interval = *number;
    } else if (name == "sched_min_interval") {
      number = Number(name, text, 0, kMaxInt);  // microseconds
      if (number.ok()) out.sched_min_interval_us = *number;
    } else if (name == "budget_warn_percent") {
      number = Number(name, text, 0, 100);
      if (number.ok()) out.budget_warn_percent = *number;
    } else if (name == "max_script_size") {
      number = Number(name, text, 1, int64_t{512} << 20);  // Slurm's ceiling, 512 MiB
      if (number.ok()) out.max_script_size = *number;
    } else if (name == "enable_user_top") {
      out.enable_user_top = true;
    }
    if (!number.ok()) return number.status();
  }
  return out;
}

absl::StatusOr<SlurmctldParameters> ParseSlurmctldParameters(std::string_view value) {
  SlurmctldParameters out;
  absl::StatusOr<std::map<std::string, std::string>> entries = KeyValues(value);
  if (!entries.ok()) return entries.status();
  out.as_written = *std::move(entries);
  for (const auto& [name, text] : out.as_written) {
    if (name == "enable_configless") {
      out.enable_configless = true;
    } else if (name == "allow_user_triggers") {
      out.allow_user_triggers = true;
    } else if (name == "join_munge_key") {
      out.join_munge_key = text;
    } else if (name == "join_port") {
      absl::StatusOr<int64_t> port = Number(name, text, 1, 65535);
      if (!port.ok()) {
        return Invalid(absl::StrCat("join_port=\"", text, "\" is not a TCP port (1 to 65535)"));
      }
      out.join_port = static_cast<int>(*port);
    }
  }
  if (out.join_port != 0 && !out.enable_configless) {
    return Invalid(
        "join_port needs enable_configless too (a node that joins has no skiff.conf of its own "
        "and fetches ctld's)");
  }
  return out;
}

absl::StatusOr<SlurmdParameters> ParseSlurmdParameters(std::string_view value) {
  SlurmdParameters out;
  absl::StatusOr<std::map<std::string, std::string>> entries = KeyValues(value);
  if (!entries.ok()) return entries.status();
  out.as_written = *std::move(entries);
  for (const auto& [name, text] : out.as_written) {
    if (name == "config_overrides") {
      out.config_overrides = true;
    } else if (name == "max_step_streams_per_user") {
      absl::StatusOr<int64_t> max = Number(name, text, 1, 2048);
      if (!max.ok()) return max.status();
      out.max_step_streams_per_user = static_cast<int>(*max);
    }
  }
  return out;
}

absl::StatusOr<Enforcement> ParseEnforcement(std::string_view value) {
  Enforcement out;
  for (absl::string_view piece :
       absl::StrSplit(absl::string_view(value.data(), value.size()), ',', absl::SkipWhitespace())) {
    const std::string word = absl::AsciiStrToLower(absl::StripAsciiWhitespace(piece));
    if (word == "none") continue;
    if (word == "all") {
      out.associations = out.limits = out.qos = out.safe = out.wckeys = true;
    } else if (word == "associations") {
      out.associations = true;
    } else if (word == "limits") {
      out.limits = out.associations = true;
    } else if (word == "qos") {
      out.qos = out.associations = true;
    } else if (word == "safe") {
      out.safe = out.limits = out.associations = true;
    } else if (word == "wckeys") {
      out.wckeys = true;
    } else if (word == "nojobs") {
      out.nojobs = true;
    } else if (word == "nosteps") {
      out.nosteps = true;
    } else {
      return Invalid(absl::StrCat("'", word,
                                  "' is not one of associations, limits, qos, safe, wckeys, "
                                  "nojobs, nosteps, all, none"));
    }
  }
  return out;
}

std::string EnforcementText(const Enforcement& e) {
  std::vector<const char*> words;
  if (e.associations) words.push_back("associations");
  if (e.limits) words.push_back("limits");
  if (e.nojobs) words.push_back("nojobs");
  if (e.nosteps) words.push_back("nosteps");
  if (e.qos) words.push_back("qos");
  if (e.safe) words.push_back("safe");
  if (e.wckeys) words.push_back("wckeys");
  return words.empty() ? "none" : absl::StrJoin(words, ",");
}

absl::StatusOr<PrivateData> ParsePrivateData(std::string_view value) {
  PrivateData out;
  for (absl::string_view piece :
       absl::StrSplit(absl::string_view(value.data(), value.size()), ',', absl::SkipWhitespace())) {
    const std::string word = absl::AsciiStrToLower(absl::StripAsciiWhitespace(piece));
    if (word == "accounts") {
      out.accounts = true;
    } else if (word == "jobs") {
      out.jobs = true;
    } else if (word == "reservations") {
      out.reservations = true;
    } else if (word == "usage") {
      out.usage = true;
    } else if (word == "users") {
      out.users = true;
    } else if (word == "cloud" || word == "events" || word == "nodes" || word == "partitions") {
      return Invalid(absl::StrCat("'", word,
                                  "' is Slurm's but not enforced by Skiff (it enforces accounts, "
                                  "jobs, reservations, usage and users)"));
    } else {
      return Invalid(
          absl::StrCat("'", word, "' is not one of accounts, jobs, reservations, usage, users"));
    }
  }
  return out;
}

std::string PrivateDataText(const PrivateData& p) {
  std::vector<const char*> words;
  if (p.accounts) words.push_back("accounts");
  if (p.jobs) words.push_back("jobs");
  if (p.reservations) words.push_back("reservations");
  if (p.usage) words.push_back("usage");
  if (p.users) words.push_back("users");
  return words.empty() ? "none" : absl::StrJoin(words, ",");
}

const char* GpuIdleActionName(GpuIdlePolicy::Action action) {
  switch (action) {
    case GpuIdlePolicy::Action::kNotify:
      return "notify";
    case GpuIdlePolicy::Action::kRequeue:
      return "requeue";
    case GpuIdlePolicy::Action::kCancel:
      return "cancel";
  }
  return "notify";
}

absl::StatusOr<GpuIdlePolicy> ParseGpuIdlePolicy(std::string_view value) {
  GpuIdlePolicy out;
  out.as_written = std::string(value);
  if (absl::AsciiStrToLower(
          absl::StripAsciiWhitespace(absl::string_view(value.data(), value.size()))) == "none") {
    return out;
  }
  absl::StatusOr<std::map<std::string, std::string>> entries = KeyValues(value);
  if (!entries.ok()) return entries.status();
  auto minutes = [](const std::string& name, const std::string& text, bool zero_allowed,
                    int64_t* seconds) -> absl::Status {
    double m = 0;
    if (!absl::SimpleAtod(text, &m) || !std::isfinite(m) || m < 0 || (!zero_allowed && m == 0) ||
        m > 366.0 * 24 * 60) {
      return absl::InvalidArgumentError(absl::StrCat(name, "=", text, " is not a number of minutes",
                                                     zero_allowed ? "" : " above 0"));
    }
    *seconds = std::max<int64_t>(zero_allowed ? 0 : 1, std::llround(m * 60));
    return absl::OkStatus();
  };
  for (const auto& [name, text] : *entries) {
    if (name == "threshold") {
      absl::StatusOr<int64_t> percent = Number(name, text, 1, 100);
      if (!percent.ok()) return percent.status();
      out.threshold_percent = static_cast<int>(*percent);
    } else if (name == "minutes") {
      if (absl::Status s = minutes(name, text, false, &out.window_seconds); !s.ok()) return s;
    } else if (name == "grace") {
      if (absl::Status s = minutes(name, text, true, &out.grace_seconds); !s.ok()) return s;
    } else if (name == "action") {
      const std::string action = absl::AsciiStrToLower(text);
      if (action == "notify") {
        out.action = GpuIdlePolicy::Action::kNotify;
      } else if (action == "requeue") {
        out.action = GpuIdlePolicy::Action::kRequeue;
      } else if (action == "cancel") {
        out.action = GpuIdlePolicy::Action::kCancel;
      } else {
        return absl::InvalidArgumentError(
            absl::StrCat("action=", text, " is not one of notify, requeue, cancel"));
      }
    } else if (name == "exempt_qos") {
      for (absl::string_view qos : absl::StrSplit(text, ':', absl::SkipEmpty())) {
        out.exempt_qos.emplace_back(qos);
      }
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("'", name, "' is not one of threshold, minutes, action, grace, exempt_qos"));
    }
  }
  out.enabled = true;
  return out;
}

absl::Status SetGpuIdlePolicy(std::string_view value, GpuIdlePolicy& out) {
  absl::StatusOr<GpuIdlePolicy> policy = ParseGpuIdlePolicy(value);
  if (!policy.ok()) return policy.status();
  out = *std::move(policy);
  return absl::OkStatus();
}

}  // namespace skiff
