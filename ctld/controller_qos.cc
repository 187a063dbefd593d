// The Controller's QOS table: sacctmgr's add/modify/delete/show qos, stored as
// v1::QosInfo rows in the job store's `records` table (kind "qos").
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ctld/controller.h"

namespace skiff {
namespace {
constexpr char kQosKind[] = "qos";
}  // namespace

absl::Status Controller::RecoverQos() {
  absl::StatusOr<std::map<std::string, std::string>> rows = store_.LoadRecords(kQosKind);
  if (!rows.ok()) return rows.status();
  QosTable table;
  for (const auto& [name, blob] : *rows) {
    v1::QosInfo info;
    if (!info.ParseFromString(blob)) {
      return absl::DataLossError(absl::StrCat("QOS record '", name, "' does not parse"));
    }
    table[name] = std::move(info);
  }
  if (table.empty()) {
    // A new database: Slurm's default QOS, so jobs without --qos have one.
    v1::QosInfo normal = DefaultQosInfo("normal");
    if (absl::Status s = store_.PutRecord(kQosKind, "normal", normal.SerializeAsString());
        !s.ok()) {
      return s;
    }
    table["normal"] = std::move(normal);
  }
  absl::MutexLock lock(&mu_);
  qos_ = std::move(table);
  return absl::OkStatus();
}

std::vector<v1::QosInfo> Controller::SnapshotQos(const std::vector<std::string>& names) {
  absl::MutexLock lock(&mu_);
  std::vector<v1::QosInfo> out;
  for (const auto& [name, info] : qos_) {
    if (names.empty() || std::find(names.begin(), names.end(), name) != names.end()) {
      out.push_back(info);
    }
  }
  return out;
}

std::vector<std::string> Controller::QosNames() {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> names;
  for (const auto& [name, info] : qos_) names.push_back(name);
  return names;
}

absl::StatusOr<std::vector<std::string>> Controller::UpdateQos(
    const Caller& caller, const v1::UpdateQosRequest& request) {
  if (!IsPrivileged(caller.uid)) {
    return absl::PermissionDeniedError(
        "Access/permission denied: only root, SlurmUser and operators change QOS");
  }
  std::lock_guard<std::mutex> writer(qos_write_mu_);
  QosTable table;
  std::vector<std::string> in_use;
  {
    absl::MutexLock lock(&mu_);
    table = qos_;
    for (const auto& [id, job] : jobs_) {
      if (!IsFinal(job.state)) in_use.push_back(job.qos);
    }
  }
  absl::StatusOr<QosUpdateResult> result = ApplyQosUpdate(table, request, in_use);
  if (!result.ok()) return result.status();
  // Durable first; the table changes only once every row is stored.
  for (const v1::QosInfo& row : result->put) {
    if (absl::Status s = store_.PutRecord(kQosKind, row.name(), row.SerializeAsString()); !s.ok())
      return s;
  }
  for (const std::string& name : result->deleted) {
    if (absl::Status s = store_.PutRecord(kQosKind, name, ""); !s.ok()) return s;
  }
  {
    absl::MutexLock lock(&mu_);
    for (const v1::QosInfo& row : result->put) qos_[row.name()] = row;
    for (const std::string& name : result->deleted) qos_.erase(name);
  }
  logger_.info("QOS {} by uid {}: {}", v1::UpdateQosRequest::Op_Name(request.op()), caller.uid,
               absl::StrJoin(result->affected, ","));
  RequestSchedule();  // limits changed: pending jobs may start
  return result->affected;
}

absl::Status Controller::CheckSubmitLimitsLocked(const Job& job, size_t count) {
  // The job's QOS and its partition's QOS both apply (Slurm's MaxSubmitJobsPerUser).
  std::vector<std::string> names = {job.qos};
  if (const PartitionConfig* p = config_.FindPartition(job.request.partition);
      p != nullptr && !p->qos.empty() && p->qos != job.qos) {
    names.push_back(p->qos);
  }
  for (const std::string& name : names) {
    auto it = qos_.find(name);
    if (it == qos_.end() || it->second.max_submit_jobs_per_user() < 0) continue;
    int64_t held = 0;
    for (const auto& [id, other] : jobs_) {
      if (!IsFinal(other.state) && other.uid == job.uid &&
          (other.qos == name ||
           (name != job.qos && other.request.partition == job.request.partition))) {
        ++held;
      }
    }
    if (held + static_cast<int64_t>(count) > it->second.max_submit_jobs_per_user()) {
      return absl::InvalidArgumentError(
          "Job violates accounting/QOS policy (job submit limit, user's size and/or time "
          "limits)");
    }
  }
  return absl::OkStatus();
}

}  // namespace skiff
