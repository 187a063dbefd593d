#include "ctld/core/reservations/reservation.h"

#include <gtest/gtest.h>

namespace skiff::ctld {
namespace {

constexpr int64_t kNow = 1'800'000'000;  // a whole-day multiple is not needed

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
  EXPECT_EQ(WindowAt(r, 50).start, 100);
  EXPECT_TRUE(ResvActive(r, 150));
  EXPECT_FALSE(ResvActive(r, 200));
  EXPECT_TRUE(ResvEnded(r, 200));
  EXPECT_FALSE(ResvEnded(r, 199));
}

TEST(ResvWindows, DailyMovesOnByADayAndNeverEnds) {
  const AdvanceReservation r = Make("a", 1000, 1000 + 3600, kResvDaily);
  const ResvWindow next = WindowAt(r, 1000 + 3600);  // the first just ended
  EXPECT_EQ(next.start, 1000 + kDaySeconds);
  EXPECT_EQ(next.end, 1000 + kDaySeconds + 3600);
  EXPECT_FALSE(ResvEnded(r, 1000 + 10 * kDaySeconds));
  EXPECT_TRUE(ResvActive(r, 1000 + 3 * kDaySeconds + 10));
  EXPECT_FALSE(ResvActive(r, 1000 + 3 * kDaySeconds + 3600));
  const std::vector<ResvWindow> windows = WindowsBetween(r, 0, 1000 + 2 * kDaySeconds + 1);
  ASSERT_EQ(windows.size(), 3u);
  EXPECT_EQ(windows[2].start, 1000 + 2 * kDaySeconds);
}

TEST(ResvWindows, WeeklyRepeatsEverySevenDays) {
  const AdvanceReservation r = Make("a", 0, 3600, kResvWeekly);
  EXPECT_FALSE(ResvActive(r, kDaySeconds + 10));
  EXPECT_TRUE(ResvActive(r, kWeekSeconds + 10));
}

TEST(ResvOverlap, OneOffsOverlapOnlyWhenTheirTimesMeet) {
  EXPECT_TRUE(TimesOverlap(Make("a", 100, 200), Make("b", 150, 300), 0));
  EXPECT_FALSE(TimesOverlap(Make("a", 100, 200), Make("b", 200, 300), 0));
}

TEST(ResvOverlap, DailyMeetsAOneOffOnALaterDay) {
  const AdvanceReservation daily = Make("d", 0, 3600, kResvDaily);
  // Five days later, half an hour into that day's window.
  EXPECT_TRUE(TimesOverlap(daily, Make("b", 5 * kDaySeconds + 1800, 5 * kDaySeconds + 7200), 0));
  // The same day, outside the daily hour.
  EXPECT_FALSE(TimesOverlap(daily, Make("b", 5 * kDaySeconds + 3600, 5 * kDaySeconds + 7200), 0));
}

TEST(ResvOverlap, DailyMeetsWeeklyOnlyAtTheSameHour) {
  const AdvanceReservation daily = Make("d", 0, 3600, kResvDaily);
  EXPECT_TRUE(
      TimesOverlap(daily, Make("w", 3 * kDaySeconds + 600, 3 * kDaySeconds + 900, kResvWeekly), 0));
  EXPECT_FALSE(TimesOverlap(
      daily, Make("w", 3 * kDaySeconds + 3600, 3 * kDaySeconds + 7200, kResvWeekly), 0));
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

}  // namespace
}  // namespace skiff::ctld
