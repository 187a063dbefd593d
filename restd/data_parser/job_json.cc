#include "restd/data_parser/job_json.h"

#include <algorithm>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "client/job_fields.h"
#include "client/job_text.h"
#include "client/node_gpus.h"
#include "common/hostlist.h"
#include "restd/data_parser/json_out.h"
#include "restd/data_parser/values.h"

namespace skiff::restd {
namespace {

using Json = nlohmann::json;

bool Started(const v1::JobInfo& job) { return job.start_time() > 0; }

bool Active(v1::JobState state) { return client::IsActiveJobState(state); }

// "gpu:a100:1(IDX:0)" per node, as scontrol show job -d's GRES= and
// data_parser's gres_detail.
std::vector<std::string> GresDetail(const v1::JobInfo& job, const JobJsonContext& context) {
  std::vector<std::string> detail;
  if (!Started(job) || !Active(job.state())) return detail;
  for (int i = 0; i < job.node_resources_size() && i < job.nodes_size(); ++i) {
    const auto& gpus = job.node_resources(i).gpu_indices();
    if (gpus.empty()) continue;
    std::string type;
    auto node = context.nodes.find(job.nodes(i));
    if (node != context.nodes.end()) {
      for (const v1::Gres& gres : node->second->gres()) {
        if (gres.name() == "gpu" && !gres.type().empty()) type = gres.type();
      }
    }
    std::vector<int> indices(gpus.begin(), gpus.end());
    std::sort(indices.begin(), indices.end());
    detail.push_back(absl::StrCat("gpu", type.empty() ? "" : ":" + type, ":", indices.size(),
                                  "(IDX:", client::IndexRanges(indices), ")"));
  }
  return detail;
}

// The cores each node gives the job, by socket: from the node's logical CPU
// ids and its sockets x cores x threads (Slurm numbers CPUs socket by socket,
// core by core, thread by thread).
Json JobResources(const v1::JobInfo& job, const JobJsonContext& context) {
  Json allocation = Json::array();
  for (int i = 0; i < job.nodes_size(); ++i) {
    Json sockets = Json::array();
    int cpus = 0;
    if (i < job.node_resources_size()) {
      const auto& cpu_ids = job.node_resources(i).cpu_ids();
      cpus = cpu_ids.size();
      auto node = context.nodes.find(job.nodes(i));
      if (node != context.nodes.end()) {
        const int threads = std::max(1, node->second->threads_per_core());
        const int cores = std::max(1, node->second->cores_per_socket());
        std::map<int, std::set<int>> by_socket;
        for (int cpu : cpu_ids) by_socket[cpu / threads / cores].insert(cpu / threads % cores);
        for (const auto& [socket, core_set] : by_socket) {
          Json core_list = Json::array();
          for (int core : core_set) {
            core_list.push_back({{"index", core}, {"status", Json::array({"ALLOCATED"})}});
          }
          sockets.push_back({{"index", socket}, {"cores", std::move(core_list)}});
        }
      }
    }
    if (cpus == 0) cpus = job.num_cpus() / std::max(1, job.nodes_size());
    const int64_t memory = static_cast<int64_t>(job.mem_per_node_mb());
    allocation.push_back({{"index", i},
                          {"name", job.nodes(i)},
                          {"cpus", {{"count", cpus}, {"used", cpus}}},
                          {"memory", {{"used", memory}, {"allocated", memory}}},
                          {"sockets", std::move(sockets)}});
  }
  return {{"select_type", Json::array({"CPU", "MEMORY"})},
          {"nodes",
           {{"count", job.nodes_size()},
            {"select_type", Json::array({"AVAILABLE"})},
            {"list", CompressHostlist({job.nodes().begin(), job.nodes().end()})},
            {"whole", job.spec().exclusive()},
            {"allocation", std::move(allocation)}}},
          {"cpus", job.num_cpus()},
          {"threads_per_core", NoNumber()}};
}

// "--gpus=a100:2" as data_parser's tres_per_job "gres/gpu:a100:2".
std::string TresPer(const std::string& gpus) {
  if (gpus.empty()) return "";
  std::vector<std::string> parts;
  for (absl::string_view entry : absl::StrSplit(gpus, ',', absl::SkipEmpty())) {
    parts.push_back(absl::StrCat("gres/gpu:", entry));
  }
  return absl::StrJoin(parts, ",");
}

std::string TresPerNode(const v1::JobSpec& spec) {
  std::vector<std::string> parts;
  for (const std::string& gres : spec.gres()) parts.push_back("gres/" + gres);
  if (!spec.gpus_per_node().empty()) parts.push_back(TresPer(spec.gpus_per_node()));
  return absl::StrJoin(parts, ",");
}

// data_parser's process_exit_code_verbose, as values.h's ExitCode builds it.
void WriteExitCode(JsonOut& out, bool ended, int return_code, int signal) {
  const char* status = "PENDING";
  if (ended) status = signal != 0 ? "SIGNALED" : (return_code == 0 ? "SUCCESS" : "ERROR");
  out.BeginObject();
  out.Key("status").BeginArray().String(status).EndArray();
  out.Key("return_code");
  if (ended) {
    out.Number(return_code);
  } else {
    out.NoNumber();
  }
  out.Key("signal").BeginObject().Key("id");
  if (signal != 0) {
    out.Number(signal);
  } else {
    out.NoNumber();
  }
  out.Field("name", SignalName(signal)).EndObject();
  out.EndObject();
}

// The time a running job will end by its limit, else its end or nothing.
int64_t EndTime(const v1::JobInfo& job) {
  if (job.end_time() > 0) return job.end_time();
  if (Started(job) && job.time_limit() > 0) {
    return job.start_time() + job.suspended_seconds() + job.time_limit();
  }
  return 0;
}

std::string ArrayTaskString(const v1::JobInfo& job) {
  if (job.collapsed_task_ids().empty()) return "";
  // Ascending, as ctld lists them.
  std::string text = client::IndexRanges(
      std::vector<int>(job.collapsed_task_ids().begin(), job.collapsed_task_ids().end()));
  if (job.array_max_running() > 0) absl::StrAppend(&text, "%", job.array_max_running());
  return text;
}

}  // namespace

Json MailTypeList(const std::string& mail_type) {
  static const std::set<std::string> kKnown = {
      "BEGIN",    "END",      "FAIL",      "REQUEUE",     "TIME=100%",         "TIME=90%",
      "TIME=80%", "TIME=50%", "STAGE_OUT", "ARRAY_TASKS", "INVALID_DEPENDENCY"};
  Json list = Json::array();
  for (absl::string_view entry : absl::StrSplit(mail_type, ',', absl::SkipEmpty())) {
    std::string flag = absl::AsciiStrToUpper(entry);
    if (flag == "ALL") {
      for (const char* all : {"BEGIN", "END", "FAIL", "REQUEUE", "STAGE_OUT"}) list.push_back(all);
    } else if (flag == "TIME_LIMIT") {
      list.push_back("TIME=100%");
    } else if (absl::StartsWith(flag, "TIME_LIMIT_")) {
      list.push_back(absl::StrCat("TIME=", flag.substr(11), "%"));
    } else if (kKnown.count(flag)) {
      list.push_back(flag);
    }
  }
  return list;
}

void WriteJob(const v1::JobInfo& job, const JobJsonContext& context, JsonOut& out) {
  const v1::JobSpec& spec = job.spec();
  const bool started = Started(job);
  const bool pending = job.state() == v1::PENDING;
  const bool ended = !Active(job.state()) && job.state() != v1::PENDING;
  // Slurm's times: set, 0 when there is none.
  const auto time = [&out](absl::string_view name, int64_t unix_seconds) {
    out.Key(name).Number(unix_seconds > 0 ? unix_seconds : 0);
  };
  const auto number_or_unset = [&out](absl::string_view name, int64_t value, bool set) {
    out.Key(name);
    if (set) {
      out.Number(value);
    } else {
      out.NoNumber();
    }
  };
  out.BeginObject();
  out.Field("account", job.account());
  time("accrue_time", job.eligible_time());
  out.Key("array_job_id").Number(static_cast<int64_t>(job.array_job_id()));
  number_or_unset("array_task_id", job.array_task_id(), job.array_task_id() >= 0);
  out.Key("array_max_tasks").Number(job.array_max_running());
  out.Field("array_task_string", ArrayTaskString(job));
  out.Field("batch_flag", !spec.interactive());
  out.Field("batch_host", started && job.nodes_size() > 0 ? job.nodes(0) : std::string());
  out.Key("flags").BeginArray().EndArray();
  out.Field("burst_buffer", spec.burst_buffer());
  out.Field("burst_buffer_state", job.burst_buffer_state());
  out.Field("cluster", context.cluster);
  out.Field("command", spec.command());
  out.Field("comment", spec.comment());
  out.Field("contiguous", spec.contiguous());
  out.Key("cpus_per_task").Number(std::max(1, job.cpus_per_task()));
  time("deadline", spec.deadline());
  out.Field("dependency", job.dependency());
  out.Key("derived_exit_code");
  if (job.has_derived_exit_code()) {
    WriteExitCode(out, true, job.derived_exit_code(), job.derived_exit_signal());
  } else {
    WriteExitCode(out, ended, 0, 0);
  }
  time("eligible_time", job.eligible_time());
  out.Key("end_time").Number(EndTime(job));
  out.Field("excluded_nodes", CompressHostlist({spec.exclude().begin(), spec.exclude().end()}));
  out.Key("exit_code");
  WriteExitCode(out, ended, job.exit_code(), job.exit_signal());
  out.Field("features", spec.constraint());
  out.Key("gres_detail").BeginArray();
  for (const std::string& detail : GresDetail(job, context)) out.String(detail);
  out.EndArray();
  out.Field("group_id", job.group_id());
  out.Field("group_name", job.group_name());
  out.Field("job_id", job.job_id());
  out.Key("job_state").BeginArray().String(client::JobStateName(job.state())).EndArray();
  time("last_sched_evaluation", job.now());
  out.Key("mail_type").BeginArray();
  if (!spec.mail_type().empty()) {
    for (const Json& flag : MailTypeList(spec.mail_type())) out.String(flag.get<std::string>());
  }
  out.EndArray();
  out.Field("mail_user", spec.mail_user().empty() ? job.user_name() : spec.mail_user());
  out.Key("max_nodes").Number(spec.max_nodes());
  out.Field("name", spec.name());
  out.Field("nodes", CompressHostlist({job.nodes().begin(), job.nodes().end()}));
  out.Field("nice", job.nice());
  number_or_unset("tasks_per_node", spec.ntasks_per_node(), spec.ntasks_per_node() > 0);
  out.Key("cpus").Number(job.num_cpus());
  out.Key("node_count").Number(std::max(1, job.num_nodes()));
  out.Key("tasks").Number(std::max(1, job.num_tasks()));
  out.Field("partition", job.partition());
  number_or_unset("memory_per_cpu", spec.mem_per_cpu_mb(), spec.mem_per_cpu_mb() > 0);
  const uint64_t memory_per_node =
      job.mem_per_node_mb() > 0 ? job.mem_per_node_mb() : spec.mem_per_node_mb();
  number_or_unset("memory_per_node", memory_per_node, memory_per_node > 0);
  number_or_unset("minimum_cpus_per_node", spec.min_cpus_per_node(), spec.min_cpus_per_node() > 0);
  out.Field("hold", job.held());
  out.Key("priority").Number(job.priority());
  out.Field("qos", job.qos());
  out.Field("requeue", spec.has_requeue() ? spec.requeue() : false);
  out.Field("required_nodes", CompressHostlist({spec.nodelist().begin(), spec.nodelist().end()}));
  out.Field("restart_cnt", job.restart_count());
  out.Field("resv_name", spec.reservation());
  out.Field("scheduled_nodes", job.sched_nodes());
  out.Key("shared").BeginArray();
  // Slurm's JOB_SHARED_* flags: none (--exclusive), user, mcs, oversubscribe (-s).
  if (spec.exclusive()) {
    out.String(spec.exclusive_kind().empty() ? std::string("none") : spec.exclusive_kind());
  } else if (spec.oversubscribe()) {
    out.String("oversubscribe");
  }
  out.EndArray();
  time("start_time", started ? job.start_time() : job.expected_start());
  out.Field("state_description", job.state_description());
  out.Field("state_reason", job.state_reason().empty() ? std::string("None") : job.state_reason());
  out.Field("standard_error", job.stderr_path().empty() ? job.stdout_path() : job.stderr_path());
  out.Field("standard_input",
            spec.stdin_path().empty() ? std::string("/dev/null") : spec.stdin_path());
  out.Field("standard_output", job.stdout_path());
  time("submit_time", job.submit_time());
  time("suspend_time", job.suspend_time());
  out.Key("time_limit");
  if (job.time_limit() < 0) {
    out.Infinite();
  } else if (job.time_limit() == 0) {
    out.NoNumber();
  } else {
    out.Number((job.time_limit() + 59) / 60);
  }
  out.Field("tres_per_job", TresPer(spec.gpus()));
  out.Field("tres_per_node", TresPerNode(spec));
  const std::string tres = client::JobTresText(job);
  out.Field("tres_req_str", tres);
  out.Field("tres_alloc_str", started ? tres : std::string());
  out.Field("user_id", job.user_id());
  out.Field("user_name", job.user_name());
  out.Field("current_working_directory", spec.work_dir());
  if (started && !pending && job.nodes_size() > 0) {
    out.Field("job_resources", JobResources(job, context));
  }
  out.EndObject();
}

Json JobJson(const v1::JobInfo& job, const JobJsonContext& context) {
  std::string text;
  JsonOut out(&text);
  WriteJob(job, context, out);
  return Json::parse(text);
}

}  // namespace skiff::restd
