#include "ctld/core/accounting/qos.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "ctld/core/scheduler/from_ctld.h"

namespace skiff::ctld {
namespace {

absl::Status Invalid(const std::string& message) { return absl::InvalidArgumentError(message); }

bool ValidName(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
  });
}

TresSpec Unlimited() { return TresSpec{kNoLimit, kNoLimit, kNoLimit, kNoLimit}; }

absl::Status MergeTres(const char* field, const TresSpec& change, TresSpec* tres) {
  for (const std::optional<int64_t>& value : {change.cpu, change.mem_mb, change.node, change.gpu}) {
    if (value && *value < kNoLimit) return Invalid(absl::StrCat(field, ": negative limit"));
  }
  if (change.cpu) tres->cpu = change.cpu;
  if (change.mem_mb) tres->mem_mb = change.mem_mb;
  if (change.node) tres->node = change.node;
  if (change.gpu) tres->gpu = change.gpu;
  return absl::OkStatus();
}

absl::Status ApplyChanges(const QosChanges& c, const QosTable& table,
                          const std::vector<std::string>& new_names, QosDefinition* q) {
  if (c.description) q->description = *c.description;
  if (c.priority) {
    if (*c.priority < 0) return Invalid("Priority: must be 0 or more");
    q->priority = *c.priority;
  }
  if (absl::Status s = MergeTres("MaxTRESPerUser", c.max_tres_per_user, &q->max_tres_per_user);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = MergeTres("MaxTRESPerJob", c.max_tres_per_job, &q->max_tres_per_job);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = MergeTres("GrpTRESRunMins", c.grp_tres_run_mins, &q->grp_tres_run_mins);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = MergeTres("MaxTRESRunMinsPerUser", c.max_tres_run_mins_per_user,
                                 &q->max_tres_run_mins_per_user);
      !s.ok()) {
    return s;
  }
  if (absl::Status s =
          MergeTres("MaxTRESMinsPerJob", c.max_tres_mins_per_job, &q->max_tres_mins_per_job);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = MergeTres("GrpTRESMins", c.grp_tres_mins, &q->grp_tres_mins); !s.ok()) {
    return s;
  }
  auto limit = [](const char* field, int64_t value, int64_t* out) -> absl::Status {
    if (value < kNoLimit) return Invalid(absl::StrCat(field, ": must be -1 (none) or more"));
    *out = value;
    return absl::OkStatus();
  };
  if (c.max_jobs_per_user) {
    if (auto s = limit("MaxJobsPerUser", *c.max_jobs_per_user, &q->max_jobs_per_user); !s.ok())
      return s;
  }
  if (c.max_submit_jobs_per_user) {
    if (auto s = limit("MaxSubmitJobsPerUser", *c.max_submit_jobs_per_user,
                       &q->max_submit_jobs_per_user);
        !s.ok())
      return s;
  }
  if (c.max_wall) {
    if (auto s = limit("MaxWall", *c.max_wall, &q->max_wall); !s.ok()) return s;
  }
  if (c.grace_time) {
    if (*c.grace_time < 0) return Invalid("GraceTime: must be 0 or more");
    q->grace_time = *c.grace_time;
  }
  if (c.usage_factor) {
    if (*c.usage_factor < 0) return Invalid("UsageFactor: must be 0 or more");
    q->usage_factor = *c.usage_factor;
  }
  if (c.preempt_mode) {
    const std::string mode = absl::AsciiStrToLower(*c.preempt_mode);
    if (mode == "cluster") {
      q->preempt_mode = "cluster";
    } else if (mode == "off" || mode == "cancel" || mode == "requeue") {
      q->preempt_mode = absl::AsciiStrToUpper(mode);
    } else {
      return Invalid(absl::StrCat("PreemptMode: unknown mode '", *c.preempt_mode,
                                  "' (expected OFF, CANCEL, REQUEUE or Cluster)"));
    }
  }
  if (c.preempt) {
    std::vector<std::string> names;
    for (absl::string_view part : absl::StrSplit(*c.preempt, ',', absl::SkipWhitespace())) {
      std::string name(absl::StripAsciiWhitespace(part));
      if (table.count(name) == 0 &&
          std::find(new_names.begin(), new_names.end(), name) == new_names.end()) {
        return Invalid(absl::StrCat("Preempt: no such QOS '", name, "'"));
      }
      if (name == q->name) return Invalid("Preempt: a QOS cannot preempt itself");
      names.push_back(name);
    }
    std::vector<std::string> list = q->preempt;
    const std::string op = c.preempt_op.empty() ? "=" : c.preempt_op;
    if (op == "=") {
      list = names;
    } else if (op == "+=") {
      for (const std::string& n : names) {
        if (std::find(list.begin(), list.end(), n) == list.end()) list.push_back(n);
      }
    } else if (op == "-=") {
      for (const std::string& n : names)
        list.erase(std::remove(list.begin(), list.end(), n), list.end());
    } else {
      return Invalid(absl::StrCat("Preempt: unknown operator '", op, "'"));
    }
    q->preempt = std::move(list);
  }
  return absl::OkStatus();
}

}  // namespace

bool operator==(const QosDefinition& a, const QosDefinition& b) {
  return a.name == b.name && a.description == b.description && a.priority == b.priority &&
         a.max_tres_per_user == b.max_tres_per_user && a.max_tres_per_job == b.max_tres_per_job &&
         a.grp_tres_run_mins == b.grp_tres_run_mins &&
         a.max_tres_run_mins_per_user == b.max_tres_run_mins_per_user &&
         a.max_tres_mins_per_job == b.max_tres_mins_per_job && a.grp_tres_mins == b.grp_tres_mins &&
         a.max_jobs_per_user == b.max_jobs_per_user &&
         a.max_submit_jobs_per_user == b.max_submit_jobs_per_user && a.max_wall == b.max_wall &&
         a.preempt == b.preempt && a.preempt_mode == b.preempt_mode &&
         a.usage_factor == b.usage_factor && a.grace_time == b.grace_time && a.id == b.id;
}

QosDefinition QosWithDefaults(const std::string& name) {
  QosDefinition q;
  q.name = name;
  q.max_tres_per_user = Unlimited();
  q.max_tres_per_job = Unlimited();
  q.max_jobs_per_user = kNoLimit;
  q.max_submit_jobs_per_user = kNoLimit;
  q.max_wall = kNoLimit;
  q.preempt_mode = "cluster";
  q.usage_factor = 1.0;
  return q;
}

std::vector<QosDefinition> QosInIdOrder(const QosTable& table) {
  std::vector<QosDefinition> rows;
  for (const auto& [name, qos] : table) rows.push_back(qos);
  // Stable over the name order the map gives: equal ids (0, rows older than
  // ids) stay by name.
  std::stable_sort(rows.begin(), rows.end(),
                   [](const QosDefinition& a, const QosDefinition& b) { return a.id < b.id; });
  return rows;
}

const char* QosOpName(QosOp op) {
  switch (op) {
    case QosOp::kAdd:
      return "ADD";
    case QosOp::kModify:
      return "MODIFY";
    case QosOp::kDelete:
      return "DELETE";
    case QosOp::kUnspecified:
      return "OP_UNSPECIFIED";
  }
  return "OP_UNSPECIFIED";
}

absl::StatusOr<QosUpdateResult> ApplyQosUpdate(const QosTable& table, const QosUpdate& update,
                                               const std::vector<std::string>& in_use) {
  if (update.names.empty()) return Invalid("Name: no QOS named");
  std::vector<std::string> names;
  for (const std::string& raw : update.names) {
    const std::string name = absl::AsciiStrToLower(absl::StripAsciiWhitespace(raw));
    if (!ValidName(name)) return Invalid(absl::StrCat("Name: invalid QOS name '", raw, "'"));
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  QosUpdateResult result;
  switch (update.op) {
    case QosOp::kAdd: {
      // Slurm numbers QOS as they are added (in the order the request names
      // them), and lists them so.
      uint32_t next_id = 1;
      for (const auto& [name, qos] : table) next_id = std::max(next_id, qos.id + 1);
      for (const std::string& name : names) {
        if (table.count(name) > 0) {
          return absl::AlreadyExistsError(absl::StrCat("QOS '", name, "' already exists"));
        }
        QosDefinition q = QosWithDefaults(name);
        q.id = next_id++;
        if (absl::Status s = ApplyChanges(update.changes, table, names, &q); !s.ok()) return s;
        result.put.push_back(std::move(q));
        result.affected.push_back(name);
      }
      return result;
    }
    case QosOp::kModify:
      for (const std::string& name : names) {
        auto it = table.find(name);
        if (it == table.end())
          return absl::NotFoundError(absl::StrCat("QOS '", name, "' does not exist"));
        QosDefinition q = it->second;
        if (absl::Status s = ApplyChanges(update.changes, table, {}, &q); !s.ok()) return s;
        result.put.push_back(std::move(q));
        result.affected.push_back(name);
      }
      return result;
    case QosOp::kDelete:
      for (const std::string& name : names) {
        if (table.count(name) == 0) {
          return absl::NotFoundError(absl::StrCat("QOS '", name, "' does not exist"));
        }
        if (std::find(in_use.begin(), in_use.end(), name) != in_use.end()) {
          return absl::FailedPreconditionError(
              absl::StrCat("Job(s) active, cancel job(s) before removing QOS '", name, "'"));
        }
        result.deleted.push_back(name);
        result.affected.push_back(name);
      }
      // Other QOS that named a deleted one in Preempt lose it.
      for (const auto& [other, qos] : table) {
        if (std::find(names.begin(), names.end(), other) != names.end()) continue;
        QosDefinition q = qos;
        bool changed = false;
        q.preempt.clear();
        for (const std::string& p : qos.preempt) {
          if (std::find(names.begin(), names.end(), p) != names.end()) {
            changed = true;
          } else {
            q.preempt.push_back(p);
          }
        }
        if (changed) result.put.push_back(std::move(q));
      }
      return result;
    case QosOp::kUnspecified:
      break;
  }
  return Invalid("sacctmgr: no operation (add, modify or delete)");
}

Qos ToSchedQos(const QosDefinition& qos) {
  Qos q;
  q.name = qos.name;
  q.priority = qos.priority;
  auto tres = [](const TresSpec& t) {
    TresCaps l;
    l.cpus = t.cpu.value_or(kNoLimit);
    l.mem_mb = t.mem_mb.value_or(kNoLimit);
    l.nodes = t.node.value_or(kNoLimit);
    l.gpus = t.gpu.value_or(kNoLimit);
    return l;
  };
  q.max_tres_per_user = tres(qos.max_tres_per_user);
  q.max_tres_per_job = tres(qos.max_tres_per_job);
  auto minutes = [](const TresSpec& t) {
    TresMinutes l = kNoBudget;
    auto set = [](const std::optional<int64_t>& value, double* field) {
      if (value && *value >= 0) *field = static_cast<double>(*value);
    };
    set(t.cpu, &l.cpu);
    set(t.mem_mb, &l.mem);
    set(t.node, &l.node);
    set(t.gpu, &l.gpu);
    return l;
  };
  q.grp_tres_run_mins = minutes(qos.grp_tres_run_mins);
  q.max_tres_run_mins_per_user = minutes(qos.max_tres_run_mins_per_user);
  q.max_tres_mins_per_job = minutes(qos.max_tres_mins_per_job);
  q.grp_tres_mins = minutes(qos.grp_tres_mins);
  q.max_jobs_per_user = qos.max_jobs_per_user;
  q.max_submit_jobs_per_user = qos.max_submit_jobs_per_user;
  q.max_wall = qos.max_wall;
  q.usage_factor = qos.usage_factor;
  q.preempt_mode = ParsePreemptMode(qos.preempt_mode);
  q.grace_time = qos.grace_time;
  return q;
}

std::vector<Qos> ToSchedQosTable(const QosTable& table) {
  std::vector<Qos> out;
  std::map<std::string, int32_t> index;
  for (const auto& [name, qos] : table) {
    index[name] = static_cast<int32_t>(out.size());
    out.push_back(ToSchedQos(qos));
  }
  size_t i = 0;
  for (const auto& [name, qos] : table) {
    for (const std::string& p : qos.preempt) {
      auto it = index.find(p);
      if (it != index.end()) out[i].preempt.push_back(it->second);
    }
    ++i;
  }
  return out;
}

}  // namespace skiff::ctld
