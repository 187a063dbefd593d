// sacctmgr's QOS table: each QOS as it is defined, shown (`sacctmgr show qos`)
// and stored, and ApplyQosUpdate, which turns one add/modify/delete into the
// rows to store, with Slurm's errors. The scheduler sees a derived view of the
// table (ToSchedQosTable: limits resolved, Preempt= names as indices).
//
// Threads: none; pure functions over plain values (no locks, no I/O). The
// Controller owns the table under its mutex and stores the rows
// ApplyQosUpdate returns before it installs them.
#ifndef SKIFF_CTLD_CORE_ACCOUNTING_QOS_H_
#define SKIFF_CTLD_CORE_ACCOUNTING_QOS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ctld/core/accounting/tres_spec.h"
#include "ctld/core/scheduler/types.h"

namespace skiff::ctld {

// One QOS, every field sacctmgr shows. Limits are kNoLimit (-1) where there
// is none; QosWithDefaults gives a new QOS its defaults.
struct QosDefinition {
  std::string name;  // lower case
  std::string description;
  int64_t priority = 0;
  TresSpec max_tres_per_user;  // MaxTRESPerUser; unset or -1 = none
  TresSpec max_tres_per_job;   // MaxTRESPerJob (MaxTRES)
  // TRES-minutes limits (ctld/core/budget.h): GrpTRESRunMins,
  // MaxTRESRunMinsPerUser (MaxTRESRunMinsPU), MaxTRESMinsPerJob (MaxTRESMins).
  TresSpec grp_tres_run_mins;
  TresSpec max_tres_run_mins_per_user;
  TresSpec max_tres_mins_per_job;
  TresSpec grp_tres_mins;                       // GrpTRESMins: a budget over the QOS's jobs
  int64_t max_jobs_per_user = kNoLimit;         // MaxJobsPerUser
  int64_t max_submit_jobs_per_user = kNoLimit;  // MaxSubmitJobsPerUser
  int64_t max_wall = kNoLimit;                  // MaxWall, seconds
  std::vector<std::string> preempt;             // QOS this one may preempt (preempt/qos)
  // "cluster" (the cluster's PreemptMode), "OFF", "CANCEL" or "REQUEUE".
  std::string preempt_mode = "cluster";
  double usage_factor = 1.0;
  int64_t grace_time = 0;  // seconds
  // Slurm's QOS id: 1 for normal, then one more than the highest for each QOS
  // added; sacctmgr lists QOS in this order. 0 = a row stored before ids were
  // kept (listed first, by name).
  uint32_t id = 0;
};

bool operator==(const QosDefinition& a, const QosDefinition& b);
inline bool operator!=(const QosDefinition& a, const QosDefinition& b) { return !(a == b); }

// By name.
using QosTable = std::map<std::string, QosDefinition>;

// A QOS with Slurm's defaults: no limits (every TRES given as -1), priority 0,
// UsageFactor 1, PreemptMode "cluster"; its id is left 0 for the caller.
QosDefinition QosWithDefaults(const std::string& name);

// The rows in Slurm's order, by id (creation order), then by name.
std::vector<QosDefinition> QosInIdOrder(const QosTable& table);

// What sacctmgr add/modify sets. Unset = unchanged (modify) or the default (add).
struct QosChanges {
  std::optional<std::string> description;
  std::optional<int64_t> priority;
  TresSpec max_tres_per_user;  // per TRES: unset keeps, -1 clears
  TresSpec max_tres_per_job;
  TresSpec grp_tres_run_mins;
  TresSpec max_tres_run_mins_per_user;
  TresSpec max_tres_mins_per_job;
  TresSpec grp_tres_mins;
  std::optional<int64_t> max_jobs_per_user;
  std::optional<int64_t> max_submit_jobs_per_user;
  std::optional<int64_t> max_wall;
  // Preempt=a,b sets the list; Preempt+=a adds; Preempt-=a removes.
  std::optional<std::string> preempt;  // as written after '=', '+=' or '-='
  std::string preempt_op;              // "=", "+=" or "-="; "" = "="
  std::optional<std::string> preempt_mode;
  std::optional<double> usage_factor;
  std::optional<int64_t> grace_time;
};

enum class QosOp { kUnspecified, kAdd, kModify, kDelete };

// "ADD", "MODIFY", "DELETE", "OP_UNSPECIFIED" (the log's words).
const char* QosOpName(QosOp op);

// One sacctmgr add/modify/delete qos.
struct QosUpdate {
  QosOp op = QosOp::kUnspecified;
  std::vector<std::string> names;
  QosChanges changes;  // add and modify
};

struct QosUpdateResult {
  std::vector<QosDefinition> put;    // rows to store (added or changed)
  std::vector<std::string> deleted;  // rows to remove
  std::vector<std::string> affected;
};

// `in_use`: QOS names that pending or running jobs use (they cannot be deleted).
// Errors (InvalidArgument / AlreadyExists / NotFound / FailedPrecondition) name
// the field or the QOS.
absl::StatusOr<QosUpdateResult> ApplyQosUpdate(const QosTable& table, const QosUpdate& update,
                                               const std::vector<std::string>& in_use);

// The scheduler's view of one row (limits, priority, usage factor). Preempt
// lists are resolved to indices by the caller, which knows the table's order.
Qos ToSchedQos(const QosDefinition& qos);

// The whole table for the scheduler, in name order, with Preempt= lists
// resolved to indices into the result.
std::vector<Qos> ToSchedQosTable(const QosTable& table);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_ACCOUNTING_QOS_H_
