#include "client/jobs_json.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/job_text.h"
#include "common/hostlist.h"

namespace skiff::client {
namespace {

// Slurm prints a NULL string as null.
Json StringOrNull(const std::string& text) { return text.empty() ? Json() : Json(text); }

Json Nodes(const google::protobuf::RepeatedPtrField<std::string>& nodes) {
  return StringOrNull(CompressHostlist({nodes.begin(), nodes.end()}));
}

std::string Partition(const v1::JobInfo& job) {
  return job.partition().empty() ? job.spec().partition() : job.partition();
}

// "gres:gpu:2" for every --gres entry, as Slurm's tres_per_node.
std::string TresPerNode(const v1::JobSpec& spec) {
  std::vector<std::string> parts;
  for (const std::string& g : spec.gres()) parts.push_back("gres:" + g);
  if (!spec.gpus_per_node().empty()) parts.push_back("gres:gpu:" + spec.gpus_per_node());
  return absl::StrJoin(parts, ",");
}

// TRES as Slurm writes them: "cpu=2,mem=4000M,node=1,billing=2".
std::string Tres(const v1::JobInfo& job) {
  const int64_t nodes = std::max(1, job.num_nodes());
  const int64_t cpus = std::max(1, job.num_cpus());
  std::string text = absl::StrCat("cpu=", cpus);
  if (job.mem_per_node_mb() > 0) {
    absl::StrAppend(&text, ",mem=", FormatMemoryMb(job.mem_per_node_mb() * nodes));
  }
  absl::StrAppend(&text, ",node=", nodes, ",billing=", cpus);
  return text;
}

bool Started(const v1::JobInfo& job) { return job.start_time() != 0 && !job.nodes().empty(); }

}  // namespace

Json SqueueJobJson(const v1::JobInfo& job, const std::string& cluster) {
  const v1::JobSpec& spec = job.spec();
  const bool array = IsArrayTask(job);
  Json j = Json::Object();
  j.Add("account", StringOrNull(job.account().empty() ? spec.account() : job.account()));
  j.Add("accrue_time", job.eligible_time());
  j.Add("admin_comment", Json());
  j.Add("array_job_id", array ? job.array_job_id() : 0ul);
  j.Add("array_task_id", array ? Json(job.array_task_id()) : Json());
  j.Add("array_max_tasks", job.array_max_running());
  j.Add("array_task_string", Json());
  j.Add("association_id", 0);
  j.Add("batch_features", Json());
  j.Add("batch_flag", true);
  j.Add("batch_host", Started(job) ? Json(job.nodes(0)) : Json());
  Json flags = Json::Array();
  if (spec.kill_on_invalid_dep()) flags.Push("KILL_INV_DEP");
  j.Add("flags", std::move(flags));
  j.Add("burst_buffer", StringOrNull(spec.burst_buffer()));
  j.Add("burst_buffer_state", StringOrNull(job.burst_buffer_state()));
  j.Add("cluster", StringOrNull(cluster));
  j.Add("cluster_features", Json());
  j.Add("command", StringOrNull(spec.command() == "(wrap)" ? "" : spec.command()));
  j.Add("comment", StringOrNull(spec.comment()));
  j.Add("container", StringOrNull(spec.container().bundle()));
  j.Add("contiguous", spec.contiguous());
  j.Add("core_spec", Json());
  j.Add("thread_spec", Json());
  j.Add("cores_per_socket", Json());
  j.Add("billable_tres", Started(job) ? Json(static_cast<double>(job.num_cpus())) : Json());
  // Slurm 22.05 prints cpus_per_task only when a CPU frequency was asked for
  // (a bug of its dump_job_info); Skiff's jobs never ask.
  j.Add("cpus_per_task", Json());
  j.Add("cpu_frequency_minimum", Json());
  j.Add("cpu_frequency_maximum", Json());
  j.Add("cpu_frequency_governor", Json());
  j.Add("cpus_per_tres", Json());
  j.Add("deadline", 0);
  j.Add("delay_boot", 0);
  j.Add("dependency", StringOrNull(job.dependency()));
  j.Add("derived_exit_code", 0);
  j.Add("eligible_time", job.eligible_time());
  j.Add("end_time", job.end_time() != 0 ? job.end_time()
                    : job.start_time() != 0 && job.time_limit() >= 0
                        ? job.start_time() + job.time_limit()
                        : int64_t{0});
  j.Add("excluded_nodes",
        StringOrNull(CompressHostlist({spec.exclude().begin(), spec.exclude().end()})));
  j.Add("exit_code", job.exit_signal() != 0 ? job.exit_signal() : job.exit_code() << 8);
  j.Add("features", StringOrNull(spec.constraint()));
  j.Add("federation_origin", Json());
  j.Add("federation_siblings_active", Json());
  j.Add("federation_siblings_viable", Json());
  Json gres_detail = Json::Array();
  if (Started(job) && !job.gpu_indices().empty()) {
    std::vector<std::string> ids;
    for (int32_t g : job.gpu_indices()) ids.push_back(absl::StrCat(g));
    gres_detail.Push(
        absl::StrCat("gpu:", job.gpu_indices_size(), "(IDX:", absl::StrJoin(ids, ","), ")"));
  }
  j.Add("gres_detail", std::move(gres_detail));
  j.Add("group_id", job.group_id());
  j.Add("group_name", job.group_name().empty() ? GroupNameOf(job.group_id()) : job.group_name());
  j.Add("job_id", job.job_id());
  if (Started(job)) {
    Json resources = Json::Object();
    resources.Add("nodes", Nodes(job.nodes()));
    resources.Add("allocated_cpus", job.num_cpus());
    resources.Add("allocated_hosts", job.nodes_size());
    Json allocated = Json::Array();
    const int nodes = std::max(1, job.nodes_size());
    for (const std::string& node : job.nodes()) {
      Json n = Json::Object();
      n.Add("sockets", Json::Object());  // Skiff does not track cores
      n.Add("nodename", node);
      n.Add("cpus_used", 0);
      n.Add("memory_used", 0);
      n.Add("memory_allocated", job.mem_per_node_mb());
      (void)nodes;
      allocated.Push(std::move(n));
    }
    resources.Add("allocated_nodes", std::move(allocated));
    j.Add("job_resources", std::move(resources));
  }
  j.Add("job_state", JobStateName(job.state()));
  j.Add("last_sched_evaluation", job.now());
  j.Add("licenses", spec.licenses().empty() ? Json() : Json(spec.licenses()));
  j.Add("max_cpus", 0);
  j.Add("max_nodes", spec.max_nodes());
  j.Add("mcs_label", Json());
  j.Add("memory_per_tres", Json());
  j.Add("name", std::string(spec.name()));
  j.Add("nodes", Nodes(job.nodes()));
  j.Add("nice", job.nice());
  j.Add("tasks_per_core", Json());
  j.Add("tasks_per_node", 0);
  j.Add("tasks_per_socket", Json());
  j.Add("tasks_per_board", 0);
  j.Add("cpus", std::max(1, job.num_cpus()));
  j.Add("node_count", std::max(1, job.num_nodes()));
  j.Add("tasks", std::max(1, job.num_tasks()));
  j.Add("het_job_id", 0);
  j.Add("het_job_id_set", Json());
  j.Add("het_job_offset", 0);
  j.Add("partition", Partition(job));
  j.Add("prefer", Json());
  if (spec.mem_per_cpu_mb() > 0) {
    j.Add("memory_per_node", Json());
    j.Add("memory_per_cpu", spec.mem_per_cpu_mb());
  } else if (job.mem_per_node_mb() > 0) {
    j.Add("memory_per_node", job.mem_per_node_mb());
    j.Add("memory_per_cpu", Json());
  } else {
    j.Add("memory_per_node", Json());
    j.Add("memory_per_cpu", Json());
  }
  j.Add("minimum_cpus_per_node", std::max(1, job.cpus_per_task()));
  j.Add("minimum_tmp_disk_per_node", spec.min_tmp_disk_mb());
  j.Add("preempt_time", 0);
  j.Add("pre_sus_time", 0);
  j.Add("priority", job.priority());
  j.Add("profile", Json());
  j.Add("qos", StringOrNull(job.qos().empty() ? spec.qos() : job.qos()));
  j.Add("reboot", false);
  j.Add("required_nodes",
        StringOrNull(CompressHostlist({spec.nodelist().begin(), spec.nodelist().end()})));
  j.Add("requeue", spec.has_requeue() ? spec.requeue() : true);
  j.Add("resize_time", 0);
  j.Add("restart_cnt", job.restart_count());
  j.Add("resv_name", Json());
  j.Add("shared", Json());
  j.Add("show_flags", Json::Strings({"SHOW_ALL", "SHOW_DETAIL", "SHOW_LOCAL"}));
  j.Add("sockets_per_board", 0);
  j.Add("sockets_per_node", Json());
  j.Add("start_time", job.state() == v1::PENDING ? job.expected_start() : job.start_time());
  j.Add("state_description", StringOrNull(job.state_description()));
  j.Add("state_reason", job.state_reason().empty() ? "None" : job.state_reason());
  j.Add("standard_error", StringOrNull(job.stderr_path()));
  j.Add("standard_input", spec.stdin_path().empty() ? "/dev/null" : std::string(spec.stdin_path()));
  j.Add("standard_output", StringOrNull(job.stdout_path()));
  j.Add("submit_time", job.submit_time());
  j.Add("suspend_time", 0);
  j.Add("system_comment", Json());
  j.Add("time_limit", job.time_limit() < 0 ? Json() : Json(job.time_limit() / 60));
  j.Add("time_minimum", spec.time_min() / 60);  // minutes, as Slurm's
  j.Add("threads_per_core", Json());
  j.Add("tres_bind", Json());
  j.Add("tres_freq", Json());
  j.Add("tres_per_job", StringOrNull(spec.gpus().empty() ? "" : "gres:gpu:" + spec.gpus()));
  j.Add("tres_per_node", StringOrNull(TresPerNode(spec)));
  j.Add("tres_per_socket", Json());
  j.Add("tres_per_task", Json());
  j.Add("tres_req_str", Tres(job));
  j.Add("tres_alloc_str", Started(job) ? Json(Tres(job)) : Json());
  j.Add("user_id", job.user_id());
  j.Add("user_name", job.user_name().empty() ? UserNameOf(job.user_id()) : job.user_name());
  j.Add("wckey", Json());
  j.Add("current_working_directory", StringOrNull(spec.work_dir()));
  return j;
}

Json SqueueJson(const std::vector<const v1::JobInfo*>& jobs, const std::string& cluster) {
  Json out = SlurmJsonEnvelope();
  Json list = Json::Array();
  for (const v1::JobInfo* job : jobs) list.Push(SqueueJobJson(*job, cluster));
  out.Set("jobs", std::move(list));
  return out;
}

void WriteSqueueJson(const std::vector<const v1::JobInfo*>& jobs, const std::string& cluster,
                     const std::function<void(std::string_view)>& write) {
  Json document = SlurmJsonEnvelope();
  document.Set("jobs", Json::Array());
  Json::DumpWithElements(
      document, jobs.size(), [&](size_t i) { return SqueueJobJson(*jobs[i], cluster); }, write);
}

}  // namespace skiff::client
