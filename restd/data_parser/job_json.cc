#include "restd/data_parser/job_json.h"

#include <algorithm>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "cli/common/job_text.h"
#include "cli/scontrol/scontrol_format.h"
#include "common/hostlist.h"
#include "restd/data_parser/values.h"

namespace skiff::restd {
namespace {

using Json = nlohmann::json;

bool Started(const v1::JobInfo& job) { return job.start_time() > 0; }

bool Active(v1::JobState state) { return cli::IsActiveJobState(state); }

// "gpu:a100:1(IDX:0)" per node, as scontrol show job -d's GRES= and
// data_parser's gres_detail.
Json GresDetail(const v1::JobInfo& job, const JobJsonContext& context) {
  Json detail = Json::array();
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
    std::vector<std::string> ranges;
    for (size_t k = 0; k < indices.size();) {
      size_t end = k;
      while (end + 1 < indices.size() && indices[end + 1] == indices[end] + 1) ++end;
      ranges.push_back(end == k ? absl::StrCat(indices[k])
                                : absl::StrCat(indices[k], "-", indices[end]));
      k = end + 1;
    }
    detail.push_back(absl::StrCat("gpu", type.empty() ? "" : ":" + type, ":", indices.size(),
                                  "(IDX:", absl::StrJoin(ranges, ","), ")"));
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

// The time a running job will end by its limit, else its end or nothing.
Json EndTime(const v1::JobInfo& job) {
  if (job.end_time() > 0) return Number(job.end_time());
  if (Started(job) && job.time_limit() > 0) {
    return Number(job.start_time() + job.suspended_seconds() + job.time_limit());
  }
  return Number(0);
}

std::string ArrayTaskString(const v1::JobInfo& job) {
  if (job.collapsed_task_ids().empty()) return "";
  std::vector<int32_t> ids(job.collapsed_task_ids().begin(), job.collapsed_task_ids().end());
  std::vector<std::string> ranges;
  for (size_t k = 0; k < ids.size();) {
    size_t end = k;
    while (end + 1 < ids.size() && ids[end + 1] == ids[end] + 1) ++end;
    ranges.push_back(end == k ? absl::StrCat(ids[k]) : absl::StrCat(ids[k], "-", ids[end]));
    k = end + 1;
  }
  std::string text = absl::StrJoin(ranges, ",");
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

Json JobJson(const v1::JobInfo& job, const JobJsonContext& context) {
  const v1::JobSpec& spec = job.spec();
  const bool started = Started(job);
  const bool pending = job.state() == v1::PENDING;
  const bool ended = !Active(job.state()) && job.state() != v1::PENDING;
  Json out = {
      {"account", job.account()},
      {"accrue_time", Time(job.eligible_time())},
      {"array_job_id", Number(job.array_job_id())},
      {"array_task_id", job.array_task_id() >= 0 ? Number(job.array_task_id()) : NoNumber()},
      {"array_max_tasks", Number(job.array_max_running())},
      {"array_task_string", ArrayTaskString(job)},
      {"batch_flag", !spec.interactive()},
      {"batch_host", started && job.nodes_size() > 0 ? job.nodes(0) : ""},
      {"flags", Json::array()},
      {"burst_buffer", spec.burst_buffer()},
      {"burst_buffer_state", job.burst_buffer_state()},
      {"cluster", context.cluster},
      {"command", spec.command()},
      {"comment", spec.comment()},
      {"contiguous", spec.contiguous()},
      {"cpus_per_task", Number(std::max(1, job.cpus_per_task()))},
      {"deadline", Time(spec.deadline())},
      {"dependency", job.dependency()},
      {"derived_exit_code", job.has_derived_exit_code()
                                ? ExitCode(true, job.derived_exit_code(), job.derived_exit_signal())
                                : ExitCode(ended, 0, 0)},
      {"eligible_time", Time(job.eligible_time())},
      {"end_time", EndTime(job)},
      {"excluded_nodes", CompressHostlist({spec.exclude().begin(), spec.exclude().end()})},
      {"exit_code", ExitCode(ended, job.exit_code(), job.exit_signal())},
      {"features", spec.constraint()},
      {"gres_detail", GresDetail(job, context)},
      {"group_id", job.group_id()},
      {"group_name", job.group_name()},
      {"job_id", job.job_id()},
      {"job_state", Json::array({cli::JobStateName(job.state())})},
      {"last_sched_evaluation", Time(job.now())},
      {"mail_type", MailTypeList(spec.mail_type())},
      {"mail_user", spec.mail_user().empty() ? job.user_name() : spec.mail_user()},
      {"max_nodes", Number(spec.max_nodes())},
      {"name", spec.name()},
      {"nodes", CompressHostlist({job.nodes().begin(), job.nodes().end()})},
      {"nice", job.nice()},
      {"tasks_per_node", spec.ntasks_per_node() > 0 ? Number(spec.ntasks_per_node()) : NoNumber()},
      {"cpus", Number(job.num_cpus())},
      {"node_count", Number(std::max(1, job.num_nodes()))},
      {"tasks", Number(std::max(1, job.num_tasks()))},
      {"partition", job.partition()},
      {"memory_per_cpu", spec.mem_per_cpu_mb() > 0 ? Number(spec.mem_per_cpu_mb()) : NoNumber()},
      {"memory_per_node",
       job.mem_per_node_mb() > 0
           ? Number(job.mem_per_node_mb())
           : (spec.mem_per_node_mb() > 0 ? Number(spec.mem_per_node_mb()) : NoNumber())},
      {"minimum_cpus_per_node",
       spec.min_cpus_per_node() > 0 ? Number(spec.min_cpus_per_node()) : NoNumber()},
      {"hold", job.held()},
      {"priority", Number(job.priority())},
      {"qos", job.qos()},
      {"requeue", spec.has_requeue() ? spec.requeue() : false},
      {"required_nodes", CompressHostlist({spec.nodelist().begin(), spec.nodelist().end()})},
      {"restart_cnt", job.restart_count()},
      {"resv_name", spec.reservation()},
      {"scheduled_nodes", job.sched_nodes()},
      {"shared", spec.exclusive() ? Json::array({"none"}) : Json::array()},
      {"start_time", Time(started ? job.start_time() : job.expected_start())},
      {"state_description", job.state_description()},
      {"state_reason", job.state_reason().empty() ? "None" : job.state_reason()},
      {"standard_error", job.stderr_path().empty() ? job.stdout_path() : job.stderr_path()},
      {"standard_input", spec.stdin_path().empty() ? "/dev/null" : spec.stdin_path()},
      {"standard_output", job.stdout_path()},
      {"submit_time", Time(job.submit_time())},
      {"suspend_time", Time(job.suspend_time())},
      {"time_limit", Minutes(job.time_limit())},
      {"tres_per_job", TresPer(spec.gpus())},
      {"tres_per_node", TresPerNode(spec)},
      {"tres_req_str", cli::JobTresText(job)},
      {"tres_alloc_str", started ? cli::JobTresText(job) : ""},
      {"user_id", job.user_id()},
      {"user_name", job.user_name()},
      {"current_working_directory", spec.work_dir()},
  };
  if (started && !pending && job.nodes_size() > 0)
    out["job_resources"] = JobResources(job, context);
  return out;
}

}  // namespace skiff::restd
