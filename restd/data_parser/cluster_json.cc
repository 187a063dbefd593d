#include "restd/data_parser/cluster_json.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "client/node_gpus.h"
#include "client/shares.h"
#include "common/hostlist.h"
#include "restd/data_parser/values.h"

namespace skiff::restd {
namespace {

Json Strings(const google::protobuf::RepeatedPtrField<std::string>& items) {
  return Json::Strings(std::vector<std::string>(items.begin(), items.end()));
}

std::map<std::string, int64_t> NodeTres(const v1::NodeInfo& node) {
  std::map<std::string, int64_t> tres = {{"cpu", node.cpus()},
                                         {"mem", static_cast<int64_t>(node.real_memory_mb())},
                                         {"billing", node.cpus()}};
  for (const v1::Gres& gres : node.gres()) {
    tres["gres/" + gres.name()] += gres.count();
    if (!gres.type().empty()) tres["gres/" + gres.name() + ":" + gres.type()] += gres.count();
  }
  return tres;
}

std::map<std::string, int64_t> NodeTresUsed(const v1::NodeInfo& node) {
  std::map<std::string, int64_t> used;
  if (node.alloc_cpus() > 0) used["cpu"] = node.alloc_cpus();
  if (node.alloc_memory_mb() > 0) used["mem"] = static_cast<int64_t>(node.alloc_memory_mb());
  if (node.alloc_gpu_indices_size() > 0) used["gres/gpu"] = node.alloc_gpu_indices_size();
  return used;
}

}  // namespace

Json NodeStateList(const v1::NodeInfo& node) {
  Json states = Json::Array({node.state().empty() ? "UNKNOWN" : node.state()});
  if (node.drain()) states.Push("DRAIN");
  if (node.fail()) states.Push("FAIL");
  if (node.not_responding()) states.Push("NOT_RESPONDING");
  if (node.reserved()) states.Push("RESERVED");
  if (node.maint()) states.Push("MAINTENANCE");
  return states;
}

Json NodeJson(const v1::NodeInfo& node, const std::string& cluster,
              const std::function<std::string(uint32_t)>& user_name) {
  const int cpus = node.cpus();
  Json out = {
      {"architecture", node.arch()},
      {"boards", 1},
      {"boot_time", Time(node.boot_time())},
      {"cluster_name", cluster},
      {"cores", node.cores_per_socket()},
      {"cpus", cpus},
      {"effective_cpus", cpus},
      {"features", Strings(node.features())},
      {"active_features", Strings(node.features())},
      {"gres", client::NodeGresString(node).value_or("")},
      {"gres_drained", "N/A"},
      {"gres_used", client::NodeGresUsedString(node).value_or("")},
      {"last_busy", Time(node.last_busy_time())},
      {"name", node.name()},
      {"address", node.addr()},
      {"hostname", node.hostname()},
      {"state", NodeStateList(node)},
      {"operating_system", node.os()},
      {"partitions", Strings(node.partitions())},
      {"port", node.port()},
      {"real_memory", node.real_memory_mb()},
      {"reason", node.reason()},
      {"reason_changed_at", Time(node.reason_time())},
      {"reason_set_by_user", node.has_reason_uid() ? user_name(node.reason_uid()) : ""},
      {"alloc_memory", node.alloc_memory_mb()},
      {"alloc_cpus", node.alloc_cpus()},
      {"alloc_idle_cpus", std::max(0, cpus - node.alloc_cpus())},
      {"tres", TresString(NodeTres(node))},
      {"tres_used", TresString(NodeTresUsed(node))},
      {"slurmd_start_time", Time(node.noded_start_time())},
      {"sockets", node.sockets()},
      {"threads", node.threads_per_core()},
      {"temporary_disk", node.tmp_disk_mb()},
      {"weight", node.weight()},
      {"version", node.version()},
  };
  if (node.has_cpu_load()) out.Add("cpu_load", node.cpu_load());
  out.Add("free_mem", node.has_free_memory_mb() ? Number(node.free_memory_mb()) : NoNumber());
  return out;
}

Json PartitionJson(const v1::PartitionInfo& partition,
                   const std::map<std::string, const v1::NodeInfo*>& nodes,
                   const std::string& cluster) {
  int64_t cpus = 0;
  std::map<std::string, int64_t> tres;
  for (const std::string& name : partition.nodes()) {
    auto it = nodes.find(name);
    if (it == nodes.end()) continue;
    cpus += it->second->cpus();
    for (const auto& [key, count] : NodeTres(*it->second)) tres[key] += count;
  }
  if (partition.nodes_size() > 0) tres["node"] = partition.nodes_size();
  const std::string node_list =
      CompressHostlist({partition.nodes().begin(), partition.nodes().end()});
  Json oversubscribe = {{"jobs", 1}, {"flags", Json::Array()}};
  if (partition.oversubscribe() == "EXCLUSIVE") oversubscribe["flags"].Push("force");
  return {
      {"nodes",
       {{"allowed_allocation", ""}, {"configured", node_list}, {"total", partition.nodes_size()}}},
      {"accounts", {{"allowed", absl::StrJoin(partition.allow_accounts(), ",")}, {"deny", ""}}},
      {"groups", {{"allowed", absl::StrJoin(partition.allow_groups(), ",")}}},
      {"qos",
       {{"allowed", absl::StrJoin(partition.allow_qos(), ",")},
        {"deny", ""},
        {"assigned", partition.qos()}}},
      {"alternate", ""},
      {"tres", {{"billing_weights", ""}, {"configured", TresString(tres)}}},
      {"cluster", cluster},
      {"cpus", {{"task_binding", 0}, {"total", cpus}}},
      {"defaults",
       {{"time", partition.default_time() < 0 ? NoNumber() : Minutes(partition.default_time())},
        {"job", ""}}},
      {"grace_time", partition.grace_time()},
      {"maximums",
       {{"nodes", partition.max_nodes() < 0 ? Infinite() : Number(partition.max_nodes())},
        {"time", Minutes(partition.max_time())},
        {"oversubscribe", std::move(oversubscribe)}}},
      {"minimums", {{"nodes", partition.min_nodes()}}},
      {"name", partition.name()},
      {"node_sets", ""},
      {"priority",
       {{"job_factor", partition.priority_job_factor()}, {"tier", partition.priority_tier()}}},
      {"partition",
       {{"state", Json::Array({partition.state().empty() ? "UP" : partition.state()})}}},
  };
}

Json ReservationJson(const v1::ReservationInfo& reservation) {
  static const std::set<std::string> kFlags = {
      "MAINT",   "DAILY",      "WEEKLY",     "IGNORE_JOBS", "ANY_NODES",
      "STATIC",  "PART_NODES", "OVERLAP",    "SPEC_NODES",  "TIME_FLOAT",
      "REPLACE", "ALL_NODES",  "PURGE_COMP", "WEEKDAY",     "WEEKEND",
      "FLEX",    "MAGNETIC",   "HOURLY",     "USER_DELETE"};
  Json flags = Json::Array();
  for (absl::string_view flag : absl::StrSplit(reservation.flags_text(), ',', absl::SkipEmpty())) {
    if (kFlags.count(std::string(flag))) flags.Push(std::string(flag));
  }
  return {{"accounts", absl::StrJoin(reservation.accounts(), ",")},
          {"core_count", reservation.core_cnt()},
          {"end_time", Time(reservation.end_time())},
          {"flags", std::move(flags)},
          {"groups", absl::StrJoin(reservation.groups(), ",")},
          {"name", reservation.name()},
          {"node_count", reservation.nodes_size()},
          {"node_list", CompressHostlist({reservation.nodes().begin(), reservation.nodes().end()})},
          {"partition", reservation.partition()},
          {"start_time", Time(reservation.start_time())},
          {"tres", reservation.tres()},
          {"users", absl::StrJoin(reservation.users(), ",")}};
}

Json SharesJson(const v1::GetAccountsReply& accounts,
                const std::function<bool(const client::ShareRow&)>& keep) {
  const std::vector<client::ShareRow> rows = client::ComputeShares(accounts);
  Json shares = Json::Array();
  int64_t total_shares = 0;
  for (const client::ShareRow& row : rows) {
    if (row.depth == 1) total_shares += row.raw_shares;
    if (keep && !keep(row)) continue;
    Json usage = Json::Array();
    for (const auto& [name, minutes] : row.used_tres_mins) {
      usage.Push({{"name", name}, {"value", minutes * 60}});
    }
    Json run_seconds = Json::Array();
    for (const auto& [name, minutes] : row.run_tres_mins) {
      run_seconds.Push({{"name", name}, {"value", Number(static_cast<int64_t>(minutes * 60))}});
    }
    Json group_minutes = Json::Array();
    for (const auto& [name, minutes] : row.grp_tres_mins) {
      group_minutes.Push({{"name", name}, {"value", Number(static_cast<int64_t>(minutes))}});
    }
    // An account's line is named by the account and parented by its parent;
    // a user's line by the user, under its account (as Slurm's shares list).
    std::string parent;
    if (!row.user.empty()) {
      parent = row.account;
    } else {
      for (const v1::AccountInfo& account : accounts.accounts()) {
        if (account.name() == row.account) parent = account.parent();
      }
    }
    Json tres = Json::Object();
    tres.Add("run_seconds", std::move(run_seconds));
    tres.Add("group_minutes", std::move(group_minutes));
    tres.Add("usage", std::move(usage));
    Json line = Json::Object();
    line.Add("id", row.id);
    line.Add("cluster", accounts.cluster());
    line.Add("name", row.user.empty() ? row.account : row.user);
    line.Add("parent", parent);
    line.Add("partition", row.partition);
    line.Add("shares_normalized", Float(row.norm_shares));
    line.Add("shares", Number(row.raw_shares));
    line.Add("tres", std::move(tres));
    line.Add("effective_usage", Float(row.effective_usage));
    line.Add("usage_normalized", Float(row.norm_usage));
    line.Add("usage", static_cast<int64_t>(row.raw_usage));
    line.Add("fairshare", {{"factor", Float(row.fairshare)}, {"level", Float(row.fairshare)}});
    line.Add("type", Json::Array({row.user.empty() ? "ASSOCIATION" : "USER"}));
    shares.Push(std::move(line));
  }
  return {{"shares", std::move(shares)}, {"total_shares", total_shares}};
}

}  // namespace skiff::restd
