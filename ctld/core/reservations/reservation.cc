#include "ctld/core/reservations/reservation.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/hostlist.h"

namespace skiff::ctld {
namespace {

// Slurm's reservation_flags_string order.
struct FlagName {
  uint32_t flag;
  const char* name;
};
constexpr FlagName kFlagNames[] = {
    {kResvMaint, "MAINT"},
    {kResvFlex, "FLEX"},
    {kResvOverlap, "OVERLAP"},
    {kResvIgnoreJobs, "IGNORE_JOBS"},
    {kResvHourly, "HOURLY"},
    {kResvDaily, "DAILY"},
    {kResvWeekday, "WEEKDAY"},
    {kResvWeekend, "WEEKEND"},
    {kResvWeekly, "WEEKLY"},
    {kResvSpecNodes, "SPEC_NODES"},
    {kResvAllNodes, "ALL_NODES"},
    {kResvPartNodes, "PART_NODES"},
    {kResvTimeFloat, "TIME_FLOAT"},
    {kResvMagnetic, "MAGNETIC"},
    {kResvUserDelete, "USER_DELETE"},
};
// What an operator may set in Flags= (the others say how nodes were chosen).
constexpr uint32_t kUserFlags = kResvMaint | kResvFlex | kResvOverlap | kResvIgnoreJobs |
                                kResvRepeats | kResvMagnetic | kResvTimeFloat | kResvUserDelete;

// Days of 86400 seconds from the epoch, which was a Thursday.
class UtcCalendar final : public ResvCalendar {
 public:
  int64_t AddDays(int64_t t, int64_t days) const override { return t + days * kDaySeconds; }
  int WeekDay(int64_t t) const override {
    const int64_t day = t >= 0 ? t / kDaySeconds : (t - kDaySeconds + 1) / kDaySeconds;
    return static_cast<int>(((day + 4) % 7 + 7) % 7);
  }
};

// A repeating reservation's occurrences are counted in units after its
// first: hours for HOURLY, local days otherwise.
int64_t UnitStart(const AdvanceReservation& resv, int64_t unit, const ResvCalendar& calendar) {
  if (resv.HasFlag(kResvHourly)) return resv.start + unit * kHourSeconds;
  return calendar.AddDays(resv.start, unit);
}

// The occurrence `unit` units after the first; nullopt where that unit has
// none (WEEKLY's other days, WEEKDAY's weekends, WEEKEND's weekdays). As
// Slurm moves start and end on alike, the end moves by the same local days.
std::optional<ResvWindow> Occurrence(const AdvanceReservation& resv, int64_t unit,
                                     const ResvCalendar& calendar) {
  if (resv.HasFlag(kResvHourly)) {
    return ResvWindow{resv.start + unit * kHourSeconds, resv.end + unit * kHourSeconds};
  }
  const ResvWindow window{calendar.AddDays(resv.start, unit), calendar.AddDays(resv.end, unit)};
  if (unit == 0 || resv.HasFlag(kResvDaily)) return window;
  if (resv.HasFlag(kResvWeekly)) {
    if (unit % 7 == 0) return window;
    return std::nullopt;
  }
  const int day = calendar.WeekDay(window.start);
  const bool weekend = day == 0 || day == 6;
  if (resv.HasFlag(kResvWeekday) ? !weekend : weekend) return window;
  return std::nullopt;
}

// A unit no later than the first whose occurrence ends after `t` (REQUIRES:
// t >= resv.end): local days differ from 86400 seconds by a daylight-saving
// shift at most, so one day's margin keeps the search from overshooting.
int64_t FirstUnitAfter(const AdvanceReservation& resv, int64_t t) {
  if (resv.HasFlag(kResvHourly)) return (t - resv.end) / kHourSeconds + 1;
  return std::max<int64_t>(0, (t - resv.end) / kDaySeconds - 1);
}

// `resv` with TIME_FLOAT's offsets made times from `now` (and the flag
// cleared); others as they are.
AdvanceReservation AtTimesFrom(const AdvanceReservation& resv, int64_t now) {
  AdvanceReservation out = resv;
  if (!resv.HasFlag(kResvTimeFloat)) return out;
  out.flags &= ~kResvTimeFloat;
  out.start += now;
  out.end += now;
  return out;
}

// Back to offsets from `now`, with the flag.
void Float(int64_t now, AdvanceReservation* resv) {
  resv->flags |= kResvTimeFloat;
  resv->start -= now;
  resv->end -= now;
}

bool NamesFlag(const std::optional<ListEdit>& edit, uint32_t flag) {
  if (!edit) return false;
  for (const std::string& word : edit->items) {
    if (ParseResvFlag(word) == flag) return true;
  }
  return false;
}

absl::Status TimeError() { return absl::InvalidArgumentError("Invalid time specified"); }
absl::Status NodeNameError() { return absl::InvalidArgumentError("Invalid node name specified"); }
absl::Status BusyError() { return absl::FailedPreconditionError("Requested nodes are busy"); }
absl::Status OverlapError() {
  return absl::InvalidArgumentError("Requested reservation overlaps with another reservation");
}
absl::Status TresError() {
  return absl::InvalidArgumentError("Invalid Trackable RESource (TRES) specification");
}

bool Contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

void ApplyList(const ListEdit& edit, std::vector<std::string>* list) {
  switch (edit.op) {
    case ListOp::kSet:
      *list = edit.items;
      break;
    case ListOp::kAdd:
      for (const std::string& item : edit.items) {
        if (!Contains(*list, item)) list->push_back(item);
      }
      break;
    case ListOp::kRemove:
      list->erase(
          std::remove_if(list->begin(), list->end(),
                         [&](const std::string& item) { return Contains(edit.items, item); }),
          list->end());
      break;
  }
}

// Groups= applied: the groups, and their users from the edge's answers;
// "Invalid group id" for a group it did not find.
absl::Status ApplyGroups(const ListEdit& edit, const ResvContext& context,
                         AdvanceReservation* resv) {
  ApplyList(edit, &resv->groups);
  resv->group_members.clear();
  for (const std::string& group : resv->groups) {
    auto it = context.group_members.find(group);
    if (it == context.group_members.end()) {
      return absl::InvalidArgumentError("Invalid group id");
    }
    for (const std::string& member : it->second) {
      if (!Contains(resv->group_members, member)) resv->group_members.push_back(member);
    }
  }
  return absl::OkStatus();
}

absl::Status ApplyFlags(const ListEdit& edit, uint32_t* flags) {
  uint32_t named = 0;
  for (const std::string& word : edit.items) {
    std::optional<uint32_t> flag = ParseResvFlag(word);
    if (!flag || (*flag & kUserFlags) == 0) {
      return absl::InvalidArgumentError(absl::StrCat("Error parsing flags ", word));
    }
    named |= *flag;
  }
  switch (edit.op) {
    case ListOp::kSet:
      *flags = (*flags & ~kUserFlags) | named;
      break;
    case ListOp::kAdd:
      *flags |= named;
      break;
    case ListOp::kRemove:
      *flags &= ~named;
      break;
  }
  const uint32_t repeats = *flags & kResvRepeats;
  if ((repeats & (repeats - 1)) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("Error parsing flags ", ResvFlagsString(repeats), ": choose one repeat"));
  }
  return absl::OkStatus();
}

// Whether `a` and `b` may share a node at the same time without colliding:
// Slurm lets MAINT and OVERLAP reservations overlap others.
bool MayShare(const AdvanceReservation& a, const AdvanceReservation& b) {
  return a.HasFlag(kResvMaint) || a.HasFlag(kResvOverlap) || b.HasFlag(kResvMaint) ||
         b.HasFlag(kResvOverlap);
}

int32_t GpusOn(const AdvanceReservation& resv, const std::string& node,
               const std::vector<ResvNode>& nodes) {
  for (size_t k = 0; k < resv.nodes.size(); ++k) {
    if (resv.nodes[k] != node) continue;
    if (!resv.WholeNodes()) return resv.node_gpus[k];
    for (const ResvNode& n : nodes) {
      if (n.name == node) return n.gpus;
    }
  }
  return 0;
}

// GPUs of `node` that jobs running past `start` still hold, and that the
// other reservations colliding in time with `resv` hold.
int32_t GpusTaken(const ResvTable& table, const AdvanceReservation& resv, const std::string& node,
                  const ResvContext& context, int64_t now) {
  int32_t taken = 0;
  if (!resv.HasFlag(kResvIgnoreJobs)) {
    for (const ResvBusy& busy : context.busy) {
      if (busy.node == node && busy.end > resv.start && busy.reservation != resv.name) {
        taken += busy.gpus;
      }
    }
  }
  for (const auto& [name, other] : table) {
    if (name == resv.name || ResvEnded(other, now) || MayShare(resv, other)) continue;
    if (!Contains(other.nodes, node) || !TimesOverlap(resv, other, now, *context.calendar))
      continue;
    taken += GpusOn(other, node, context.nodes);
  }
  return taken;
}

// Whether whole node `node` is free for `resv`: no job running past its
// start (unless IGNORE_JOBS), no colliding reservation.
bool NodeFree(const ResvTable& table, const AdvanceReservation& resv, const std::string& node,
              const ResvContext& context, int64_t now) {
  if (!resv.HasFlag(kResvIgnoreJobs)) {
    for (const ResvBusy& busy : context.busy) {
      if (busy.node == node && busy.end > resv.start && busy.reservation != resv.name) return false;
    }
  }
  for (const auto& [name, other] : table) {
    if (name == resv.name || ResvEnded(other, now) || MayShare(resv, other)) continue;
    if (Contains(other.nodes, node) && TimesOverlap(resv, other, now, *context.calendar))
      return false;
  }
  return true;
}

// The nodes of `names` in the cluster's order; error for an unknown one.
absl::StatusOr<std::vector<std::string>> InClusterOrder(const std::vector<std::string>& names,
                                                        const ResvContext& context) {
  std::vector<std::string> out;
  for (const ResvNode& node : context.nodes) {
    if (Contains(names, node.name)) out.push_back(node.name);
  }
  for (const std::string& name : names) {
    if (!Contains(out, name)) return NodeNameError();
  }
  return out;
}

const ResvNode* FindNode(const ResvContext& context, const std::string& name) {
  for (const ResvNode& node : context.nodes) {
    if (node.name == name) return &node;
  }
  return nullptr;
}

// Chooses and checks the nodes (and GPUs) of `resv` from the request's
// Nodes=, NodeCnt=, PartitionName= and TRES=; `nodes_changed` says whether
// the node set is new (then running jobs are checked against it).
absl::Status ChooseNodes(const ResvTable& table, const ResvRequest& request,
                         const ResvContext& context, int64_t now, int64_t gpus,
                         AdvanceReservation* resv, bool* nodes_changed) {
  *nodes_changed = false;
  const std::string partition =
      !resv->partition.empty() ? resv->partition : context.default_partition;
  auto partition_nodes = [&]() -> std::vector<std::string> {
    auto it = context.partitions.find(partition);
    return it == context.partitions.end() ? std::vector<std::string>{} : it->second;
  };
  if (request.nodes) {
    *nodes_changed = true;
    resv->flags &= ~(kResvSpecNodes | kResvAllNodes | kResvPartNodes);
    if (absl::AsciiStrToUpper(*request.nodes) == "ALL") {
      std::vector<std::string> all;
      if (!resv->partition.empty()) {
        all = partition_nodes();
        resv->flags |= kResvPartNodes;
      } else {
        for (const ResvNode& node : context.nodes) all.push_back(node.name);
        resv->flags |= kResvAllNodes;
      }
      resv->flags |= kResvSpecNodes;
      resv->nodes = std::move(all);
    } else {
      absl::StatusOr<std::vector<std::string>> names = ExpandHostlist(*request.nodes);
      if (!names.ok() || names->empty()) return NodeNameError();
      absl::StatusOr<std::vector<std::string>> ordered = InClusterOrder(*names, context);
      if (!ordered.ok()) return ordered.status();
      resv->nodes = std::move(*ordered);
      resv->flags |= kResvSpecNodes;
    }
  } else if (request.node_cnt || (gpus > 0 && resv->nodes.empty())) {
    // Chosen here: usable nodes of the partition that are free for the
    // reservation's time, in order; a GPU reservation takes nodes with GPUs
    // free until it has its count.
    *nodes_changed = true;
    resv->flags &= ~(kResvSpecNodes | kResvAllNodes | kResvPartNodes);
    const std::vector<std::string> candidates = partition_nodes();
    if (candidates.empty() && !context.partitions.count(partition)) {
      return absl::InvalidArgumentError("Invalid partition name specified");
    }
    std::vector<std::string> chosen;
    int64_t gpus_found = 0;
    const int32_t wanted = request.node_cnt ? *request.node_cnt : 0;
    resv->nodes.clear();
    resv->node_gpus.clear();
    for (const std::string& name : candidates) {
      const ResvNode* node = FindNode(context, name);
      if (node == nullptr || !node->usable) continue;
      if (gpus > 0) {
        const int32_t free = node->gpus - GpusTaken(table, *resv, name, context, now);
        if (free <= 0) continue;
        chosen.push_back(name);
        gpus_found += free;
        if (gpus_found >= gpus && static_cast<int32_t>(chosen.size()) >= wanted) break;
      } else {
        if (!NodeFree(table, *resv, name, context, now)) continue;
        chosen.push_back(name);
        if (static_cast<int32_t>(chosen.size()) >= wanted) break;
      }
    }
    if (static_cast<int32_t>(chosen.size()) < wanted || gpus_found < gpus) return BusyError();
    resv->nodes = std::move(chosen);
  } else if (request.partition && resv->nodes.empty()) {
    // PartitionName= alone: the whole partition, as scontrol asks for it.
    *nodes_changed = true;
    resv->nodes = partition_nodes();
    resv->flags |= kResvPartNodes | kResvSpecNodes;
  }
  if (resv->nodes.empty()) return NodeNameError();
  return absl::OkStatus();
}

// Spreads `gpus` over the reservation's nodes in order, each giving what it
// has free for the reservation's time; nodes that give none are dropped.
absl::Status PlaceGpus(const ResvTable& table, const ResvContext& context, int64_t now,
                       int64_t gpus, AdvanceReservation* resv) {
  int64_t configured = 0;
  for (const std::string& name : resv->nodes) {
    if (const ResvNode* node = FindNode(context, name)) configured += node->gpus;
  }
  if (configured < gpus) return TresError();
  AdvanceReservation placed = *resv;
  placed.nodes.clear();
  placed.node_gpus.clear();
  int64_t left = gpus;
  for (const std::string& name : resv->nodes) {
    if (left == 0) break;
    const ResvNode* node = FindNode(context, name);
    const int32_t free = node->gpus - GpusTaken(table, *resv, name, context, now);
    if (free <= 0) continue;
    const int32_t take = static_cast<int32_t>(std::min<int64_t>(free, left));
    placed.nodes.push_back(name);
    placed.node_gpus.push_back(take);
    left -= take;
  }
  if (left > 0) return BusyError();
  *resv = std::move(placed);
  return absl::OkStatus();
}

// The checks create and update share, on the finished reservation.
absl::Status CheckReservation(const ResvTable& table, const AdvanceReservation& resv,
                              const ResvContext& context, int64_t now, bool nodes_changed) {
  if (!resv.users.empty() && !resv.groups.empty()) {
    return absl::InvalidArgumentError(
        "Reservations can't have users and groups specified, only one or the other");
  }
  if (resv.users.empty() && resv.groups.empty() && resv.accounts.empty()) {
    return absl::InvalidArgumentError("Reservation request lacks users, groups or accounts");
  }
  for (const std::string& user : resv.users) {
    if (!context.known_users.count(user)) return absl::InvalidArgumentError("Invalid user id");
  }
  if (context.check_accounts) {
    for (const std::string& account : resv.accounts) {
      if (!context.accounts.count(account)) {
        return absl::InvalidArgumentError(
            "Invalid account or account/partition combination specified");
      }
    }
  }
  if (!resv.partition.empty() && !context.partitions.count(resv.partition)) {
    return absl::InvalidArgumentError("Invalid partition name specified");
  }
  if (resv.WholeNodes()) {
    // Slurm: a MAINT or OVERLAP reservation may overlap others; others may
    // not share a node at the same time.
    for (const auto& [name, other] : table) {
      if (name == resv.name || ResvEnded(other, now) || MayShare(resv, other)) continue;
      const bool shares = std::any_of(resv.nodes.begin(), resv.nodes.end(),
                                      [&](const auto& n) { return Contains(other.nodes, n); });
      if (shares && TimesOverlap(resv, other, now, *context.calendar)) return OverlapError();
    }
    if (nodes_changed && !resv.HasFlag(kResvIgnoreJobs)) {
      for (const ResvBusy& busy : context.busy) {
        if (Contains(resv.nodes, busy.node) && busy.end > resv.start &&
            busy.reservation != resv.name) {
          return BusyError();
        }
      }
    }
  }
  return absl::OkStatus();
}

// Times from the request over `resv`'s (create: none yet).
absl::Status ApplyTimes(const ResvRequest& request, int64_t now, AdvanceReservation* resv) {
  if (request.start) resv->start = *request.start;
  if (request.start && *request.start < now - kMaxResvDelay) return TimeError();
  if (request.end) {
    if (*request.end < now - kMaxResvDelay) return TimeError();
    resv->end = *request.end;
  }
  if (request.duration) {
    resv->end =
        *request.duration < 0 ? resv->start + kYearSeconds : resv->start + *request.duration;
  }
  if (resv->end <= resv->start) return TimeError();
  return absl::OkStatus();
}

// The first free name of Slurm's form "<user or account>_<n>".
std::string GenerateName(const ResvTable& table, const AdvanceReservation& resv, int64_t now) {
  const std::string base = !resv.users.empty()      ? resv.users.front()
                           : !resv.accounts.empty() ? resv.accounts.front()
                           : !resv.groups.empty()   ? resv.groups.front()
                                                    : std::string("resv");
  for (int n = 1;; ++n) {
    std::string name = absl::StrCat(base, "_", n);
    auto it = table.find(name);
    if (it == table.end() || ResvEnded(it->second, now)) return name;
  }
}

}  // namespace

int64_t AdvanceReservation::Gpus() const {
  int64_t total = 0;
  for (int32_t g : node_gpus) total += g;
  return total;
}

const ResvCalendar& UtcResvCalendar() {
  static const UtcCalendar* const calendar = new UtcCalendar();
  return *calendar;
}

std::string ResvFlagsString(uint32_t flags) {
  std::vector<std::string> words;
  for (const FlagName& f : kFlagNames) {
    if (flags & f.flag) words.push_back(f.name);
  }
  return absl::StrJoin(words, ",");
}

std::optional<uint32_t> ParseResvFlag(const std::string& word) {
  const std::string upper = absl::AsciiStrToUpper(absl::StripAsciiWhitespace(word));
  for (const FlagName& f : kFlagNames) {
    if (upper == f.name) return f.flag;
  }
  if (upper == "MAINTENANCE") return kResvMaint;
  if (upper == "IGNORE_JOB") return kResvIgnoreJobs;
  return std::nullopt;
}

ResvWindow WindowAt(const AdvanceReservation& resv, int64_t now, const ResvCalendar& calendar) {
  if (resv.HasFlag(kResvTimeFloat)) return {now + resv.start, now + resv.end};
  if (!resv.Repeats() || now < resv.end) return {resv.start, resv.end};
  for (int64_t unit = FirstUnitAfter(resv, now);; ++unit) {
    std::optional<ResvWindow> window = Occurrence(resv, unit, calendar);
    if (window && window->end > now) return *window;
  }
}

bool ResvEnded(const AdvanceReservation& resv, int64_t now) {
  return !resv.Repeats() && !resv.HasFlag(kResvTimeFloat) && resv.end <= now;
}

bool ResvActive(const AdvanceReservation& resv, int64_t now, const ResvCalendar& calendar) {
  return WindowAt(resv, now, calendar).Contains(now);
}

std::vector<ResvWindow> WindowsBetween(const AdvanceReservation& resv, int64_t from, int64_t to,
                                       const ResvCalendar& calendar) {
  std::vector<ResvWindow> out;
  if (!resv.Repeats()) {
    const ResvWindow window = resv.HasFlag(kResvTimeFloat)
                                  ? ResvWindow{from + resv.start, from + resv.end}
                                  : ResvWindow{resv.start, resv.end};
    if (window.Overlaps(from, to)) out.push_back(window);
    return out;
  }
  for (int64_t unit = from < resv.end ? 0 : FirstUnitAfter(resv, from);; ++unit) {
    std::optional<ResvWindow> window = Occurrence(resv, unit, calendar);
    if (window && window->start >= to) break;
    // A day without an occurrence (WEEKDAY's weekend): stop once it is past `to`.
    if (!window && UnitStart(resv, unit, calendar) >= to) break;
    if (window && window->Overlaps(from, to)) out.push_back(*window);
  }
  return out;
}

bool TimesOverlap(const AdvanceReservation& float_a, const AdvanceReservation& float_b, int64_t now,
                  const ResvCalendar& calendar) {
  const AdvanceReservation a = AtTimesFrom(float_a, now);
  const AdvanceReservation b = AtTimesFrom(float_b, now);
  const int64_t from = std::max(now, std::min(a.start, b.start));
  // Every repeat comes back each week: if no occurrence meets within two
  // weeks past the later first start (plus the longest window), none does.
  int64_t to = std::max(a.end, b.end);
  if (a.Repeats() || b.Repeats()) {
    to = std::max(to, std::max({now, a.start, b.start}) + 2 * kWeekSeconds +
                          std::max(a.end - a.start, b.end - b.start));
  }
  const std::vector<ResvWindow> wa = WindowsBetween(a, from, to, calendar);
  const std::vector<ResvWindow> wb = WindowsBetween(b, from, to, calendar);
  for (const ResvWindow& x : wa) {
    for (const ResvWindow& y : wb) {
      if (x.Overlaps(y.start, y.end)) return true;
    }
  }
  return false;
}

bool MayUseReservation(const AdvanceReservation& resv, const std::string& user,
                       const std::string& account) {
  if (!resv.users.empty() && !Contains(resv.users, user)) return false;
  if (!resv.groups.empty() && !Contains(resv.group_members, user)) return false;
  if (!resv.accounts.empty() && !Contains(resv.accounts, account)) return false;
  return !(resv.users.empty() && resv.groups.empty() && resv.accounts.empty());
}

absl::Status CheckJobReservation(const ResvTable& table, const std::string& name,
                                 const std::string& user, const std::string& account, int64_t now) {
  auto it = table.find(name);
  if (it == table.end() || ResvEnded(it->second, now)) {
    return absl::InvalidArgumentError("Requested reservation is invalid");
  }
  if (!MayUseReservation(it->second, user, account)) {
    return absl::PermissionDeniedError("Access denied to requested reservation");
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> ParseResvTres(const std::string& text) {
  int64_t total = 0;
  for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    const std::string lower = absl::AsciiStrToLower(item);
    size_t at = lower.find_first_of("=:");
    if (at == std::string::npos) return TresError();
    const std::string key = lower.substr(0, at);
    int64_t count = 0;
    if (key != "gres/gpu" || !absl::SimpleAtoi(lower.substr(at + 1), &count) || count <= 0) {
      return TresError();
    }
    total += count;
  }
  if (total <= 0) return TresError();
  return total;
}

absl::StatusOr<AdvanceReservation> PlanCreate(const ResvTable& table, const ResvRequest& request,
                                              const ResvContext& context, int64_t now) {
  AdvanceReservation resv;
  if (!request.name.empty()) {
    auto it = table.find(request.name);
    if (it != table.end() && !ResvEnded(it->second, now)) {
      return absl::AlreadyExistsError("Duplicate reservation name");
    }
  }
  resv.start = now;
  // TIME_FLOAT: a start in the past is now (Slurm's rule); the reservation
  // is planned at its times from now and stored as offsets at the end.
  const bool floating = NamesFlag(request.flags, kResvTimeFloat);
  ResvRequest timed = request;
  if (floating && timed.start && *timed.start < now) timed.start = now;
  if (absl::Status s = ApplyTimes(timed, now, &resv); !s.ok()) return s;
  if (request.flags) {
    ListEdit set = *request.flags;
    set.op = ListOp::kSet;
    if (absl::Status s = ApplyFlags(set, &resv.flags); !s.ok()) return s;
  }
  if (floating && resv.Repeats()) {
    return absl::InvalidArgumentError("Requested operation not supported on this system");
  }
  resv.flags &= ~kResvTimeFloat;
  if (request.partition) {
    resv.partition = *request.partition;
    if (!context.partitions.count(resv.partition)) {
      return absl::InvalidArgumentError("Invalid partition name specified");
    }
  }
  if (request.users) resv.users = request.users->items;
  if (request.accounts) resv.accounts = request.accounts->items;
  if (request.groups) {
    ListEdit set = *request.groups;
    set.op = ListOp::kSet;
    if (absl::Status s = ApplyGroups(set, context, &resv); !s.ok()) return s;
  }
  int64_t gpus = 0;
  if (request.tres) {
    absl::StatusOr<int64_t> parsed = ParseResvTres(*request.tres);
    if (!parsed.ok()) return parsed.status();
    gpus = *parsed;
  }
  resv.name = request.name.empty() ? GenerateName(table, resv, now) : request.name;
  bool nodes_changed = false;
  if (absl::Status s = ChooseNodes(table, request, context, now, gpus, &resv, &nodes_changed);
      !s.ok()) {
    return s;
  }
  if (gpus > 0) {
    if (absl::Status s = PlaceGpus(table, context, now, gpus, &resv); !s.ok()) return s;
  }
  if (absl::Status s = CheckReservation(table, resv, context, now, /*nodes_changed=*/true);
      !s.ok()) {
    return s;
  }
  if (floating) Float(now, &resv);
  return resv;
}

absl::StatusOr<AdvanceReservation> PlanUpdate(const ResvTable& table, const ResvRequest& request,
                                              const ResvContext& context, int64_t now) {
  auto it = table.find(request.name);
  if (it == table.end() || ResvEnded(it->second, now)) {
    return absl::NotFoundError("Requested reservation is invalid");
  }
  if (NamesFlag(request.flags, kResvTimeFloat)) return TimeError();
  // A TIME_FLOAT one is planned at its times from now and floats again after.
  const bool floating = it->second.HasFlag(kResvTimeFloat);
  AdvanceReservation resv = AtTimesFrom(it->second, now);
  // A repeating reservation is updated from the occurrence in force.
  const ResvWindow window = WindowAt(resv, now, *context.calendar);
  resv.start = window.start;
  resv.end = window.end;
  // Slurm keeps the end when only the start moves.
  if (absl::Status s = ApplyTimes(request, now, &resv); !s.ok()) return s;
  if (request.flags) {
    if (absl::Status s = ApplyFlags(*request.flags, &resv.flags); !s.ok()) return s;
  }
  if (request.partition) resv.partition = *request.partition;
  if (request.users) ApplyList(*request.users, &resv.users);
  if (request.accounts) ApplyList(*request.accounts, &resv.accounts);
  if (request.groups) {
    if (absl::Status s = ApplyGroups(*request.groups, context, &resv); !s.ok()) return s;
  }
  int64_t gpus = resv.WholeNodes() ? 0 : resv.Gpus();
  if (request.tres) {
    absl::StatusOr<int64_t> parsed = ParseResvTres(*request.tres);
    if (!parsed.ok()) return parsed.status();
    gpus = *parsed;
  }
  bool nodes_changed = false;
  if (request.nodes || request.node_cnt) {
    if (absl::Status s = ChooseNodes(table, request, context, now, gpus, &resv, &nodes_changed);
        !s.ok()) {
      return s;
    }
  }
  if (gpus > 0 &&
      (nodes_changed || request.tres || request.start || request.end || request.duration)) {
    if (absl::Status s = PlaceGpus(table, context, now, gpus, &resv); !s.ok()) return s;
  }
  if (absl::Status s = CheckReservation(table, resv, context, now, nodes_changed); !s.ok()) {
    return s;
  }
  if (floating) Float(now, &resv);
  return resv;
}

absl::Status CheckDelete(const AdvanceReservation& resv, bool privileged, const std::string& user,
                         const std::set<std::string>& user_accounts) {
  if (privileged) return absl::OkStatus();
  if (resv.HasFlag(kResvUserDelete)) {
    const bool user_ok = (resv.users.empty() || Contains(resv.users, user)) &&
                         (resv.groups.empty() || Contains(resv.group_members, user));
    bool account_ok = resv.accounts.empty();
    for (const std::string& account : user_accounts) {
      if (Contains(resv.accounts, account)) account_ok = true;
    }
    if (user_ok && account_ok) return absl::OkStatus();
  }
  return absl::PermissionDeniedError("Invalid user id");
}

}  // namespace skiff::ctld
