// The scheduler and advance reservations (scontrol create reservation):
// windows keep other jobs off the reserved nodes, backfill included; jobs in
// a reservation run only there and only while it is open.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ctld/core/scheduler/scheduler.h"
#include "ctld/core/scheduler/test_util.h"

namespace skiff::ctld {
namespace {

using testing_util::MakeJob;
using testing_util::MakeNode;
using testing_util::MakeRunning;
using testing_util::MakeView;
using testing_util::ReasonOf;
using testing_util::StartOf;

constexpr int64_t kNow = 1000;

SchedResv Resv(const std::string& name, std::vector<int32_t> nodes, int64_t start, int64_t end,
               bool maint = false) {
  SchedResv resv;
  resv.name = name;
  resv.nodes = std::move(nodes);
  resv.windows = {{start, end}};
  resv.maint = maint;
  return resv;
}

WaitDetail DetailOf(const SchedulePlan& plan, const std::vector<PendingJob>& pending, uint64_t id) {
  for (size_t i = 0; i < pending.size(); ++i) {
    if (pending[i].id == id) return plan.details[i];
  }
  return WaitDetail::kNone;
}

TEST(AdvanceReservation, MaintenanceInFiveMinutesKeepsAnHourJobOffAndLetsTwoMinutesBackfill) {
  ClusterView view = MakeView({MakeNode("n1", 4), MakeNode("n2", 4)});
  view.resvs.push_back(Resv("maint", {0, 1}, kNow + 300, kNow + 3900, /*maint=*/true));
  const std::vector<PendingJob> pending = {MakeJob(1, 0, 1, 0, 1, 3600),
                                           MakeJob(2, 0, 1, 0, 1, 120)};
  const SchedulePlan plan = Schedule(view, pending, {}, kNow);
  EXPECT_EQ(StartOf(plan, 1), nullptr);
  EXPECT_EQ(ReasonOf(plan, pending, 1), "ReqNodeNotAvail");
  EXPECT_EQ(DetailOf(plan, pending, 1), WaitDetail::kReservedForMaintenance);
  const JobStart* small = StartOf(plan, 2);
  ASSERT_NE(small, nullptr);
  EXPECT_TRUE(small->backfilled);
  // The hour job is planned for the end of the window.
  ASSERT_FALSE(plan.reservations.empty());
  EXPECT_EQ(plan.reservations[0].job_id, 1u);
  EXPECT_EQ(plan.reservations[0].start, kNow + 3900);
  // Without the maintenance reservation both run at once.
  view.resvs.clear();
  EXPECT_EQ(Schedule(view, pending, {}, kNow).starts.size(), 2u);
}

TEST(AdvanceReservation, ActiveWindowHoldsItsNodesOnlyForItsJobs) {
  ClusterView view = MakeView({MakeNode("n1", 4), MakeNode("n2", 4)});
  view.resvs.push_back(Resv("lab", {0}, kNow - 10, kNow + 600));
  PendingJob outside = MakeJob(1, 0, 4, 0, 1, 60);
  PendingJob second_outside = MakeJob(2, 0, 4, 0, 1, 60);
  PendingJob inside = MakeJob(3, 0, 4, 0, 1, 3600);
  inside.resv = 0;
  const std::vector<PendingJob> pending = {outside, second_outside, inside};
  const SchedulePlan plan = Schedule(view, pending, {}, kNow);
  ASSERT_NE(StartOf(plan, 1), nullptr);
  EXPECT_EQ(StartOf(plan, 1)->nodes, std::vector<int32_t>{1});
  EXPECT_EQ(StartOf(plan, 2), nullptr);  // n1 is the reservation's
  EXPECT_EQ(ReasonOf(plan, pending, 2), "Resources");
  ASSERT_NE(StartOf(plan, 3), nullptr);  // and may run past the window's end
  EXPECT_EQ(StartOf(plan, 3)->nodes, std::vector<int32_t>{0});
}

TEST(AdvanceReservation, OverlapReservationsOnOneNodeBothRunTheirJobs) {
  ClusterView view = MakeView({MakeNode("n1", 4)});
  view.resvs.push_back(Resv("a", {0}, kNow - 10, kNow + 3600));
  view.resvs.push_back(Resv("b", {0}, kNow - 10, kNow + 3600));
  view.resvs[0].overlap = true;
  view.resvs[1].overlap = true;
  PendingJob in_a = MakeJob(1, 0, 2, 0, 1, 600);
  in_a.resv = 0;
  PendingJob in_b = MakeJob(2, 0, 2, 0, 1, 600);
  in_b.resv = 1;
  const PendingJob outside = MakeJob(3, 0, 1, 0, 1, 60);
  const std::vector<PendingJob> pending = {in_a, in_b, outside};
  SchedulePlan plan = Schedule(view, pending, {}, kNow);
  EXPECT_NE(StartOf(plan, 1), nullptr);
  EXPECT_NE(StartOf(plan, 2), nullptr);
  EXPECT_EQ(StartOf(plan, 3), nullptr);  // a job in neither still keeps off
  // Without OVERLAP each window keeps the other's job off the node.
  view.resvs[0].overlap = false;
  view.resvs[1].overlap = false;
  plan = Schedule(view, pending, {}, kNow);
  EXPECT_EQ(StartOf(plan, 1), nullptr);
  EXPECT_EQ(StartOf(plan, 2), nullptr);
}

TEST(AdvanceReservation, OverlapJobStillKeepsOffAMaintenanceWindow) {
  ClusterView view = MakeView({MakeNode("n1", 4)});
  view.resvs.push_back(Resv("a", {0}, kNow - 10, kNow + 3600));
  view.resvs.push_back(Resv("maint", {0}, kNow + 300, kNow + 900, /*maint=*/true));
  view.resvs[0].overlap = true;
  PendingJob in_a = MakeJob(1, 0, 2, 0, 1, 600);
  in_a.resv = 0;
  PendingJob short_in_a = MakeJob(2, 0, 2, 0, 1, 120);
  short_in_a.resv = 0;
  const std::vector<PendingJob> pending = {in_a, short_in_a};
  const SchedulePlan plan = Schedule(view, pending, {}, kNow);
  EXPECT_EQ(StartOf(plan, 1), nullptr);  // would run into the maintenance
  EXPECT_NE(StartOf(plan, 2), nullptr);  // ends before it
}

TEST(AdvanceReservation, MagneticReservationDrawsJobsThatMayUseIt) {
  ClusterView view = MakeView({MakeNode("n1", 4), MakeNode("n2", 4)});
  view.resvs.push_back(Resv("mag", {1}, kNow - 10, kNow + 3600));
  PendingJob drawn = MakeJob(1, 0, 4, 0, 1, 600);
  drawn.magnetic = {0};
  const PendingJob plain = MakeJob(2, 0, 4, 0, 1, 600);
  const PendingJob second_plain = MakeJob(3, 0, 4, 0, 1, 600);
  const std::vector<PendingJob> pending = {drawn, plain, second_plain};
  const SchedulePlan plan = Schedule(view, pending, {}, kNow);
  // Tried in the reservation first, and placed there.
  ASSERT_NE(StartOf(plan, 1), nullptr);
  EXPECT_EQ(StartOf(plan, 1)->nodes, std::vector<int32_t>{1});
  EXPECT_EQ(StartOf(plan, 1)->magnetic, 0);
  // Others keep off its nodes: one runs on n1, one waits.
  ASSERT_NE(StartOf(plan, 2), nullptr);
  EXPECT_EQ(StartOf(plan, 2)->magnetic, kNone);
  EXPECT_EQ(StartOf(plan, 3), nullptr);
}

TEST(AdvanceReservation, MagneticJobRunsOutsideWhenTheReservationIsNotOpen) {
  ClusterView view = MakeView({MakeNode("n1", 4), MakeNode("n2", 4)});
  view.resvs.push_back(Resv("mag", {1}, kNow + 3600, kNow + 7200));
  PendingJob drawn = MakeJob(1, 0, 4, 0, 1, 600);
  drawn.magnetic = {0};
  const SchedulePlan plan = Schedule(view, {drawn}, {}, kNow);
  ASSERT_NE(StartOf(plan, 1), nullptr);
  EXPECT_EQ(StartOf(plan, 1)->magnetic, kNone);
}

TEST(AdvanceReservation, JobWaitsForItsReservationToOpenOrWhenItIsGone) {
  ClusterView view = MakeView({MakeNode("n1", 4)});
  view.resvs.push_back(Resv("later", {0}, kNow + 600, kNow + 1200));
  PendingJob inside = MakeJob(1, 0, 1, 0, 1, 60);
  inside.resv = 0;
  PendingJob gone = MakeJob(2, 0, 1, 0, 1, 60);
  gone.resv = kResvGone;
  const std::vector<PendingJob> pending = {inside, gone};
  const SchedulePlan plan = Schedule(view, pending, {}, kNow);
  EXPECT_EQ(ReasonOf(plan, pending, 1), "Reservation");
  EXPECT_EQ(ReasonOf(plan, pending, 2), "ReservationDeleted");
  EXPECT_TRUE(plan.starts.empty());
  // FLEX: its jobs need not wait for the window nor stay on its nodes.
  view.resvs[0].flex = true;
  const SchedulePlan flex = Schedule(view, {inside}, {}, kNow);
  EXPECT_EQ(flex.starts.size(), 1u);
}

TEST(AdvanceReservation, GpuReservationHoldsOnlyItsGpus) {
  ClusterView view = MakeView({MakeNode("g1", 8, 2)});
  SchedResv gpus = Resv("gpus", {0}, kNow - 10, kNow + 3600);
  gpus.gpus = {1};
  view.resvs.push_back(gpus);
  const std::vector<PendingJob> pending = {MakeJob(1, 0, 1, 2, 1, 600), MakeJob(2, 0, 1, 1, 1, 600),
                                           MakeJob(3, 0, 1, 0, 1, 600)};
  const SchedulePlan plan = Schedule(view, pending, {}, kNow);
  EXPECT_EQ(StartOf(plan, 1), nullptr);  // two GPUs: one is reserved
  EXPECT_NE(StartOf(plan, 2), nullptr);  // one GPU fits beside the reservation
  EXPECT_NE(StartOf(plan, 3), nullptr);  // CPUs are not reserved
}

TEST(AdvanceReservation, EarliestStartLooksPastTheWindow) {
  ClusterView view = MakeView({MakeNode("n1", 4)});
  view.resvs.push_back(Resv("m", {0}, kNow + 100, kNow + 500));
  const StartEstimate hour = EarliestStart(view, MakeJob(1, 0, 1, 0, 1, 3600), kNow);
  EXPECT_EQ(hour.start, kNow + 500);
  const StartEstimate minute = EarliestStart(view, MakeJob(2, 0, 1, 0, 1, 60), kNow);
  EXPECT_EQ(minute.start, kNow);
  PendingJob spread = MakeJob(3, 0, 1, 0, 1, 3600);
  spread.ntasks = 2;
  spread.cpus_per_task = 1;
  spread.max_nodes = 1;
  EXPECT_EQ(EarliestStart(view, spread, kNow).start, kNow + 500);
}

}  // namespace
}  // namespace skiff::ctld
