#include "ctld/rpc/job_convert.h"

#include <algorithm>
#include <iterator>
#include <string>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "ctld/core/dependency.h"
#include "ctld/launch_builder.h"
#include "ctld/rpc/container_convert.h"
#include "ctld/state/job_spec_parts.h"

namespace skiff::ctld {
SubmitRequest SubmitRequestFromSpec(const v1::JobSpec& spec, const Submitter& submitter) {
  SubmitRequest r;
  r.uid = submitter.uid;
  r.gid = submitter.gid;
  r.user_name = submitter.user_name;
  r.group_name = submitter.group_name;
  r.privileged = submitter.privileged;
  r.script = spec.script();
  r.work_dir = spec.work_dir();
  r.name = spec.name();
  r.partition = spec.partition();
  r.account = spec.account();
  r.qos = spec.qos();
  r.reservation = spec.reservation();
  r.comment = spec.comment();
  r.mail_type = spec.mail_type();
  r.mail_user = spec.mail_user();
  r.interactive = spec.interactive();
  r.nice = spec.nice();
  r.ntasks_per_node = spec.ntasks_per_node();
  r.priority = spec.priority();
  r.warn_signal = spec.warn_signal();
  r.warn_time = spec.warn_time();
  r.warn_batch_only = spec.warn_batch_only();
  r.min_nodes = spec.min_nodes();
  r.max_nodes = spec.max_nodes();
  r.ntasks = spec.ntasks();
  r.min_cpus_per_node = spec.min_cpus_per_node();
  r.overcommit = spec.overcommit();
  r.use_min_nodes = spec.use_min_nodes();
  r.spread_job = spec.spread_job();
  r.contiguous = spec.contiguous();
  r.min_tmp_disk_mb = spec.min_tmp_disk_mb();
  r.licenses = spec.licenses();
  r.prefer = spec.prefer();
  r.time_min = spec.time_min();
  r.min_topology = {spec.sockets_per_node(), spec.cores_per_socket(), spec.threads_per_core()};
  r.oversubscribe = spec.oversubscribe();
  r.no_kill = spec.no_kill();
  r.cpus_per_task = spec.cpus_per_task();
  r.mem_per_node_mb = spec.mem_per_node_mb();
  r.mem_per_cpu_mb = spec.mem_per_cpu_mb();
  r.mem_per_gpu_mb = spec.mem_per_gpu_mb();
  if (spec.has_time_limit()) r.time_limit = spec.time_limit();
  r.gres.assign(spec.gres().begin(), spec.gres().end());
  r.gpus = spec.gpus();
  r.gpus_per_node = spec.gpus_per_node();
  r.gpus_per_task = spec.gpus_per_task();
  r.cpus_per_gpu = spec.cpus_per_gpu();
  r.hold = spec.hold();
  r.begin_time = spec.begin_time();
  r.deadline = spec.deadline();
  if (spec.has_requeue()) r.requeue = spec.requeue();
  r.dependency = spec.dependency();
  r.kill_on_invalid_dep = spec.kill_on_invalid_dep();
  r.burst_buffer = spec.burst_buffer();
  r.array = spec.array();
  r.exclusive = spec.exclusive();
  r.nodelist.assign(spec.nodelist().begin(), spec.nodelist().end());
  r.exclude.assign(spec.exclude().begin(), spec.exclude().end());
  r.constraint = spec.constraint();
  r.container = ContainerFromProto(spec.container());
  SpecParts parts = SplitSpec(spec);
  r.spec_blob = std::move(parts.light);
  r.payload_blob = std::move(parts.payload);
  return r;
}

absl::StatusOr<Job> JobFromSpec(const v1::JobSpec& spec, const Submitter& submitter,
                                const SkiffConfig& config, const std::vector<NodeCapacity>& nodes,
                                const std::vector<std::string>& qos_names) {
  return JobFromRequest(SubmitRequestFromSpec(spec, submitter), config, nodes, qos_names);
}

v1::JobState ToProtoState(JobState state) {
  switch (state) {
    case JobState::kPending:
      return v1::PENDING;
    case JobState::kConfiguring:
      return v1::CONFIGURING;
    case JobState::kRunning:
      return v1::RUNNING;
    case JobState::kCompleting:
      return v1::COMPLETING;
    case JobState::kCompleted:
      return v1::COMPLETED;
    case JobState::kFailed:
      return v1::FAILED;
    case JobState::kCancelled:
      return v1::CANCELLED;
    case JobState::kTimeout:
      return v1::TIMEOUT;
    case JobState::kNodeFail:
      return v1::NODE_FAIL;
    case JobState::kOutOfMemory:
      return v1::OUT_OF_MEMORY;
    case JobState::kPreempted:
      return v1::PREEMPTED;
    case JobState::kSuspended:
      return v1::SUSPENDED;
    case JobState::kDeadline:
      return v1::DEADLINE;
  }
  return v1::JOB_STATE_UNSPECIFIED;
}

namespace {

// The reason's detail, or the scheduler's words for a job waiting on
// Resources or ReqNodeNotAvail, as Slurm's.
const std::string& StateDescription(const Job& job) {
  // GpuIdlePolicy's warning, while the run it warns lasts.
  if (job.state == JobState::kRunning && !job.gpu_idle_warning.empty()) {
    return job.gpu_idle_warning;
  }
  if (job.reason_detail.empty() && job.state == JobState::kPending &&
      (job.reason == "Resources" || job.reason == "ReqNodeNotAvail")) {
    return job.sched_description;
  }
  return job.reason_detail;
}

}  // namespace

std::string PendingReasonText(const Job& job) {
  const std::string& description = StateDescription(job);
  if (!description.empty()) return description;
  return job.reason.empty() ? "None" : job.reason;
}

v1::JobState DisplayState(const Job& job) {
  if (job.state == JobState::kCompleting && job.UsesBurstBuffer() &&
      (job.bb_state == BbState::kPostRun || job.bb_state == BbState::kStagingOut)) {
    return v1::STAGE_OUT;
  }
  return ToProtoState(job.state);
}

absl::StatusOr<JobState> FromProtoState(v1::JobState state) {
  switch (state) {
    case v1::STAGE_OUT:
      return JobState::kCompleting;
    case v1::SUSPENDED:
      return JobState::kSuspended;
    case v1::PENDING:
      return JobState::kPending;
    case v1::CONFIGURING:
      return JobState::kConfiguring;
    case v1::RUNNING:
      return JobState::kRunning;
    case v1::COMPLETING:
      return JobState::kCompleting;
    case v1::COMPLETED:
      return JobState::kCompleted;
    case v1::FAILED:
      return JobState::kFailed;
    case v1::CANCELLED:
      return JobState::kCancelled;
    case v1::TIMEOUT:
      return JobState::kTimeout;
    case v1::NODE_FAIL:
      return JobState::kNodeFail;
    case v1::OUT_OF_MEMORY:
      return JobState::kOutOfMemory;
    case v1::PREEMPTED:
      return JobState::kPreempted;
    case v1::DEADLINE:
      return JobState::kDeadline;
    default:
      return absl::InvalidArgumentError(absl::StrCat("Invalid job state ", state));
  }
}

namespace {

// What Slurm shows every user of another user's job (its job info RPC, which
// scontrol show job and squeue print; PrivateData=jobs hides whole jobs
// instead), copied field by field: a field added to JobSpec is not copied, and
// so private, until someone decides otherwise (job_convert_test lists the
// private ones from the schema). Slurm also shows the command's arguments;
// Skiff keeps them with the script, for the owner.
v1::JobSpec PublicSpecOf(const v1::JobSpec& spec) {
  v1::JobSpec out;
  out.set_name(spec.name());
  out.set_partition(spec.partition());
  out.set_account(spec.account());
  out.set_qos(spec.qos());
  out.set_comment(spec.comment());
  out.set_command(spec.command());
  out.set_work_dir(spec.work_dir());
  out.set_submit_host(spec.submit_host());
  out.set_stdout_pattern(spec.stdout_pattern());
  out.set_stderr_pattern(spec.stderr_pattern());
  out.set_stdin_path(spec.stdin_path());
  out.set_mail_type(spec.mail_type());
  out.set_mail_user(spec.mail_user());
  out.set_min_nodes(spec.min_nodes());
  out.set_max_nodes(spec.max_nodes());
  out.set_ntasks(spec.ntasks());
  out.set_ntasks_per_node(spec.ntasks_per_node());
  out.set_cpus_per_task(spec.cpus_per_task());
  out.set_mem_per_node_mb(spec.mem_per_node_mb());
  out.set_mem_per_cpu_mb(spec.mem_per_cpu_mb());
  out.set_mem_per_gpu_mb(spec.mem_per_gpu_mb());
  *out.mutable_gres() = spec.gres();
  out.set_gpus(spec.gpus());
  out.set_gpus_per_node(spec.gpus_per_node());
  out.set_gpus_per_task(spec.gpus_per_task());
  out.set_cpus_per_gpu(spec.cpus_per_gpu());
  out.set_exclusive(spec.exclusive());
  *out.mutable_nodelist() = spec.nodelist();
  *out.mutable_exclude() = spec.exclude();
  out.set_constraint(spec.constraint());
  if (spec.has_time_limit()) out.set_time_limit(spec.time_limit());
  out.set_begin_time(spec.begin_time());
  out.set_deadline(spec.deadline());
  out.set_hold(spec.hold());
  if (spec.has_requeue()) out.set_requeue(spec.requeue());
  out.set_dependency(spec.dependency());
  out.set_kill_on_invalid_dep(spec.kill_on_invalid_dep());
  out.set_array(spec.array());
  out.set_burst_buffer(spec.burst_buffer());
  out.set_nice(spec.nice());
  out.set_priority(spec.priority());
  out.set_interactive(spec.interactive());
  out.set_warn_signal(spec.warn_signal());
  out.set_warn_time(spec.warn_time());
  out.set_warn_batch_only(spec.warn_batch_only());
  out.set_min_cpus_per_node(spec.min_cpus_per_node());
  out.set_overcommit(spec.overcommit());
  out.set_use_min_nodes(spec.use_min_nodes());
  out.set_spread_job(spec.spread_job());
  out.set_contiguous(spec.contiguous());
  // Slurm shows everyone MinTmpDiskNode= and OverSubscribe=; -k is the
  // job's shape too.
  out.set_min_tmp_disk_mb(spec.min_tmp_disk_mb());
  out.set_licenses(spec.licenses());
  out.set_prefer(spec.prefer());
  out.set_time_min(spec.time_min());
  out.set_sockets_per_node(spec.sockets_per_node());
  out.set_cores_per_socket(spec.cores_per_socket());
  out.set_threads_per_core(spec.threads_per_core());
  out.set_oversubscribe(spec.oversubscribe());
  out.set_exclusive_kind(spec.exclusive_kind());
  out.set_no_kill(spec.no_kill());
  out.set_reservation(spec.reservation());
  // Slurm shows every reader a job's Container= (the bundle's path, as it
  // shows WorkDir=); pyxis's image and mounts go with it.
  if (spec.has_container()) *out.mutable_container() = spec.container();
  return out;
}

}  // namespace

void WithholdPrivateSpecFields(v1::JobSpec* spec) { *spec = PublicSpecOf(*spec); }

void JobToInfo(const Job& job, int64_t now, v1::JobInfo* out, JobInfoReader reader,
               JobInfoDetail detail) {
  const bool whole = detail == JobInfoDetail::kWhole;
  out->set_job_id(job.id);
  if (whole) out->mutable_spec()->ParseFromString(job.spec_blob);
  // What scontrol update may have changed since submission.
  out->mutable_spec()->set_name(job.name);
  out->mutable_spec()->set_partition(job.request.partition);
  out->mutable_spec()->set_account(job.account);
  out->mutable_spec()->set_qos(job.qos);
  out->mutable_spec()->set_reservation(job.reservation);
  out->mutable_spec()->set_comment(job.comment);
  // ... and the request fields scontrol update may change.
  out->mutable_spec()->set_begin_time(job.request.begin_time);
  out->mutable_spec()->set_deadline(job.request.deadline);
  out->mutable_spec()->set_constraint(absl::StrJoin(job.request.features, "&"));
  out->mutable_spec()->set_prefer(absl::StrJoin(job.request.prefer, "&"));
  out->mutable_spec()->set_time_min(job.request.time_min);
  out->mutable_spec()->clear_nodelist();
  for (const std::string& name : job.request.nodelist) out->mutable_spec()->add_nodelist(name);
  out->mutable_spec()->clear_exclude();
  for (const std::string& name : job.request.exclude) out->mutable_spec()->add_exclude(name);
  // How it shares its nodes, as it runs: a job of an OverSubscribe=EXCLUSIVE
  // partition holds them whole (OverSubscribe=NO, as Slurm shows it), and
  // one that holds them whole shares no CPU.
  out->mutable_spec()->set_exclusive(job.request.exclusive);
  out->mutable_spec()->set_oversubscribe(job.request.oversubscribe);
  out->mutable_spec()->set_min_tmp_disk_mb(job.request.min_tmp_disk_mb);
  out->mutable_spec()->set_licenses(job.request.licenses_text);
  out->mutable_spec()->set_sockets_per_node(job.request.min_topology.sockets);
  out->mutable_spec()->set_cores_per_socket(job.request.min_topology.cores_per_socket);
  out->mutable_spec()->set_threads_per_core(job.request.min_topology.threads_per_core);
  // The job's own copy, so that a summary (squeue -O container) has it too.
  if (job.request.container.IsEmpty()) {
    out->mutable_spec()->clear_container();
  } else {
    ContainerToProto(job.request.container, out->mutable_spec()->mutable_container());
  }
  out->set_nice(job.nice);
  out->set_suspend_time(job.suspend_time);
  out->set_suspended_seconds(
      job.suspended_total +
      (job.state == JobState::kSuspended ? std::max<int64_t>(0, now - job.suspend_time) : 0));
  out->set_user_id(job.uid);
  out->set_group_id(job.gid);
  out->set_user_name(job.user_name);
  out->set_group_name(job.group_name);
  out->set_state(DisplayState(job));
  out->set_state_reason(job.reason);
  out->set_state_description(StateDescription(job));
  out->set_submit_time(job.submit_time);
  out->set_eligible_time(job.eligible_time);
  // A job that ended while pending (scancel, a dependency never met): Slurm
  // sets its start time to its end (job_mgr.c _job_signal), so scontrol shows
  // StartTime=EndTime and squeue a start. Its accounting keeps Start=None.
  const bool ended_pending = IsFinal(job.state) && job.start_time == 0 && job.nodes.empty();
  out->set_start_time(ended_pending ? job.end_time : job.start_time);
  out->set_end_time(job.end_time);
  out->set_time_limit(job.request.time_limit);
  out->set_partition(job.request.partition);
  out->set_account(job.account);
  out->set_qos(job.qos);
  for (const std::string& node : job.nodes) out->add_nodes(node);
  out->set_num_nodes(job.nodes.empty() ? job.request.num_nodes
                                       : static_cast<int>(job.nodes.size()));
  out->set_num_cpus(job.nodes.empty() ? job.request.ntasks * job.request.cpus_per_task
                                      : static_cast<int>(job.AllocCpus()));
  out->set_num_tasks(job.request.ntasks);
  // Without -n Slurm counts a job's tasks from its nodes once it has some, from
  // its -N while pending, and has none (N/A, 0 here) for one that ended
  // without ever running. Only the stored spec knows whether -n was given.
  if (ended_pending && whole && out->spec().ntasks() == 0) out->set_num_tasks(0);
  out->set_cpus_per_task(job.request.cpus_per_task);
  out->set_mem_per_node_mb(job.nodes.empty() ? job.request.MemPerNodeMb() : job.MemOnMb(0));
  // Memory from DefMemPerCPU is per CPU, as an explicit --mem-per-cpu: Slurm
  // stores the default in the job (MinMemoryCPU=, squeue's MIN_MEMORY).
  if (job.request.mem_per_node_mb == 0 && job.request.mem_per_cpu_mb > 0) {
    out->mutable_spec()->set_mem_per_cpu_mb(job.request.mem_per_cpu_mb);
  }
  for (int gpu : job.gpu_indices) out->add_gpu_indices(gpu);
  for (size_t i = 0; whole && i < job.nodes.size() && i < job.cpu_ids_by_node.size(); ++i) {
    v1::JobNodeResources* node = out->add_node_resources();
    for (int cpu : job.cpu_ids_by_node[i]) node->add_cpu_ids(cpu);
    const std::vector<int>& gpus = i < job.gpus_by_node.size() ? job.gpus_by_node[i]
                                   : i == 0                    ? job.gpu_indices
                                                               : std::vector<int>{};
    for (int gpu : gpus) node->add_gpu_indices(gpu);
  }
  out->set_exit_code(job.exit_code);
  out->set_exit_signal(job.exit_signal);
  out->set_restart_count(job.restart_count);
  out->set_held(job.held);
  out->set_held_by_admin(job.held_by_admin);
  if (whole) {
    const v1::JobSpec& spec = out->spec();
    const std::string stdout_path =
        ExpandOutputPattern(spec.stdout_pattern(), job, spec.work_dir());
    out->set_stdout_path(stdout_path);
    out->set_stderr_path(spec.stderr_pattern().empty()
                             ? stdout_path
                             : ExpandOutputPattern(spec.stderr_pattern(), job, spec.work_dir()));
  }
  out->set_priority(job.held ? 0 : static_cast<uint32_t>(std::max<int64_t>(1, job.priority)));
  if (job.UsesBurstBuffer()) {
    out->mutable_spec()->set_burst_buffer(job.bb_directives);
    out->set_burst_buffer_state(BbStateName(job.bb_state));
  }
  out->set_array_job_id(job.array_job_id);
  out->set_array_task_id(job.array_task_id);
  out->set_array_max_running(job.array_max_running);
  out->set_cancelled_with_array(job.cancelled_with_array);
  out->set_dependency(job.dependency_text);
  if (job.state == JobState::kPending && whole) {
    v1::PriorityFactors* f = out->mutable_priority_factors();
    f->set_priority(job.held ? 0 : job.priority);
    f->set_age(job.factors.age);
    f->set_fairshare(job.factors.fairshare);
    f->set_job_size(job.factors.job_size);
    f->set_partition(job.factors.partition);
    f->set_qos(job.factors.qos);
    f->set_tres_cpu(job.factors.tres_cpu);
    f->set_tres_mem(job.factors.tres_mem);
    f->set_tres_node(job.factors.tres_node);
    f->set_tres_gpu(job.factors.tres_gpu);
  }
  // A job that ended while pending keeps the last plan for it, as Slurm keeps
  // its sched_nodes (SchedNodeList=) and backfill mark (Scheduler=Backfill).
  if (job.state == JobState::kPending || ended_pending) {
    out->set_expected_start(job.expected_start);
    out->set_sched_nodes(job.sched_nodes);
  }
  out->set_now(now);
  if (reader == JobInfoReader::kOtherUser) WithholdPrivateSpecFields(out->mutable_spec());
}

}  // namespace skiff::ctld
