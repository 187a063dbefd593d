#include "ctld/core/reservations/resv_usage.h"

#include <gtest/gtest.h>

namespace skiff::ctld {
namespace {

const ResvCalendar& kUtc = UtcResvCalendar();

AdvanceReservation Make(const std::string& name, int64_t start, int64_t end, uint32_t flags = 0) {
  AdvanceReservation r;
  r.name = name;
  r.start = start;
  r.end = end;
  r.flags = flags;
  r.nodes = {"n1"};
  return r;
}

ResvEvent Event(const AdvanceReservation& resv, int64_t time, bool created, double cpus) {
  return ResvEvent{resv.name, time, created, resv, TresCounts{{"cpu", cpus}}};
}

ResvEvent Deleted(const std::string& name, int64_t time) {
  return ResvEvent{name, time, false, std::nullopt, {}};
}

TEST(ResvPeriods, EachChangeLastsUntilTheNextOfTheSameName) {
  const AdvanceReservation a = Make("a", 1000, 5000);
  AdvanceReservation wider = a;
  wider.end = 9000;
  const std::vector<ResvPeriod> periods =
      ResvPeriods({Deleted("a", 3000), Event(Make("b", 100, 200), 50, true, 1),
                   Event(a, 500, true, 4), Event(wider, 2000, false, 8)});
  ASSERT_EQ(periods.size(), 3u);
  EXPECT_EQ(periods[0].resv.end, 5000);
  EXPECT_EQ(periods[0].from, 500);
  EXPECT_EQ(periods[0].until, 2000);
  EXPECT_EQ(periods[1].resv.end, 9000);
  EXPECT_EQ(periods[1].from, 2000);
  EXPECT_EQ(periods[1].until, 3000);  // deleted then
  EXPECT_EQ(periods[2].resv.name, "b");
  EXPECT_EQ(periods[2].until, INT64_MAX);
}

TEST(ResvPeriods, ACreatedReservationCountsFromItsOwnStartInThePast) {
  const std::vector<ResvPeriod> periods = ResvPeriods({Event(Make("a", 700, 2000), 1000, true, 1)});
  ASSERT_EQ(periods.size(), 1u);
  EXPECT_EQ(periods[0].from, 700);
}

TEST(ResvTres, WholeNodesCountTheirResourcesAGpuReservationItsGpus) {
  const std::vector<ResvNodeTres> nodes = {{"n1", 8, 1000, 2, "a100"}, {"n2", 4, 500, 0, ""}};
  AdvanceReservation whole = Make("a", 0, 10);
  whole.nodes = {"n1", "n2", "gone"};
  EXPECT_EQ(
      ResvTres(whole, nodes),
      (TresCounts{{"cpu", 12}, {"mem", 1500}, {"node", 2}, {"gres/gpu", 2}, {"gres/gpu:a100", 2}}));
  AdvanceReservation gpus = Make("g", 0, 10);
  gpus.node_gpus = {1};
  EXPECT_EQ(ResvTres(gpus, nodes), (TresCounts{{"gres/gpu", 1}, {"gres/gpu:a100", 1}}));
}

TEST(SumResvUsage, ReservedTimeIsAllocatedMaintIsPlannedDownIgnoreJobsNeither) {
  const std::vector<ResvPeriod> periods =
      ResvPeriods({Event(Make("plain", 1000, 2000), 900, true, 4),
                   Event(Make("maint", 1500, 2500, kResvMaint), 900, true, 2),
                   Event(Make("ignore", 1000, 2000, kResvMaint | kResvIgnoreJobs), 900, true, 8)});
  // The window [1200, 2200) clips plain to 800 s and maint to 700 s.
  const ResvUsage usage = SumResvUsage(periods, {}, 1200, 2200, 10'000, kUtc);
  EXPECT_EQ(usage.allocated, (TresCounts{{"cpu", 4 * 800}}));
  EXPECT_EQ(usage.planned_down, (TresCounts{{"cpu", 2 * 700}}));
  EXPECT_TRUE(usage.bundled.empty());
}

TEST(SumResvUsage, CountsNoFurtherThanNowNorPastADelete) {
  const std::vector<ResvPeriod> periods =
      ResvPeriods({Event(Make("a", 1000, 5000), 1000, true, 1), Deleted("a", 1300),
                   Event(Make("b", 1000, 5000), 1000, true, 1)});
  const ResvUsage usage = SumResvUsage(periods, {}, 0, 9000, 1500, kUtc);
  EXPECT_EQ(usage.allocated, (TresCounts{{"cpu", 300 + 500}}));
}

TEST(SumResvUsage, JobsInsideAReservationAreBundledOnlyWhileItHoldsThem) {
  const std::vector<ResvPeriod> periods =
      ResvPeriods({Event(Make("a", 1000, 2000), 1000, true, 4),
                   Event(Make("i", 1000, 2000, kResvIgnoreJobs), 1000, true, 4)});
  const std::vector<ResvJobRun> runs = {
      {"a", 1500, 2500, {{"cpu", 2}}},  // 500 s of it inside
      {"a", 1800, 0, {{"cpu", 1}}},     // running at now = 1900: 100 s
      {"i", 1000, 1100, {{"cpu", 1}}},  // IGNORE_JOBS: counted as any job's
      {"", 1000, 1100, {{"cpu", 1}}},
  };
  const ResvUsage usage = SumResvUsage(periods, runs, 0, 3000, 1900, kUtc);
  EXPECT_EQ(usage.allocated, (TresCounts{{"cpu", 4 * 900}}));
  EXPECT_EQ(usage.bundled, (TresCounts{{"cpu", 2 * 400 + 100}}));
}

TEST(SumResvUsage, RepeatsCountEachOccurrenceAndFloatingOnesNothing) {
  const std::vector<ResvPeriod> periods =
      ResvPeriods({Event(Make("d", 0, 3600, kResvDaily), 0, true, 1),
                   Event(Make("f", 600, 1200, kResvTimeFloat), 0, true, 1)});
  const ResvUsage usage =
      SumResvUsage(periods, {}, 1800, 2 * kDaySeconds + 1800, 10 * kDaySeconds, kUtc);
  // Half of the first day's hour, the second's whole, half of the third's.
  EXPECT_EQ(usage.allocated, (TresCounts{{"cpu", 1800 + 3600 + 1800}}));
}

}  // namespace
}  // namespace skiff::ctld
