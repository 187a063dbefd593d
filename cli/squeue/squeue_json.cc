#include "cli/squeue/squeue_json.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/common/job_text.h"
#include "common/hostlist.h"

namespace skiff {
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
  j.Set("account", StringOrNull(job.account().empty() ? spec.account() : job.account()));
  j.Set("accrue_time", job.eligible_time());
  j.Set("admin_comment", Json());
  j.Set("array_job_id", array ? job.array_job_id() : 0ul);
  j.Set("array_task_id", array ? Json(job.array_task_id()) : Json());
  j.Set("array_max_tasks", job.array_max_running());
  j.Set("array_task_string", Json());
  j.Set("association_id", 0);
  j.Set("batch_features", Json());
  j.Set("batch_flag", true);
  j.Set("batch_host", Started(job) ? Json(job.nodes(0)) : Json());
  Json flags = Json::Array();
  if (spec.kill_on_invalid_dep()) flags.Push("KILL_INV_DEP");
  j.Set("flags", std::move(flags));
  j.Set("burst_buffer", StringOrNull(spec.burst_buffer()));
  j.Set("burst_buffer_state", StringOrNull(job.burst_buffer_state()));
  j.Set("cluster", StringOrNull(cluster));
  j.Set("cluster_features", Json());
  j.Set("command", StringOrNull(spec.command() == "(wrap)" ? "" : spec.command()));
  j.Set("comment", StringOrNull(spec.comment()));
  j.Set("container", Json());
  j.Set("contiguous", false);
  j.Set("core_spec", Json());
  j.Set("thread_spec", Json());
  j.Set("cores_per_socket", Json());
  j.Set("billable_tres", Started(job) ? Json(static_cast<double>(job.num_cpus())) : Json());
  // Slurm 22.05 prints cpus_per_task only when a CPU frequency was asked for
  // (a bug of its dump_job_info); Skiff's jobs never ask.
  j.Set("cpus_per_task", Json());
  j.Set("cpu_frequency_minimum", Json());
  j.Set("cpu_frequency_maximum", Json());
  j.Set("cpu_frequency_governor", Json());
  j.Set("cpus_per_tres", Json());
  j.Set("deadline", 0);
  j.Set("delay_boot", 0);
  j.Set("dependency", StringOrNull(job.dependency()));
  j.Set("derived_exit_code", 0);
  j.Set("eligible_time", job.eligible_time());
  j.Set("end_time", job.end_time() != 0 ? job.end_time()
                    : job.start_time() != 0 && job.time_limit() >= 0
                        ? job.start_time() + job.time_limit()
                        : int64_t{0});
  j.Set("excluded_nodes",
        StringOrNull(CompressHostlist({spec.exclude().begin(), spec.exclude().end()})));
  j.Set("exit_code", job.exit_signal() != 0 ? job.exit_signal() : job.exit_code() << 8);
  j.Set("features", StringOrNull(spec.constraint()));
  j.Set("federation_origin", Json());
  j.Set("federation_siblings_active", Json());
  j.Set("federation_siblings_viable", Json());
  Json gres_detail = Json::Array();
  if (Started(job) && !job.gpu_indices().empty()) {
    std::vector<std::string> ids;
    for (int32_t g : job.gpu_indices()) ids.push_back(absl::StrCat(g));
    gres_detail.Push(
        absl::StrCat("gpu:", job.gpu_indices_size(), "(IDX:", absl::StrJoin(ids, ","), ")"));
  }
  j.Set("gres_detail", std::move(gres_detail));
  j.Set("group_id", job.group_id());
  j.Set("group_name", job.group_name().empty() ? GroupNameOf(job.group_id()) : job.group_name());
  j.Set("job_id", job.job_id());
  if (Started(job)) {
    Json resources = Json::Object();
    resources.Set("nodes", Nodes(job.nodes()));
    resources.Set("allocated_cpus", job.num_cpus());
    resources.Set("allocated_hosts", job.nodes_size());
    Json allocated = Json::Array();
    const int nodes = std::max(1, job.nodes_size());
    for (const std::string& node : job.nodes()) {
      Json n = Json::Object();
      n.Set("sockets", Json::Object());  // Skiff does not track cores
      n.Set("nodename", node);
      n.Set("cpus_used", 0);
      n.Set("memory_used", 0);
      n.Set("memory_allocated", job.mem_per_node_mb());
      (void)nodes;
      allocated.Push(std::move(n));
    }
    resources.Set("allocated_nodes", std::move(allocated));
    j.Set("job_resources", std::move(resources));
  }
  j.Set("job_state", JobStateName(job.state()));
  j.Set("last_sched_evaluation", job.now());
  j.Set("licenses", Json());
  j.Set("max_cpus", 0);
  j.Set("max_nodes", spec.max_nodes());
  j.Set("mcs_label", Json());
  j.Set("memory_per_tres", Json());
  j.Set("name", std::string(spec.name()));
  j.Set("nodes", Nodes(job.nodes()));
  j.Set("nice", job.nice());
  j.Set("tasks_per_core", Json());
  j.Set("tasks_per_node", 0);
  j.Set("tasks_per_socket", Json());
  j.Set("tasks_per_board", 0);
  j.Set("cpus", std::max(1, job.num_cpus()));
  j.Set("node_count", std::max(1, job.num_nodes()));
  j.Set("tasks", std::max(1, job.num_tasks()));
  j.Set("het_job_id", 0);
  j.Set("het_job_id_set", Json());
  j.Set("het_job_offset", 0);
  j.Set("partition", Partition(job));
  j.Set("prefer", Json());
  if (spec.mem_per_cpu_mb() > 0) {
    j.Set("memory_per_node", Json());
    j.Set("memory_per_cpu", spec.mem_per_cpu_mb());
  } else if (job.mem_per_node_mb() > 0) {
    j.Set("memory_per_node", job.mem_per_node_mb());
    j.Set("memory_per_cpu", Json());
  } else {
    j.Set("memory_per_node", Json());
    j.Set("memory_per_cpu", Json());
  }
  j.Set("minimum_cpus_per_node", std::max(1, job.cpus_per_task()));
  j.Set("minimum_tmp_disk_per_node", 0);
  j.Set("preempt_time", 0);
  j.Set("pre_sus_time", 0);
  j.Set("priority", job.priority());
  j.Set("profile", Json());
  j.Set("qos", StringOrNull(job.qos().empty() ? spec.qos() : job.qos()));
  j.Set("reboot", false);
  j.Set("required_nodes",
        StringOrNull(CompressHostlist({spec.nodelist().begin(), spec.nodelist().end()})));
  j.Set("requeue", spec.has_requeue() ? spec.requeue() : true);
  j.Set("resize_time", 0);
  j.Set("restart_cnt", job.restart_count());
  j.Set("resv_name", Json());
  j.Set("shared", Json());
  j.Set("show_flags", Json::Strings({"SHOW_ALL", "SHOW_DETAIL", "SHOW_LOCAL"}));
  j.Set("sockets_per_board", 0);
  j.Set("sockets_per_node", Json());
  j.Set("start_time", job.state() == v1::PENDING ? job.expected_start() : job.start_time());
  j.Set("state_description", StringOrNull(job.state_description()));
  j.Set("state_reason", job.state_reason().empty() ? "None" : job.state_reason());
  j.Set("standard_error", StringOrNull(job.stderr_path()));
  j.Set("standard_input", spec.stdin_path().empty() ? "/dev/null" : std::string(spec.stdin_path()));
  j.Set("standard_output", StringOrNull(job.stdout_path()));
  j.Set("submit_time", job.submit_time());
  j.Set("suspend_time", 0);
  j.Set("system_comment", Json());
  j.Set("time_limit", job.time_limit() < 0 ? Json() : Json(job.time_limit() / 60));
  j.Set("time_minimum", 0);
  j.Set("threads_per_core", Json());
  j.Set("tres_bind", Json());
  j.Set("tres_freq", Json());
  j.Set("tres_per_job", StringOrNull(spec.gpus().empty() ? "" : "gres:gpu:" + spec.gpus()));
  j.Set("tres_per_node", StringOrNull(TresPerNode(spec)));
  j.Set("tres_per_socket", Json());
  j.Set("tres_per_task", Json());
  j.Set("tres_req_str", Tres(job));
  j.Set("tres_alloc_str", Started(job) ? Json(Tres(job)) : Json());
  j.Set("user_id", job.user_id());
  j.Set("user_name", job.user_name().empty() ? UserNameOf(job.user_id()) : job.user_name());
  j.Set("wckey", Json());
  j.Set("current_working_directory", StringOrNull(spec.work_dir()));
  return j;
}

Json SqueueJson(const std::vector<const v1::JobInfo*>& jobs, const std::string& cluster) {
  Json out = SlurmJsonEnvelope();
  Json list = Json::Array();
  for (const v1::JobInfo* job : jobs) list.Push(SqueueJobJson(*job, cluster));
  out.Set("jobs", std::move(list));
  return out;
}

}  // namespace skiff
