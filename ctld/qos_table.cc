#include "ctld/qos_table.h"

#include <algorithm>
#include <cctype>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "ctld/core/scheduler/from_ctld.h"

namespace skiff {
namespace {

absl::Status Invalid(const std::string& message) { return absl::InvalidArgumentError(message); }

bool ValidName(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
  });
}

void SetUnlimited(v1::Tres* tres) {
  tres->set_cpu(kNoLimit);
  tres->set_mem_mb(kNoLimit);
  tres->set_node(kNoLimit);
  tres->set_gpu(kNoLimit);
}

absl::Status MergeTres(const char* field, const v1::Tres& change, v1::Tres* tres) {
  for (auto [has, value] :
       {std::pair{change.has_cpu(), change.cpu()}, std::pair{change.has_mem_mb(), change.mem_mb()},
        std::pair{change.has_node(), change.node()}, std::pair{change.has_gpu(), change.gpu()}}) {
    if (has && value < kNoLimit) return Invalid(absl::StrCat(field, ": negative limit"));
  }
  if (change.has_cpu()) tres->set_cpu(change.cpu());
  if (change.has_mem_mb()) tres->set_mem_mb(change.mem_mb());
  if (change.has_node()) tres->set_node(change.node());
  if (change.has_gpu()) tres->set_gpu(change.gpu());
  return absl::OkStatus();
}

absl::Status ApplyChanges(const v1::QosChanges& c, const QosTable& table,
                          const std::vector<std::string>& new_names, v1::QosInfo* q) {
  if (c.has_description()) q->set_description(c.description());
  if (c.has_priority()) {
    if (c.priority() < 0) return Invalid("Priority: must be 0 or more");
    q->set_priority(c.priority());
  }
  if (absl::Status s =
          MergeTres("MaxTRESPerUser", c.max_tres_per_user(), q->mutable_max_tres_per_user());
      !s.ok()) {
    return s;
  }
  if (absl::Status s =
          MergeTres("MaxTRESPerJob", c.max_tres_per_job(), q->mutable_max_tres_per_job());
      !s.ok()) {
    return s;
  }
  auto limit = [](const char* field, int64_t value, auto setter) -> absl::Status {
    if (value < kNoLimit) return Invalid(absl::StrCat(field, ": must be -1 (none) or more"));
    setter(value);
    return absl::OkStatus();
  };
  if (c.has_max_jobs_per_user()) {
    if (auto s = limit("MaxJobsPerUser", c.max_jobs_per_user(),
                       [&](int64_t v) { q->set_max_jobs_per_user(v); });
        !s.ok())
      return s;
  }
  if (c.has_max_submit_jobs_per_user()) {
    if (auto s = limit("MaxSubmitJobsPerUser", c.max_submit_jobs_per_user(),
                       [&](int64_t v) { q->set_max_submit_jobs_per_user(v); });
        !s.ok())
      return s;
  }
  if (c.has_max_wall()) {
    if (auto s = limit("MaxWall", c.max_wall(), [&](int64_t v) { q->set_max_wall(v); }); !s.ok())
      return s;
  }
  if (c.has_grace_time()) {
    if (c.grace_time() < 0) return Invalid("GraceTime: must be 0 or more");
    q->set_grace_time(c.grace_time());
  }
  if (c.has_usage_factor()) {
    if (c.usage_factor() < 0) return Invalid("UsageFactor: must be 0 or more");
    q->set_usage_factor(c.usage_factor());
  }
  if (c.has_preempt_mode()) {
    const std::string mode = absl::AsciiStrToLower(c.preempt_mode());
    if (mode == "cluster") {
      q->set_preempt_mode("cluster");
    } else if (mode == "off" || mode == "cancel" || mode == "requeue") {
      q->set_preempt_mode(absl::AsciiStrToUpper(mode));
    } else {
      return Invalid(absl::StrCat("PreemptMode: unknown mode '", c.preempt_mode(),
                                  "' (expected OFF, CANCEL, REQUEUE or Cluster)"));
    }
  }
  if (c.has_preempt()) {
    std::vector<std::string> names;
    for (absl::string_view part : absl::StrSplit(c.preempt(), ',', absl::SkipWhitespace())) {
      std::string name(absl::StripAsciiWhitespace(part));
      if (table.count(name) == 0 &&
          std::find(new_names.begin(), new_names.end(), name) == new_names.end()) {
        return Invalid(absl::StrCat("Preempt: no such QOS '", name, "'"));
      }
      if (name == q->name()) return Invalid("Preempt: a QOS cannot preempt itself");
      names.push_back(name);
    }
    std::vector<std::string> list(q->preempt().begin(), q->preempt().end());
    const std::string op = c.preempt_op().empty() ? "=" : c.preempt_op();
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
    q->clear_preempt();
    for (const std::string& n : list) q->add_preempt(n);
  }
  return absl::OkStatus();
}

}  // namespace

v1::QosInfo DefaultQosInfo(const std::string& name) {
  v1::QosInfo q;
  q.set_name(name);
  SetUnlimited(q.mutable_max_tres_per_user());
  SetUnlimited(q.mutable_max_tres_per_job());
  q.set_max_jobs_per_user(kNoLimit);
  q.set_max_submit_jobs_per_user(kNoLimit);
  q.set_max_wall(kNoLimit);
  q.set_preempt_mode("cluster");
  q.set_usage_factor(1.0);
  return q;
}

std::vector<v1::QosInfo> QosInIdOrder(const QosTable& table) {
  std::vector<v1::QosInfo> rows;
  for (const auto& [name, info] : table) rows.push_back(info);
  // Stable over the name order the map gives: equal ids (0, rows older than
  // ids) stay by name.
  std::stable_sort(rows.begin(), rows.end(),
                   [](const v1::QosInfo& a, const v1::QosInfo& b) { return a.id() < b.id(); });
  return rows;
}

absl::StatusOr<QosUpdateResult> ApplyQosUpdate(const QosTable& table,
                                               const v1::UpdateQosRequest& request,
                                               const std::vector<std::string>& in_use) {
  if (request.names().empty()) return Invalid("Name: no QOS named");
  std::vector<std::string> names;
  for (const std::string& raw : request.names()) {
    const std::string name = absl::AsciiStrToLower(absl::StripAsciiWhitespace(raw));
    if (!ValidName(name)) return Invalid(absl::StrCat("Name: invalid QOS name '", raw, "'"));
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  QosUpdateResult result;
  switch (request.op()) {
    case v1::UpdateQosRequest::ADD: {
      // Slurm numbers QOS as they are added (in the order the request names
      // them), and lists them so.
      uint32_t next_id = 1;
      for (const auto& [name, info] : table) next_id = std::max(next_id, info.id() + 1);
      for (const std::string& name : names) {
        if (table.count(name) > 0) {
          return absl::AlreadyExistsError(absl::StrCat("QOS '", name, "' already exists"));
        }
        v1::QosInfo q = DefaultQosInfo(name);
        q.set_id(next_id++);
        if (absl::Status s = ApplyChanges(request.changes(), table, names, &q); !s.ok()) return s;
        result.put.push_back(std::move(q));
        result.affected.push_back(name);
      }
      return result;
    }
    case v1::UpdateQosRequest::MODIFY:
      for (const std::string& name : names) {
        auto it = table.find(name);
        if (it == table.end())
          return absl::NotFoundError(absl::StrCat("QOS '", name, "' does not exist"));
        v1::QosInfo q = it->second;
        if (absl::Status s = ApplyChanges(request.changes(), table, {}, &q); !s.ok()) return s;
        result.put.push_back(std::move(q));
        result.affected.push_back(name);
      }
      return result;
    case v1::UpdateQosRequest::DELETE:
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
      for (const auto& [other, info] : table) {
        if (std::find(names.begin(), names.end(), other) != names.end()) continue;
        v1::QosInfo q = info;
        bool changed = false;
        q.clear_preempt();
        for (const std::string& p : info.preempt()) {
          if (std::find(names.begin(), names.end(), p) != names.end()) {
            changed = true;
          } else {
            q.add_preempt(p);
          }
        }
        if (changed) result.put.push_back(std::move(q));
      }
      return result;
    default:
      return Invalid("sacctmgr: no operation (add, modify or delete)");
  }
}

Qos ToSchedQos(const v1::QosInfo& info) {
  Qos q;
  q.name = info.name();
  q.priority = info.priority();
  auto tres = [](const v1::Tres& t) {
    TresCaps l;
    l.cpus = t.has_cpu() ? t.cpu() : kNoLimit;
    l.mem_mb = t.has_mem_mb() ? t.mem_mb() : kNoLimit;
    l.nodes = t.has_node() ? t.node() : kNoLimit;
    l.gpus = t.has_gpu() ? t.gpu() : kNoLimit;
    return l;
  };
  q.max_tres_per_user = tres(info.max_tres_per_user());
  q.max_tres_per_job = tres(info.max_tres_per_job());
  q.max_jobs_per_user = info.max_jobs_per_user();
  q.max_submit_jobs_per_user = info.max_submit_jobs_per_user();
  q.max_wall = info.max_wall();
  q.usage_factor = info.usage_factor();
  q.preempt_mode = ParsePreemptMode(info.preempt_mode());
  q.grace_time = info.grace_time();
  return q;
}

std::vector<Qos> ToSchedQosTable(const QosTable& table) {
  std::vector<Qos> out;
  std::map<std::string, int32_t> index;
  for (const auto& [name, info] : table) {
    index[name] = static_cast<int32_t>(out.size());
    out.push_back(ToSchedQos(info));
  }
  size_t i = 0;
  for (const auto& [name, info] : table) {
    for (const std::string& p : info.preempt()) {
      auto it = index.find(p);
      if (it != index.end()) out[i].preempt.push_back(it->second);
    }
    ++i;
  }
  return out;
}

}  // namespace skiff
