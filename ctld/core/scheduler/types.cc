#include "ctld/core/scheduler/types.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace skiff::ctld {
namespace {

bool InRange(int32_t index, size_t size) { return index >= 0 && static_cast<size_t>(index) < size; }

bool Contains(const std::vector<int32_t>& list, int32_t value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

}  // namespace

bool NodeCouldHold(const SchedNode& node, int32_t n, const PendingJob& job) {
  const Share want{job.cpus_per_node, static_cast<int64_t>(job.mem_per_node_mb), job.gpus_per_node,
                   0};
  const Share size{node.cpus, static_cast<int64_t>(node.memory_mb), node.gpu_count, 0};
  if (!ShareFits(want, size)) return false;
  if (job.shares_per_node > 0 &&
      (node.share_kind != job.share_kind ||
       std::none_of(node.gpu_shares.begin(), node.gpu_shares.end(),
                    [&](int32_t count) { return count >= job.shares_per_node; }))) {
    return false;
  }
  if (job.min_tmp_disk_mb > node.tmp_disk_mb) return false;
  if (!TopologyHolds(node.layout, job.min_topology)) return false;
  if (job.gpus_per_node > 0 && job.gpu_type != kNone && node.gpu_type != job.gpu_type) {
    return false;
  }
  for (int32_t feature : job.features) {
    if (!Contains(node.features, feature)) return false;
  }
  return !Contains(job.exclude, n);
}

const char* WaitReasonName(WaitReason reason) {
  switch (reason) {
    case WaitReason::kNone:
      return "None";
    case WaitReason::kPriority:
      return "Priority";
    case WaitReason::kResources:
      return "Resources";
    case WaitReason::kBeginTime:
      return "BeginTime";
    case WaitReason::kJobHeldUser:
      return "JobHeldUser";
    case WaitReason::kJobHeldAdmin:
      return "JobHeldAdmin";
    case WaitReason::kPartitionDown:
      return "PartitionDown";
    case WaitReason::kPartitionInactive:
      return "PartitionInactive";
    case WaitReason::kPartitionTimeLimit:
      return "PartitionTimeLimit";
    case WaitReason::kPartitionNodeLimit:
      return "PartitionNodeLimit";
    case WaitReason::kPartitionConfig:
      return "PartitionConfig";
    case WaitReason::kReqNodeNotAvail:
      return "ReqNodeNotAvail";
    case WaitReason::kBadConstraints:
      return "BadConstraints";
    case WaitReason::kInvalidQos:
      return "InvalidQOS";
    case WaitReason::kQosMaxWallDurationPerJobLimit:
      return "QOSMaxWallDurationPerJobLimit";
    case WaitReason::kQosMaxCpuPerJobLimit:
      return "QOSMaxCpuPerJobLimit";
    case WaitReason::kQosMaxMemoryPerJob:
      return "QOSMaxMemoryPerJob";
    case WaitReason::kQosMaxNodePerJobLimit:
      return "QOSMaxNodePerJobLimit";
    case WaitReason::kQosMaxGresPerJob:
      return "QOSMaxGRESPerJob";
    case WaitReason::kQosMaxJobsPerUserLimit:
      return "QOSMaxJobsPerUserLimit";
    case WaitReason::kQosMaxCpuPerUserLimit:
      return "QOSMaxCpuPerUserLimit";
    case WaitReason::kQosMaxMemoryPerUser:
      return "QOSMaxMemoryPerUser";
    case WaitReason::kQosMaxNodePerUserLimit:
      return "QOSMaxNodePerUserLimit";
    case WaitReason::kQosMaxGresPerUser:
      return "QOSMaxGRESPerUser";
    case WaitReason::kAssocMaxJobsLimit:
      return "AssocMaxJobsLimit";
    case WaitReason::kAssocGrpJobsLimit:
      return "AssocGrpJobsLimit";
    case WaitReason::kAssocGrpCpuLimit:
      return "AssocGrpCpuLimit";
    case WaitReason::kAssocGrpMemLimit:
      return "AssocGrpMemLimit";
    case WaitReason::kAssocGrpNodeLimit:
      return "AssocGrpNodeLimit";
    case WaitReason::kAssocGrpGres:
      return "AssocGrpGRES";
    case WaitReason::kAssocGrpBillingMinutes:
      return AssocGrpMinutesReason(BudgetTres::kBilling);
    case WaitReason::kAssocGrpCpuMinutes:
      return AssocGrpMinutesReason(BudgetTres::kCpu);
    case WaitReason::kAssocGrpMemMinutes:
      return AssocGrpMinutesReason(BudgetTres::kMem);
    case WaitReason::kAssocGrpNodeMinutes:
      return AssocGrpMinutesReason(BudgetTres::kNode);
    case WaitReason::kAssocGrpGresMinutes:
      return AssocGrpMinutesReason(BudgetTres::kGpu);
    case WaitReason::kReservation:
      return "Reservation";
    case WaitReason::kReservationDeleted:
      return "ReservationDeleted";
    case WaitReason::kLicenses:
      return "Licenses";
    default:
      break;
  }
  // The blocks of TRES-minutes reasons (MinutesWait).
  const auto value = static_cast<int>(reason);
  const struct {
    WaitReason first;
    MinutesLimit limit;
  } blocks[] = {
      {WaitReason::kAssocGrpBillingRunMinutes, MinutesLimit::kAssocGrpRunMins},
      {WaitReason::kQosGrpBillingRunMinutes, MinutesLimit::kQosGrpRunMins},
      {WaitReason::kQosMaxBillingRunMinsPerUser, MinutesLimit::kQosMaxRunMinsPerUser},
      {WaitReason::kQosMaxBillingMinutesPerJob, MinutesLimit::kQosMaxMinsPerJob},
      {WaitReason::kQosGrpBillingMinutes, MinutesLimit::kQosGrpMins},
  };
  for (const auto& block : blocks) {
    const int offset = value - static_cast<int>(block.first);
    if (offset >= 0 && offset < static_cast<int>(kBudgetTres.size())) {
      return MinutesLimitReason(block.limit, kBudgetTres[offset]);
    }
  }
  return "None";
}

WaitReason PartitionRefuses(const SchedPartition& partition, const PendingJob& job) {
  switch (partition.state) {
    case PartitionState::kUp:
    case PartitionState::kDrain:  // Slurm: queued jobs of a DRAIN partition still run
      break;
    case PartitionState::kDown:
      return WaitReason::kPartitionDown;
    case PartitionState::kInactive:
      return WaitReason::kPartitionInactive;
  }
  auto allows = [](const std::vector<int32_t>& list, int32_t value) {
    return list.empty() || std::find(list.begin(), list.end(), value) != list.end();
  };
  if (!allows(partition.allow_accounts, job.account) ||
      !allows(partition.allow_groups, job.group) || !allows(partition.allow_qos, job.qos)) {
    return WaitReason::kPartitionConfig;
  }
  if (partition.max_time != kNoLimit &&
      (job.time_limit == kNoLimit || job.time_limit > partition.max_time)) {
    return WaitReason::kPartitionTimeLimit;
  }
  if (partition.max_nodes != kNoLimit && job.num_nodes > partition.max_nodes) {
    return WaitReason::kPartitionNodeLimit;
  }
  return WaitReason::kNone;
}

WaitReason AssocGrpMinutes(BudgetTres tres) {
  switch (tres) {
    case BudgetTres::kBilling:
      return WaitReason::kAssocGrpBillingMinutes;
    case BudgetTres::kCpu:
      return WaitReason::kAssocGrpCpuMinutes;
    case BudgetTres::kMem:
      return WaitReason::kAssocGrpMemMinutes;
    case BudgetTres::kNode:
      return WaitReason::kAssocGrpNodeMinutes;
    case BudgetTres::kGpu:
      return WaitReason::kAssocGrpGresMinutes;
  }
  return WaitReason::kAssocGrpBillingMinutes;
}

WaitReason MinutesWait(MinutesLimit limit, BudgetTres tres) {
  WaitReason first = WaitReason::kAssocGrpBillingMinutes;
  switch (limit) {
    case MinutesLimit::kAssocGrpMins:
      return AssocGrpMinutes(tres);
    case MinutesLimit::kAssocGrpRunMins:
      first = WaitReason::kAssocGrpBillingRunMinutes;
      break;
    case MinutesLimit::kQosGrpRunMins:
      first = WaitReason::kQosGrpBillingRunMinutes;
      break;
    case MinutesLimit::kQosMaxRunMinsPerUser:
      first = WaitReason::kQosMaxBillingRunMinsPerUser;
      break;
    case MinutesLimit::kQosMaxMinsPerJob:
      first = WaitReason::kQosMaxBillingMinutesPerJob;
      break;
    case MinutesLimit::kQosGrpMins:
      first = WaitReason::kQosGrpBillingMinutes;
      break;
  }
  return static_cast<WaitReason>(static_cast<int>(first) + static_cast<int>(tres));
}

absl::Status ValidateView(const ClusterView& view) {
  for (const SchedNode& node : view.nodes) {
    if (node.cpus < 0 || node.gpu_count < 0) {
      return absl::InvalidArgumentError(absl::StrCat("node ", node.name, ": negative capacity"));
    }
    if (node.gpu_type != kNone && !InRange(node.gpu_type, view.gpu_types.size())) {
      return absl::InvalidArgumentError(absl::StrCat("node ", node.name, ": bad gpu type"));
    }
  }
  for (const SchedPartition& partition : view.partitions) {
    for (int32_t n : partition.nodes) {
      if (!InRange(n, view.nodes.size())) {
        return absl::InvalidArgumentError(
            absl::StrCat("partition ", partition.name, ": bad node index ", n));
      }
    }
    if (partition.qos != kNone && !InRange(partition.qos, view.qos.size())) {
      return absl::InvalidArgumentError(absl::StrCat("partition ", partition.name, ": bad QOS"));
    }
  }
  for (size_t a = 0; a < view.assocs.size(); ++a) {
    // Parents must exist and never loop back.
    int32_t up = view.assocs[a].parent;
    for (size_t steps = 0; up != kNone; ++steps) {
      if (!InRange(up, view.assocs.size()) || steps > view.assocs.size()) {
        return absl::InvalidArgumentError(absl::StrCat("association ", a, ": bad parent chain"));
      }
      up = view.assocs[up].parent;
    }
  }
  auto bad_licenses = [&](const std::vector<LicenseUse>& uses) {
    return std::any_of(uses.begin(), uses.end(), [&](const LicenseUse& use) {
      return !InRange(use.license, view.licenses.size()) || use.count < 0;
    });
  };
  for (const RunningJob& job : view.running) {
    if (bad_licenses(job.licenses)) {
      return absl::InvalidArgumentError(absl::StrCat("job ", job.id, ": bad license"));
    }
  }
  std::vector<int64_t> cpus(view.nodes.size(), 0);
  std::vector<uint64_t> mem(view.nodes.size(), 0);
  std::vector<std::vector<uint64_t>> owner(view.nodes.size());
  for (size_t n = 0; n < view.nodes.size(); ++n) owner[n].assign(view.nodes[n].gpu_count, 0);
  for (const RunningJob& job : view.running) {
    if (!InRange(job.user, view.users.size()) || !InRange(job.partition, view.partitions.size()) ||
        (job.qos != kNone && !InRange(job.qos, view.qos.size())) ||
        (job.assoc != kNone && !InRange(job.assoc, view.assocs.size()))) {
      return absl::InvalidArgumentError(
          absl::StrCat("job ", job.id, ": bad user/partition/QOS/association"));
    }
    if (!job.gpu_indices.empty() && job.gpu_indices.size() != job.nodes.size()) {
      return absl::InvalidArgumentError(absl::StrCat("job ", job.id, ": gpu_indices per node"));
    }
    for (size_t k = 0; k < job.nodes.size(); ++k) {
      const int32_t n = job.nodes[k];
      if (!InRange(n, view.nodes.size())) {
        return absl::InvalidArgumentError(absl::StrCat("job ", job.id, ": bad node index ", n));
      }
      cpus[n] += job.exclusive ? view.nodes[n].cpus : job.CpusOn(k);
      mem[n] += job.exclusive ? view.nodes[n].memory_mb : job.MemOn(k);
      if (cpus[n] > view.nodes[n].cpus || mem[n] > view.nodes[n].memory_mb) {
        return absl::InvalidArgumentError(
            absl::StrCat("node ", view.nodes[n].name, " over-allocated by job ", job.id));
      }
      if (job.gpu_indices.empty()) continue;
      for (int32_t g : job.gpu_indices[k]) {
        if (!InRange(g, owner[n].size())) {
          return absl::InvalidArgumentError(
              absl::StrCat("job ", job.id, ": no GPU ", g, " on ", view.nodes[n].name));
        }
        if (owner[n][g] != 0) {
          return absl::InvalidArgumentError(absl::StrCat("GPU ", g, " on ", view.nodes[n].name,
                                                         " held by jobs ", owner[n][g], " and ",
                                                         job.id));
        }
        owner[n][g] = job.id;
      }
    }
  }
  // Shares (shards, MPS): each within its GPU's, on a GPU no job holds whole.
  std::vector<std::vector<int32_t>> shares_used(view.nodes.size());
  for (size_t n = 0; n < view.nodes.size(); ++n) {
    shares_used[n].assign(view.nodes[n].gpu_shares.size(), 0);
    if (!view.nodes[n].gpu_shares.empty() &&
        view.nodes[n].gpu_shares.size() != static_cast<size_t>(view.nodes[n].gpu_count)) {
      return absl::InvalidArgumentError(
          absl::StrCat("node ", view.nodes[n].name, ": shares per GPU"));
    }
  }
  for (const RunningJob& job : view.running) {
    if (!job.shares.empty() && job.shares.size() != job.nodes.size()) {
      return absl::InvalidArgumentError(absl::StrCat("job ", job.id, ": shares per node"));
    }
    for (size_t k = 0; k < job.shares.size(); ++k) {
      const GpuShare& held = job.shares[k];
      if (held.count == 0) continue;
      const int32_t n = job.nodes[k];
      if (!InRange(held.gpu, shares_used[n].size()) || held.count < 0 || owner[n][held.gpu] != 0) {
        return absl::InvalidArgumentError(absl::StrCat("job ", job.id, ": no shares of GPU ",
                                                       held.gpu, " on ", view.nodes[n].name));
      }
      shares_used[n][held.gpu] += held.count;
      if (shares_used[n][held.gpu] > view.nodes[n].gpu_shares[held.gpu]) {
        return absl::InvalidArgumentError(absl::StrCat("GPU ", held.gpu, " on ", view.nodes[n].name,
                                                       " over-shared by job ", job.id));
      }
    }
  }
  return absl::OkStatus();
}

TaskShape ShapeOf(const PendingJob& job) {
  TaskShape shape;
  shape.min_nodes = std::max(job.num_nodes, 1);
  shape.gpus_per_node = job.gpus_per_node;
  shape.exclusive = job.exclusive;
  shape.contiguous = job.contiguous;
  if (job.ntasks <= 0) {
    shape.max_nodes = shape.want_nodes = shape.ntasks = shape.min_nodes;
    shape.cpus_per_task = std::max(job.cpus_per_node, 1);
    shape.mem_per_node_mb = job.mem_per_node_mb;
    return shape;
  }
  shape.ntasks = job.ntasks;
  // A node without a task is no use to the job (Slurm's choose_nodes).
  shape.max_nodes = job.max_nodes > 0 ? job.max_nodes : shape.min_nodes;
  shape.want_nodes = job.want_nodes > 0 ? job.want_nodes : shape.min_nodes;
  if (!job.overcommit) shape.max_nodes = std::min(shape.max_nodes, std::max(job.ntasks, 1));
  shape.max_nodes = std::max(shape.max_nodes, shape.min_nodes);
  shape.cpus_per_task = std::max(job.cpus_per_task, 1);
  shape.ntasks_per_node = job.ntasks_per_node;
  shape.min_cpus_per_node = job.min_cpus_per_node;
  shape.overcommit = job.overcommit;
  if (job.mem_per_cpu_mb > 0) {
    shape.mem_per_cpu_mb = job.mem_per_cpu_mb;
  } else {
    shape.mem_per_node_mb = job.mem_per_node_mb;
  }
  return shape;
}

int64_t MinJobCpus(const PendingJob& job) {
  if (job.ntasks <= 0) return static_cast<int64_t>(std::max(job.num_nodes, 1)) * job.cpus_per_node;
  return ShapeOf(job).MinCpus();
}

int64_t MinJobMemMb(const PendingJob& job) {
  if (job.ntasks > 0 && job.mem_per_cpu_mb > 0) {
    return MinJobCpus(job) * static_cast<int64_t>(job.mem_per_cpu_mb);
  }
  return static_cast<int64_t>(std::max(job.num_nodes, 1)) *
         static_cast<int64_t>(job.mem_per_node_mb);
}

int64_t MinJobGpus(const PendingJob& job) {
  return static_cast<int64_t>(std::max(job.num_nodes, 1)) * job.gpus_per_node;
}

}  // namespace skiff::ctld
