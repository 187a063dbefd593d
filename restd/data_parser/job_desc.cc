#include "restd/data_parser/job_desc.h"

#include <optional>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/hostlist.h"

namespace skiff::restd {
namespace {

using Json = nlohmann::json;

absl::Status Bad(const std::string& field, const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat("job.", field, ": ", why));
}

// A field read with its type checked.
class Fields {
 public:
  explicit Fields(const Json& desc) : desc_(desc) {}

  bool Has(const std::string& name) const { return desc_.contains(name) && !desc_[name].is_null(); }

  absl::StatusOr<std::string> String(const std::string& name) const {
    if (!Has(name)) return std::string();
    if (!desc_[name].is_string()) return Bad(name, "expected a string");
    return desc_[name].get<std::string>();
  }
  absl::StatusOr<bool> Bool(const std::string& name) const {
    if (!Has(name)) return false;
    if (!desc_[name].is_boolean()) return Bad(name, "expected true or false");
    return desc_[name].get<bool>();
  }
  // A number, plain or as {"set", "infinite", "number"}; nullopt when unset,
  // -1 when infinite.
  absl::StatusOr<std::optional<int64_t>> Number(const std::string& name) const {
    if (!Has(name)) return std::optional<int64_t>();
    const Json& value = desc_[name];
    if (value.is_number_integer()) return std::optional<int64_t>(value.get<int64_t>());
    if (value.is_string()) {
      int64_t n = 0;
      if (absl::SimpleAtoi(value.get<std::string>(), &n)) return std::optional<int64_t>(n);
    }
    if (value.is_object()) {
      if (value.value("infinite", false)) return std::optional<int64_t>(-1);
      if (!value.value("set", false)) return std::optional<int64_t>();
      if (value.contains("number") && value["number"].is_number_integer()) {
        return std::optional<int64_t>(value["number"].get<int64_t>());
      }
    }
    return Bad(name, "expected a number");
  }
  // A list of strings, as an array or one comma-separated string.
  absl::StatusOr<std::vector<std::string>> List(const std::string& name) const {
    std::vector<std::string> items;
    if (!Has(name)) return items;
    const Json& value = desc_[name];
    if (value.is_string()) {
      return std::vector<std::string>(
          absl::StrSplit(value.get<std::string>(), ',', absl::SkipEmpty()));
    }
    if (!value.is_array()) return Bad(name, "expected a list of strings");
    for (const Json& item : value) {
      if (!item.is_string()) return Bad(name, "expected a list of strings");
      items.push_back(item.get<std::string>());
    }
    return items;
  }

 private:
  const Json& desc_;
};

#define ASSIGN_OR_RETURN_FIELD(lhs, expr)       \
  auto lhs##_or = (expr);                       \
  if (!lhs##_or.ok()) return lhs##_or.status(); \
  auto lhs = *std::move(lhs##_or)

// The fields this file reads; every other field of the schema is a warning.
const std::set<std::string>& Honoured() {
  static const std::set<std::string> fields = {"account",
                                               "argv",
                                               "array",
                                               "begin_time",
                                               "burst_buffer",
                                               "comment",
                                               "contiguous",
                                               "constraints",
                                               "current_working_directory",
                                               "deadline",
                                               "licenses",
                                               "dependency",
                                               "environment",
                                               "excluded_nodes",
                                               "hold",
                                               "mail_type",
                                               "mail_user",
                                               "memory_per_cpu",
                                               "memory_per_node",
                                               "minimum_cpus_per_node",
                                               "minimum_nodes",
                                               "maximum_nodes",
                                               "name",
                                               "nice",
                                               "nodes",
                                               "overcommit",
                                               "partition",
                                               "priority",
                                               "qos",
                                               "required_nodes",
                                               "requeue",
                                               "reservation",
                                               "script",
                                               "shared",
                                               "standard_error",
                                               "standard_input",
                                               "standard_output",
                                               "tasks",
                                               "tasks_per_node",
                                               "temporary_disk_per_node",
                                               "cpus_per_task",
                                               "time_limit",
                                               "tres_per_job",
                                               "tres_per_node",
                                               "open_mode",
                                               "kill_on_node_fail",
                                               "user_id",
                                               "group_id"};
  return fields;
}

// "gres/gpu:a100:2" (data_parser's TRES form) as sbatch's "gpu:a100:2"; the
// GPUs alone for --gpus.
absl::StatusOr<std::vector<std::string>> GresEntries(const std::string& field,
                                                     const std::string& text) {
  std::vector<std::string> entries;
  for (absl::string_view entry : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    absl::string_view gres = entry;
    if (!absl::ConsumePrefix(&gres, "gres/") && !absl::ConsumePrefix(&gres, "gres:")) {
      return Bad(field,
                 absl::StrCat("\"", entry, "\" is not a gres TRES (gres/NAME[:TYPE]:COUNT)"));
    }
    entries.emplace_back(gres);
  }
  return entries;
}

}  // namespace

absl::StatusOr<ParsedJobDesc> JobSpecFromDesc(const Json& desc, const JobDescDefaults& defaults) {
  if (!desc.is_object()) return absl::InvalidArgumentError("job: expected an object");
  const Fields f(desc);
  ParsedJobDesc parsed;
  v1::JobSpec& spec = parsed.spec;
  for (const auto& [name, value] : desc.items()) {
    if (!Honoured().count(name) && !value.is_null()) {
      parsed.warnings.push_back(absl::StrCat("job.", name, " is not supported by Skiff; ignored"));
    }
  }
  ASSIGN_OR_RETURN_FIELD(script, f.String("script"));
  if (script.empty()) return Bad("script", "a batch script is required");
  if (!absl::StartsWith(script, "#!")) {
    return Bad("script", "the batch script must start with \"#!\"");
  }
  spec.set_script(script);
  ASSIGN_OR_RETURN_FIELD(name, f.String("name"));
  spec.set_name(name.empty() ? "restd" : name);
  // The strings the spec takes as they are (sbatch's -p, -A, -q, -o, -e, -i,
  // -d, -a, --comment, -C, --bb, --reservation, --mail-user).
  using StringSetter = void (*)(v1::JobSpec&, std::string);
  static const std::pair<const char*, StringSetter> kPlainStrings[] = {
      {"partition", [](v1::JobSpec& s, std::string v) { s.set_partition(std::move(v)); }},
      {"account", [](v1::JobSpec& s, std::string v) { s.set_account(std::move(v)); }},
      {"qos", [](v1::JobSpec& s, std::string v) { s.set_qos(std::move(v)); }},
      {"standard_output",
       [](v1::JobSpec& s, std::string v) { s.set_stdout_pattern(std::move(v)); }},
      {"standard_error", [](v1::JobSpec& s, std::string v) { s.set_stderr_pattern(std::move(v)); }},
      {"standard_input", [](v1::JobSpec& s, std::string v) { s.set_stdin_path(std::move(v)); }},
      {"dependency", [](v1::JobSpec& s, std::string v) { s.set_dependency(std::move(v)); }},
      {"array", [](v1::JobSpec& s, std::string v) { s.set_array(std::move(v)); }},
      {"comment", [](v1::JobSpec& s, std::string v) { s.set_comment(std::move(v)); }},
      {"licenses", [](v1::JobSpec& s, std::string v) { s.set_licenses(std::move(v)); }},
      {"constraints", [](v1::JobSpec& s, std::string v) { s.set_constraint(std::move(v)); }},
      {"burst_buffer", [](v1::JobSpec& s, std::string v) { s.set_burst_buffer(std::move(v)); }},
      {"reservation", [](v1::JobSpec& s, std::string v) { s.set_reservation(std::move(v)); }},
      {"mail_user", [](v1::JobSpec& s, std::string v) { s.set_mail_user(std::move(v)); }},
  };
  for (const auto& [field, set] : kPlainStrings) {
    ASSIGN_OR_RETURN_FIELD(value, f.String(field));
    set(spec, std::move(value));
  }
  ASSIGN_OR_RETURN_FIELD(argv, f.List("argv"));
  for (const std::string& arg : argv) spec.add_argv(arg);

  ASSIGN_OR_RETURN_FIELD(environment, f.List("environment"));
  for (const std::string& entry : environment) {
    const size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Bad("environment", absl::StrCat("\"", entry, "\" is not NAME=VALUE"));
    }
    (*spec.mutable_environment())[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  spec.set_export_mode(environment.empty() ? "NONE" : "ALL");

  ASSIGN_OR_RETURN_FIELD(cwd, f.String("current_working_directory"));
  if (!cwd.empty() && cwd[0] != '/') {
    return Bad("current_working_directory", "must be an absolute path");
  }
  spec.set_work_dir(cwd.empty() ? defaults.work_dir : cwd);
  spec.set_submit_dir(spec.work_dir());
  spec.set_submit_host(defaults.submit_host);
  spec.set_command("(restd)");

  ASSIGN_OR_RETURN_FIELD(time_limit, f.Number("time_limit"));
  if (time_limit) {
    if (*time_limit < -1 || *time_limit == 0)
      return Bad("time_limit", "must be a positive number of minutes");
    spec.set_time_limit(*time_limit < 0 ? -1 : *time_limit * 60);
  }
  ASSIGN_OR_RETURN_FIELD(nodes, f.String("nodes"));
  if (!nodes.empty()) {
    std::vector<std::string> range = absl::StrSplit(nodes, '-');
    int32_t min = 0, max = 0;
    if (range.size() > 2 || !absl::SimpleAtoi(range[0], &min) ||
        (range.size() == 2 && !absl::SimpleAtoi(range[1], &max)) || min < 1 ||
        (range.size() == 2 && max < min)) {
      return Bad("nodes", absl::StrCat("\"", nodes, "\" is not N or MIN-MAX"));
    }
    spec.set_min_nodes(min);
    spec.set_max_nodes(range.size() == 2 ? max : min);
  }
  ASSIGN_OR_RETURN_FIELD(min_nodes, f.Number("minimum_nodes"));
  if (min_nodes) spec.set_min_nodes(*min_nodes);
  ASSIGN_OR_RETURN_FIELD(max_nodes, f.Number("maximum_nodes"));
  if (max_nodes) spec.set_max_nodes(*max_nodes);
  ASSIGN_OR_RETURN_FIELD(tasks, f.Number("tasks"));
  if (tasks) {
    if (*tasks < 1) return Bad("tasks", "must be at least 1");
    spec.set_ntasks(*tasks);
  }
  ASSIGN_OR_RETURN_FIELD(tasks_per_node, f.Number("tasks_per_node"));
  if (tasks_per_node) spec.set_ntasks_per_node(*tasks_per_node);
  ASSIGN_OR_RETURN_FIELD(cpus_per_task, f.Number("cpus_per_task"));
  if (cpus_per_task) {
    if (*cpus_per_task < 1) return Bad("cpus_per_task", "must be at least 1");
    spec.set_cpus_per_task(*cpus_per_task);
  }
  ASSIGN_OR_RETURN_FIELD(min_cpus, f.Number("minimum_cpus_per_node"));
  if (min_cpus) spec.set_min_cpus_per_node(*min_cpus);
  ASSIGN_OR_RETURN_FIELD(mem_node, f.Number("memory_per_node"));
  ASSIGN_OR_RETURN_FIELD(mem_cpu, f.Number("memory_per_cpu"));
  if (mem_node && mem_cpu) {
    return Bad("memory_per_cpu", "memory_per_node and memory_per_cpu are mutually exclusive");
  }
  if (mem_node) spec.set_mem_per_node_mb(std::max<int64_t>(0, *mem_node));
  if (mem_cpu) spec.set_mem_per_cpu_mb(std::max<int64_t>(0, *mem_cpu));

  ASSIGN_OR_RETURN_FIELD(per_node, f.String("tres_per_node"));
  ASSIGN_OR_RETURN_FIELD(node_gres, GresEntries("tres_per_node", per_node));
  for (const std::string& gres : node_gres) spec.add_gres(gres);
  ASSIGN_OR_RETURN_FIELD(per_job, f.String("tres_per_job"));
  ASSIGN_OR_RETURN_FIELD(job_gres, GresEntries("tres_per_job", per_job));
  std::vector<std::string> gpus;
  for (const std::string& gres : job_gres) {
    if (!absl::StartsWith(gres, "gpu")) return Bad("tres_per_job", "only gres/gpu is per job");
    gpus.push_back(gres == "gpu" ? "1" : gres.substr(4));
  }
  spec.set_gpus(absl::StrJoin(gpus, ","));

  ASSIGN_OR_RETURN_FIELD(hold, f.Bool("hold"));
  spec.set_hold(hold);
  ASSIGN_OR_RETURN_FIELD(begin, f.Number("begin_time"));
  if (begin && *begin > 0) spec.set_begin_time(*begin);
  ASSIGN_OR_RETURN_FIELD(deadline, f.Number("deadline"));
  if (deadline && *deadline > 0) spec.set_deadline(*deadline);
  ASSIGN_OR_RETURN_FIELD(contiguous, f.Bool("contiguous"));
  spec.set_contiguous(contiguous);
  ASSIGN_OR_RETURN_FIELD(overcommit, f.Bool("overcommit"));
  spec.set_overcommit(overcommit);
  if (f.Has("requeue")) {
    ASSIGN_OR_RETURN_FIELD(requeue, f.Bool("requeue"));
    spec.set_requeue(requeue);
  }
  ASSIGN_OR_RETURN_FIELD(nice, f.Number("nice"));
  if (nice) spec.set_nice(static_cast<int32_t>(*nice));
  ASSIGN_OR_RETURN_FIELD(priority, f.Number("priority"));
  if (priority && *priority > 0) spec.set_priority(*priority);
  ASSIGN_OR_RETURN_FIELD(mail_types, f.List("mail_type"));
  spec.set_mail_type(absl::StrJoin(mail_types, ","));
  ASSIGN_OR_RETURN_FIELD(shared, f.List("shared"));
  // Slurm's JOB_SHARED_*, as sbatch's --exclusive[=user|mcs] and -s.
  for (const std::string& mode : shared) {
    if (mode == "none" || mode == "user" || mode == "mcs") {
      spec.set_exclusive(true);
      spec.set_oversubscribe(false);
      spec.set_exclusive_kind(mode == "none" ? "" : mode);
    } else if (mode == "oversubscribe") {
      spec.set_exclusive(false);
      spec.set_exclusive_kind("");
      spec.set_oversubscribe(true);
    }
  }
  ASSIGN_OR_RETURN_FIELD(tmp_disk, f.Number("temporary_disk_per_node"));  // --tmp, in MB
  if (tmp_disk) {
    if (*tmp_disk < 0) return Bad("temporary_disk_per_node", "a size cannot be negative");
    spec.set_min_tmp_disk_mb(static_cast<uint64_t>(*tmp_disk));
  }
  if (f.Has("kill_on_node_fail")) {  // false: sbatch -k
    ASSIGN_OR_RETURN_FIELD(kill_on_node_fail, f.Bool("kill_on_node_fail"));
    spec.set_no_kill(!kill_on_node_fail);
  }
  ASSIGN_OR_RETURN_FIELD(open_mode, f.List("open_mode"));
  for (const std::string& mode : open_mode) {
    const std::string lower = absl::AsciiStrToLower(mode);
    if (lower != "append" && lower != "truncate") {
      return Bad("open_mode", absl::StrCat("\"", mode, "\" is not APPEND or TRUNCATE"));
    }
    spec.set_open_mode(lower);
  }
  for (const char* field : {"required_nodes", "excluded_nodes"}) {
    ASSIGN_OR_RETURN_FIELD(expressions, f.List(field));
    for (const std::string& expression : expressions) {
      absl::StatusOr<std::vector<std::string>> names = ExpandHostlist(expression);
      if (!names.ok()) return Bad(field, std::string(names.status().message()));
      for (const std::string& name : *names) {
        if (std::string(field) == "required_nodes") {
          spec.add_nodelist(name);
        } else {
          spec.add_exclude(name);
        }
      }
    }
  }
  return parsed;
}

absl::StatusOr<ParsedJobUpdate> JobUpdateFromDesc(const Json& desc) {
  if (!desc.is_object()) {
    return absl::InvalidArgumentError("the body must be a JSON job description (job_desc_msg)");
  }
  const Fields f(desc);
  ParsedJobUpdate out;
  v1::UpdateJobRequest& r = out.request;
  bool any = false;
  if (f.Has("hold")) {
    ASSIGN_OR_RETURN_FIELD(hold, f.Bool("hold"));
    r.set_held(hold);
    any = true;
  }
  ASSIGN_OR_RETURN_FIELD(priority, f.Number("priority"));
  if (priority) {
    if (*priority < 0) return Bad("priority", "must be a number, not infinite");
    r.set_priority(*priority);
    any = true;
  }
  ASSIGN_OR_RETURN_FIELD(time_limit, f.Number("time_limit"));
  if (time_limit) {
    if (*time_limit < -1) return Bad("time_limit", "must not be negative");
    r.set_time_limit(*time_limit < 0 ? -1 : *time_limit * 60);
    any = true;
  }
  ASSIGN_OR_RETURN_FIELD(nice, f.Number("nice"));
  if (nice) {
    r.set_nice(static_cast<int32_t>(*nice));
    any = true;
  }
  ASSIGN_OR_RETURN_FIELD(begin, f.Number("begin_time"));
  if (begin) {
    if (*begin < 0) return Bad("begin_time", "must be a unix time");
    r.set_begin_time(*begin);
    any = true;
  }
  ASSIGN_OR_RETURN_FIELD(min_nodes, f.Number("minimum_nodes"));
  if (min_nodes) {
    if (*min_nodes < 1) return Bad("minimum_nodes", "must be at least 1");
    r.set_min_nodes(static_cast<int32_t>(*min_nodes));
    any = true;
  }
  const std::pair<const char*, void (v1::UpdateJobRequest::*)(const std::string&)> texts[] = {
      {"name", &v1::UpdateJobRequest::set_name},
      {"comment", &v1::UpdateJobRequest::set_comment},
      {"partition", &v1::UpdateJobRequest::set_partition},
      {"qos", &v1::UpdateJobRequest::set_qos},
      {"account", &v1::UpdateJobRequest::set_account},
      {"reservation", &v1::UpdateJobRequest::set_reservation},
      {"constraints", &v1::UpdateJobRequest::set_features},
  };
  for (const auto& [name, set] : texts) {
    if (!f.Has(name)) continue;
    ASSIGN_OR_RETURN_FIELD(text, f.String(name));
    (r.*set)(text);
    any = true;
  }
  const std::pair<const char*, void (v1::UpdateJobRequest::*)(const std::string&)> lists[] = {
      {"excluded_nodes", &v1::UpdateJobRequest::set_exc_node_list},
      {"required_nodes", &v1::UpdateJobRequest::set_req_node_list},
  };
  for (const auto& [name, set] : lists) {
    if (!f.Has(name)) continue;
    ASSIGN_OR_RETURN_FIELD(nodes, f.List(name));
    (r.*set)(absl::StrJoin(nodes, ","));
    any = true;
  }
  static const std::set<std::string> kUpdated = {
      "hold",        "priority",       "time_limit",     "nice",  "begin_time", "minimum_nodes",
      "name",        "comment",        "partition",      "qos",   "account",    "reservation",
      "constraints", "excluded_nodes", "required_nodes", "job_id"};
  for (const auto& [name, value] : desc.items()) {
    if (kUpdated.count(name) == 0 && !value.is_null()) {
      out.warnings.push_back(absl::StrCat("job.", name, ": not a field Skiff updates; ignored"));
    }
  }
  if (!any) return absl::InvalidArgumentError("the job description changes nothing Skiff updates");
  return out;
}

}  // namespace skiff::restd
