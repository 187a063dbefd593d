#include "client/nodes_json.h"

#include <map>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/job_text.h"
#include "client/node_gpus.h"
#include "client/node_state.h"
#include "common/hostlist.h"

namespace skiff::client {
namespace {

Json StringOrNull(const std::string& value) { return value.empty() ? Json() : Json(value); }

Json OptionalOrNull(const std::optional<std::string>& value) {
  return value.has_value() ? Json(*value) : Json();
}

// The state word the controller reports with SHOW_MIXED: ctld's own base
// state (MIXED included) and flags.
uint32_t ReportedState(const v1::NodeInfo& node) {
  const std::string& s = node.state();
  uint32_t state = s == "DOWN"        ? kStateDown
                   : s == "IDLE"      ? kStateIdle
                   : s == "ALLOCATED" ? kStateAllocated
                   : s == "MIXED"     ? kStateMixed
                   : s == "FUTURE"    ? kStateFuture
                                      : kStateUnknown;
  if (node.drain()) state |= kFlagDrain;
  if (node.fail()) state |= kFlagFail;
  if (node.not_responding()) state |= kFlagNoRespond;
  if (node.reserved()) state |= kFlagRes;
  if (node.maint()) state |= kFlagMaint;
  return state;
}

std::string CfgTres(const v1::NodeInfo& node) {
  std::vector<std::string> parts = {absl::StrCat("cpu=", node.cpus()),
                                    "mem=" + FormatMemoryMb(node.real_memory_mb()),
                                    absl::StrCat("billing=", node.cpus())};
  std::map<std::string, int64_t> gres;
  for (const v1::Gres& g : node.gres()) gres[g.name()] += g.count();
  for (const auto& [name, count] : gres) parts.push_back(absl::StrCat("gres/", name, "=", count));
  return absl::StrJoin(parts, ",");
}

Json AllocTres(const v1::NodeInfo& node) {
  std::vector<std::string> parts;
  if (node.alloc_cpus() > 0) parts.push_back(absl::StrCat("cpu=", node.alloc_cpus()));
  if (node.alloc_memory_mb() > 0) parts.push_back("mem=" + FormatMemoryMb(node.alloc_memory_mb()));
  if (node.alloc_gpu_indices_size() > 0) {
    parts.push_back(absl::StrCat("gres/gpu=", node.alloc_gpu_indices_size()));
  }
  if (parts.empty()) return Json();
  return absl::StrJoin(parts, ",");
}

Json NodeJson(const v1::NodeInfo& node,
              const std::function<std::optional<std::string>(uint32_t)>& user_name) {
  Json d = Json::Object();
  const uint32_t state = ReportedState(node);
  d.Set("architecture", StringOrNull(node.arch()));
  d.Set("burstbuffer_network_address", Json());
  d.Set("boards", 1);
  d.Set("boot_time", static_cast<long long>(node.boot_time()));
  d.Set("comment", Json());
  d.Set("cores", node.cores_per_socket());
  d.Set("cpu_binding", 0);
  // Slurm's NO_VAL / NO_VAL64 (as a signed 64-bit number) when not reported.
  d.Set("cpu_load", node.has_cpu_load() ? static_cast<long long>(node.cpu_load())
                                        : static_cast<long long>(kNoVal));
  d.Set("extra", Json());
  d.Set("free_memory", node.has_free_memory_mb()
                           ? static_cast<long long>(node.free_memory_mb())
                           : static_cast<long long>(static_cast<int64_t>(kNoVal64)));
  d.Set("cpus", node.cpus());
  d.Set("last_busy", 0);
  const std::string features = absl::StrJoin(node.features(), ",");
  d.Set("features", StringOrNull(features));
  d.Set("active_features", StringOrNull(features));
  d.Set("gres", OptionalOrNull(NodeGresString(node)));
  d.Set("gres_drained", "N/A");
  d.Set("gres_used", OptionalOrNull(NodeGresUsedString(node)));
  d.Set("mcs_label", Json());
  d.Set("name", node.name());
  d.Set("next_state_after_reboot", "invalid");
  d.Set("address", node.addr());
  d.Set("hostname", node.hostname());
  d.Set("state", absl::AsciiStrToLower(NodeStateBaseString(state)));
  d.Set("state_flags", Json::Strings(NodeStateFlagNames(state)));
  d.Set("next_state_after_reboot_flags", Json::Array());
  d.Set("operating_system", StringOrNull(node.os()));
  d.Set("owner", Json());
  d.Set("partitions", Json::Strings({node.partitions().begin(), node.partitions().end()}));
  d.Set("port", node.port());
  d.Set("real_memory", static_cast<long long>(node.real_memory_mb()));
  d.Set("reason", StringOrNull(node.reason()));
  d.Set("reason_changed_at", static_cast<long long>(node.reason_time()));
  Json by = Json();
  if (!node.reason().empty() && node.has_reason_uid() && user_name) {
    std::optional<std::string> name = user_name(node.reason_uid());
    if (name.has_value()) by = *name;
  }
  d.Set("reason_set_by_user", by);
  d.Set("slurmd_start_time", static_cast<long long>(node.noded_start_time()));
  d.Set("sockets", node.sockets());
  d.Set("threads", node.threads_per_core());
  d.Set("temporary_disk", static_cast<long long>(node.tmp_disk_mb()));
  d.Set("weight", node.weight());
  d.Set("tres", CfgTres(node));
  d.Set("slurmd_version", StringOrNull(node.version()));
  d.Set("alloc_memory", static_cast<long long>(node.alloc_memory_mb()));
  d.Set("alloc_cpus", node.alloc_cpus());
  d.Set("idle_cpus", node.cpus() - node.alloc_cpus());
  d.Set("tres_used", AllocTres(node));
  d.Set("tres_weighted", static_cast<double>(node.alloc_cpus()));
  return d;
}

Json PartitionJson(const v1::PartitionInfo& p,
                   const std::map<std::string, std::pair<int, uint64_t>>& sizes) {
  Json d = Json::Object();
  Json flags = Json::Array();
  if (p.is_default()) flags.Push("default");
  if (p.hidden()) flags.Push("hidden");
  if (p.root_only()) flags.Push("root_only");
  d.Set("flags", std::move(flags));
  Json pm = Json::Array();
  const std::string mode = absl::AsciiStrToLower(p.preempt_mode());
  if (mode.empty() || mode == "off") {
    pm.Push("disabled");
  } else {
    for (const char* m : {"suspend", "requeue", "gang"}) {
      if (mode.find(m) != std::string::npos) {
        pm.Push(std::string(m) == "gang" ? "gang_schedule" : m);
      }
    }
    if (mode.find("cancel") != std::string::npos && pm.size() == 0) pm.Push("cancel");
  }
  d.Set("preemption_mode", std::move(pm));
  d.Set("allowed_allocation_nodes", Json());
  d.Set("allowed_accounts", StringOrNull(absl::StrJoin(p.allow_accounts(), ",")));
  d.Set("allowed_groups", StringOrNull(absl::StrJoin(p.allow_groups(), ",")));
  d.Set("allowed_qos", StringOrNull(absl::StrJoin(p.allow_qos(), ",")));
  d.Set("alternative", Json());
  d.Set("billing_weights", Json());
  d.Set("default_memory_per_cpu", Json());
  d.Set("default_memory_per_node", Json());
  d.Set("default_time_limit",
        p.default_time() < 0 ? Json() : Json(static_cast<long long>(p.default_time() / 60)));
  d.Set("denied_accounts", Json());
  d.Set("denied_qos", Json());
  d.Set("preemption_grace_time", static_cast<long long>(p.grace_time()));
  d.Set("maximum_cpus_per_node", -1);
  d.Set("maximum_memory_per_cpu", Json());
  d.Set("maximum_memory_per_node", Json());
  d.Set("maximum_nodes_per_job", p.max_nodes() < 0 ? -1LL : static_cast<long long>(p.max_nodes()));
  d.Set("max_time_limit", p.max_time() < 0 ? -1LL : static_cast<long long>(p.max_time() / 60));
  d.Set("min nodes per job", static_cast<long long>(p.min_nodes()));
  d.Set("name", p.name());
  std::vector<std::string> names(p.nodes().begin(), p.nodes().end());
  d.Set("nodes", StringOrNull(CompressHostlist(names)));
  d.Set("over_time_limit", Json());
  d.Set("priority_job_factor", p.priority_job_factor());
  d.Set("priority_tier", p.priority_tier());
  d.Set("qos", StringOrNull(p.qos()));
  const std::string state = absl::AsciiStrToUpper(p.state());
  d.Set("state", state == "UP" || state == "DOWN" || state == "INACTIVE" || state == "DRAIN"
                     ? state
                     : "UNKNOWN");
  int total_cpus = 0;
  uint64_t total_mem = 0;
  for (const std::string& n : names) {
    auto it = sizes.find(n);
    if (it == sizes.end()) continue;
    total_cpus += it->second.first;
    total_mem += it->second.second;
  }
  d.Set("total_cpus", total_cpus);
  d.Set("total_nodes", static_cast<int>(names.size()));
  d.Set("tres", absl::StrCat("cpu=", total_cpus, ",mem=", FormatMemoryMb(total_mem),
                             ",node=", names.size(), ",billing=", total_cpus));
  return d;
}

Json NodeList(const v1::GetNodesReply& nodes,
              const std::function<std::optional<std::string>(uint32_t)>& user_name) {
  Json list = Json::Array();
  for (const v1::NodeInfo& node : nodes.nodes()) list.Push(NodeJson(node, user_name));
  return list;
}

Json PartitionList(const v1::GetPartitionsReply& partitions, const v1::GetNodesReply& nodes) {
  std::map<std::string, std::pair<int, uint64_t>> sizes;
  for (const v1::NodeInfo& node : nodes.nodes()) {
    sizes[node.name()] = {node.cpus(), node.real_memory_mb()};
  }
  Json parts = Json::Array();
  for (const v1::PartitionInfo& p : partitions.partitions()) parts.Push(PartitionJson(p, sizes));
  return parts;
}

}  // namespace

Json SinfoJson(const v1::GetNodesReply& nodes, const v1::GetPartitionsReply& partitions,
               const std::function<std::optional<std::string>(uint32_t)>& user_name) {
  Json out = SlurmJsonEnvelope();
  out.Set("nodes", NodeList(nodes, user_name));
  out.Set("partitions", PartitionList(partitions, nodes));
  return out;
}

Json NodesJson(const v1::GetNodesReply& nodes,
               const std::function<std::optional<std::string>(uint32_t)>& user_name) {
  Json out = SlurmJsonEnvelope();
  out.Set("nodes", NodeList(nodes, user_name));
  return out;
}

Json PartitionsJson(const v1::GetPartitionsReply& partitions, const v1::GetNodesReply& nodes) {
  Json out = SlurmJsonEnvelope();
  out.Set("partitions", PartitionList(partitions, nodes));
  return out;
}

}  // namespace skiff::client
