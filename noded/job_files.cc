#include "noded/job_files.h"

#include <time.h>

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace skiff::noded {

int64_t MonotonicMillis() {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<int64_t>(now.tv_sec) * 1000 + now.tv_nsec / 1000000;
}

std::string FormatLease(int64_t expiry_ms) { return absl::StrCat("expiry_ms=", expiry_ms, "\n"); }

absl::StatusOr<int64_t> ParseLease(const std::string& text) {
  int64_t expiry = 0;
  absl::string_view line = absl::StripTrailingAsciiWhitespace(text);
  if (!absl::ConsumePrefix(&line, "expiry_ms=") || !absl::SimpleAtoi(line, &expiry)) {
    return absl::InvalidArgumentError(absl::StrCat("bad lease '", text, "'"));
  }
  return expiry;
}
namespace {

// One `key=value` line, value C-escaped.
void AddLine(std::string* out, const char* key, const std::string& value) {
  absl::StrAppend(out, key, "=", absl::CEscape(value), "\n");
}

template <typename Int>
void AddLine(std::string* out, const char* key, Int value) {
  absl::StrAppend(out, key, "=", value, "\n");
}

struct Line {
  int number = 0;
  std::string key;
  std::string value;  // unescaped
};

absl::StatusOr<std::vector<Line>> SplitLines(const std::string& text) {
  std::vector<Line> lines;
  int number = 0;
  for (absl::string_view raw : absl::StrSplit(text, '\n')) {
    ++number;
    if (raw.empty() || raw[0] == '#') continue;
    const size_t eq = raw.find('=');
    if (eq == absl::string_view::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("line ", number, ": no '=' in '", std::string(raw), "'"));
    }
    Line line;
    line.number = number;
    line.key = std::string(raw.substr(0, eq));
    std::string error;
    if (!absl::CUnescape(raw.substr(eq + 1), &line.value, &error)) {
      return absl::InvalidArgumentError(
          absl::StrCat("line ", number, ": ", line.key, ": bad escape: ", error));
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

template <typename Int>
absl::Status ParseInt(const Line& line, Int* out) {
  if (!absl::SimpleAtoi(line.value, out)) {
    return absl::InvalidArgumentError(
        absl::StrCat("line ", line.number, ": ", line.key, ": '", line.value, "' is not a number"));
  }
  return absl::OkStatus();
}

}  // namespace

bool LaunchSpec::operator==(const LaunchSpec& o) const {
  return job_id == o.job_id && uid == o.uid && gid == o.gid && user_name == o.user_name &&
         groups == o.groups && node_name == o.node_name && argv == o.argv &&
         environment == o.environment && work_dir == o.work_dir && stdout_path == o.stdout_path &&
         stderr_path == o.stderr_path && stdin_path == o.stdin_path && time_limit == o.time_limit &&
         cpus == o.cpus && memory_mb == o.memory_mb && gpu_indices == o.gpu_indices &&
         gpu_cuda_names == o.gpu_cuda_names && mps_gpu == o.mps_gpu && run == o.run &&
         truncate_output == o.truncate_output && cpu_ids == o.cpu_ids &&
         cgroup_version == o.cgroup_version && cgroup_mount == o.cgroup_mount &&
         cgroup_path == o.cgroup_path && cgroup_controllers == o.cgroup_controllers &&
         allocation == o.allocation && prolog == o.prolog && epilog == o.epilog &&
         task_prolog == o.task_prolog && task_epilog == o.task_epilog &&
         prolog_epilog_timeout == o.prolog_epilog_timeout &&
         container_bundle == o.container_bundle && oci_conf == o.oci_conf &&
         container_config_json == o.container_config_json &&
         container_devices == o.container_devices && container_image == o.container_image &&
         container_name == o.container_name && container_mounts == o.container_mounts &&
         container_workdir == o.container_workdir && container_env == o.container_env &&
         container_remap_root == o.container_remap_root &&
         container_mount_home == o.container_mount_home && image_cache == o.image_cache &&
         image_cache_bytes == o.image_cache_bytes && registry_mirror == o.registry_mirror &&
         container_user_helper == o.container_user_helper && home_dir == o.home_dir &&
         container_driver_files == o.container_driver_files;
}

std::string FormatLaunchSpec(const LaunchSpec& spec) {
  std::string out = "# skiff launch spec\n";
  AddLine(&out, "job_id", spec.job_id);
  AddLine(&out, "uid", spec.uid);
  AddLine(&out, "gid", spec.gid);
  AddLine(&out, "user_name", spec.user_name);
  for (gid_t g : spec.groups) AddLine(&out, "group", g);
  AddLine(&out, "node_name", spec.node_name);
  AddLine(&out, "work_dir", spec.work_dir);
  AddLine(&out, "stdout", spec.stdout_path);
  AddLine(&out, "stderr", spec.stderr_path);
  AddLine(&out, "stdin", spec.stdin_path);
  AddLine(&out, "time_limit", spec.time_limit);
  AddLine(&out, "cpus", spec.cpus);
  AddLine(&out, "memory_mb", spec.memory_mb);
  for (int32_t gpu : spec.gpu_indices) AddLine(&out, "gpu", gpu);
  if (spec.mps_gpu >= 0) AddLine(&out, "mps_gpu", absl::StrCat(spec.mps_gpu));
  for (size_t i = 0; i < spec.gpu_cuda_names.size(); ++i) {
    if (!spec.gpu_cuda_names[i].empty()) {
      AddLine(&out, "gpu_cuda_name", absl::StrCat(i, " ", spec.gpu_cuda_names[i]));
    }
  }
  if (spec.run != 0) AddLine(&out, "run", spec.run);
  if (spec.truncate_output) AddLine(&out, "truncate_output", 1);
  for (int cpu : spec.cpu_ids) AddLine(&out, "cpu_id", cpu);
  if (spec.cgroup_version != 0) {
    AddLine(&out, "cgroup_version", spec.cgroup_version);
    AddLine(&out, "cgroup_mount", spec.cgroup_mount);
    AddLine(&out, "cgroup_path", spec.cgroup_path);
    for (const std::string& c : spec.cgroup_controllers) AddLine(&out, "cgroup_controller", c);
  }
  if (!spec.prolog.empty()) AddLine(&out, "prolog", spec.prolog);
  if (!spec.epilog.empty()) AddLine(&out, "epilog", spec.epilog);
  if (!spec.task_prolog.empty()) AddLine(&out, "task_prolog", spec.task_prolog);
  if (!spec.task_epilog.empty()) AddLine(&out, "task_epilog", spec.task_epilog);
  if (spec.prolog_epilog_timeout != 0) {
    AddLine(&out, "prolog_epilog_timeout", spec.prolog_epilog_timeout);
  }
  if (!spec.container_bundle.empty()) {
    AddLine(&out, "container_bundle", spec.container_bundle);
    if (!spec.oci_conf.empty()) AddLine(&out, "oci_conf", spec.oci_conf);
    if (!spec.container_config_json) AddLine(&out, "container_config_json", 0);
    for (const std::string& device : spec.container_devices) {
      AddLine(&out, "container_device", device);
    }
  }
  if (spec.HasImageContainer()) {
    if (!spec.container_image.empty()) AddLine(&out, "container_image", spec.container_image);
    if (!spec.container_name.empty()) AddLine(&out, "container_name", spec.container_name);
    for (const std::string& mount : spec.container_mounts) AddLine(&out, "container_mount", mount);
    if (!spec.container_workdir.empty()) {
      AddLine(&out, "container_workdir", spec.container_workdir);
    }
    for (const std::string& name : spec.container_env) AddLine(&out, "container_env", name);
    if (spec.container_remap_root) AddLine(&out, "container_remap_root", 1);
    if (!spec.container_mount_home) AddLine(&out, "container_mount_home", 0);
    AddLine(&out, "image_cache", spec.image_cache);
    AddLine(&out, "image_cache_bytes", spec.image_cache_bytes);
    if (!spec.registry_mirror.empty()) AddLine(&out, "registry_mirror", spec.registry_mirror);
    if (!spec.container_user_helper.empty()) {
      AddLine(&out, "container_user_helper", spec.container_user_helper);
    }
    if (!spec.home_dir.empty()) AddLine(&out, "home_dir", spec.home_dir);
    for (const std::string& file : spec.container_driver_files) {
      AddLine(&out, "container_driver_file", file);
    }
    for (const std::string& device : spec.container_devices) {
      AddLine(&out, "container_device", device);
    }
    if (!spec.oci_conf.empty()) AddLine(&out, "oci_conf", spec.oci_conf);
  }
  for (const AllocatedNode& node : spec.allocation) {
    AddLine(&out, "alloc",
            absl::StrCat(node.name, " ", node.address, " ", node.cpus, " ", node.memory_mb, " ",
                         node.gpus.empty() ? "-" : absl::StrJoin(node.gpus, ",")));
  }
  for (const std::string& arg : spec.argv) AddLine(&out, "arg", arg);
  for (const auto& [key, value] : spec.environment) {
    AddLine(&out, "env", absl::StrCat(key, "=", value));
  }
  return out;
}

absl::StatusOr<LaunchSpec> ParseLaunchSpec(const std::string& text) {
  absl::StatusOr<std::vector<Line>> lines = SplitLines(text);
  if (!lines.ok()) return lines.status();
  LaunchSpec spec;
  bool have_id = false;
  for (const Line& line : *lines) {
    absl::Status s;
    if (line.key == "job_id") {
      s = ParseInt(line, &spec.job_id);
      have_id = true;
    } else if (line.key == "uid") {
      s = ParseInt(line, &spec.uid);
    } else if (line.key == "gid") {
      s = ParseInt(line, &spec.gid);
    } else if (line.key == "user_name") {
      spec.user_name = line.value;
    } else if (line.key == "group") {
      gid_t g = 0;
      s = ParseInt(line, &g);
      spec.groups.push_back(g);
    } else if (line.key == "node_name") {
      spec.node_name = line.value;
    } else if (line.key == "work_dir") {
      spec.work_dir = line.value;
    } else if (line.key == "stdout") {
      spec.stdout_path = line.value;
    } else if (line.key == "stderr") {
      spec.stderr_path = line.value;
    } else if (line.key == "stdin") {
      spec.stdin_path = line.value;
    } else if (line.key == "time_limit") {
      s = ParseInt(line, &spec.time_limit);
    } else if (line.key == "cpus") {
      s = ParseInt(line, &spec.cpus);
    } else if (line.key == "memory_mb") {
      s = ParseInt(line, &spec.memory_mb);
    } else if (line.key == "gpu") {
      int32_t gpu = 0;
      s = ParseInt(line, &gpu);
      spec.gpu_indices.push_back(gpu);
    } else if (line.key == "mps_gpu") {
      s = ParseInt(line, &spec.mps_gpu);
    } else if (line.key == "gpu_cuda_name") {
      const size_t blank = line.value.find(' ');
      size_t index = 0;
      if (blank == std::string::npos || !absl::SimpleAtoi(line.value.substr(0, blank), &index) ||
          index > 4096) {
        s = absl::InvalidArgumentError(absl::StrCat("bad gpu_cuda_name line: ", line.value));
      } else {
        if (spec.gpu_cuda_names.size() <= index) spec.gpu_cuda_names.resize(index + 1);
        spec.gpu_cuda_names[index] = line.value.substr(blank + 1);
      }
    } else if (line.key == "arg") {
      spec.argv.push_back(line.value);
    } else if (line.key == "run") {
      s = ParseInt(line, &spec.run);
    } else if (line.key == "truncate_output") {
      int flag = 0;
      s = ParseInt(line, &flag);
      spec.truncate_output = flag != 0;
    } else if (line.key == "cpu_id") {
      int cpu = 0;
      s = ParseInt(line, &cpu);
      spec.cpu_ids.push_back(cpu);
    } else if (line.key == "cgroup_version") {
      s = ParseInt(line, &spec.cgroup_version);
    } else if (line.key == "cgroup_mount") {
      spec.cgroup_mount = line.value;
    } else if (line.key == "cgroup_path") {
      spec.cgroup_path = line.value;
    } else if (line.key == "cgroup_controller") {
      spec.cgroup_controllers.push_back(line.value);
    } else if (line.key == "prolog") {
      spec.prolog = line.value;
    } else if (line.key == "epilog") {
      spec.epilog = line.value;
    } else if (line.key == "task_prolog") {
      spec.task_prolog = line.value;
    } else if (line.key == "task_epilog") {
      spec.task_epilog = line.value;
    } else if (line.key == "prolog_epilog_timeout") {
      s = ParseInt(line, &spec.prolog_epilog_timeout);
    } else if (line.key == "container_bundle") {
      spec.container_bundle = line.value;
    } else if (line.key == "oci_conf") {
      spec.oci_conf = line.value;
    } else if (line.key == "container_config_json") {
      int flag = 1;
      s = ParseInt(line, &flag);
      spec.container_config_json = flag != 0;
    } else if (line.key == "container_device") {
      spec.container_devices.push_back(line.value);
    } else if (line.key == "container_image") {
      spec.container_image = line.value;
    } else if (line.key == "container_name") {
      spec.container_name = line.value;
    } else if (line.key == "container_mount") {
      spec.container_mounts.push_back(line.value);
    } else if (line.key == "container_workdir") {
      spec.container_workdir = line.value;
    } else if (line.key == "container_env") {
      spec.container_env.push_back(line.value);
    } else if (line.key == "container_remap_root") {
      int flag = 0;
      s = ParseInt(line, &flag);
      spec.container_remap_root = flag != 0;
    } else if (line.key == "container_mount_home") {
      int flag = 1;
      s = ParseInt(line, &flag);
      spec.container_mount_home = flag != 0;
    } else if (line.key == "image_cache") {
      spec.image_cache = line.value;
    } else if (line.key == "image_cache_bytes") {
      s = ParseInt(line, &spec.image_cache_bytes);
    } else if (line.key == "registry_mirror") {
      spec.registry_mirror = line.value;
    } else if (line.key == "container_user_helper") {
      spec.container_user_helper = line.value;
    } else if (line.key == "home_dir") {
      spec.home_dir = line.value;
    } else if (line.key == "container_driver_file") {
      spec.container_driver_files.push_back(line.value);
    } else if (line.key == "alloc") {
      std::vector<std::string> words = absl::StrSplit(line.value, ' ');
      AllocatedNode node;
      bool ok = words.size() == 5 && absl::SimpleAtoi(words[2], &node.cpus) &&
                absl::SimpleAtoi(words[3], &node.memory_mb);
      if (ok && words[4] != "-") {
        for (absl::string_view g : absl::StrSplit(words[4], ',')) {
          int gpu = 0;
          ok = ok && absl::SimpleAtoi(g, &gpu);
          node.gpus.push_back(gpu);
        }
      }
      if (!ok) {
        return absl::InvalidArgumentError(absl::StrCat(
            "line ", line.number, ": alloc: '", line.value, "' is not NAME ADDRESS CPUS MB GPUS"));
      }
      node.name = words[0];
      node.address = words[1];
      spec.allocation.push_back(std::move(node));
    } else if (line.key == "env") {
      const size_t eq = line.value.find('=');
      if (eq == std::string::npos || eq == 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("line ", line.number, ": env: '", line.value, "' is not NAME=VALUE"));
      }
      spec.environment[line.value.substr(0, eq)] = line.value.substr(eq + 1);
    }
    if (!s.ok()) return s;
  }
  if (!have_id || spec.job_id == 0) return absl::InvalidArgumentError("no job_id");
  return spec;
}

std::string FormatJobStatus(const JobResult& result) {
  std::string out = "# skiff job status\n";
  AddLine(&out, "exit_code", result.exit_code);
  AddLine(&out, "signal", result.signal);
  AddLine(&out, "failure", result.failure);
  if (result.fenced) AddLine(&out, "fenced", "1");
  if (result.run != 0) AddLine(&out, "run", result.run);
  if (result.oom_kills != 0) AddLine(&out, "oom_kills", result.oom_kills);
  if (!result.prolog_error.empty()) AddLine(&out, "prolog_error", result.prolog_error);
  if (!result.epilog_error.empty()) AddLine(&out, "epilog_error", result.epilog_error);
  if (result.has_usage) {
    AddLine(
        &out, "usage",
        absl::StrCat(result.user_cpu_usec, " ", result.system_cpu_usec, " ", result.max_rss_kb));
  }
  return out;
}

absl::StatusOr<JobResult> ParseJobStatus(const std::string& text) {
  absl::StatusOr<std::vector<Line>> lines = SplitLines(text);
  if (!lines.ok()) return lines.status();
  JobResult result;
  bool have_exit = false;
  bool have_signal = false;
  for (const Line& line : *lines) {
    absl::Status s;
    if (line.key == "exit_code") {
      s = ParseInt(line, &result.exit_code);
      have_exit = true;
    } else if (line.key == "signal") {
      s = ParseInt(line, &result.signal);
      have_signal = true;
    } else if (line.key == "failure") {
      result.failure = line.value;
    } else if (line.key == "fenced") {
      result.fenced = line.value == "1";
    } else if (line.key == "run") {
      s = ParseInt(line, &result.run);
    } else if (line.key == "oom_kills") {
      s = ParseInt(line, &result.oom_kills);
    } else if (line.key == "prolog_error") {
      result.prolog_error = line.value;
    } else if (line.key == "epilog_error") {
      result.epilog_error = line.value;
    } else if (line.key == "usage") {
      // "user_usec system_usec max_rss_kb"
      std::vector<std::string> parts = absl::StrSplit(line.value, ' ');
      if (parts.size() != 3 || !absl::SimpleAtoi(parts[0], &result.user_cpu_usec) ||
          !absl::SimpleAtoi(parts[1], &result.system_cpu_usec) ||
          !absl::SimpleAtoi(parts[2], &result.max_rss_kb)) {
        s = absl::InvalidArgumentError(absl::StrCat("bad usage line: ", line.value));
      } else {
        result.has_usage = true;
      }
    }
    if (!s.ok()) return s;
  }
  if (!have_exit) return absl::InvalidArgumentError("no exit_code");
  if (!have_signal) return absl::InvalidArgumentError("no signal");
  return result;
}

std::string FormatNodeEpilogs(const std::vector<NodeScriptError>& failures) {
  std::string out = "# skiff node epilogs\n";
  for (const NodeScriptError& f : failures) {
    AddLine(&out, "failed", absl::StrCat(f.node, "\t", f.error));
  }
  return out;
}

absl::StatusOr<std::vector<NodeScriptError>> ParseNodeEpilogs(const std::string& text) {
  absl::StatusOr<std::vector<Line>> lines = SplitLines(text);
  if (!lines.ok()) return lines.status();
  std::vector<NodeScriptError> failures;
  for (const Line& line : *lines) {
    if (line.key != "failed") continue;
    const size_t tab = line.value.find('\t');
    if (tab == std::string::npos || tab == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("line ", line.number, ": failed: '", line.value, "' is not NODE<TAB>ERROR"));
    }
    failures.push_back({line.value.substr(0, tab), line.value.substr(tab + 1)});
  }
  return failures;
}

std::string FormatAllocationEnd(int exit_code) {
  std::string out = "# skiff allocation end\n";
  AddLine(&out, "exit_code", exit_code);
  return out;
}

absl::StatusOr<int> ParseAllocationEnd(const std::string& text) {
  absl::StatusOr<std::vector<Line>> lines = SplitLines(text);
  if (!lines.ok()) return lines.status();
  for (const Line& line : *lines) {
    if (line.key != "exit_code") continue;
    int code = 0;
    if (absl::Status s = ParseInt(line, &code); !s.ok()) return s;
    return code;
  }
  return absl::InvalidArgumentError("no exit_code");
}

std::string FormatJobPids(const JobPids& pids) {
  std::string out;
  AddLine(&out, "shepherd_pid", pids.shepherd_pid);
  AddLine(&out, "job_pid", pids.job_pid);
  AddLine(&out, "job_pgid", pids.job_pgid);
  return out;
}

absl::StatusOr<JobPids> ParseJobPids(const std::string& text) {
  absl::StatusOr<std::vector<Line>> lines = SplitLines(text);
  if (!lines.ok()) return lines.status();
  JobPids pids;
  for (const Line& line : *lines) {
    absl::Status s;
    if (line.key == "shepherd_pid") {
      s = ParseInt(line, &pids.shepherd_pid);
    } else if (line.key == "job_pid") {
      s = ParseInt(line, &pids.job_pid);
    } else if (line.key == "job_pgid") {
      s = ParseInt(line, &pids.job_pgid);
    }
    if (!s.ok()) return s;
  }
  if (pids.shepherd_pid <= 0) return absl::InvalidArgumentError("no shepherd_pid");
  return pids;
}

std::string JobDirName(uint64_t job_id) { return absl::StrCat("job", job_id); }

std::optional<uint64_t> ParseJobDirName(const std::string& name) {
  constexpr absl::string_view kPrefix = "job";
  if (name.size() <= kPrefix.size() || name.compare(0, kPrefix.size(), "job") != 0) {
    return std::nullopt;
  }
  const std::string digits = name.substr(kPrefix.size());
  for (char c : digits) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  }
  uint64_t id = 0;
  if (!absl::SimpleAtoi(digits, &id) || id == 0) return std::nullopt;
  return id;
}

}  // namespace skiff::noded
