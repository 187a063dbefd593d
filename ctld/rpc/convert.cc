#include "ctld/rpc/convert.h"

#include <string>

#include "common/node_topology.h"
#include "ctld/rpc/gpu_usage_convert.h"

namespace skiff::ctld {

void NodeToProto(const Node& node, v1::NodeInfo* out) {
  const NodeConfig& config = node.config;
  out->set_name(config.name);
  out->set_addr(config.addr.empty() ? config.name : config.addr);
  out->set_hostname(config.hostname.empty() ? config.name : config.hostname);
  out->set_port(node.port != 0 ? node.port : config.port);
  out->set_cpus(config.cpus);
  const NodeTopology layout =
      NodeLayout(config.cpus, config.sockets, config.cores_per_socket, config.threads_per_core);
  out->set_sockets(layout.sockets);
  out->set_cores_per_socket(layout.cores_per_socket);
  out->set_threads_per_core(layout.threads_per_core);
  out->set_real_memory_mb(config.real_memory_mb);
  out->set_tmp_disk_mb(config.tmp_disk_mb);
  out->set_weight(config.weight);
  for (const GresCount& gres : config.gres) {
    v1::Gres* g = out->add_gres();
    g->set_name(gres.name);
    g->set_type(gres.type);
    g->set_count(gres.count);
    // Device files come from the node daemon's report (gres.conf lives on the node).
    for (const ReportedGres& reported : node.gres) {
      if (reported.name == gres.name && reported.type == gres.type) {
        for (const std::string& file : reported.files) g->add_files(file);
      }
    }
  }
  for (const std::string& feature : config.features) out->add_features(feature);
  out->set_state(std::string(NodeBaseStateName(node.state)));
  out->set_drain(node.drain);
  out->set_fail(node.fail);
  out->set_not_responding(node.not_responding);
  out->set_reason(node.reason);
  for (const std::string& partition : node.partitions) out->add_partitions(partition);
  out->set_alloc_cpus(node.alloc_cpus);
  out->set_alloc_memory_mb(node.alloc_memory_mb);
  out->set_boot_time(node.boot_time);
  out->set_last_registered(node.last_registered);
  out->set_last_heartbeat(node.last_heartbeat);
  out->set_version(node.version);
  out->set_os(node.os);
  out->set_arch(node.arch);
  for (size_t i = 0; i < node.gpu_owner.size(); ++i) {
    if (node.gpu_owner[i] != 0) out->add_alloc_gpu_indices(static_cast<int32_t>(i));
  }
  if (!node.gpu_shares.empty()) {
    std::vector<int32_t> shards(node.gpu_shares.size(), 0);
    for (const NodeCapacity::ShareHold& hold : node.share_holds) {
      if (static_cast<size_t>(hold.shares.gpu) < shards.size()) {
        shards[hold.shares.gpu] += hold.shares.count;
      }
    }
    for (int32_t count : shards) out->add_alloc_gpu_shares(count);
  }
  // Slurm clears the reason's time with the reason; the table keeps the last one.
  if (!node.reason.empty()) out->set_reason_time(node.reason_time);
  if (!node.reason.empty() && node.reason_uid.has_value()) out->set_reason_uid(*node.reason_uid);
  if (node.load.cpu_load) out->set_cpu_load(*node.load.cpu_load);
  if (node.load.free_memory_mb) out->set_free_memory_mb(*node.load.free_memory_mb);
  out->set_last_busy_time(node.last_busy);
  // A reason ctld set itself has no reason_uid (sinfo -R shows Unknown).
  out->set_noded_start_time(node.noded_start_time);
}

void PartitionToProto(const PartitionConfig& partition, v1::PartitionInfo* out) {
  out->set_name(partition.name);
  for (const std::string& node : partition.nodes) out->add_nodes(node);
  out->set_is_default(partition.is_default);
  out->set_max_time(partition.max_time);
  out->set_default_time(partition.default_time);
  out->set_state(partition.state);
  out->set_priority_tier(partition.priority_tier);
  out->set_priority_job_factor(partition.priority_job_factor);
  out->set_max_nodes(partition.max_nodes);
  out->set_min_nodes(partition.min_nodes);
  for (const std::string& a : partition.allow_accounts) out->add_allow_accounts(a);
  for (const std::string& g : partition.allow_groups) out->add_allow_groups(g);
  for (const std::string& q : partition.allow_qos) out->add_allow_qos(q);
  out->set_qos(partition.qos);
  out->set_preempt_mode(partition.preempt_mode);
  out->set_oversubscribe(partition.oversubscribe);
  out->set_grace_time(partition.grace_time);
  out->set_hidden(partition.hidden);
  out->set_root_only(partition.root_only);
}

NodeRegistration RegistrationFromProto(const v1::RegisterRequest& request) {
  NodeRegistration reg;
  reg.node_name = request.node_name();
  reg.cpus = request.cpus();
  reg.real_memory_mb = request.real_memory_mb();
  for (const v1::Gres& g : request.gres()) {
    ReportedGres gres;
    gres.name = g.name();
    gres.type = g.type();
    gres.count = g.count();
    gres.files.assign(g.files().begin(), g.files().end());
    reg.gres.push_back(std::move(gres));
  }
  reg.boot_time = request.boot_time();
  reg.noded_start_time = request.noded_start_time();
  reg.version = request.version();
  reg.os = request.os();
  reg.arch = request.arch();
  reg.port = request.port();
  reg.drain_reason = request.drain_reason();
  if (request.has_cpu_load()) reg.load.cpu_load = request.cpu_load();
  if (request.has_free_memory_mb()) reg.load.free_memory_mb = request.free_memory_mb();
  return reg;
}

NodeRunReport ReportFromProto(const v1::NodeJobReport& report) {
  NodeRunReport out;
  out.job_id = report.job_id();
  out.finished = report.finished();
  out.exit_code = report.exit_code();
  out.exit_signal = report.exit_signal();
  out.failure = report.failure();
  out.fenced = report.fenced();
  out.out_of_memory = report.oom_kills() > 0;
  out.prolog_error = report.prolog_error();
  out.epilog_error = report.epilog_error();
  for (const v1::NodeScriptFailure& f : report.node_epilog_errors()) {
    out.node_epilog_errors.emplace_back(f.node(), f.error());
  }
  out.run = report.run();
  if (report.has_usage()) {
    out.usage.measured = true;
    out.usage.user_cpu_usec = report.user_cpu_usec();
    out.usage.system_cpu_usec = report.system_cpu_usec();
    out.usage.max_rss_kb = report.max_rss_kb();
  }
  for (const v1::GpuUsage& g : report.gpus()) out.gpus.push_back(GpuUsageFromProto(g));
  return out;
}

}  // namespace skiff::ctld
