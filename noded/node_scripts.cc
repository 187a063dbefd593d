#include "noded/node_scripts.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace skiff::noded {
namespace {

// What the job's environment already says that Slurm gives the node scripts.
constexpr const char* kPassed[] = {
    "SLURM_ARRAY_JOB_ID",    "SLURM_ARRAY_TASK_ID",  "SLURM_CLUSTER_NAME",  "SLURM_JOB_ACCOUNT",
    "SLURM_JOB_NAME",        "SLURM_JOB_NODELIST",   "SLURM_JOB_PARTITION", "SLURM_JOB_GPUS",
    "SLURM_JOB_CONSTRAINTS", "CUDA_VISIBLE_DEVICES", "SLURM_JOB_GROUP",
};

std::string NameOf(const std::string& entry) { return entry.substr(0, entry.find('=')); }

}  // namespace

std::vector<std::string> NodeScriptEnvironment(const LaunchSpec& spec, const std::string& context,
                                               const std::string& exit) {
  std::vector<std::string> env = {
      "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
      absl::StrCat("SLURM_JOB_ID=", spec.job_id),
      absl::StrCat("SLURM_JOB_UID=", spec.uid),
      absl::StrCat("SLURM_JOB_GID=", spec.gid),
      absl::StrCat("SLURM_JOB_USER=", spec.user_name),
      absl::StrCat("SLURMD_NODENAME=", spec.node_name),
      absl::StrCat("SLURM_SCRIPT_CONTEXT=", context),
  };
  for (const char* name : kPassed) {
    auto it = spec.environment.find(name);
    if (it != spec.environment.end()) env.push_back(absl::StrCat(name, "=", it->second));
  }
  if (!exit.empty()) env.push_back(absl::StrCat("SLURM_JOB_EXIT_CODE2=", exit));
  return env;
}

std::chrono::milliseconds NodeScriptTimeout(int64_t seconds) {
  // 0 and 65534 (Slurm's default, "unlimited"): a day, so that a hung script still ends.
  return seconds > 0 && seconds < 65534 ? std::chrono::milliseconds(seconds * 1000)
                                        : std::chrono::hours(24);
}

std::string NodeScriptFailure(const CapturedRun& run, int64_t timeout_seconds) {
  if (run.ok) return "";
  if (run.timed_out) {
    return timeout_seconds > 0 && timeout_seconds < 65534
               ? absl::StrCat("killed after ", timeout_seconds, " s (PrologEpilogTimeout)")
               : "killed after timing out";
  }
  std::string first;
  for (absl::string_view line : absl::StrSplit(run.output, '\n')) {
    absl::string_view text = absl::StripAsciiWhitespace(line);
    if (!text.empty()) {
      first = std::string(text.substr(0, 200));
      break;
    }
  }
  std::string how = run.exit_code > 128 && run.exit_code < 160
                        ? absl::StrCat("killed by signal ", run.exit_code - 128)
                        : absl::StrCat("exit code ", run.exit_code);
  return first.empty() ? how : absl::StrCat(how, ": ", first);
}

TaskPrologOutput ParseTaskPrologOutput(const std::string& output) {
  TaskPrologOutput out;
  for (absl::string_view raw : absl::StrSplit(output, '\n')) {
    absl::string_view line = absl::StripTrailingAsciiWhitespace(raw);
    if (absl::ConsumePrefix(&line, "export ")) {
      line = absl::StripLeadingAsciiWhitespace(line);
      const size_t equals = line.find('=');
      if (equals == absl::string_view::npos || equals == 0) continue;
      out.exports.emplace_back(std::string(line.substr(0, equals)),
                               std::string(line.substr(equals + 1)));
    } else if (absl::ConsumePrefix(&line, "unset ")) {
      line = absl::StripAsciiWhitespace(line);
      if (!line.empty()) out.unsets.emplace_back(line);
    } else if (absl::ConsumePrefix(&line, "print ")) {
      absl::StrAppend(&out.print, line, "\n");
    }
  }
  return out;
}

void ApplyTaskProlog(const TaskPrologOutput& output, std::vector<std::string>* environment) {
  for (const auto& [name, value] : output.exports) {
    auto it = std::find_if(environment->begin(), environment->end(),
                           [&](const std::string& e) { return NameOf(e) == name; });
    const std::string entry = absl::StrCat(name, "=", value);
    if (it == environment->end()) {
      environment->push_back(entry);
    } else {
      *it = entry;
    }
  }
  for (const std::string& name : output.unsets) {
    environment->erase(std::remove_if(environment->begin(), environment->end(),
                                      [&](const std::string& e) { return NameOf(e) == name; }),
                       environment->end());
  }
}

}  // namespace skiff::noded
