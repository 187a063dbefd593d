// The Controller's QOS table: sacctmgr's add/modify/delete/show qos, stored as
// v1::QosInfo rows in the job store's `records` table (kind "qos").
#include <algorithm>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ctld/controller.h"

namespace skiff {
namespace {
constexpr char kQosKind[] = "qos";
constexpr char kUsageKind[] = "usage";
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
  absl::StatusOr<std::map<std::string, std::string>> usage = store_.LoadRecords(kUsageKind);
  if (!usage.ok()) return usage.status();
  std::map<std::string, UserUsageRecord> records;
  for (const auto& [user, text] : *usage) {
    // "USAGE AS_OF SHARES"; a row that does not parse is dropped (usage only
    // shapes priority; it is never worth refusing to start over).
    UserUsageRecord record;
    if (sscanf(text.c_str(), "%lf %ld %lf", &record.usage, &record.as_of, &record.shares) >= 2) {
      records[user] = record;
    }
  }
  absl::MutexLock lock(&mu_);
  qos_ = std::move(table);
  usage_ = std::move(records);
  return absl::OkStatus();
}

void Controller::AccrueUsageLocked(const Job& job, Effects& effects) {
  if (job.start_time <= 0 || job.end_time <= job.start_time || job.nodes.empty()) return;
  const double cpu_seconds = static_cast<double>(job.cpus_per_node) *
                             static_cast<double>(job.nodes.size()) *
                             static_cast<double>(job.end_time - job.start_time);
  auto qos = qos_.find(job.qos);
  const double factor = qos == qos_.end() ? 1.0 : qos->second.usage_factor();
  UserUsageRecord& record = usage_[job.user_name];
  record.usage = AccrueUsage(record.usage, record.as_of, cpu_seconds, factor, job.end_time,
                             scheduler_options_.weights.decay_half_life);
  record.as_of = job.end_time;
  const std::string text = absl::StrCat(record.usage, " ", record.as_of, " ", record.shares);
  effects.actions.push_back([this, user = job.user_name, text] {
    if (absl::Status s = store_.PutRecord(kUsageKind, user, text); !s.ok()) {
      logger_.warn("fair-share usage of {} not saved: {}", user, std::string(s.message()));
    }
  });
}

UserUsageRecord Controller::UserUsage(const std::string& user) {
  absl::MutexLock lock(&mu_);
  auto it = usage_.find(user);
  return it == usage_.end() ? UserUsageRecord{} : it->second;
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
