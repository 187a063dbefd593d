// The Controller's QOS table: sacctmgr's add/modify/delete/show qos, stored as
// v1::QosInfo rows in the job store's `records` table (kind "qos"). The core
// gets the scheduler's plain view of it (ToSchedQosTable) after every change.
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

absl::Status Controller::RecoverQos(std::map<std::string, UserUsageRecord>* usage_out) {
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
    normal.set_id(1);  // Slurm's id for its default QOS
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
  *usage_out = std::move(records);
  absl::MutexLock lock(&mu_);
  core_.SetQos(ToSchedQosTable(table));
  qos_ = std::move(table);
  return absl::OkStatus();
}

std::vector<v1::QosInfo> Controller::SnapshotQos(const std::vector<std::string>& names) {
  absl::MutexLock lock(&mu_);
  std::vector<v1::QosInfo> out;
  for (v1::QosInfo& info : QosInIdOrder(qos_)) {
    if (names.empty() || std::find(names.begin(), names.end(), info.name()) != names.end()) {
      out.push_back(std::move(info));
    }
  }
  return out;
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
    for (const auto& [id, job] : core_.jobs()) {
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
    core_.SetQos(ToSchedQosTable(qos_));
  }
  logger_.info("QOS {} by uid {}: {}", v1::UpdateQosRequest::Op_Name(request.op()), caller.uid,
               absl::StrJoin(result->affected, ","));
  RequestSchedule();  // limits changed: pending jobs may start
  return result->affected;
}

}  // namespace skiff
