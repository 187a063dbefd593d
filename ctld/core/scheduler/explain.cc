#include "ctld/core/scheduler/explain.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ctld/core/scheduler/scheduler.h"

namespace skiff::ctld {
namespace {

// At most this many busy nodes are named (the rest are counted).
constexpr size_t kNodesNamed = 4;

std::string Plural(int64_t n, const std::string& word) {
  return absl::StrCat(n, " ", word, n == 1 ? "" : "s");
}

std::string Duration(int64_t seconds) {
  if (seconds == kNoLimit) return "no time limit";
  const int64_t minutes = (seconds + 59) / 60;
  if (minutes < 60) return Plural(minutes, "minute");
  if (minutes % 60 == 0) return Plural(minutes / 60, "hour");
  return absl::StrCat(minutes / 60, " h ", minutes % 60, " min");
}

std::string GpuText(const ClusterView& view, int32_t count, int32_t type) {
  std::string text = Plural(count, "GPU");
  if (type != kNone && static_cast<size_t>(type) < view.gpu_types.size()) {
    absl::StrAppend(&text, " (", view.gpu_types[type], ")");
  }
  return text;
}

// `count` of the job's share kind: "3 GPU shards", "gres/mps:50".
std::string ShareText(const PendingJob& job, int32_t count) {
  if (job.share_kind == GpuShareKind::kMps) return absl::StrCat("gres/mps:", count);
  return Plural(count, "GPU shard");
}

// What the job asks for, per node.
std::string Asks(const ClusterView& view, const PendingJob& job) {
  std::vector<std::string> each = {Plural(job.cpus_per_node, "CPU")};
  if (job.mem_per_node_mb > 0) each.push_back(absl::StrCat(job.mem_per_node_mb, " MB"));
  if (job.gpus_per_node > 0) each.push_back(GpuText(view, job.gpus_per_node, job.gpu_type));
  if (job.shares_per_node > 0) each.push_back(ShareText(job, job.shares_per_node));
  return absl::StrCat(Plural(job.num_nodes, "node"), " with ", absl::StrJoin(each, ", "),
                      job.num_nodes == 1 ? "" : " each", " for ", Duration(job.time_limit),
                      " in partition ", view.partitions[job.partition].name);
}

std::string When(const ExplainRequest& request, int64_t start) {
  if (start <= request.now) return "now";
  return absl::StrCat("at ", request.format_time(start));
}

// The running jobs on the nodes the job could use, latest end first out.
std::string BusyNodes(const ExplainRequest& request) {
  const ClusterView& view = *request.view;
  const PendingJob& job = request.job;
  std::map<int32_t, std::pair<int64_t, uint64_t>> busy_until;  // node -> (end, job)
  const SchedPartition& partition = view.partitions[job.partition];
  for (const RunningJob& running : view.running) {
    for (int32_t n : running.nodes) {
      if (std::find(partition.nodes.begin(), partition.nodes.end(), n) == partition.nodes.end() ||
          !NodeCouldHold(view.nodes[n], n, job)) {
        continue;
      }
      auto& [end, holder] = busy_until[n];
      if (running.ExpectedEnd() >= end) {
        end = running.ExpectedEnd();
        holder = running.id;
      }
    }
  }
  if (busy_until.empty()) return "";
  std::vector<std::string> named;
  for (const auto& [n, until] : busy_until) {
    if (named.size() == kNodesNamed) break;
    named.push_back(absl::StrCat(view.nodes[n].name, " until ",
                                 until.first == kNever ? std::string("its jobs end (no time limit)")
                                                       : request.format_time(until.first),
                                 " (job ", until.second, ")"));
  }
  std::string text = absl::StrCat(" Its nodes are busy: ", absl::StrJoin(named, ", "));
  if (busy_until.size() > named.size()) {
    absl::StrAppend(&text, ", and ", busy_until.size() - named.size(), " more");
  }
  return text + ".";
}

}  // namespace

std::string PlainReason(const std::string& reason) {
  static const std::map<std::string, std::string> kWords = {
      {"Resources", "the nodes it could use are busy"},
      {"Priority", "jobs ahead of it in the queue take the free resources first"},
      {"Dependency", "it waits for the jobs it depends on"},
      {"DependencyNeverSatisfied", "a job it depends on ended in a way that will never satisfy it"},
      {"BeginTime", "its --begin time has not come"},
      {"JobHeldUser", "it is held (scontrol release lets it run)"},
      {"JobHeldAdmin", "an operator holds it"},
      {"ReqNodeNotAvail", "nodes it needs are down, drained or reserved"},
      {"PartitionDown", "its partition is DOWN"},
      {"PartitionInactive", "its partition is INACTIVE"},
      {"PartitionTimeLimit", "its time limit is over the partition's MaxTime"},
      {"PartitionNodeLimit", "it asks for more nodes than the partition's MaxNodes"},
      {"PartitionConfig", "its account, group or QOS may not use the partition"},
      {"BadConstraints", "no node of its partition could ever hold it"},
      {"AssocGrpBillingMinutes", "its account's budget (GrpTRESMins=billing) has too little left"},
      {"AssocGrpGRESMinutes",
       "its account's GPU-minutes budget (GrpTRESMins=gres/gpu) has too "
       "little left for the most it may use"},
      {"AssocGrpCPUMinutesLimit", "its account's CPU-minutes budget has too little left"},
      {"AssocGrpMemMinutes", "its account's memory budget has too little left"},
      {"AssocGrpNodeMinutes", "its account's node-minutes budget has too little left"},
      {"AssocMaxJobsLimit", "its user already runs MaxJobs jobs in this account"},
      {"AssocGrpJobsLimit", "its account already runs GrpJobs jobs"},
      {"AssocGrpGRES", "its account's running jobs hold all the GPUs GrpTRES allows"},
      {"AssocGrpCpuLimit", "its account's running jobs hold all the CPUs GrpTRES allows"},
      {"AssocGrpMemLimit", "its account's running jobs hold all the memory GrpTRES allows"},
      {"AssocGrpNodeLimit", "its account's running jobs hold all the nodes GrpTRES allows"},
      {"QOSMaxGRESPerUser", "its user's running jobs hold all the GPUs its QOS allows a user"},
      {"QOSMaxCpuPerUserLimit", "its user's running jobs hold all the CPUs its QOS allows a user"},
      {"QOSMaxJobsPerUserLimit", "its user already runs as many jobs as its QOS allows"},
      {"QOSMaxGRESPerJob", "it asks for more GPUs than its QOS allows a job"},
      {"QOSMaxWallDurationPerJobLimit", "its time limit is over its QOS's MaxWall"},
  };
  auto it = kWords.find(reason);
  if (it != kWords.end()) return it->second;
  // The run-minute and per-job TRES-minute limits (budget.h), by family.
  const struct {
    MinutesLimit limit;
    const char* words;
  } families[] = {
      {MinutesLimit::kAssocGrpRunMins,
       "its account's running jobs, held until their time limits, leave too little of its "
       "GrpTRESRunMins for this job's whole time limit"},
      {MinutesLimit::kQosGrpRunMins,
       "its QOS's running jobs, held until their time limits, leave too little of the QOS's "
       "GrpTRESRunMins for this job"},
      {MinutesLimit::kQosMaxRunMinsPerUser,
       "its user's running jobs in its QOS, held until their time limits, leave too little of "
       "MaxTRESRunMinsPerUser for this job (a shorter time limit or fewer GPUs may fit)"},
      {MinutesLimit::kQosMaxMinsPerJob,
       "what it holds times its time limit is over its QOS's MaxTRESMinsPerJob (a shorter time "
       "limit or fewer GPUs would fit)"},
  };
  for (const auto& family : families) {
    for (BudgetTres t : kBudgetTres) {
      if (reason == MinutesLimitReason(family.limit, t)) return family.words;
    }
  }
  return "";
}

std::string ExplainPending(const ExplainRequest& request) {
  const ClusterView& view = *request.view;
  const PendingJob& job = request.job;
  std::string text = absl::StrCat("Job ", job.id, " (", request.name, ") is pending");
  const std::string words = PlainReason(request.reason);
  if (request.reason.empty() || request.reason == "None") {
    absl::StrAppend(&text, " until the next scheduling pass looks at it.");
  } else if (!words.empty()) {
    absl::StrAppend(&text, " (", request.reason, "): ", words, ".");
  } else {
    absl::StrAppend(&text, " (", request.reason, ").");
  }
  if (!request.reason_detail.empty()) absl::StrAppend(&text, " ", request.reason_detail, ".");
  if (job.partition < 0 || static_cast<size_t>(job.partition) >= view.partitions.size()) {
    return text;
  }
  absl::StrAppend(&text, " It asks for ", Asks(view, job), ".");
  absl::StrAppend(&text, BusyNodes(request));

  const StartEstimate estimate = EarliestStart(view, job, request.now);
  if (estimate.start == kNever) {
    absl::StrAppend(&text,
                    " It cannot start on what its partition has, even once the running jobs end"
                    " (or they have no time limit to plan with).");
  } else {
    absl::StrAppend(&text, " If no job ahead of it took them first, it would start ",
                    When(request, estimate.start), ".");
  }
  if (estimate.start <= request.now) return text;

  // What would start it sooner, each alone.
  std::vector<std::pair<int64_t, std::string>> sooner;
  auto consider = [&](const PendingJob& variant, std::string change) {
    const StartEstimate other = EarliestStart(view, variant, request.now);
    if (other.start < estimate.start) sooner.emplace_back(other.start, std::move(change));
  };
  if (job.gpus_per_node > 1) {
    PendingJob fewer = job;
    fewer.gpus_per_node = job.gpus_per_node - 1;
    consider(fewer, absl::StrCat("with ", GpuText(view, fewer.gpus_per_node, kNone), " per node"));
  }
  if (job.shares_per_node > 1) {
    PendingJob fewer = job;
    fewer.shares_per_node = job.shares_per_node - 1;
    consider(fewer, absl::StrCat("with ", ShareText(job, fewer.shares_per_node), " per node"));
  }
  if (job.gpus_per_node > 0) {
    for (size_t t = 0; t < view.gpu_types.size(); ++t) {
      if (static_cast<int32_t>(t) == job.gpu_type) continue;
      PendingJob typed = job;
      typed.gpu_type = static_cast<int32_t>(t);
      consider(typed, absl::StrCat("on ", view.gpu_types[t], " GPUs"));
    }
  }
  for (size_t p = 0; p < view.partitions.size(); ++p) {
    if (static_cast<int32_t>(p) == job.partition) continue;
    PendingJob moved = job;
    moved.partition = static_cast<int32_t>(p);
    moved.nodelist.clear();
    if (PartitionRefuses(view.partitions[p], moved) != WaitReason::kNone) continue;
    consider(moved, absl::StrCat("in partition ", view.partitions[p].name));
  }
  std::sort(sooner.begin(), sooner.end());
  if (sooner.empty()) return text;
  std::vector<std::string> options;
  for (const auto& [start, change] : sooner) {
    if (options.size() == 3) break;
    options.push_back(absl::StrCat(change, " (", When(request, start), ")"));
  }
  absl::StrAppend(&text, " It would start sooner ", absl::StrJoin(options, ", or "), ".");
  return text;
}

}  // namespace skiff::ctld
