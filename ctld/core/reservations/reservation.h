// Advance reservations (scontrol create|update|delete reservation) as plain
// structs and the pure rules over them: when a reservation is in force (its
// windows, HOURLY, DAILY, WEEKDAY, WEEKEND and WEEKLY repeats included),
// whether two reservations
// collide, who may use or delete one, and what a create or update request
// turns into, with Slurm's error texts.
//
// Not to be confused with the scheduler's backfill reservations
// (ctld/core/scheduler/scheduler.h's Reservation: where backfill plans a
// pending job), nor with admission's reservations of job ids
// (journaled_state.h's AdmissionReservation). Here: what an operator sets
// aside, stored, shown by `scontrol show reservation`.
//
// Time is an argument (`now`). Repeats follow local time as Slurm's do
// (it moves a reservation on with localtime_r and mktime): a DAILY
// reservation keeps its local hour across a daylight-saving change. The
// local-time arithmetic is an argument too (ResvCalendar): the edge passes
// one over the process's time zone, tests a fake; HOURLY repeats are plain
// 3600 seconds.
//
// Pure: no I/O, no clock, no locks. Thread-safety: none needed.
#ifndef SKIFF_CTLD_CORE_RESERVATIONS_RESERVATION_H_
#define SKIFF_CTLD_CORE_RESERVATIONS_RESERVATION_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace skiff::ctld {

// Reservation flags, Slurm's names (ResvFlagsString prints them in Slurm's
// order). SPEC_NODES, ALL_NODES and PART_NODES say how the nodes were chosen.
enum ResvFlag : uint32_t {
  kResvMaint = 1u << 0,
  kResvFlex = 1u << 1,
  kResvOverlap = 1u << 2,
  kResvIgnoreJobs = 1u << 3,
  kResvDaily = 1u << 4,
  kResvWeekly = 1u << 5,
  kResvSpecNodes = 1u << 6,
  kResvAllNodes = 1u << 7,
  kResvPartNodes = 1u << 8,
  kResvUserDelete = 1u << 9,
  kResvHourly = 1u << 10,
  kResvWeekday = 1u << 11,  // repeats Monday to Friday
  kResvWeekend = 1u << 12,  // repeats Saturday and Sunday
  // Jobs that name no reservation may run in it when its users/accounts
  // allow them (the scheduler tries it first, as Slurm 20.02+ does).
  kResvMagnetic = 1u << 13,
  // Its times are relative to now and move on with it: `start` and `end`
  // hold offsets from now (StartTime=now+10minutes stays 10 minutes away).
  // Never repeats; set only at create.
  kResvTimeFloat = 1u << 14,
};
// The repeat flags; a reservation has at most one.
inline constexpr uint32_t kResvRepeats =
    kResvHourly | kResvDaily | kResvWeekday | kResvWeekend | kResvWeekly;

// "MAINT,IGNORE_JOBS,...": Slurm's reservation_flags_string order.
std::string ResvFlagsString(uint32_t flags);
// One flag word as typed in Flags= (any case); nullopt when unknown.
std::optional<uint32_t> ParseResvFlag(const std::string& word);

inline constexpr int64_t kHourSeconds = 3600;
inline constexpr int64_t kDaySeconds = 86400;
inline constexpr int64_t kWeekSeconds = 7 * kDaySeconds;
// Duration=UNLIMITED: Slurm makes it a year.
inline constexpr int64_t kYearSeconds = 365 * kDaySeconds;
// Slurm accepts a start up to this far in the past (MAX_RESV_DELAY).
inline constexpr int64_t kMaxResvDelay = 600;

struct AdvanceReservation {
  std::string name;
  // The first occurrence (a repeating reservation moves on by its period;
  // WindowAt says which one is in force); with TIME_FLOAT, offsets from now.
  int64_t start = 0;
  int64_t end = 0;
  std::vector<std::string> nodes;  // in the cluster's node order
  // TRES=gres/gpu=N: GPUs set aside per entry of `nodes` (a GPU reservation
  // holds only these, not the whole nodes); empty = the nodes whole.
  std::vector<int32_t> node_gpus;
  std::string partition;              // "" = none named
  std::vector<std::string> users;     // who may use it (with `accounts`: both must match)
  std::vector<std::string> accounts;  // which accounts may use it
  // Groups= (never with `users`): who may use it are `group_members`, the
  // groups' users as the edge resolved them when Groups= was set (Slurm
  // resolves them then too).
  std::vector<std::string> groups;
  std::vector<std::string> group_members;
  uint32_t flags = 0;

  bool WholeNodes() const { return node_gpus.empty(); }
  int64_t Gpus() const;
  bool Repeats() const { return (flags & kResvRepeats) != 0; }
  bool HasFlag(uint32_t flag) const { return (flags & flag) != 0; }
};

// name -> reservation.
using ResvTable = std::map<std::string, AdvanceReservation>;

// Local wall-clock arithmetic that repeats follow. Implementations are pure
// functions of their arguments and safe to call from any thread; the edge's
// reads the process's time zone (ctld/local_calendar.h).
class ResvCalendar {
 public:
  virtual ~ResvCalendar() = default;
  // `t` moved on by `days` calendar days at the same local wall-clock time
  // (Slurm's _advance_time: tm_mday += days, then mktime with tm_isdst -1).
  virtual int64_t AddDays(int64_t t, int64_t days) const = 0;
  // The local day of the week of `t`: 0 = Sunday ... 6 = Saturday.
  virtual int WeekDay(int64_t t) const = 0;
};
// Days of 86400 seconds, weeks starting on the UTC Sunday (no time zone).
// A static object; lives for the whole program.
const ResvCalendar& UtcResvCalendar();

struct ResvWindow {
  int64_t start = 0;
  int64_t end = 0;
  bool Contains(int64_t t) const { return start <= t && t < end; }
  bool Overlaps(int64_t from, int64_t to) const { return start < to && from < end; }
};

// The occurrence in force at `now`, or the next one to come; for a one-off
// reservation that has ended, its only window (end <= now). A repeating
// reservation's occurrences are its first window moved on by whole local
// days (HOURLY: by hours): every day (DAILY), every seventh (WEEKLY), the
// days that fall Monday to Friday (WEEKDAY) or on Saturday and Sunday
// (WEEKEND); the first window counts whatever its day. A TIME_FLOAT
// reservation's only window is its offsets from `now`.
ResvWindow WindowAt(const AdvanceReservation& resv, int64_t now, const ResvCalendar& calendar);
// A one-off reservation whose end has passed: gone, as Slurm drops it
// (never a repeating or TIME_FLOAT one).
bool ResvEnded(const AdvanceReservation& resv, int64_t now);
bool ResvActive(const AdvanceReservation& resv, int64_t now, const ResvCalendar& calendar);
// The occurrences that intersect [from, to), in time order (TIME_FLOAT:
// its window as seen at `from`).
std::vector<ResvWindow> WindowsBetween(const AdvanceReservation& resv, int64_t from, int64_t to,
                                       const ResvCalendar& calendar);
// Whether some occurrence of `a` meets some occurrence of `b` from `now` on
// (every repeat comes back each week, so two weeks decide it).
bool TimesOverlap(const AdvanceReservation& a, const AdvanceReservation& b, int64_t now,
                  const ResvCalendar& calendar);

// Whether a job of `user` charged to `account` may run in the reservation:
// listed by user (or a member of its groups) and by account where each list
// is given (Slurm: a job must match both when both are given).
bool MayUseReservation(const AdvanceReservation& resv, const std::string& user,
                       const std::string& account);

// ---- requests (scontrol create|update|delete reservation)

enum class ResvOp { kCreate, kUpdate, kDelete };

// Users= / Users+= / Users-= (likewise Accounts, Flags).
enum class ListOp { kSet, kAdd, kRemove };
struct ListEdit {
  ListOp op = ListOp::kSet;
  std::vector<std::string> items;
};

struct ResvRequest {
  std::string name;                  // "" on create: generated
  std::optional<int64_t> start;      // unix seconds
  std::optional<int64_t> end;        // unix seconds
  std::optional<int64_t> duration;   // seconds; -1 = UNLIMITED
  std::optional<std::string> nodes;  // hostlist expression or "ALL"
  std::optional<int32_t> node_cnt;
  std::optional<std::string> partition;
  std::optional<ListEdit> users;
  std::optional<ListEdit> accounts;
  std::optional<ListEdit> groups;
  std::optional<ListEdit> flags;    // flag words
  std::optional<std::string> tres;  // "gres/gpu=4" (TRES=)
};

// A node as reservations see it.
struct ResvNode {
  std::string name;
  int32_t gpus = 0;     // configured
  bool usable = false;  // responding and not down or drained (NodeCnt picks only these)
};

// A job holding resources now: a new reservation may not start on its nodes
// before it ends (unless IGNORE_JOBS).
struct ResvBusy {
  std::string node;
  int64_t end = 0;  // its expected end; kResvForever without a time limit
  int32_t gpus = 0;
  std::string reservation;  // the job's own reservation ("" = none)
};
inline constexpr int64_t kResvForever = INT64_MAX;

// What the edge looked up for a request (NSS lookups never run in the core
// nor under ctld's lock): the user names it names that exist, and the users
// of the groups it names that exist.
struct ResvLookups {
  std::set<std::string> known_users;
  std::map<std::string, std::vector<std::string>> group_members;
};

// What a request is checked against, gathered by the caller.
struct ResvContext {
  std::vector<ResvNode> nodes;                                 // the cluster's, in order
  std::map<std::string, std::vector<std::string>> partitions;  // name -> its nodes
  std::string default_partition;
  // Users the request names that exist (the edge resolves them: no NSS
  // lookups in the core).
  std::set<std::string> known_users;
  // Group -> its users, for the groups the request names that exist (the
  // edge resolves them too).
  std::map<std::string, std::vector<std::string>> group_members;
  // With AccountingStorageEnforce=associations the accounts must exist
  // (Slurm's rule); otherwise any name is taken.
  bool check_accounts = false;
  std::set<std::string> accounts;
  std::vector<ResvBusy> busy;
  // Local time for repeats; outlives the context.
  const ResvCalendar* calendar = &UtcResvCalendar();
};

// The reservation a create request makes, checked against the others and
// the running jobs; Slurm's errors (InvalidArgument unless said):
// "Invalid time specified" (a start more than 10 minutes ago, an end not
// after the start), "Invalid node name specified", "Invalid partition name
// specified", "Reservation request lacks users, groups or accounts",
// "Invalid user id", "Invalid group id", "Reservations can't have users and
// groups specified, only one or the other", "Invalid account or account/partition combination
// specified", "Duplicate reservation name" (AlreadyExists), "Requested
// reservation overlaps with another reservation", "Requested nodes are busy"
// (FailedPrecondition), "Invalid Trackable RESource (TRES) specification",
// "Requested operation not supported on this system" (TIME_FLOAT with a
// repeat). TIME_FLOAT: a start in the past is now; checked at its times from
// now, stored as offsets.
absl::StatusOr<AdvanceReservation> PlanCreate(const ResvTable& table, const ResvRequest& request,
                                              const ResvContext& context, int64_t now);

// `request` applied to the reservation it names, checked as on create (a
// new node list against running jobs too). NotFound "Reservation NAME not
// found" when there is none; "Invalid time specified" for Flags naming
// TIME_FLOAT (Slurm sets it only at create).
absl::StatusOr<AdvanceReservation> PlanUpdate(const ResvTable& table, const ResvRequest& request,
                                              const ResvContext& context, int64_t now);

// Whether `user` (in `user_accounts`) may delete it: operators always, users
// only with USER_DELETE and only if they may use it. PermissionDenied
// "Invalid user id" otherwise: Slurm's words (ESLURM_USER_ID_MISSING) for a
// caller who may not change reservations.
absl::Status CheckDelete(const AdvanceReservation& resv, bool privileged, const std::string& user,
                         const std::set<std::string>& user_accounts);

// A job asking for `name` (--reservation): InvalidArgument "Requested
// reservation is invalid" when there is no such reservation (or it has
// ended), PermissionDenied "Access denied to requested reservation" when
// `user` charged to `account` may not use it.
absl::Status CheckJobReservation(const ResvTable& table, const std::string& name,
                                 const std::string& user, const std::string& account, int64_t now);

// Parses a TRES= value: "gres/gpu=N" (also "gres/gpu:N"); the GPU count.
absl::StatusOr<int64_t> ParseResvTres(const std::string& text);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_RESERVATIONS_RESERVATION_H_
