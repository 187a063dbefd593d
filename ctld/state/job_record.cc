#include "ctld/state/job_record.h"

#include <utility>

#include "ctld/rpc/container_convert.h"
#include "ctld/rpc/gpu_usage_convert.h"
#include "proto/job.pb.h"

namespace skiff::ctld {

v1::JobRecord ToRecord(const Job& job) {
  v1::JobRecord r;
  r.set_id(job.id);
  r.set_uid(job.uid);
  r.set_gid(job.gid);
  r.set_user_name(job.user_name);
  r.set_group_name(job.group_name);
  r.set_name(job.name);
  r.set_account(job.account);
  r.set_qos(job.qos);
  r.set_reservation(job.reservation);
  const JobRequest& q = job.request;
  r.set_partition(q.partition);
  r.set_num_nodes(q.num_nodes);
  r.set_ntasks(q.ntasks);
  r.set_cpus_per_task(q.cpus_per_task);
  r.set_req_mem_per_node_mb(q.mem_per_node_mb);
  r.set_req_mem_per_cpu_mb(q.mem_per_cpu_mb);
  r.set_gpus_per_node(q.gpus_per_node);
  r.set_gpu_type(q.gpu_type);
  r.set_time_limit(q.time_limit);
  r.set_begin_time(q.begin_time);
  r.set_deadline(q.deadline);
  r.set_spec_blob(job.spec_blob);
  r.set_work_dir(job.work_dir);
  r.set_interactive(job.interactive);
  if (job.cancelled_by >= 0) r.set_cancelled_by(job.cancelled_by);
  r.set_requeue(job.requeue);
  r.set_no_kill(job.no_kill);
  r.set_state(static_cast<int>(job.state));
  r.set_final_state(static_cast<int>(job.final_state));
  r.set_reason(job.reason);
  r.set_reason_detail(job.reason_detail);
  r.set_held(job.held);
  r.set_held_by_admin(job.held_by_admin);
  r.set_submit_time(job.submit_time);
  r.set_eligible_time(job.eligible_time);
  r.set_start_time(job.start_time);
  r.set_end_time(job.end_time);
  for (const std::string& node : job.nodes) r.add_nodes(node);
  for (int cpus : job.cpus_by_node) r.add_alloc_cpus(cpus);
  for (uint64_t mem : job.mem_by_node_mb) r.add_alloc_mem_mb(mem);
  for (int tasks : job.tasks_by_node) r.add_alloc_tasks(tasks);
  r.set_req_max_nodes(job.request.max_nodes);
  r.set_req_nodes_given(job.request.nodes_given);
  r.set_req_ntasks_per_node(job.request.ntasks_per_node);
  r.set_req_min_cpus_per_node(job.request.min_cpus_per_node);
  r.set_req_overcommit(job.request.overcommit);
  r.set_req_use_min_nodes(job.request.use_min_nodes);
  r.set_req_spread_job(job.request.spread_job);
  r.set_req_contiguous(job.request.contiguous);
  r.set_req_min_tmp_disk_mb(job.request.min_tmp_disk_mb);
  r.set_req_sockets_per_node(job.request.min_topology.sockets);
  r.set_req_cores_per_socket(job.request.min_topology.cores_per_socket);
  r.set_req_threads_per_core(job.request.min_topology.threads_per_core);
  r.set_req_oversubscribe(job.request.oversubscribe);
  r.set_req_licenses(job.request.licenses_text);
  if (!q.container.IsEmpty()) ContainerToProto(q.container, r.mutable_container());
  for (int gpu : job.gpu_indices) r.add_gpu_indices(gpu);
  r.set_exit_code(job.exit_code);
  r.set_exit_signal(job.exit_signal);
  r.set_restart_count(job.restart_count);
  r.set_prolog_done(job.progress.prolog_done);
  r.set_launched(job.progress.launched);
  r.set_cancel_requested(job.progress.cancel_requested);
  r.set_version(job.version);
  for (const std::vector<int>& gpus : job.gpus_by_node) {
    v1::GpuList* list = r.add_gpus_by_node();
    for (int gpu : gpus) list->add_indices(gpu);
  }
  r.set_req_shares_per_node(job.request.shares_per_node);
  r.set_req_share_kind(static_cast<int32_t>(job.request.share_kind));
  for (const GpuShare& share : job.shares_by_node) {
    v1::GpuShareRecord* record = r.add_shares_by_node();
    record->set_gpu(share.gpu);
    record->set_count(share.count);
  }
  for (const std::vector<int>& cpus : job.cpu_ids_by_node) {
    v1::GpuList* list = r.add_cpus_by_node();
    for (int cpu : cpus) list->add_indices(cpu);
  }
  for (const auto& [name, count] : job.alloc_tres) (*r.mutable_alloc_tres())[name] = count;
  r.set_req_mem_per_gpu_mb(q.mem_per_gpu_mb);
  r.set_exclusive(q.exclusive);
  for (const std::string& n : q.nodelist) r.add_nodelist(n);
  for (const std::string& n : q.exclude) r.add_exclude(n);
  for (const std::string& f : q.features) r.add_features(f);
  for (const std::string& f : q.prefer) r.add_req_prefer(f);
  r.set_req_time_min(q.time_min);
  r.set_array_job_id(job.array_job_id);
  r.set_array_task_id(job.array_task_id);
  r.set_array_max_running(job.array_max_running);
  r.set_cancelled_with_array(job.cancelled_with_array);
  r.set_dependency(job.dependency);
  r.set_kill_on_invalid_dep(job.kill_on_invalid_dep);
  r.set_preempt_requeue(job.progress.preempt_requeue);
  r.set_preempt_stop_at(job.progress.preempt_stop_at);
  r.set_nice(job.nice);
  r.set_warn_signal(job.warn_signal);
  r.set_warn_time(job.warn_time);
  r.set_warn_batch_only(job.warn_batch_only);
  r.set_warn_sent(job.warn_sent);
  r.set_mail_type(job.mail_type);
  r.set_mail_user(job.mail_user);
  r.set_mail_sent(job.mail_sent);
  for (const MailMessage& mail : job.mail_outbox) {
    v1::MailRecord* out = r.add_mail_outbox();
    out->set_kind(mail.kind);
    out->set_run(mail.run);
    out->set_user(mail.user);
    out->set_subject(mail.subject);
    for (const auto& [key, value] : mail.env) (*out->mutable_env())[key] = value;
  }
  r.set_batch_usage_measured(job.batch_usage.measured);
  r.set_batch_user_cpu_usec(job.batch_usage.user_cpu_usec);
  r.set_batch_system_cpu_usec(job.batch_usage.system_cpu_usec);
  r.set_batch_max_rss_kb(job.batch_usage.max_rss_kb);
  for (const GpuUsage& gpu : job.gpu_usage) GpuUsageToProto(gpu, r.add_gpu_usage());
  r.set_gpu_idle_warning(job.gpu_idle_warning);
  r.set_suspend_time(job.suspend_time);
  r.set_suspended_total(job.suspended_total);
  r.set_admin_priority(job.admin_priority);
  r.set_basic_priority(job.basic_priority);
  r.set_requeue_request(static_cast<int32_t>(job.progress.requeue_request));
  r.set_bb_directives(job.bb_directives);
  r.set_bb_state(BbStateName(job.bb_state));
  r.set_bb_pool(job.bb_pool);
  r.set_bb_size(job.bb_size);
  r.set_bb_hurry(job.bb_hurry);
  r.set_bb_create_time(job.bb_create_time);
  r.set_comment(job.comment);
  r.set_bb_teardown_retry_at(job.bb_teardown_retry_at);
  return r;
}

Job FromRecord(const v1::JobRecord& r) {
  Job job;
  job.id = r.id();
  job.uid = r.uid();
  job.gid = r.gid();
  job.user_name = r.user_name();
  job.group_name = r.group_name();
  job.name = r.name();
  job.account = r.account();
  job.qos = r.qos();
  job.reservation = r.reservation();
  JobRequest& q = job.request;
  q.partition = r.partition();
  q.num_nodes = r.num_nodes();
  q.ntasks = r.ntasks();
  q.cpus_per_task = r.cpus_per_task();
  q.mem_per_node_mb = r.req_mem_per_node_mb();
  q.mem_per_cpu_mb = r.req_mem_per_cpu_mb();
  q.gpus_per_node = r.gpus_per_node();
  q.gpu_type = r.gpu_type();
  q.time_limit = r.time_limit();
  q.begin_time = r.begin_time();
  q.deadline = r.deadline();
  job.spec_blob = r.spec_blob();
  job.work_dir = r.work_dir();
  job.interactive = r.interactive();
  job.cancelled_by = r.has_cancelled_by() ? r.cancelled_by() : -1;
  job.requeue = r.requeue();
  job.no_kill = r.no_kill();
  job.state = static_cast<JobState>(r.state());
  job.final_state = static_cast<JobState>(r.final_state());
  job.reason = r.reason();
  job.reason_detail = r.reason_detail();
  job.held = r.held();
  job.held_by_admin = r.held_by_admin();
  job.submit_time = r.submit_time();
  job.eligible_time = r.eligible_time();
  job.start_time = r.start_time();
  job.end_time = r.end_time();
  job.nodes.assign(r.nodes().begin(), r.nodes().end());
  if (r.alloc_cpus_size() == r.nodes_size()) {
    job.cpus_by_node.assign(r.alloc_cpus().begin(), r.alloc_cpus().end());
  } else {  // written before per-node figures: the same on every node
    job.cpus_by_node.assign(job.nodes.size(), r.cpus_per_node());
  }
  if (r.alloc_mem_mb_size() == r.nodes_size()) {
    job.mem_by_node_mb.assign(r.alloc_mem_mb().begin(), r.alloc_mem_mb().end());
  } else {
    job.mem_by_node_mb.assign(job.nodes.size(), r.mem_per_node_mb());
  }
  if (r.alloc_tasks_size() == r.nodes_size()) {
    job.tasks_by_node.assign(r.alloc_tasks().begin(), r.alloc_tasks().end());
  }
  q.max_nodes = r.req_max_nodes();
  q.nodes_given = r.req_nodes_given();
  q.ntasks_per_node = r.req_ntasks_per_node();
  q.min_cpus_per_node = r.req_min_cpus_per_node();
  q.overcommit = r.req_overcommit();
  q.use_min_nodes = r.req_use_min_nodes();
  q.spread_job = r.req_spread_job();
  q.contiguous = r.req_contiguous();
  q.min_tmp_disk_mb = r.req_min_tmp_disk_mb();
  q.min_topology = {r.req_sockets_per_node(), r.req_cores_per_socket(), r.req_threads_per_core()};
  q.oversubscribe = r.req_oversubscribe();
  q.licenses_text = r.req_licenses();
  // Checked at submit; a record that no longer parses asks for none.
  if (absl::StatusOr<std::vector<LicenseCount>> licenses = ParseLicenses(q.licenses_text);
      licenses.ok()) {
    q.licenses = *std::move(licenses);
  }
  q.container = ContainerFromProto(r.container());
  job.gpu_indices.assign(r.gpu_indices().begin(), r.gpu_indices().end());
  job.exit_code = r.exit_code();
  job.exit_signal = r.exit_signal();
  job.restart_count = r.restart_count();
  job.progress.prolog_done = r.prolog_done();
  job.progress.launched = r.launched();
  job.progress.cancel_requested = r.cancel_requested();
  job.version = r.version();
  for (const v1::GpuList& list : r.gpus_by_node()) {
    job.gpus_by_node.emplace_back(list.indices().begin(), list.indices().end());
  }
  q.shares_per_node = r.req_shares_per_node();
  q.share_kind = r.req_share_kind() == static_cast<int32_t>(GpuShareKind::kMps)
                     ? GpuShareKind::kMps
                     : GpuShareKind::kShard;
  for (const v1::GpuShareRecord& record : r.shares_by_node()) {
    job.shares_by_node.push_back({record.gpu(), record.count()});
  }
  for (const v1::GpuList& list : r.cpus_by_node()) {
    job.cpu_ids_by_node.emplace_back(list.indices().begin(), list.indices().end());
  }
  job.alloc_tres.insert(r.alloc_tres().begin(), r.alloc_tres().end());
  q.mem_per_gpu_mb = r.req_mem_per_gpu_mb();
  q.exclusive = r.exclusive();
  q.nodelist.assign(r.nodelist().begin(), r.nodelist().end());
  q.exclude.assign(r.exclude().begin(), r.exclude().end());
  q.features.assign(r.features().begin(), r.features().end());
  q.prefer.assign(r.req_prefer().begin(), r.req_prefer().end());
  q.time_min = r.req_time_min();
  job.array_job_id = r.array_job_id();
  // Records written before arrays existed have 0 here: not an array task.
  job.array_task_id = r.array_job_id() == 0 ? -1 : r.array_task_id();
  job.array_max_running = r.array_max_running();
  job.cancelled_with_array = r.cancelled_with_array();
  job.dependency = r.dependency();
  job.kill_on_invalid_dep = r.kill_on_invalid_dep();
  job.progress.preempt_requeue = r.preempt_requeue();
  job.progress.preempt_stop_at = r.preempt_stop_at();
  job.nice = r.nice();
  job.warn_signal = r.warn_signal();
  job.warn_time = r.warn_time();
  job.warn_batch_only = r.warn_batch_only();
  job.warn_sent = r.warn_sent();
  if (r.has_mail_type()) {
    job.mail_type = static_cast<uint16_t>(r.mail_type());
    job.mail_user = r.mail_user();
  } else {  // a record from before mail was kept: the spec has what was asked
    v1::JobSpec spec;
    if (spec.ParseFromString(job.spec_blob)) {
      job.mail_type = ParseMailType(spec.mail_type());
      job.mail_user = spec.mail_user();
    }
  }
  job.mail_sent = static_cast<uint16_t>(r.mail_sent());
  for (const v1::MailRecord& mail : r.mail_outbox()) {
    MailMessage message;
    message.kind = static_cast<uint16_t>(mail.kind());
    message.run = mail.run();
    message.user = mail.user();
    message.subject = mail.subject();
    message.env.insert(mail.env().begin(), mail.env().end());
    job.mail_outbox.push_back(std::move(message));
  }
  job.batch_usage = {r.batch_usage_measured(), r.batch_user_cpu_usec(), r.batch_system_cpu_usec(),
                     r.batch_max_rss_kb()};
  for (const v1::GpuUsage& gpu : r.gpu_usage()) job.gpu_usage.push_back(GpuUsageFromProto(gpu));
  job.gpu_idle_warning = r.gpu_idle_warning();
  job.suspend_time = r.suspend_time();
  job.suspended_total = r.suspended_total();
  job.admin_priority = r.admin_priority();
  job.basic_priority = r.basic_priority();
  job.progress.requeue_request = static_cast<Job::RequeueRequest>(r.requeue_request());
  job.bb_directives = r.bb_directives();
  job.bb_state = ParseBbState(r.bb_state()).value_or(BbState::kPending);
  job.bb_pool = r.bb_pool();
  job.bb_size = r.bb_size();
  job.bb_hurry = r.bb_hurry();
  job.bb_create_time = r.bb_create_time();
  job.comment = r.comment();
  job.bb_teardown_retry_at = r.bb_teardown_retry_at();
  return job;
}

}  // namespace skiff::ctld
