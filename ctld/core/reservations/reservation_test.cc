#include "ctld/core/reservations/reservation.h"

#include <gtest/gtest.h>

namespace skiff::ctld {
namespace {

constexpr int64_t kNow = 1'800'000'000;  // a whole-day multiple is not needed
const ResvCalendar& kUtc = UtcResvCalendar();

ResvContext Cluster() {
  ResvContext context;
  context.nodes = {{"n1", 2, true}, {"n2", 2, true}, {"n3", 0, true}, {"n4", 4, false}};
  context.partitions = {{"debug", {"n1", "n2", "n3", "n4"}}, {"cpu", {"n3"}}};
  context.default_partition = "debug";
  context.known_users = {"alice", "bob"};
  context.accounts = {"lab"};
  return context;
}

ResvRequest Request(const std::string& name, int64_t start, int64_t duration) {
  ResvRequest request;
  request.name = name;
  request.start = start;
  request.duration = duration;
  request.users = ListEdit{ListOp::kSet, {"alice"}};
  return request;
}

AdvanceReservation Make(const std::string& name, int64_t start, int64_t end, uint32_t flags = 0,
                        std::vector<std::string> nodes = {"n1"}) {
  AdvanceReservation r;
  r.name = name;
  r.start = start;
  r.end = end;
  r.flags = flags;
  r.nodes = std::move(nodes);
  r.users = {"alice"};
  return r;
}

TEST(ResvWindows, OneOffWindowIsItsOwnAndEndsForGood) {
  const AdvanceReservation r = Make("a", 100, 200);
  EXPECT_EQ(WindowAt(r, 50, kUtc).start, 100);
  EXPECT_TRUE(ResvActive(r, 150, kUtc));
  EXPECT_FALSE(ResvActive(r, 200, kUtc));
  EXPECT_TRUE(ResvEnded(r, 200));
  EXPECT_FALSE(ResvEnded(r, 199));
}

TEST(ResvWindows, DailyMovesOnByADayAndNeverEnds) {
  const AdvanceReservation r = Make("a", 1000, 1000 + 3600, kResvDaily);
  const ResvWindow next = WindowAt(r, 1000 + 3600, kUtc);  // the first just ended
  EXPECT_EQ(next.start, 1000 + kDaySeconds);
  EXPECT_EQ(next.end, 1000 + kDaySeconds + 3600);
  EXPECT_FALSE(ResvEnded(r, 1000 + 10 * kDaySeconds));
  EXPECT_TRUE(ResvActive(r, 1000 + 3 * kDaySeconds + 10, kUtc));
  EXPECT_FALSE(ResvActive(r, 1000 + 3 * kDaySeconds + 3600, kUtc));
  const std::vector<ResvWindow> windows = WindowsBetween(r, 0, 1000 + 2 * kDaySeconds + 1, kUtc);
  ASSERT_EQ(windows.size(), 3u);
  EXPECT_EQ(windows[2].start, 1000 + 2 * kDaySeconds);
}

TEST(ResvWindows, WeeklyRepeatsEverySevenDays) {
  const AdvanceReservation r = Make("a", 0, 3600, kResvWeekly);
  EXPECT_FALSE(ResvActive(r, kDaySeconds + 10, kUtc));
  EXPECT_TRUE(ResvActive(r, kWeekSeconds + 10, kUtc));
}

// The epoch was a Thursday: day 4 is a Monday.
constexpr int64_t kMonday9 = 4 * kDaySeconds + 9 * kHourSeconds;

TEST(ResvWindows, HourlyMovesOnByAnHour) {
  const AdvanceReservation r = Make("a", 0, 600, kResvHourly);
  EXPECT_EQ(WindowAt(r, 700, kUtc).start, kHourSeconds);
  EXPECT_TRUE(ResvActive(r, 5 * kHourSeconds + 10, kUtc));
  EXPECT_FALSE(ResvActive(r, 5 * kHourSeconds + 700, kUtc));
  EXPECT_EQ(WindowsBetween(r, 0, kDaySeconds, kUtc).size(), 24u);
}

TEST(ResvWindows, WeekdayRepeatsMondayToFriday) {
  const AdvanceReservation r = Make("a", kMonday9, kMonday9 + kHourSeconds, kResvWeekday);
  const std::vector<ResvWindow> week = WindowsBetween(r, 0, kMonday9 + kWeekSeconds, kUtc);
  ASSERT_EQ(week.size(), 5u);
  EXPECT_EQ(week[4].start, kMonday9 + 4 * kDaySeconds);  // Friday
  // After Friday's window: the next Monday's.
  EXPECT_EQ(WindowAt(r, kMonday9 + 4 * kDaySeconds + kHourSeconds, kUtc).start,
            kMonday9 + kWeekSeconds);
  EXPECT_FALSE(ResvActive(r, kMonday9 + 5 * kDaySeconds + 10, kUtc));
}

TEST(ResvWindows, WeekdayStartedOnASaturdayNextRunsOnMonday) {
  const int64_t saturday = kMonday9 + 5 * kDaySeconds;
  const AdvanceReservation r = Make("a", saturday, saturday + kHourSeconds, kResvWeekday);
  EXPECT_TRUE(ResvActive(r, saturday + 10, kUtc));  // the first counts whatever its day
  EXPECT_EQ(WindowAt(r, saturday + kHourSeconds, kUtc).start, kMonday9 + kWeekSeconds);
}

TEST(ResvWindows, WeekendRepeatsSaturdayAndSunday) {
  const AdvanceReservation r = Make("a", kMonday9, kMonday9 + kHourSeconds, kResvWeekend);
  const std::vector<ResvWindow> windows = WindowsBetween(r, 0, kMonday9 + 2 * kWeekSeconds, kUtc);
  ASSERT_EQ(windows.size(), 5u);  // Monday (the first), then two weekends
  EXPECT_EQ(windows[1].start, kMonday9 + 5 * kDaySeconds);
  EXPECT_EQ(windows[2].start, kMonday9 + 6 * kDaySeconds);
  EXPECT_EQ(windows[3].start, kMonday9 + 12 * kDaySeconds);
  EXPECT_EQ(UtcResvCalendar().WeekDay(windows[3].start), 6);
}

// A zone at UTC-5 that moves to UTC-4 at `shift` (a spring change), with
// mktime's answers: a local time is read in the offset in force then.
class FakeZone : public ResvCalendar {
 public:
  explicit FakeZone(int64_t shift) : shift_(shift) {}
  int64_t AddDays(int64_t t, int64_t days) const override {
    const int64_t local = t + Offset(t) + days * kDaySeconds;
    const int64_t standard = local + 5 * kHourSeconds;
    return Offset(standard) == -5 * kHourSeconds ? standard : local + 4 * kHourSeconds;
  }
  int WeekDay(int64_t t) const override { return UtcResvCalendar().WeekDay(t + Offset(t)); }

 private:
  int64_t Offset(int64_t t) const { return t < shift_ ? -5 * kHourSeconds : -4 * kHourSeconds; }
  int64_t shift_;
};

TEST(ResvWindows, DailyKeepsItsLocalHourAcrossADaylightSavingChange) {
  // 09:00 local = 14:00 UTC until the change on day 10; 13:00 UTC after.
  const FakeZone zone(10 * kDaySeconds + 7 * kHourSeconds);
  const int64_t first = 4 * kDaySeconds + 14 * kHourSeconds;
  const AdvanceReservation r = Make("a", first, first + kHourSeconds, kResvDaily);
  const ResvWindow before = WindowAt(r, 9 * kDaySeconds, zone);
  EXPECT_EQ(before.start, 9 * kDaySeconds + 14 * kHourSeconds);
  const ResvWindow after = WindowAt(r, 12 * kDaySeconds, zone);
  EXPECT_EQ(after.start, 12 * kDaySeconds + 13 * kHourSeconds);
  EXPECT_EQ(after.end, 12 * kDaySeconds + 14 * kHourSeconds);
  // A one-off at 13:30 UTC on day 12 meets it in local time, not in UTC days.
  const AdvanceReservation other =
      Make("b", 12 * kDaySeconds + 13 * kHourSeconds + 1800, 12 * kDaySeconds + 14 * kHourSeconds);
  EXPECT_TRUE(TimesOverlap(r, other, 5 * kDaySeconds, zone));
  EXPECT_FALSE(TimesOverlap(r, other, 5 * kDaySeconds, kUtc));
}

TEST(ResvWindows, WeekdayFollowsTheLocalDay) {
  // 22:00 local on a Friday is 02:00 UTC on Saturday: still a weekday there.
  const FakeZone zone(0);  // UTC-4 throughout
  const int64_t friday22 = kMonday9 + 4 * kDaySeconds + 17 * kHourSeconds;
  EXPECT_EQ(zone.WeekDay(friday22), 5);
  const AdvanceReservation r =
      Make("a", friday22 - kDaySeconds, friday22 - kDaySeconds + 600, kResvWeekday);
  EXPECT_EQ(WindowAt(r, friday22 - 60, zone).start, friday22);
  EXPECT_EQ(WindowAt(r, friday22 + 600, zone).start, friday22 + 3 * kDaySeconds);
}

TEST(ResvOverlap, OneOffsOverlapOnlyWhenTheirTimesMeet) {
  EXPECT_TRUE(TimesOverlap(Make("a", 100, 200), Make("b", 150, 300), 0, kUtc));
  EXPECT_FALSE(TimesOverlap(Make("a", 100, 200), Make("b", 200, 300), 0, kUtc));
}

TEST(ResvOverlap, DailyMeetsAOneOffOnALaterDay) {
  const AdvanceReservation daily = Make("d", 0, 3600, kResvDaily);
  // Five days later, half an hour into that day's window.
  EXPECT_TRUE(
      TimesOverlap(daily, Make("b", 5 * kDaySeconds + 1800, 5 * kDaySeconds + 7200), 0, kUtc));
  // The same day, outside the daily hour.
  EXPECT_FALSE(
      TimesOverlap(daily, Make("b", 5 * kDaySeconds + 3600, 5 * kDaySeconds + 7200), 0, kUtc));
}

TEST(ResvOverlap, DailyMeetsWeeklyOnlyAtTheSameHour) {
  const AdvanceReservation daily = Make("d", 0, 3600, kResvDaily);
  EXPECT_TRUE(TimesOverlap(
      daily, Make("w", 3 * kDaySeconds + 600, 3 * kDaySeconds + 900, kResvWeekly), 0, kUtc));
  EXPECT_FALSE(TimesOverlap(
      daily, Make("w", 3 * kDaySeconds + 3600, 3 * kDaySeconds + 7200, kResvWeekly), 0, kUtc));
}

TEST(ResvAccess, UsersAndAccountsMustBothMatchWhenBothGiven) {
  AdvanceReservation r = Make("a", 0, 10);
  r.users = {"alice"};
  r.accounts = {"lab"};
  EXPECT_TRUE(MayUseReservation(r, "alice", "lab"));
  EXPECT_FALSE(MayUseReservation(r, "alice", "other"));
  EXPECT_FALSE(MayUseReservation(r, "bob", "lab"));
  r.users.clear();
  EXPECT_TRUE(MayUseReservation(r, "bob", "lab"));
}

TEST(ResvDelete, OnlyOperatorsOrItsUsersWithUserDelete) {
  AdvanceReservation r = Make("a", 0, 10);
  EXPECT_TRUE(CheckDelete(r, true, "root", {}).ok());
  EXPECT_EQ(CheckDelete(r, false, "alice", {}).message(), "Invalid user id");
  r.flags |= kResvUserDelete;
  EXPECT_TRUE(CheckDelete(r, false, "alice", {}).ok());
  EXPECT_FALSE(CheckDelete(r, false, "bob", {}).ok());
}

TEST(ResvFlags, PrintedInSlurmsOrder) {
  EXPECT_EQ(ResvFlagsString(kResvIgnoreJobs | kResvMaint | kResvSpecNodes),
            "MAINT,IGNORE_JOBS,SPEC_NODES");
  EXPECT_EQ(ParseResvFlag("maint"), kResvMaint);
  EXPECT_EQ(ParseResvFlag("bogus"), std::nullopt);
  EXPECT_EQ(ResvFlagsString(kResvWeekly | kResvWeekend | kResvWeekday | kResvHourly | kResvDaily |
                            kResvOverlap),
            "OVERLAP,HOURLY,DAILY,WEEKDAY,WEEKEND,WEEKLY");
  EXPECT_EQ(ParseResvFlag("weekday"), kResvWeekday);
  EXPECT_EQ(ResvFlagsString(kResvUserDelete | kResvMagnetic | kResvSpecNodes),
            "SPEC_NODES,MAGNETIC,USER_DELETE");
}

TEST(ResvFlags, OneRepeatAtATime) {
  ResvRequest request = Request("r", kNow + 100, 600);
  request.nodes = "n1";
  request.flags = ListEdit{ListOp::kSet, {"WEEKDAY", "WEEKEND"}};
  absl::StatusOr<AdvanceReservation> made = PlanCreate({}, request, Cluster(), kNow);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.status().message(), "Error parsing flags WEEKDAY,WEEKEND: choose one repeat");
  request.flags = ListEdit{ListOp::kSet, {"hourly"}};
  made = PlanCreate({}, request, Cluster(), kNow);
  ASSERT_TRUE(made.ok()) << made.status();
  EXPECT_EQ(made->flags, kResvHourly | kResvSpecNodes);
}

TEST(ResvCreate, NamedNodesInClusterOrderWithSpecNodes) {
  ResvRequest request = Request("maint", kNow + 300, 3600);
  request.nodes = "n[2,1]";
  request.flags = ListEdit{ListOp::kSet, {"MAINT"}};
  absl::StatusOr<AdvanceReservation> r = PlanCreate({}, request, Cluster(), kNow);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->nodes, (std::vector<std::string>{"n1", "n2"}));
  EXPECT_EQ(r->start, kNow + 300);
  EXPECT_EQ(r->end, kNow + 300 + 3600);
  EXPECT_EQ(ResvFlagsString(r->flags), "MAINT,SPEC_NODES");
}

TEST(ResvCreate, RefusesWhatSlurmRefusesWithItsWords) {
  const ResvContext context = Cluster();
  ResvRequest past = Request("a", kNow - 3600, 60);
  past.nodes = "n1";
  EXPECT_EQ(PlanCreate({}, past, context, kNow).status().message(), "Invalid time specified");
  ResvRequest unknown_user = Request("a", kNow, 60);
  unknown_user.nodes = "n1";
  unknown_user.users = ListEdit{ListOp::kSet, {"mallory"}};
  EXPECT_EQ(PlanCreate({}, unknown_user, context, kNow).status().message(), "Invalid user id");
  ResvRequest no_one = Request("a", kNow, 60);
  no_one.nodes = "n1";
  no_one.users.reset();
  EXPECT_EQ(PlanCreate({}, no_one, context, kNow).status().message(),
            "Reservation request lacks users, groups or accounts");
  ResvRequest bad_node = Request("a", kNow, 60);
  bad_node.nodes = "n9";
  EXPECT_EQ(PlanCreate({}, bad_node, context, kNow).status().message(),
            "Invalid node name specified");
  ResvRequest bad_part = Request("a", kNow, 60);
  bad_part.partition = "nope";
  EXPECT_EQ(PlanCreate({}, bad_part, context, kNow).status().message(),
            "Invalid partition name specified");
  ResvContext strict = context;
  strict.check_accounts = true;
  ResvRequest bad_account = Request("a", kNow, 60);
  bad_account.nodes = "n1";
  bad_account.accounts = ListEdit{ListOp::kSet, {"ghost"}};
  EXPECT_EQ(PlanCreate({}, bad_account, strict, kNow).status().message(),
            "Invalid account or account/partition combination specified");
  ResvRequest bad_tres = Request("a", kNow, 60);
  bad_tres.tres = "gres/tpu=1";
  EXPECT_EQ(PlanCreate({}, bad_tres, context, kNow).status().message(),
            "Invalid Trackable RESource (TRES) specification");
}

TEST(ResvCreate, OverlapNeedsOverlapOrMaint) {
  ResvTable table;
  table["first"] = Make("first", kNow + 100, kNow + 1000);
  ResvRequest request = Request("second", kNow + 500, 600);
  request.nodes = "n1";
  absl::StatusOr<AdvanceReservation> r = PlanCreate(table, request, Cluster(), kNow);
  EXPECT_EQ(r.status().message(), "Requested reservation overlaps with another reservation");
  EXPECT_EQ(PlanCreate(table, Request("first", kNow, 60), Cluster(), kNow).status().code(),
            absl::StatusCode::kAlreadyExists);
  request.flags = ListEdit{ListOp::kSet, {"OVERLAP"}};
  EXPECT_TRUE(PlanCreate(table, request, Cluster(), kNow).ok());
  request.flags = ListEdit{ListOp::kSet, {"MAINT"}};
  EXPECT_TRUE(PlanCreate(table, request, Cluster(), kNow).ok());
  // Another node, or after the first ends: no overlap.
  request.flags.reset();
  request.nodes = "n2";
  EXPECT_TRUE(PlanCreate(table, request, Cluster(), kNow).ok());
  request.nodes = "n1";
  request.start = kNow + 1000;
  EXPECT_TRUE(PlanCreate(table, request, Cluster(), kNow).ok());
}

TEST(ResvCreate, RunningJobsMakeNodesBusyUnlessIgnoreJobs) {
  ResvContext context = Cluster();
  context.busy.push_back({"n1", kNow + 600, 0, ""});
  ResvRequest request = Request("m", kNow + 300, 600);
  request.nodes = "n1";
  EXPECT_EQ(PlanCreate({}, request, context, kNow).status().message(), "Requested nodes are busy");
  request.start = kNow + 600;  // after the job ends
  EXPECT_TRUE(PlanCreate({}, request, context, kNow).ok());
  request.start = kNow + 300;
  request.flags = ListEdit{ListOp::kSet, {"IGNORE_JOBS"}};
  EXPECT_TRUE(PlanCreate({}, request, context, kNow).ok());
}

TEST(ResvCreate, NodeCntPicksUsableFreeNodesOfThePartition) {
  ResvContext context = Cluster();
  context.busy.push_back({"n1", kResvForever, 0, ""});
  ResvRequest request = Request("", kNow, 600);
  request.node_cnt = 2;
  absl::StatusOr<AdvanceReservation> r = PlanCreate({}, request, context, kNow);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->nodes, (std::vector<std::string>{"n2", "n3"}));  // n4 is not usable
  EXPECT_EQ(r->name, "alice_1");
  request.node_cnt = 3;
  EXPECT_EQ(PlanCreate({}, request, context, kNow).status().message(), "Requested nodes are busy");
}

TEST(ResvCreate, GpuReservationTakesGpusNotWholeNodes) {
  ResvContext context = Cluster();
  context.busy.push_back({"n1", kResvForever, 1, ""});  // a job holds one GPU of n1
  ResvRequest request = Request("gpus", kNow, 600);
  request.tres = "gres/gpu=3";
  absl::StatusOr<AdvanceReservation> r = PlanCreate({}, request, context, kNow);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->nodes, (std::vector<std::string>{"n1", "n2"}));
  EXPECT_EQ(r->node_gpus, (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(r->Gpus(), 3);
  // The other GPU reservation of the same time finds n1 and n2 taken.
  ResvTable table{{"gpus", *r}};
  ResvRequest more = Request("more", kNow + 100, 600);
  more.tres = "gres/gpu=1";
  EXPECT_EQ(PlanCreate(table, more, context, kNow).status().message(), "Requested nodes are busy");
  more.tres = "gres/gpu=9";  // more than the cluster has free at all
  EXPECT_FALSE(PlanCreate(table, more, context, kNow).ok());
}

TEST(ResvUpdate, ChangesWhatIsNamedAndChecksAgain) {
  ResvTable table;
  table["a"] = Make("a", kNow + 100, kNow + 1000);
  table["b"] = Make("b", kNow + 100, kNow + 1000, 0, {"n2"});
  ResvRequest update;
  update.name = "a";
  update.users = ListEdit{ListOp::kAdd, {"bob"}};
  update.duration = 60;
  absl::StatusOr<AdvanceReservation> r = PlanUpdate(table, update, Cluster(), kNow);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->users, (std::vector<std::string>{"alice", "bob"}));
  EXPECT_EQ(r->end, kNow + 160);
  update = ResvRequest();
  update.name = "a";
  update.nodes = "n2";
  EXPECT_EQ(PlanUpdate(table, update, Cluster(), kNow).status().message(),
            "Requested reservation overlaps with another reservation");
  update.name = "zzz";
  EXPECT_EQ(PlanUpdate(table, update, Cluster(), kNow).status().code(),
            absl::StatusCode::kNotFound);
  update = ResvRequest();
  update.name = "a";
  update.flags = ListEdit{ListOp::kAdd, {"DAILY", "WEEKLY"}};
  EXPECT_FALSE(PlanUpdate(table, update, Cluster(), kNow).ok());
}

TEST(ResvTimeFloat, StartStaysTheSameTimeAheadOfNow) {
  ResvRequest request = Request("float", kNow + 600, 3600);
  request.nodes = "n1";
  request.flags = ListEdit{ListOp::kSet, {"TIME_FLOAT"}};
  absl::StatusOr<AdvanceReservation> made = PlanCreate({}, request, Cluster(), kNow);
  ASSERT_TRUE(made.ok()) << made.status();
  EXPECT_EQ(made->start, 600);  // offsets from now
  EXPECT_EQ(made->end, 4200);
  EXPECT_EQ(ResvFlagsString(made->flags), "SPEC_NODES,TIME_FLOAT");
  const ResvWindow later = WindowAt(*made, kNow + 5000, kUtc);
  EXPECT_EQ(later.start, kNow + 5600);
  EXPECT_EQ(later.end, kNow + 9200);
  EXPECT_FALSE(ResvActive(*made, kNow + 5000, kUtc));
  EXPECT_FALSE(ResvEnded(*made, kNow + 100 * kDaySeconds));
  // Another reservation on n1 meets it wherever it has floated to.
  ResvTable table;
  table["float"] = *made;
  ResvRequest other = Request("other", kNow + 3 * kDaySeconds + 1000, 600);
  other.nodes = "n1";
  absl::StatusOr<AdvanceReservation> blocked =
      PlanCreate(table, other, Cluster(), kNow + 3 * kDaySeconds);
  ASSERT_FALSE(blocked.ok());
  EXPECT_EQ(blocked.status().message(), "Requested reservation overlaps with another reservation");
  other.start = kNow + 3 * kDaySeconds + 5000;
  EXPECT_TRUE(PlanCreate(table, other, Cluster(), kNow + 3 * kDaySeconds).ok());
}

TEST(ResvTimeFloat, PastStartIsNowAndRepeatsAreRefused) {
  ResvRequest request = Request("float", kNow - 3600, 600);
  request.nodes = "n1";
  request.flags = ListEdit{ListOp::kSet, {"TIME_FLOAT"}};
  absl::StatusOr<AdvanceReservation> made = PlanCreate({}, request, Cluster(), kNow);
  ASSERT_TRUE(made.ok()) << made.status();
  EXPECT_EQ(made->start, 0);
  request.flags = ListEdit{ListOp::kSet, {"TIME_FLOAT", "DAILY"}};
  made = PlanCreate({}, request, Cluster(), kNow);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.status().message(), "Requested operation not supported on this system");
}

TEST(ResvTimeFloat, UpdateKeepsItFloatingAndMayNotSetTheFlag) {
  ResvTable table;
  AdvanceReservation floating = Make("f", 600, 4200, kResvTimeFloat | kResvSpecNodes);
  table["f"] = floating;
  table["a"] = Make("a", kNow + 100, kNow + 200, 0, {"n2"});
  ResvRequest update;
  update.name = "f";
  update.duration = 60;
  absl::StatusOr<AdvanceReservation> r = PlanUpdate(table, update, Cluster(), kNow);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->start, 600);
  EXPECT_EQ(r->end, 660);
  EXPECT_TRUE(r->HasFlag(kResvTimeFloat));
  update = ResvRequest();
  update.name = "a";
  update.flags = ListEdit{ListOp::kAdd, {"TIME_FLOAT"}};
  r = PlanUpdate(table, update, Cluster(), kNow);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "Invalid time specified");
}

TEST(ResvGroups, MembersOfItsGroupsMayUseIt) {
  ResvContext context = Cluster();
  context.group_members = {{"lab", {"alice", "carol"}}, {"ops", {"bob"}}};
  ResvRequest request = Request("g", kNow + 100, 600);
  request.users.reset();
  request.nodes = "n1";
  request.groups = ListEdit{ListOp::kSet, {"lab"}};
  absl::StatusOr<AdvanceReservation> made = PlanCreate({}, request, context, kNow);
  ASSERT_TRUE(made.ok()) << made.status();
  EXPECT_EQ(made->groups, std::vector<std::string>{"lab"});
  EXPECT_TRUE(MayUseReservation(*made, "carol", "any"));
  EXPECT_FALSE(MayUseReservation(*made, "bob", "any"));
  // Groups+= resolves the new set.
  ResvTable table;
  table["g"] = *made;
  ResvRequest update;
  update.name = "g";
  update.groups = ListEdit{ListOp::kAdd, {"ops"}};
  absl::StatusOr<AdvanceReservation> updated = PlanUpdate(table, update, context, kNow);
  ASSERT_TRUE(updated.ok()) << updated.status();
  EXPECT_TRUE(MayUseReservation(*updated, "bob", "any"));
  // A group the edge did not find, and users with groups, are refused.
  request.groups = ListEdit{ListOp::kSet, {"nosuch"}};
  made = PlanCreate({}, request, context, kNow);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.status().message(), "Invalid group id");
  request.groups = ListEdit{ListOp::kSet, {"lab"}};
  request.users = ListEdit{ListOp::kSet, {"alice"}};
  made = PlanCreate({}, request, context, kNow);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.status().message(),
            "Reservations can't have users and groups specified, only one or the other");
}

}  // namespace
}  // namespace skiff::ctld
