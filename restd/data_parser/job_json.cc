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
#include "restd/data_parser/values.h"

namespace skiff::restd {
namespace {

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
  Json allocation = Json::Array();
  for (int i = 0; i < job.nodes_size(); ++i) {
    Json sockets = Json::Array();
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
          Json core_list = Json::Array();
          for (int core : core_set) {
            core_list.Push({{"index", core}, {"status", Json::Array({"ALLOCATED"})}});
          }
          Json entry = Json::Object();
          entry.Add("index", socket);
          entry.Add("cores", std::move(core_list));
          sockets.Push(std::move(entry));
        }
      }
    }
    if (cpus == 0) cpus = job.num_cpus() / std::max(1, job.nodes_size());
    const int64_t memory = static_cast<int64_t>(job.mem_per_node_mb());
    Json node = Json::Object();
    node.Add("index", i);
    node.Add("name", job.nodes(i));
    node.Add("cpus", {{"count", cpus}, {"used", cpus}});
    node.Add("memory", {{"used", memory}, {"allocated", memory}});
    node.Add("sockets", std::move(sockets));
    allocation.Push(std::move(node));
  }
  Json nodes = Json::Object();
  nodes.Add("count", job.nodes_size());
  nodes.Add("select_type", Json::Array({"AVAILABLE"}));
  nodes.Add("list", CompressHostlist({job.nodes().begin(), job.nodes().end()}));
  nodes.Add("whole", job.spec().exclusive());
  nodes.Add("allocation", std::move(allocation));
  Json resources = Json::Object();
  resources.Add("select_type", Json::Array({"CPU", "MEMORY"}));
  resources.Add("nodes", std::move(nodes));
  resources.Add("cpus", job.num_cpus());
  resources.Add("threads_per_core", NoNumber());
  return resources;
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
  Json list = Json::Array();
  for (absl::string_view entry : absl::StrSplit(mail_type, ',', absl::SkipEmpty())) {
    std::string flag = absl::AsciiStrToUpper(entry);
    if (flag == "ALL") {
      for (const char* all : {"BEGIN", "END", "FAIL", "REQUEUE", "STAGE_OUT"}) list.Push(all);
    } else if (flag == "TIME_LIMIT") {
      list.Push("TIME=100%");
    } else if (absl::StartsWith(flag, "TIME_LIMIT_")) {
      list.Push(absl::StrCat("TIME=", flag.substr(11), "%"));
    } else if (kKnown.count(flag)) {
      list.Push(flag);
    }
  }
  return list;
}

Json JobJson(const v1::JobInfo& job, const JobJsonContext& context) {
  const v1::JobSpec& spec = job.spec();
  const bool started = Started(job);
  const bool pending = job.state() == v1::PENDING;
  const bool ended = !Active(job.state()) && job.state() != v1::PENDING;
  // Slurm's times: set, 0 when there is none.
  const auto time = [](int64_t unix_seconds) {
    return Number(unix_seconds > 0 ? unix_seconds : 0);
  };
  const auto number_or_unset = [](int64_t value, bool set) {
    return set ? Number(value) : NoNumber();
  };
  // ~75 keys, each set once: Add, in data_parser's order.
  Json out = Json::Object();
  out.Reserve(80);
  out.Add("account", job.account());
  out.Add("accrue_time", time(job.eligible_time()));
  out.Add("array_job_id", Number(static_cast<int64_t>(job.array_job_id())));
  out.Add("array_task_id", number_or_unset(job.array_task_id(), job.array_task_id() >= 0));
  out.Add("array_max_tasks", Number(job.array_max_running()));
  out.Add("array_task_string", ArrayTaskString(job));
  out.Add("batch_flag", !spec.interactive());
  out.Add("batch_host", started && job.nodes_size() > 0 ? job.nodes(0) : std::string());
  out.Add("flags", Json::Array());
  out.Add("burst_buffer", spec.burst_buffer());
  out.Add("burst_buffer_state", job.burst_buffer_state());
  out.Add("cluster", context.cluster);
  out.Add("command", spec.command());
  out.Add("comment", spec.comment());
  out.Add("contiguous", spec.contiguous());
  out.Add("cpus_per_task", Number(std::max(1, job.cpus_per_task())));
  out.Add("deadline", time(spec.deadline()));
  out.Add("dependency", job.dependency());
  out.Add("derived_exit_code", job.has_derived_exit_code() ? ExitCode(true, job.derived_exit_code(),
                                                                      job.derived_exit_signal())
                                                           : ExitCode(ended, 0, 0));
  out.Add("eligible_time", time(job.eligible_time()));
  out.Add("end_time", Number(EndTime(job)));
  out.Add("excluded_nodes", CompressHostlist({spec.exclude().begin(), spec.exclude().end()}));
  out.Add("exit_code", ExitCode(ended, job.exit_code(), job.exit_signal()));
  out.Add("features", spec.constraint());
  out.Add("gres_detail", Json::Strings(GresDetail(job, context)));
  out.Add("group_id", job.group_id());
  out.Add("group_name", job.group_name());
  out.Add("job_id", job.job_id());
  out.Add("job_state", Json::Array({client::JobStateName(job.state())}));
  out.Add("last_sched_evaluation", time(job.now()));
  out.Add("mail_type", spec.mail_type().empty() ? Json::Array() : MailTypeList(spec.mail_type()));
  out.Add("mail_user", spec.mail_user().empty() ? job.user_name() : spec.mail_user());
  out.Add("max_nodes", Number(spec.max_nodes()));
  out.Add("name", spec.name());
  out.Add("nodes", CompressHostlist({job.nodes().begin(), job.nodes().end()}));
  out.Add("nice", job.nice());
  out.Add("tasks_per_node", number_or_unset(spec.ntasks_per_node(), spec.ntasks_per_node() > 0));
  out.Add("cpus", Number(job.num_cpus()));
  out.Add("node_count", Number(std::max(1, job.num_nodes())));
  out.Add("tasks", Number(std::max(1, job.num_tasks())));
  out.Add("partition", job.partition());
  out.Add("memory_per_cpu", number_or_unset(spec.mem_per_cpu_mb(), spec.mem_per_cpu_mb() > 0));
  const uint64_t memory_per_node =
      job.mem_per_node_mb() > 0 ? job.mem_per_node_mb() : spec.mem_per_node_mb();
  out.Add("memory_per_node", number_or_unset(memory_per_node, memory_per_node > 0));
  out.Add("minimum_cpus_per_node",
          number_or_unset(spec.min_cpus_per_node(), spec.min_cpus_per_node() > 0));
  out.Add("hold", job.held());
  out.Add("priority", Number(job.priority()));
  out.Add("qos", job.qos());
  out.Add("requeue", spec.has_requeue() ? spec.requeue() : false);
  out.Add("required_nodes", CompressHostlist({spec.nodelist().begin(), spec.nodelist().end()}));
  out.Add("restart_cnt", job.restart_count());
  out.Add("resv_name", spec.reservation());
  out.Add("scheduled_nodes", job.sched_nodes());
  // Slurm's JOB_SHARED_* flags: none (--exclusive), user, mcs, oversubscribe (-s).
  Json shared = Json::Array();
  if (spec.exclusive()) {
    shared.Push(spec.exclusive_kind().empty() ? std::string("none") : spec.exclusive_kind());
  } else if (spec.oversubscribe()) {
    shared.Push("oversubscribe");
  }
  out.Add("shared", std::move(shared));
  out.Add("start_time", time(started ? job.start_time() : job.expected_start()));
  out.Add("state_description", job.state_description());
  out.Add("state_reason", job.state_reason().empty() ? std::string("None") : job.state_reason());
  out.Add("standard_error", job.stderr_path().empty() ? job.stdout_path() : job.stderr_path());
  out.Add("standard_input",
          spec.stdin_path().empty() ? std::string("/dev/null") : spec.stdin_path());
  out.Add("standard_output", job.stdout_path());
  out.Add("submit_time", time(job.submit_time()));
  out.Add("suspend_time", time(job.suspend_time()));
  if (job.time_limit() < 0) {
    out.Add("time_limit", Infinite());
  } else if (job.time_limit() == 0) {
    out.Add("time_limit", NoNumber());
  } else {
    out.Add("time_limit", Number((job.time_limit() + 59) / 60));
  }
  out.Add("tres_per_job", TresPer(spec.gpus()));
  out.Add("tres_per_node", TresPerNode(spec));
  const std::string tres = client::JobTresText(job);
  out.Add("tres_req_str", tres);
  out.Add("tres_alloc_str", started ? tres : std::string());
  out.Add("user_id", job.user_id());
  out.Add("user_name", job.user_name());
  out.Add("current_working_directory", spec.work_dir());
  if (started && !pending && job.nodes_size() > 0) {
    out.Add("job_resources", JobResources(job, context));
  }
  return out;
}

}  // namespace skiff::restd
