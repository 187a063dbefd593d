// The QOS table as sacctmgr edits it: rows are v1::QosInfo (what is stored in
// SQLite and shown by `sacctmgr show qos`), and ApplyQosUpdate turns one
// add/modify/delete request into the new rows, with Slurm's errors.
//
// Pure: no locks, no I/O. The Controller owns the table (under its mutex) and
// persists the rows ApplyQosUpdate returns before installing them.
#ifndef SKIFF_CTLD_QOS_TABLE_H_
#define SKIFF_CTLD_QOS_TABLE_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ctld/core/scheduler/types.h"
#include "proto/ctld.pb.h"

namespace skiff {

using QosTable = std::map<std::string, v1::QosInfo>;

// A QOS with Slurm's defaults: no limits, priority 0, UsageFactor 1,
// PreemptMode "cluster"; its id is left 0 for the caller.
v1::QosInfo DefaultQosInfo(const std::string& name);

// The rows in Slurm's order, by id (creation order), then by name.
std::vector<v1::QosInfo> QosInIdOrder(const QosTable& table);

struct QosUpdateResult {
  std::vector<v1::QosInfo> put;      // rows to store (added or changed)
  std::vector<std::string> deleted;  // rows to remove
  std::vector<std::string> affected;
};

// `in_use`: QOS names that pending or running jobs use (they cannot be deleted).
// Errors (InvalidArgument / AlreadyExists / NotFound / FailedPrecondition) name
// the field or the QOS.
absl::StatusOr<QosUpdateResult> ApplyQosUpdate(const QosTable& table,
                                               const v1::UpdateQosRequest& request,
                                               const std::vector<std::string>& in_use);

// The scheduler's view of one row (limits, priority, usage factor). Preempt
// lists are resolved to indices by the caller, which knows the table's order.
Qos ToSchedQos(const v1::QosInfo& info);

// The whole table for the scheduler, in name order, with Preempt= lists
// resolved to indices into the result.
std::vector<Qos> ToSchedQosTable(const QosTable& table);

}  // namespace skiff

#endif  // SKIFF_CTLD_QOS_TABLE_H_
