#include "ctld/core/triggers/trigger_table.h"

#include <algorithm>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/hostlist.h"

namespace skiff::ctld {
namespace {

// The stored form's version: the first field of every blob.
constexpr char kFormat[] = "t1";
constexpr size_t kFields = 15;

std::vector<std::string> Intersect(const std::vector<std::string>& wanted,
                                   const std::set<std::string>& happened,
                                   const std::vector<TriggerNodeView>& order) {
  // Slurm's bitmap2node_name: in node-table order.
  std::vector<std::string> out;
  for (const TriggerNodeView& node : order) {
    if (happened.count(node.name) == 0) continue;
    if (wanted.empty() || std::find(wanted.begin(), wanted.end(), node.name) != wanted.end()) {
      out.push_back(node.name);
    }
  }
  return out;
}

bool Overlaps(const std::vector<std::string>& nodes, const std::set<std::string>& happened) {
  return std::any_of(nodes.begin(), nodes.end(),
                     [&](const std::string& n) { return happened.count(n) > 0; });
}

}  // namespace

const char* TriggerResTypeName(TriggerResType type) {
  switch (type) {
    case TriggerResType::kJob:
      return "job";
    case TriggerResType::kNode:
      return "node";
    case TriggerResType::kSlurmctld:
      return "slurmctld";
    case TriggerResType::kSlurmdbd:
      return "slurmdbd";
    case TriggerResType::kDatabase:
      return "database";
    case TriggerResType::kFrontEnd:
      return "front_end";
    case TriggerResType::kOther:
      return "other";
  }
  return "unknown";
}

const char* TriggerTypeName(uint32_t type) {
  switch (type) {
    case trigger_type::kUp:
      return "up";
    case trigger_type::kDown:
      return "down";
    case trigger_type::kDrained:
      return "drained";
    case trigger_type::kFail:
      return "fail";
    case trigger_type::kIdle:
      return "idle";
    case trigger_type::kTime:
      return "time";
    case trigger_type::kFini:
      return "fini";
    case trigger_type::kReconfig:
      return "reconfig";
    default:
      return "unknown";
  }
}

bool Trigger::operator==(const Trigger& o) const {
  return EncodeTrigger(*this) == EncodeTrigger(o);
}

std::string EncodeTrigger(const Trigger& t) {
  // Tab-separated; strings C-escaped (so no tab or newline is left in them).
  return absl::StrJoin(
      {std::string(kFormat), absl::StrCat(t.id), absl::StrCat(static_cast<int>(t.res_type)),
       absl::CEscape(t.res_id), absl::StrCat(t.job_id), absl::StrCat(t.type),
       absl::StrCat(t.offset), absl::StrCat(t.flags), absl::StrCat(t.uid), absl::StrCat(t.gid),
       absl::CEscape(t.program), std::string(t.pulled ? "1" : "0"), absl::StrCat(t.fire_at),
       absl::CEscape(t.arg), absl::CEscape(absl::StrJoin(t.nodes, ","))},
      "\t");
}

absl::StatusOr<Trigger> DecodeTrigger(const std::string& blob) {
  const std::vector<std::string> f = absl::StrSplit(blob, '\t');
  auto bad = [&](const std::string& why) {
    return absl::DataLossError(absl::StrCat("trigger record does not parse (", why, "): ", blob));
  };
  if (f.size() != kFields || f[0] != kFormat) return bad("format");
  Trigger t;
  int res_type = 0, offset = 0;
  uint32_t flags = 0, uid = 0, gid = 0;
  std::string nodes;
  if (!absl::SimpleAtoi(f[1], &t.id) || !absl::SimpleAtoi(f[2], &res_type) ||
      !absl::CUnescape(f[3], &t.res_id) || !absl::SimpleAtoi(f[4], &t.job_id) ||
      !absl::SimpleAtoi(f[5], &t.type) || !absl::SimpleAtoi(f[6], &offset) ||
      !absl::SimpleAtoi(f[7], &flags) || !absl::SimpleAtoi(f[8], &uid) ||
      !absl::SimpleAtoi(f[9], &gid) || !absl::CUnescape(f[10], &t.program) ||
      (f[11] != "0" && f[11] != "1") || !absl::SimpleAtoi(f[12], &t.fire_at) ||
      !absl::CUnescape(f[13], &t.arg) || !absl::CUnescape(f[14], &nodes)) {
    return bad("a field");
  }
  if (res_type < 1 || res_type > 7) return bad("resource type");
  t.res_type = static_cast<TriggerResType>(res_type);
  t.offset = offset;
  t.flags = static_cast<uint16_t>(flags);
  t.uid = uid;
  t.gid = gid;
  t.pulled = f[11] == "1";
  if (!nodes.empty()) t.nodes = absl::StrSplit(nodes, ',');
  return t;
}

void TriggerTable::Load(std::vector<Trigger> triggers) {
  for (Trigger& t : triggers) {
    next_id_ = std::max(next_id_, t.id + 1);
    triggers_[t.id] = std::move(t);
  }
}

absl::StatusOr<Trigger> TriggerTable::Prepare(const TriggerRequest& request, uid_t uid, gid_t gid,
                                              const TriggerPolicy& policy,
                                              const TriggerWorld& world, bool program_ok) {
  const absl::Status denied = absl::PermissionDeniedError("Access/permission denied");
  // _slurm_rpc_trigger_set: validate_slurm_user() or allow_user_triggers.
  if (uid != 0 && uid != policy.slurm_user && !policy.allow_user_triggers) return denied;
  // trigger_set: a SlurmUser that is not root could not run the program as
  // anyone else, so only SlurmUser itself may set triggers then.
  if (policy.slurm_user != 0 && policy.slurm_user != uid) return denied;
  if (uid != 0 && static_cast<int64_t>(triggers_.size()) >= policy.max_count) {
    return absl::UnavailableError("Resource temporarily unavailable");
  }
  if (request.type == 0 || (request.type & ~trigger_type::kSupported) != 0 ||
      (request.res_type != TriggerResType::kJob && request.res_type != TriggerResType::kNode)) {
    return absl::InvalidArgumentError(
        "Skiff has no backup controller, slurmdbd, front end nodes or burst buffer triggers: "
        "only job and node events may be set");
  }
  Trigger t;
  t.res_type = request.res_type;
  t.type = request.type;
  t.offset = request.offset;
  t.flags = request.flags;
  t.uid = uid;
  t.gid = gid;
  t.program = request.program;
  if (request.res_type == TriggerResType::kJob) {
    uint64_t job_id = 0;
    if (!absl::SimpleAtoi(request.res_id, &job_id) || job_id == 0) {
      return absl::NotFoundError("Invalid job id specified");
    }
    auto it = world.jobs.find(job_id);
    if (it == world.jobs.end()) return absl::NotFoundError("Invalid job id specified");
    if (it->second.finished) {
      return absl::FailedPreconditionError("Job/step already completing or completed");
    }
    t.job_id = job_id;
    t.res_id = absl::StrCat(job_id);
  } else {
    t.res_id = request.res_id.empty() ? "*" : request.res_id;
    if (t.res_id[0] != '*') {
      absl::StatusOr<std::vector<std::string>> names = ExpandHostlist(t.res_id);
      if (!names.ok() || names->empty()) {
        return absl::InvalidArgumentError("Invalid node name specified");
      }
      for (const std::string& name : *names) {
        const bool known =
            std::any_of(world.nodes.begin(), world.nodes.end(),
                        [&](const TriggerNodeView& node) { return node.name == name; });
        if (!known) return absl::InvalidArgumentError("Invalid node name specified");
      }
      t.nodes = std::move(*names);
    }
  }
  // _duplicate_trigger: the same flags, resource, type, offset, user, program.
  for (const auto& [id, other] : triggers_) {
    if (other.flags == t.flags && other.res_type == t.res_type && other.type == t.type &&
        other.offset == t.offset && other.uid == t.uid && other.program == t.program &&
        other.res_id == t.res_id) {
      return absl::AlreadyExistsError("Duplicate event trigger");
    }
  }
  if (!program_ok) return denied;  // _validate_trigger
  t.id = next_id_++;
  return t;
}

void TriggerTable::Add(Trigger trigger) {
  next_id_ = std::max(next_id_, trigger.id + 1);
  triggers_[trigger.id] = std::move(trigger);
}

TriggerTable::ClearPlan TriggerTable::PlanClear(const ClearFilter& filter, uid_t uid) const {
  ClearPlan plan;
  if (filter.id == 0 && filter.job_id == 0 && !filter.user) {
    plan.status = absl::InvalidArgumentError("Invalid argument");
    return plan;
  }
  plan.status = absl::NotFoundError("No such process");  // Slurm's ESRCH
  for (const auto& [id, t] : triggers_) {
    if (filter.id != 0 && filter.id != id) continue;
    if (filter.job_id != 0 && filter.job_id != t.job_id) continue;
    if (filter.user && *filter.user != t.uid) continue;
    if (t.uid != uid && uid != 0) {
      plan.status = absl::PermissionDeniedError("Access/permission denied");
      continue;
    }
    plan.ids.push_back(id);
    plan.status = absl::OkStatus();
  }
  return plan;
}

void TriggerTable::Remove(const std::vector<uint32_t>& ids) {
  for (uint32_t id : ids) triggers_.erase(id);
}

std::vector<Trigger> TriggerTable::Visible() const {
  std::vector<Trigger> out;
  for (const auto& [id, t] : triggers_) {
    if (!t.pulled) out.push_back(t);
  }
  return out;
}

std::set<uint64_t> TriggerTable::JobIds() const {
  std::set<uint64_t> out;
  for (const auto& [id, t] : triggers_) {
    if (t.res_type == TriggerResType::kJob) out.insert(t.job_id);
  }
  return out;
}

TriggerTable::NodeEvents TriggerTable::Changes(const TriggerWorld& world) const {
  NodeEvents events;
  if (!previous_) return events;  // the first observation is the baseline
  for (const TriggerNodeView& node : world.nodes) {
    auto it = previous_->find(node.name);
    const NodeSample before = it != previous_->end() ? it->second : NodeSample{};
    if (node.down && !before.down) events.down.insert(node.name);
    if (!node.down && before.down) events.up.insert(node.name);
    if (node.drained() && !before.drained) events.drained.insert(node.name);
    if (node.fail && !before.fail) events.fail.insert(node.name);
  }
  return events;
}

void TriggerTable::Match(Trigger& t, const TriggerWorld& world, const NodeEvents& events,
                         int64_t now, bool* defunct, std::vector<std::string>* log) const {
  auto pull = [&](std::string arg, int64_t fire_at, const char* what) {
    t.pulled = true;
    t.fire_at = fire_at;
    t.arg = std::move(arg);
    log->push_back(absl::StrCat("trigger[", t.id, "] for ", TriggerResTypeName(t.res_type), " ",
                                t.arg, " ", what));
  };
  if (t.res_type == TriggerResType::kJob) {
    auto it = world.jobs.find(t.job_id);
    const TriggerJobView* job = it != world.jobs.end() ? &it->second : nullptr;
    const std::string id = absl::StrCat(t.job_id);
    if ((t.type & trigger_type::kFini) && (job == nullptr || job->finished)) {
      return pull(id, now + t.offset, "fini");
    }
    if (job == nullptr) {  // purged: its other events can no longer happen
      *defunct = true;
      return;
    }
    // A job that ended has its end time in the past: Slurm's time trigger fires
    // then too.
    if ((t.type & trigger_type::kTime) && !job->pending && job->end != 0 &&
        job->end - now <= -static_cast<int64_t>(t.offset)) {
      return pull(id, now, "time");
    }
    if ((t.type & trigger_type::kDown) && Overlaps(job->nodes, events.down)) {
      return pull(id, now + t.offset, "down");
    }
    if ((t.type & trigger_type::kFail) && Overlaps(job->nodes, events.fail)) {
      return pull(id, now + t.offset, "fail");
    }
    if ((t.type & trigger_type::kUp) && Overlaps(job->nodes, events.up)) {
      return pull(id, now + t.offset, "up");
    }
    return;
  }
  if (t.res_type != TriggerResType::kNode) return;
  struct Kind {
    uint32_t bit;
    const std::set<std::string>* happened;
    const char* name;
  };
  const Kind ordered[] = {{trigger_type::kDown, &events.down, "down"},
                          {trigger_type::kDrained, &events.drained, "drained"},
                          {trigger_type::kFail, &events.fail, "fail"}};
  for (const Kind& kind : ordered) {
    if ((t.type & kind.bit) == 0) continue;
    std::vector<std::string> hit = Intersect(t.nodes, *kind.happened, world.nodes);
    if (!hit.empty()) return pull(CompressHostlist(hit), now + t.offset, kind.name);
  }
  if (t.type & trigger_type::kIdle) {
    // Idle for at least --offset seconds (last_busy at or before now - offset).
    std::set<std::string> idle;
    for (const TriggerNodeView& node : world.nodes) {
      if (node.idle && node.last_busy <= now - t.offset) idle.insert(node.name);
    }
    std::vector<std::string> hit = Intersect(t.nodes, idle, world.nodes);
    if (!hit.empty()) return pull(CompressHostlist(hit), now, "idle");
  }
  if (t.type & trigger_type::kUp) {
    std::vector<std::string> hit = Intersect(t.nodes, events.up, world.nodes);
    if (!hit.empty()) return pull(CompressHostlist(hit), now + t.offset, "up");
  }
  if ((t.type & trigger_type::kReconfig) && world.reconfigured) {
    return pull("reconfig", now + t.offset, "reconfig");
  }
}

TriggerTable::Outcome TriggerTable::Observe(const TriggerWorld& world, int64_t now) {
  Outcome out;
  const NodeEvents events = Changes(world);
  std::vector<uint32_t> gone;
  for (auto& [id, t] : triggers_) {
    const std::string before = EncodeTrigger(t);
    bool defunct = false;
    if (!t.pulled) Match(t, world, events, now, &defunct, &out.log);
    if (defunct) {
      out.log.push_back(absl::StrCat("trigger[", id, "] for defunct job ", t.job_id));
      gone.push_back(id);
      continue;
    }
    if (t.pulled && t.fire_at <= now) {
      TriggerFiring firing;
      firing.trigger_id = id;
      firing.uid = t.uid;
      firing.gid = t.gid;
      firing.res_type = t.res_type;
      firing.type = t.type;
      // _trigger_run_program: the program's words split at blanks, then the
      // event's node names or job id.
      std::vector<std::string> words = absl::StrSplit(t.program, ' ', absl::SkipEmpty());
      firing.path = words.empty() ? t.program : words.front();
      for (size_t k = 1; k < words.size(); ++k) firing.argv.push_back(words[k]);
      firing.argv.push_back(t.arg);
      out.fired.push_back(std::move(firing));
      // A PERM node trigger waits for the next event; a job's event happens
      // once (its end, or a time that has passed), so its trigger goes.
      const bool rearm = (t.flags & kTriggerFlagPerm) != 0 &&
                         (t.res_type != TriggerResType::kJob ||
                          (t.type & (trigger_type::kFini | trigger_type::kTime)) == 0);
      if (!rearm) {
        gone.push_back(id);
        continue;
      }
      t.pulled = false;
      t.fire_at = 0;
      t.arg.clear();
    }
    if (EncodeTrigger(t) != before) out.changed.push_back(id);
  }
  for (uint32_t id : gone) {
    triggers_.erase(id);
    out.changed.push_back(id);
  }
  std::sort(out.changed.begin(), out.changed.end());
  std::map<std::string, NodeSample> samples;
  for (const TriggerNodeView& node : world.nodes) {
    samples[node.name] = NodeSample{node.down, node.drained(), node.fail};
  }
  previous_ = std::move(samples);
  return out;
}

}  // namespace skiff::ctld
