#include "cli/scontrol/scontrol_commands.h"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/common/sbatch_options.h"
#include "client/job_text.h"
#include "common/hostlist.h"
#include "common/time_format.h"

namespace skiff::cli {
namespace {

std::string Lower(std::string_view s) { return absl::AsciiStrToLower(std::string(s)); }

absl::Status Unsupported(const std::string& word) {
  return absl::InvalidArgumentError(
      absl::StrCat("Update of this parameter is not supported: ", word, "\nRequest aborted"));
}

absl::StatusOr<UpdateCommand> ParseJobUpdate(
    const std::vector<std::pair<std::string, std::string>>& kv,
    const std::vector<std::string>& words) {
  UpdateCommand command;
  v1::UpdateJobRequest changes;
  std::vector<v1::JobRef> ids;
  bool any = false;
  auto number = [](const std::string& text, int64_t low, int64_t high) -> std::optional<int64_t> {
    int64_t n = 0;
    if (!absl::SimpleAtoi(text, &n) || n < low || n > high) return std::nullopt;
    return n;
  };
  for (size_t i = 0; i < kv.size(); ++i) {
    const auto& [key, value] = kv[i];
    if (key == "jobid") {
      absl::StatusOr<std::vector<v1::JobRef>> parsed = client::ParseJobRefList(value);
      if (!parsed.ok()) return parsed.status();
      ids.insert(ids.end(), parsed->begin(), parsed->end());
      continue;
    }
    any = true;
    if (key == "timelimit") {
      absl::StatusOr<int64_t> seconds = ParseDuration(value);
      if (!seconds.ok()) {
        return absl::InvalidArgumentError(absl::StrCat("Invalid TimeLimit value: ", value));
      }
      changes.set_time_limit(*seconds);
    } else if (key == "partition") {
      changes.set_partition(value);
    } else if (key == "qos") {
      changes.set_qos(value);
    } else if (key == "numnodes" || key == "reqnodes" || key == "minnodes") {
      std::string min = value.substr(0, value.find('-'));
      bool ok = !min.empty() &&
                std::all_of(min.begin(), min.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
                min.size() < 10;
      if (!ok || std::stoi(min) <= 0) {
        return absl::InvalidArgumentError(absl::StrCat("Invalid node count: ", value));
      }
      changes.set_min_nodes(std::stoi(min));
    } else if (key == "name" || key == "jobname") {
      changes.set_name(value);
    } else if (key == "account") {
      changes.set_account(value);
    } else if (key == "comment") {
      changes.set_comment(value);
    } else if (key == "reservationname" || key == "reservation") {
      changes.set_reservation(value);
    } else if (key == "nice") {
      // "Nice" alone is Slurm's +100.
      std::optional<int64_t> n =
          value.empty() ? std::optional<int64_t>(100) : number(value, -2147483645, 2147483645);
      if (!n) return absl::InvalidArgumentError(absl::StrCat("Invalid nice value: ", value));
      changes.set_nice(static_cast<int32_t>(*n));
    } else if (key == "priority") {
      std::optional<int64_t> n = number(value, 0, 4294967294);
      if (!n) return absl::InvalidArgumentError(absl::StrCat("Invalid Priority value: ", value));
      changes.set_priority(*n);
    } else if (key == "starttime" || key == "begintime" || key == "begin") {
      absl::StatusOr<int64_t> when = ParseBeginTime(value, time(nullptr));
      if (!when.ok()) {
        return absl::InvalidArgumentError(absl::StrCat("Invalid StartTime value: ", value));
      }
      changes.set_begin_time(*when);
    } else if (key == "features" || key == "constraint" || key == "constraints") {
      changes.set_features(value == "(null)" ? "" : value);
    } else if (key == "prefer") {
      changes.set_prefer(value == "(null)" ? "" : value);
    } else if (key == "licenses" || key == "license") {
      changes.set_licenses(value == "(null)" ? "" : value);
    } else if (key == "excnodelist") {
      changes.set_exc_node_list(value == "(null)" ? "" : value);
    } else if (key == "reqnodelist" || key == "nodelist") {
      changes.set_req_node_list(value == "(null)" ? "" : value);
    } else if (key == "arraytaskthrottle") {
      std::optional<int64_t> n = number(value, 0, 2147483647);
      if (!n) {
        return absl::InvalidArgumentError(absl::StrCat("Invalid ArrayTaskThrottle value: ", value));
      }
      changes.set_array_task_throttle(static_cast<int32_t>(*n));
    } else {
      return Unsupported(words[i]);
    }
  }
  if (ids.empty()) return absl::InvalidArgumentError("No job id given in JobId=");
  if (!any) return absl::InvalidArgumentError("No changes specified");
  for (const v1::JobRef& ref : ids) {
    v1::UpdateJobRequest request = changes;
    request.set_job_id(ref.job_id());
    if (ref.has_array_task_id()) request.set_array_task_id(ref.array_task_id());
    command.jobs.push_back(request);
  }
  return command;
}

absl::StatusOr<UpdateCommand> ParseNodeUpdate(
    const std::vector<std::pair<std::string, std::string>>& kv,
    const std::vector<std::string>& words) {
  UpdateCommand command;
  command.is_node = true;
  v1::UpdateNodeRequest& node = command.node;
  for (size_t i = 0; i < kv.size(); ++i) {
    const auto& [key, value] = kv[i];
    if (key == "nodename") {
      absl::StatusOr<std::vector<std::string>> names = ExpandHostlist(value);
      if (!names.ok()) return names.status();
      for (const std::string& n : *names) node.add_names(n);
    } else if (key == "state") {
      std::string state = absl::AsciiStrToUpper(value);
      if (state != "DRAIN" && state != "DOWN" && state != "RESUME" && state != "IDLE" &&
          state != "UNDRAIN" && state != "FAIL") {
        return absl::InvalidArgumentError(
            absl::StrCat("Invalid node state specified: ", value,
                         "\nValid states are DRAIN, FAIL, DOWN, RESUME, IDLE and UNDRAIN"));
      }
      node.set_state(state);
    } else if (key == "reason") {
      node.set_reason(value);
    } else {
      return Unsupported(words[i]);
    }
  }
  if (node.names_size() == 0) return absl::InvalidArgumentError("No node name given in NodeName=");
  if (node.state().empty()) return absl::InvalidArgumentError("No changes specified");
  if ((node.state() == "DRAIN" || node.state() == "DOWN" || node.state() == "FAIL") &&
      node.reason().empty()) {
    return absl::InvalidArgumentError(
        "You must specify a reason when DOWNING or DRAINING a node. Request denied");
  }
  return command;
}

}  // namespace

absl::StatusOr<std::string> ShowHostnames(const std::string& list) {
  if (list.empty()) return absl::InvalidArgumentError("host list is empty");
  absl::StatusOr<std::vector<std::string>> names = ExpandHostlist(list);
  if (!names.ok()) return absl::InvalidArgumentError(absl::StrCat("Invalid hostlist: ", list));
  std::string out;
  for (const std::string& name : *names) absl::StrAppend(&out, name, "\n");
  return out;
}

namespace {

// "n07" -> {"n", 7, 2}; "n7" and "n10" -> width 0 (unpadded: such runs may
// cross a digit count, "n[8-12]"); false for a name without a numeric suffix.
bool SplitNumbered(const std::string& name, std::string* prefix, uint64_t* number, size_t* width) {
  size_t digits = name.size();
  while (digits > 0 && std::isdigit(static_cast<unsigned char>(name[digits - 1]))) --digits;
  if (digits == name.size() || name.size() - digits > 18) return false;
  *prefix = name.substr(0, digits);
  const std::string suffix = name.substr(digits);
  *width = suffix.size() > 1 && suffix[0] == '0' ? suffix.size() : 0;
  return absl::SimpleAtoi(suffix, number);
}

std::string Padded(uint64_t number, size_t width) {
  std::string text = absl::StrCat(number);
  if (text.size() < width) text.insert(0, width - text.size(), '0');
  return text;
}

// Slurm's unsorted hostlist: names in the order written; a name continues the
// previous bracket when it has the same prefix, and its range when it is the
// next number with the same width.
std::string OrderedHostlist(const std::vector<std::string>& names) {
  struct Range {
    uint64_t low, high;
    size_t width;
  };
  std::vector<std::string> groups;
  std::string prefix;
  std::vector<Range> ranges;
  auto flush = [&] {
    if (ranges.empty()) return;
    if (ranges.size() == 1 && ranges[0].low == ranges[0].high) {
      groups.push_back(prefix + Padded(ranges[0].low, ranges[0].width));
    } else {
      std::vector<std::string> parts;
      for (const Range& r : ranges) {
        parts.push_back(r.low == r.high
                            ? Padded(r.low, r.width)
                            : absl::StrCat(Padded(r.low, r.width), "-", Padded(r.high, r.width)));
      }
      groups.push_back(absl::StrCat(prefix, "[", absl::StrJoin(parts, ","), "]"));
    }
    ranges.clear();
  };
  for (const std::string& name : names) {
    std::string name_prefix;
    uint64_t number = 0;
    size_t width = 0;
    if (!SplitNumbered(name, &name_prefix, &number, &width)) {
      flush();
      groups.push_back(name);
      continue;
    }
    if (!ranges.empty() && name_prefix != prefix) flush();
    prefix = name_prefix;
    if (!ranges.empty() && ranges.back().width == width && ranges.back().high + 1 == number) {
      ranges.back().high = number;
    } else {
      ranges.push_back({number, number, width});
    }
  }
  flush();
  return absl::StrJoin(groups, ",");
}

}  // namespace

absl::StatusOr<std::string> EncodeHostlist(const std::string& list, bool sorted) {
  std::string joined = list;
  std::replace(joined.begin(), joined.end(), '\n', ',');
  absl::StatusOr<std::vector<std::string>> names = ExpandHostlist(joined);
  if (!names.ok() || names->empty()) {
    return absl::InvalidArgumentError(absl::StrCat("Invalid hostlist: ", joined));
  }
  return (sorted ? CompressHostlist(*names) : OrderedHostlist(*names)) + "\n";
}

absl::StatusOr<std::string> MatchKeyword(std::string_view word,
                                         const std::vector<std::string>& keywords) {
  std::string w = Lower(word);
  for (int pass = 0; pass < 2 && !w.empty(); ++pass) {
    for (const std::string& k : keywords) {
      if (w == k) return k;
    }
    std::vector<std::string> hits;
    for (const std::string& k : keywords) {
      if (k.compare(0, w.size(), w) == 0) hits.push_back(k);
    }
    if (hits.size() == 1) return hits.front();
    if (hits.size() > 1) {
      return absl::InvalidArgumentError(absl::StrCat("ambiguous keyword: ", std::string(word)));
    }
    if (w.size() > 1 && w.back() == 's') {
      w.pop_back();
    } else {
      break;
    }
  }
  return absl::InvalidArgumentError(absl::StrCat("invalid keyword: ", std::string(word)));
}

absl::StatusOr<UpdateCommand> ParseUpdate(const std::vector<std::string>& args) {
  std::vector<std::pair<std::string, std::string>> kv;
  for (const std::string& word : args) {
    size_t eq = word.find('=');
    // "Nice" alone is the one key Slurm takes without a value.
    if (eq == std::string::npos && Lower(word) == "nice") {
      kv.emplace_back("nice", "");
      continue;
    }
    if (eq == std::string::npos || eq == 0) return Unsupported(word);
    kv.emplace_back(Lower(word.substr(0, eq)), word.substr(eq + 1));
  }
  for (const auto& [key, value] : kv) {
    if (key == "jobid") return ParseJobUpdate(kv, args);
    if (key == "nodename") return ParseNodeUpdate(kv, args);
    if (key.size() >= 2 && std::string("partitionname").compare(0, key.size(), key) == 0) {
      UpdateCommand command;
      command.is_partition = true;
      for (size_t i = 0; i < kv.size(); ++i) {
        const std::string& word = args[i];
        const size_t eq = word.find('=');
        if (eq == std::string::npos) {
          return absl::InvalidArgumentError(
              absl::StrCat("Invalid input: ", word, "  Request aborted"));
        }
        if (kv[i].first.size() >= 2 &&
            std::string("partitionname").compare(0, kv[i].first.size(), kv[i].first) == 0) {
          command.partition.set_name(word.substr(eq + 1));
          continue;
        }
        v1::ConfigEntry* entry = command.partition.add_settings();
        entry->set_key(word.substr(0, eq));
        entry->set_value(word.substr(eq + 1));
      }
      if (command.partition.settings_size() == 0) {
        return absl::InvalidArgumentError("No changes specified");
      }
      return command;
    }
  }
  return absl::InvalidArgumentError(
      "No valid entity in update command\nInput line must include \"JobId\", \"NodeName\" "
      "or \"PartitionName\"");
}

absl::StatusOr<std::vector<v1::JobRef>> ParseJobIdArgs(const std::vector<std::string>& args) {
  std::vector<v1::JobRef> ids;
  for (const std::string& arg : args) {
    absl::StatusOr<std::vector<v1::JobRef>> parsed = client::ParseJobRefList(arg);
    if (!parsed.ok()) return parsed.status();
    ids.insert(ids.end(), parsed->begin(), parsed->end());
  }
  if (ids.empty()) return absl::InvalidArgumentError("No job id given");
  return ids;
}

absl::StatusOr<v1::GetJobsRequest> ShowJobRequest(const std::string& text) {
  v1::GetJobsRequest request;
  auto digits = [](const std::string& t) {
    return !t.empty() && t.size() <= 19 &&
           std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  size_t underscore = text.find('_');
  if (underscore != std::string::npos) {
    std::string job = text.substr(0, underscore), task = text.substr(underscore + 1);
    if (digits(job) && digits(task) && task.size() <= 9 && std::stoull(job) > 0) {
      v1::JobRef* ref = request.add_refs();
      ref->set_job_id(std::stoull(job));
      ref->set_array_task_id(std::stoi(task));
      return request;
    }
  }
  absl::StatusOr<uint64_t> id = client::ParseJobId(text);
  if (!id.ok()) return id.status();
  request.add_job_ids(*id);
  return request;
}

v1::UpdateJobRequest JobCommandRequest(const v1::JobRef& job, const std::string& command) {
  v1::UpdateJobRequest request;
  request.set_job_id(job.job_id());
  if (job.has_array_task_id()) request.set_array_task_id(job.array_task_id());
  if (command == "suspend" || command == "resume") {
    request.set_suspend(command == "suspend");
  } else if (command == "requeue") {
    request.set_requeue(true);
  } else if (command == "requeuehold") {
    request.set_requeue_hold(true);
  } else {
    request.set_held(command != "release");
    request.set_user_hold(command == "uhold");
  }
  return request;
}

std::string DescribeUpdateError(const std::string& job_id, const absl::Status& status,
                                const std::string& command) {
  std::string text = client::SlurmJobErrorText(status, client::JobRpc::kUpdate);
  std::string out = absl::StrCat(text, " for job ", job_id, "\n");
  if (command == "hold" || command == "uhold" || command == "release") {
    absl::StrAppend(&out, "slurm_suspend error: ", text, "\n");
  }
  return out;
}

}  // namespace skiff::cli
