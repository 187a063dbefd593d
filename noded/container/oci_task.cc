#include "noded/container/oci_task.h"

#include <regex.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace skiff::noded {
namespace {

using Json = nlohmann::ordered_json;

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// POSIX shell words: each argument in single quotes, a quote inside as '"'"'.
std::string QuotedArgs(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& arg : argv) {
    if (!out.empty()) out += ' ';
    out += '\'';
    for (char c : arg) {
      if (c == '\'') {
        out += "'\"'\"'";
      } else {
        out += c;
      }
    }
    out += '\'';
  }
  return out;
}

std::string StepPart(uint32_t step_id) {
  if (step_id == kBatchStepId) return "batch";
  if (step_id == kInteractiveStepId) return "interactive";
  return "%s";
}

Json BindMount(const std::string& source, const std::string& destination, bool read_only) {
  Json options = Json::array({"bind"});
  if (read_only) options.push_back("ro");
  return Json{{"destination", destination},
              {"type", "none"},
              {"source", source},
              {"options", std::move(options)}};
}

}  // namespace

absl::StatusOr<std::string> ExpandOciPattern(const std::string& pattern, const OciTask& task,
                                             const OciPatternValues& values) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%') {
      out += pattern[i];
      continue;
    }
    if (++i == pattern.size()) {
      return absl::InvalidArgumentError(absl::StrCat("pattern '", pattern, "' ends with %"));
    }
    switch (pattern[i]) {
      case '%':
        out += '%';
        break;
      case '@':
        out += values.argv.empty() ? std::string("\"/bin/false\"") : QuotedArgs(values.argv);
        break;
      case 'b':
        out += values.bundle;
        break;
      case 'e':
        out += values.env_file;
        break;
      case 'j':
        absl::StrAppend(&out, task.job_id);
        break;
      case 'm':
        out += values.spool_dir;
        break;
      case 'n':
        out += task.node_name;
        break;
      case 'p':
        absl::StrAppend(&out, values.pid >= 0 ? values.pid : 0xfffffffeLL);  // INFINITE
        break;
      case 'r':
        out += values.rootfs;
        break;
      case 's':
        absl::StrAppend(&out, task.step_id);
        break;
      case 't':
        absl::StrAppend(&out, task.task_id);
        break;
      case 'u':
        out += task.user_name;
        break;
      case 'U':
        absl::StrAppend(&out, task.uid);
        break;
      default:
        return absl::InvalidArgumentError(
            absl::StrCat("pattern '", pattern, "': unknown replacement %", pattern.substr(i, 1)));
    }
  }
  return out;
}

absl::StatusOr<std::string> OciSpoolDir(const OciConfig& config, const OciTask& task,
                                        const std::string& slurmd_spool_dir) {
  OciPatternValues values;
  values.spool_dir = slurmd_spool_dir;
  if (!config.container_path.empty()) return ExpandOciPattern(config.container_path, task, values);
  return ExpandOciPattern(
      absl::StrCat(task.job_dir, "/oci-job%j-", StepPart(task.step_id), "/task-%t"), task, values);
}

std::vector<std::string> WithoutExcluded(const std::string& regex,
                                         std::vector<std::string> entries) {
  regex_t compiled;
  if (regex.empty() || regcomp(&compiled, regex.c_str(), REG_EXTENDED | REG_NOSUB) != 0) {
    return entries;
  }
  entries.erase(std::remove_if(entries.begin(), entries.end(),
                               [&](const std::string& entry) {
                                 return regexec(&compiled, entry.c_str(), 0, nullptr, 0) == 0;
                               }),
                entries.end());
  regfree(&compiled);
  return entries;
}

absl::StatusOr<OciTaskPlan> PlanOciTask(const OciConfig& config, const std::string& bundle_config,
                                        const OciTask& task, const std::string& spool_dir) {
  OciTaskPlan plan;
  plan.argv = task.argv;
  // The task's environment, the bundle's values winning (Slurm's
  // _merge_step_config_env), then EnvExclude.
  std::vector<std::pair<std::string, std::string>> env;
  std::map<std::string, size_t> index;
  auto put = [&](const std::string& entry) {
    const size_t eq = entry.find('=');
    const std::string name = entry.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : entry.substr(eq + 1);
    auto it = index.find(name);
    if (it == index.end()) {
      index[name] = env.size();
      env.emplace_back(name, value);
    } else {
      env[it->second].second = value;
    }
  };
  for (const std::string& entry : task.env) put(entry);
  auto container_env = [&] {
    // Inside, the job's GPUs are the only ones CUDA can open: it numbers
    // them from 0, so the lists Slurm set from the node's indices are
    // renumbered (SLURM_JOB_GPUS keeps the node's, as Slurm's does).
    if (!task.devices.empty()) {
      for (const char* name : {"CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL"}) {
        auto it = index.find(name);
        if (it == index.end() || env[it->second].second.empty()) continue;
        const size_t count =
            std::count(env[it->second].second.begin(), env[it->second].second.end(), ',') + 1;
        std::string renumbered;
        for (size_t i = 0; i < count; ++i) absl::StrAppend(&renumbered, i == 0 ? "" : ",", i);
        env[it->second].second = renumbered;
      }
    }
    std::vector<std::string> entries;
    for (const auto& [name, value] : env) entries.push_back(absl::StrCat(name, "=", value));
    return WithoutExcluded(config.env_exclude, std::move(entries));
  };

  if (config.ignore_file_config_json || bundle_config.empty()) {
    plan.rootfs = task.bundle;
  } else {
    Json json = Json::parse(bundle_config, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded() || !json.is_object()) {
      return absl::InvalidArgumentError("config.json is not a JSON object");
    }
    const Json* root_path = nullptr;
    if (auto root = json.find("root"); root != json.end() && root->is_object()) {
      if (auto path = root->find("path"); path != root->end()) root_path = &*path;
    }
    if (root_path == nullptr || !root_path->is_string()) {
      return absl::InvalidArgumentError("config.json: root.path is missing or not a string");
    }
    plan.rootfs = root_path->get<std::string>();
    if (plan.rootfs.empty() || plan.rootfs[0] != '/') {
      plan.rootfs = absl::StrCat(task.bundle, "/", plan.rootfs);
    }
    Json& process = json["process"];
    if (!process.is_object()) process = Json::object();
    if (auto bundle_env = process.find("env"); bundle_env != process.end()) {
      if (bundle_env->is_array()) {
        for (const Json& entry : *bundle_env) {
          if (entry.is_string()) put(entry.get<std::string>());
        }
      }
    }
    process["terminal"] = task.terminal;
    process["noNewPrivileges"] = true;
    json["root"]["path"] = plan.rootfs;
    Json& mounts = json["mounts"];
    if (!mounts.is_array()) mounts = Json::array();
    mounts.push_back(BindMount(
        spool_dir, config.mount_spool_dir.empty() ? kDefaultMountSpoolDir : config.mount_spool_dir,
        false));
    if (task.step_id == kBatchStepId && !plan.argv.empty()) {
      // runc treats /dev/null specially: never bind it.
      const std::pair<const std::string*, const char*> files[] = {
          {&task.stdin_path, kContainerStdin},
          {&task.stdout_path, kContainerStdout},
          {&task.stderr_path, kContainerStderr}};
      for (const auto& [path, destination] : files) {
        if (!path->empty() && *path != "/dev/null") {
          mounts.push_back(BindMount(*path, destination, false));
        }
      }
      mounts.push_back(BindMount(plan.argv[0], kContainerBatchScript, true));
      plan.argv[0] = kContainerBatchScript;
    }
    for (const std::string& device : task.devices) {
      mounts.push_back(BindMount(device, absl::StrCat("/dev/", BaseName(device)), false));
    }
    if (!config.disable_hooks.empty()) {
      if (auto hooks = json.find("hooks"); hooks != json.end() && hooks->is_object()) {
        for (const std::string& hook : config.disable_hooks) hooks->erase(hook);
      }
    }
    plan.env = container_env();
    plan.argv.insert(plan.argv.begin(), task.entry.begin(), task.entry.end());
    process["env"] = plan.env;
    process["args"] = plan.argv;
    plan.config_json = json.dump(2, ' ', false, Json::error_handler_t::replace);
  }
  if (plan.config_json.empty()) plan.env = container_env();
  if (config.create_env_file == "null") {
    for (const std::string& entry : plan.env)
      absl::StrAppend(&plan.env_file, entry, std::string(1, '\0'));
  } else if (config.create_env_file == "newline") {
    for (const std::string& entry : plan.env) {
      if (entry.find('\n') == std::string::npos) absl::StrAppend(&plan.env_file, entry, "\n");
    }
  }
  return plan;
}

}  // namespace skiff::noded
