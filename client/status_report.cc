#include "client/status_report.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "client/accounts_usage.h"
#include "client/job_text.h"
#include "client/json_writer.h"
#include "client/node_gpus.h"
#include "common/hostlist.h"
#include "common/time_format.h"

namespace skiff::client {
namespace {

// States in which a job holds its nodes (and their GPUs).
bool HoldsResources(v1::JobState state) {
  switch (state) {
    case v1::CONFIGURING:
    case v1::RUNNING:
    case v1::COMPLETING:
    case v1::STAGE_OUT:
    case v1::SUSPENDED:
      return true;
    default:
      return false;
  }
}

// GPUs a job holds now, on all its nodes.
int64_t JobGpus(const v1::JobInfo& job) {
  if (!HoldsResources(job.state())) return 0;
  if (job.node_resources_size() == 0) return job.gpu_indices_size();
  int64_t gpus = 0;
  for (const v1::JobNodeResources& node : job.node_resources()) gpus += node.gpu_indices_size();
  return gpus;
}

int64_t CpuSeconds(const v1::JobInfo& job, int64_t now) {
  if (job.start_time() == 0) return 0;
  const int64_t stop = job.end_time() != 0 ? job.end_time() : now;
  const int64_t elapsed = std::max<int64_t>(0, stop - job.start_time() - job.suspended_seconds());
  return elapsed * std::max(1, job.num_cpus());
}

// "gpu:4", "gpu:a100:2,gpu:1": --gres as written, then --gpus-per-node and --gpus.
std::string ReqGres(const v1::JobSpec& spec) {
  std::vector<std::string> parts;
  for (const std::string& gres : spec.gres()) {
    parts.push_back(std::string(absl::StripPrefix(gres, "gres:")));
  }
  if (!spec.gpus_per_node().empty()) parts.push_back("gpu:" + spec.gpus_per_node());
  if (!spec.gpus().empty()) parts.push_back("gpu:" + spec.gpus());
  return absl::StrJoin(parts, ",");
}

bool NodeIsFree(const v1::NodeInfo& node) {
  return node.state() == "IDLE" && !node.drain() && !node.fail() && !node.not_responding() &&
         !node.reserved() && !node.maint() && node.alloc_cpus() == 0 &&
         node.alloc_gpu_indices_size() == 0;
}

// Adds the node's GPUs to the totals, and the typed ones to `typed`.
void CountGpus(const v1::NodeInfo& node, GpuCount* total, std::map<std::string, GpuCount>* typed) {
  for (const NodeGpuEntry& entry : NodeGpuEntries(node)) {
    total->total += entry.count;
    total->allocated += entry.held;
    if (!entry.type.empty()) {
      GpuCount& count = (*typed)[entry.type];
      count.type = entry.type;
      count.total += entry.count;
      count.allocated += entry.held;
    }
  }
}

class AssocTree {
 public:
  explicit AssocTree(const v1::GetAccountsReply& accounts) {
    for (const v1::AssocInfo& assoc : accounts.assocs()) {
      by_key_[AssocKeyOf(assoc)] = &assoc;
    }
  }

  // The account's own association; nullptr when there is none.
  const v1::AssocInfo* Account(const std::string& name) const {
    auto it = by_key_.find(AssocKey::Account(name));
    return it == by_key_.end() ? nullptr : it->second;
  }

  // The association a limit or QOS list is inherited from.
  const v1::AssocInfo* Parent(const v1::AssocInfo& assoc) const {
    if (!assoc.user().empty()) return Account(assoc.account());
    if (assoc.parent_account().empty()) return nullptr;
    return Account(assoc.parent_account());
  }

  // The QOS `assoc` allows: its own list, else its nearest ancestor's.
  std::vector<std::string> AllowedQos(const v1::AssocInfo& assoc) const {
    for (const v1::AssocInfo* at = &assoc; at != nullptr; at = Parent(*at)) {
      if (at->qos_size() > 0) return {at->qos().begin(), at->qos().end()};
    }
    return {};
  }

 private:
  std::map<AssocKey, const v1::AssocInfo*> by_key_;
};

bool HasGpuLimit(const v1::Tres& tres) { return tres.has_gpu() && tres.gpu() >= 0; }

std::vector<GpuLimit> Limits(const SstatusInput& input) {
  std::vector<const v1::JobInfo*> jobs;
  for (const v1::JobInfo& job : input.jobs.jobs()) {
    if (job.user_name() == input.user) jobs.push_back(&job);
  }
  const AssocTree tree(input.accounts);
  std::vector<const v1::AssocInfo*> user_assocs;
  for (const v1::AssocInfo& assoc : input.accounts.assocs()) {
    if (assoc.user() == input.user) user_assocs.push_back(&assoc);
  }

  // QOS: those the user's associations allow and those its jobs are in.
  std::vector<std::string> applies;
  for (const v1::AssocInfo* assoc : user_assocs) {
    for (std::string& name : tree.AllowedQos(*assoc)) applies.push_back(std::move(name));
    if (!assoc->default_qos().empty()) applies.push_back(assoc->default_qos());
  }
  for (const v1::JobInfo* job : jobs) {
    if (!job->qos().empty()) applies.push_back(job->qos());
  }
  auto named = [&](const std::string& qos) {
    return std::any_of(applies.begin(), applies.end(),
                       [&](const std::string& name) { return absl::EqualsIgnoreCase(name, qos); });
  };
  std::vector<GpuLimit> limits;
  for (const v1::QosInfo& qos : input.qos.qos()) {
    if (!HasGpuLimit(qos.max_tres_per_user()) || !named(qos.name())) continue;
    GpuLimit limit;
    limit.kind = GpuLimit::Kind::kQos;
    limit.name = qos.name();
    limit.limit = qos.max_tres_per_user().gpu();
    for (const v1::JobInfo* job : jobs) {
      if (absl::EqualsIgnoreCase(job->qos(), qos.name())) limit.used += JobGpus(*job);
    }
    limits.push_back(std::move(limit));
  }

  // Associations: GrpTRES gres/gpu on the user's own, then on the accounts above.
  const AccountsUsage accounts_usage(input.accounts);
  std::set<std::pair<GpuLimit::Kind, std::string>> seen;
  for (const v1::AssocInfo* assoc : user_assocs) {
    if (HasGpuLimit(assoc->limits().grp_tres()) &&
        seen.insert({GpuLimit::Kind::kUserAssoc, assoc->account()}).second) {
      GpuLimit limit;
      limit.kind = GpuLimit::Kind::kUserAssoc;
      limit.name = assoc->account();
      limit.limit = assoc->limits().grp_tres().gpu();
      for (const v1::JobInfo* job : jobs) {
        const std::string& account =
            job->account().empty() ? job->spec().account() : job->account();
        if (absl::EqualsIgnoreCase(account, assoc->account())) limit.used += JobGpus(*job);
      }
      limits.push_back(std::move(limit));
    }
    for (const v1::AssocInfo* at = tree.Parent(*assoc); at != nullptr; at = tree.Parent(*at)) {
      if (!HasGpuLimit(at->limits().grp_tres()) ||
          !seen.insert({GpuLimit::Kind::kAccount, at->account()}).second) {
        continue;
      }
      GpuLimit limit;
      limit.kind = GpuLimit::Kind::kAccount;
      limit.name = at->account();
      limit.limit = at->limits().grp_tres().gpu();
      limit.used =
          accounts_usage.Of(AssocKey::Account(at->account())).in_use().running_tres().gpu();
      limits.push_back(std::move(limit));
    }
  }
  return limits;
}

std::string LimitLine(const GpuLimit& limit) {
  switch (limit.kind) {
    case GpuLimit::Kind::kQos:
      return absl::StrCat("Using ", limit.used, "/", limit.limit, " GPUs allowed on ", limit.name,
                          " queue.");
    case GpuLimit::Kind::kUserAssoc:
      return absl::StrCat("Using ", limit.used, "/", limit.limit, " GPUs allowed on account ",
                          limit.name, ".");
    case GpuLimit::Kind::kAccount:
      return absl::StrCat("Using ", limit.used, "/", limit.limit, " GPUs allowed on account ",
                          limit.name, " (all its users).");
  }
  return "";
}

const char* KindName(GpuLimit::Kind kind) {
  switch (kind) {
    case GpuLimit::Kind::kQos:
      return "qos";
    case GpuLimit::Kind::kUserAssoc:
      return "association";
    case GpuLimit::Kind::kAccount:
      return "account";
  }
  return "";
}

Json GpuJson(const GpuCount& count) {
  Json out = Json::Object();
  if (!count.type.empty()) out.Add("type", count.type);
  out.Add("allocated", count.allocated);
  out.Add("total", count.total);
  return out;
}

}  // namespace

std::string FormatCpuTime(int64_t seconds) {
  return FormatTimeLimit(std::max<int64_t>(0, seconds));
}

SstatusReport BuildSstatusReport(const SstatusInput& input) {
  SstatusReport report;
  report.cluster_name = input.cluster_name;
  report.user = input.user;

  std::map<std::string, GpuCount> typed;
  for (const v1::NodeInfo& node : input.nodes.nodes()) {
    CountGpus(node, &report.gpus, &typed);
    if (NodeIsFree(node)) report.free_nodes.push_back(node.name());
  }
  report.total_nodes = input.nodes.nodes_size();
  for (auto& [type, count] : typed) report.gpus_by_type.push_back(std::move(count));

  report.limits = Limits(input);
  const int64_t now = input.jobs.now();
  for (const v1::JobInfo& job : input.jobs.jobs()) {
    if (job.user_name() != input.user) continue;
    SstatusJob row;
    row.partition = job.partition().empty() ? job.spec().partition() : job.partition();
    row.job_id = JobIdText(job);
    row.name = job.spec().name();
    row.state = JobStateName(job.state());
    row.req_gres = ReqGres(job.spec());
    row.cpu_seconds = CpuSeconds(job, job.now() != 0 ? job.now() : now);
    row.gpus = JobGpus(job);
    report.user_gpus += row.gpus;
    report.jobs.push_back(std::move(row));
  }
  std::stable_sort(report.jobs.begin(), report.jobs.end(),
                   [&](const SstatusJob& a, const SstatusJob& b) {
                     // By job id, numerically ("9" before "10", "5_2" before "5_10").
                     auto key = [](const std::string& id) {
                       const size_t sep = id.find('_');
                       const std::string base = id.substr(0, sep);
                       const std::string task = sep == std::string::npos ? "" : id.substr(sep + 1);
                       return std::make_tuple(base.size(), base, task.size(), task);
                     };
                     return key(a.job_id) < key(b.job_id);
                   });
  return report;
}

std::string FormatSstatusText(const SstatusReport& report) {
  std::string out = absl::StrCat(report.cluster_name, " status:\n");
  absl::StrAppend(&out, "GPU Usage: ", report.gpus.allocated, "/", report.gpus.total, "\n");
  for (const GpuCount& count : report.gpus_by_type) {
    absl::StrAppend(&out, "GPU Usage (", count.type, "): ", count.allocated, "/", count.total,
                    "\n");
  }
  absl::StrAppend(&out, "Free Nodes: ", report.free_nodes.size(), "/", report.total_nodes);
  if (!report.free_nodes.empty()) absl::StrAppend(&out, ": ", CompressHostlist(report.free_nodes));
  absl::StrAppend(&out, "\n=====\n");
  absl::StrAppend(&out, "Job details for user ", report.user, ":\n");
  if (report.limits.empty()) {
    absl::StrAppend(&out, "Using ", report.user_gpus, " GPUs (no GPU limit).\n");
  }
  for (const GpuLimit& limit : report.limits) absl::StrAppend(&out, LimitLine(limit), "\n");
  absl::StrAppend(&out, "\nPartition\tJobID\tJobName\tState\tReqGRES\tCPUTime\n",
                  "-----\t-----\t-----\t-----\t-----\t-----\n");
  for (const SstatusJob& job : report.jobs) {
    absl::StrAppend(&out, job.partition, "\t", job.job_id, "\t", job.name, "\t", job.state, "\t",
                    job.req_gres.empty() ? "-" : job.req_gres, "\t", FormatCpuTime(job.cpu_seconds),
                    "\n");
  }
  return out;
}

std::string FormatSstatusJson(const SstatusReport& report) {
  Json out = Json::Object();
  out.Add("cluster", report.cluster_name);
  Json gpus = GpuJson(report.gpus);
  Json types = Json::Array();
  for (const GpuCount& count : report.gpus_by_type) types.Push(GpuJson(count));
  gpus.Add("by_type", std::move(types));
  out.Add("gpus", std::move(gpus));
  Json nodes = Json::Object();
  nodes.Add("free", static_cast<int64_t>(report.free_nodes.size()));
  nodes.Add("total", report.total_nodes);
  nodes.Add("free_nodes", CompressHostlist(report.free_nodes));
  out.Add("nodes", std::move(nodes));
  out.Add("user", report.user);
  out.Add("user_gpus", report.user_gpus);
  Json limits = Json::Array();
  for (const GpuLimit& limit : report.limits) {
    Json item = Json::Object();
    item.Add("kind", KindName(limit.kind));
    item.Add("name", limit.name);
    item.Add("used", limit.used);
    item.Add("limit", limit.limit);
    limits.Push(std::move(item));
  }
  out.Add("gpu_limits", std::move(limits));
  Json jobs = Json::Array();
  for (const SstatusJob& job : report.jobs) {
    Json item = Json::Object();
    item.Add("partition", job.partition);
    item.Add("job_id", job.job_id);
    item.Add("name", job.name);
    item.Add("state", job.state);
    item.Add("req_gres", job.req_gres);
    item.Add("gpus", job.gpus);
    item.Add("cpu_time", FormatCpuTime(job.cpu_seconds));
    item.Add("cpu_time_seconds", job.cpu_seconds);
    jobs.Push(std::move(item));
  }
  out.Add("jobs", std::move(jobs));
  return out.Dump() + "\n";
}

}  // namespace skiff::client
