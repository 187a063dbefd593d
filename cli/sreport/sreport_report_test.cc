#include "cli/sreport/sreport_report.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <time.h>

namespace skiff::cli {
namespace {

// 2026-11-24T00:00:00Z and the day after.
constexpr int64_t kDayStart = 1795478400;
constexpr int64_t kDay = 86400;

class SreportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "UTC", 1);
    tzset();
  }
};

// A scenario: 8 CPUs over one day; research (alice, bob) with physics
// (carol) under it; root's own user ran nothing.
UsageData Scenario() {
  UsageData data;
  data.cluster = "lab";
  data.total_cpus = 8;
  data.window = {kDayStart, kDayStart + kDay};
  data.usage = {{"physics", "carol", 1800}, {"research", "alice", 7200}, {"research", "bob", 3600}};
  data.tree = {{"root", "", ""},          {"root", "root", ""},    {"research", "", "root"},
               {"research", "alice", ""}, {"research", "bob", ""}, {"physics", "", "research"},
               {"physics", "carol", ""}};
  return data;
}

ReportStyle Style(ReportTimeFormat format = ReportTimeFormat::kMinutes) {
  ReportStyle style;
  style.time_format = format;
  style.proper_name = [](const std::string& user) {
    return user == "alice" ? std::string("Alice Liddell") : std::string();
  };
  return style;
}

ReportRequest Parse(const std::vector<std::string>& words) {
  ReportOutput messages;
  absl::StatusOr<ReportRequest> request = ParseReportCommand(words, kDayStart + kDay, &messages);
  EXPECT_TRUE(request.ok()) << messages.err;
  EXPECT_EQ(messages.err, "");
  return request.ok() ? *request : ReportRequest();
}

const std::string kDashes(80, '-');

TEST_F(SreportTest, TimesPrintAsSlurmsReportPrintTime) {
  EXPECT_EQ(FormatReportTime(ReportTimeFormat::kSeconds, 7230, 0), "7230");
  EXPECT_EQ(FormatReportTime(ReportTimeFormat::kMinutes, 7230, 0), "120");
  EXPECT_EQ(FormatReportTime(ReportTimeFormat::kMinutes, 90, 0), "2");  // %.0lf of 1.5
  EXPECT_EQ(FormatReportTime(ReportTimeFormat::kHours, 5400, 0), "2");
  EXPECT_EQ(FormatReportTime(ReportTimeFormat::kPercent, 1, 3), "33.33%");
  EXPECT_EQ(FormatReportTime(ReportTimeFormat::kPercent, 5, 0), "500.00%");  // total 0 -> 1
  EXPECT_EQ(FormatReportTime(ReportTimeFormat::kSecondsPercent, 60, 240), "60(25.00%)");
  EXPECT_EQ(FormatReportTime(ReportTimeFormat::kMinutesPercent, 600, 1200), "10(50.00%)");
  EXPECT_EQ(FormatReportTime(ReportTimeFormat::kHoursPercent, 7200, 7200), "2(100.00%)");
}

TEST_F(SreportTest, UsageColumnsGrowWithTheLargestValue) {
  EXPECT_EQ(ReportUsageColumnWidth(0, ReportTimeFormat::kMinutes), 8);
  EXPECT_EQ(ReportUsageColumnWidth(99999999, ReportTimeFormat::kMinutes), 8);
  EXPECT_EQ(ReportUsageColumnWidth(100000000, ReportTimeFormat::kMinutes), 9);
  EXPECT_EQ(ReportUsageColumnWidth(1000000000, ReportTimeFormat::kSeconds), 10);
  EXPECT_EQ(ReportUsageColumnWidth(5, ReportTimeFormat::kMinutesPercent), 17);
  EXPECT_EQ(ReportUsageColumnWidth(UINT64_MAX, ReportTimeFormat::kSeconds), 20);
}

TEST_F(SreportTest, TimeFormatsTakeSlurmsAbbreviations) {
  EXPECT_EQ(*ParseReportTimeFormat("s"), ReportTimeFormat::kSeconds);
  EXPECT_EQ(*ParseReportTimeFormat("Minutes"), ReportTimeFormat::kMinutes);
  EXPECT_EQ(*ParseReportTimeFormat("hour"), ReportTimeFormat::kHours);
  EXPECT_EQ(*ParseReportTimeFormat("PERCENT"), ReportTimeFormat::kPercent);
  EXPECT_EQ(*ParseReportTimeFormat("minper"), ReportTimeFormat::kMinutesPercent);
  EXPECT_EQ(*ParseReportTimeFormat("HourPer"), ReportTimeFormat::kHoursPercent);
  EXPECT_EQ(ParseReportTimeFormat("days").status().message(), "unknown time format days");
  EXPECT_FALSE(ParseReportTimeFormat("").ok());
  EXPECT_EQ(ReportTimeFormatName(ReportTimeFormat::kSecondsPercent), "Seconds/Percentage of Total");
}

TEST_F(SreportTest, WindowsRoundToHoursAsSlurmsDo) {
  const int64_t now = kDayStart + kDay + 13 * 3600 + 50 * 60;  // 25th, 13:50
  ReportWindow window = RoundReportWindow(0, 0, now);          // yesterday
  EXPECT_EQ(window.start, kDayStart);
  EXPECT_EQ(window.end, kDayStart + kDay);
  // 10:29:40 rounds up a minute to 10:30, which rounds to 11:00; 12:29 down.
  window =
      RoundReportWindow(kDayStart + 10 * 3600 + 29 * 60 + 40, kDayStart + 12 * 3600 + 29 * 60, now);
  EXPECT_EQ(window.start, kDayStart + 11 * 3600);
  EXPECT_EQ(window.end, kDayStart + 12 * 3600);
  // At least an hour; an end past now is now first (13:50 -> 14:00).
  window = RoundReportWindow(kDayStart + 3600, kDayStart + 3600, now);
  EXPECT_EQ(window.end - window.start, 3600);
  window = RoundReportWindow(kDayStart + kDay, now + 10 * kDay, now);
  EXPECT_EQ(window.end, kDayStart + kDay + 14 * 3600);
}

TEST_F(SreportTest, CommandsReadSlurmsWords) {
  ReportRequest request = Parse({"cluster", "Utilization"});
  EXPECT_EQ(request.kind, ReportKind::kUtilization);
  request = Parse({"Cl", "ut", "start=2026-11-24", "End=2026-11-25T00:00:00", "format=Cl,al"});
  EXPECT_EQ(request.start, kDayStart);
  EXPECT_EQ(request.end, kDayStart + kDay);
  ASSERT_EQ(request.format.size(), 2u);
  EXPECT_EQ(request.format[1].name, "al");
  request =
      Parse({"cluster", "AccountUtilizationByUser", "tree", "Accounts=research,physics", "alice"});
  EXPECT_EQ(request.kind, ReportKind::kAccountUtilizationByUser);
  EXPECT_TRUE(request.tree);
  EXPECT_EQ(request.accounts, (std::vector<std::string>{"research", "physics"}));
  EXPECT_EQ(request.users, (std::vector<std::string>{"alice"}));
  request = Parse({"cluster", "UA"});
  EXPECT_EQ(request.kind, ReportKind::kUserUtilizationByAccount);
  request = Parse({"user", "TopUsage", "TopCount=3", "group", "users=alice,'bob'"});
  EXPECT_EQ(request.kind, ReportKind::kTopUsage);
  EXPECT_EQ(request.top_count, 3u);
  EXPECT_TRUE(request.group);
  EXPECT_EQ(request.users, (std::vector<std::string>{"alice", "bob"}));
  request = Parse({"cluster", "Utilization", "lab"});
  EXPECT_EQ(request.clusters, (std::vector<std::string>{"lab"}));
}

TEST_F(SreportTest, BadCommandsGetSlurmsMessages) {
  struct Case {
    std::vector<std::string> words;
    std::string err;
    bool refused;
  };
  const std::vector<Case> cases = {
      {{"clusterx"}, "invalid keyword: clusterx\n", true},
      {{"cluster"}, "too few arguments for keyword:cluster\n", true},
      {{"user", "Bottom"}, "Not valid report Bottom\nValid user reports are, \"Top\"\n", true},
      {{"cluster", "Foo"},
       "Not valid report Foo\nValid cluster reports are, \"AccountUtilizationByUser\", "
       "\"UserUtilizationByAccount\", \"UserUtilizationByWckey\", \"Utilization\", and "
       "\"WCKeyUtilizationByUser\"\n",
       true},
      {{"cluster", "Utilization", "start=yesterdayish"},
       "sreport: error: Invalid time specification 'yesterdayish' for start\n",
       true},
      {{"user", "top", "topcount=ten"}, "Invalid value \"ten\" for TopCount\n", true},
      {{"cluster", "Utilization", "Users=alice"},
       " Unknown condition: Users=alice\nUse keyword set to modify value\n",
       false},
      {{"job", "SizesByAccount"},
       "sreport: error: job report 'SizesByAccount' is not kept by Skiff (it has no job-size "
       "rollups)\n",
       true},
  };
  for (const Case& c : cases) {
    ReportOutput messages;
    absl::StatusOr<ReportRequest> request = ParseReportCommand(c.words, kDayStart, &messages);
    EXPECT_EQ(messages.err, c.err) << c.words[0];
    EXPECT_EQ(messages.exit_code, 1) << c.words[0];
    EXPECT_EQ(request.ok(), !c.refused) << c.words[0];
  }
}

TEST_F(SreportTest, ClusterUtilizationAsSlurmPrintsIt) {
  ReportOutput out = RenderReport(Parse({"cluster", "Utilization"}), Scenario(), Style());
  EXPECT_EQ(out.err, "");
  EXPECT_EQ(out.exit_code, 0);
  // 12600 CPU-seconds used of 8 x 86400.
  EXPECT_EQ(out.out, kDashes +
                         "\n"
                         "Cluster Utilization 2026-11-24T00:00:00 - 2026-11-24T23:59:59\n"
                         "Usage reported in CPU Minutes\n" +
                         kDashes +
                         "\n"
                         "  Cluster Allocate     Down PLND Dow     Idle  Planned Reported \n"
                         "--------- -------- -------- -------- -------- -------- -------- \n"
                         "      lab      210        0        0    11310        0    11520 \n");
  ReportStyle percent = Style(ReportTimeFormat::kPercent);
  percent.layout.parsable2 = true;
  out = RenderReport(Parse({"cluster", "Utilization"}), Scenario(), percent);
  EXPECT_EQ(out.out, kDashes +
                         "\n"
                         "Cluster Utilization 2026-11-24T00:00:00 - 2026-11-24T23:59:59\n"
                         "Usage reported in Percentage of Total\n" +
                         kDashes +
                         "\n"
                         "Cluster|Allocated|Down|PLND Down|Idle|Planned|Reported\n"
                         "lab|1.82%|0.00%|0.00%|98.18%|0.00%|100.00%\n");
}

// Planned: what eligible jobs waited for, up to the time no job used;
// OverCommitted what waited beyond it; Idle what is left. (format=Planned is
// PLND Down, as Slurm matches PlannedDown first; Reserved is Planned.)
TEST_F(SreportTest, PlannedIsWaitingJobsTimeUpToTheIdleTime) {
  UsageData data = Scenario();
  data.waiting["cpu"] = 60 * 1000;  // 1000 CPU-minutes waited
  ReportStyle style = Style();
  style.layout.parsable2 = true;
  style.layout.no_header = true;
  ReportOutput out = RenderReport(Parse({"cluster", "Utilization",
                                         "format=Cluster,Allocated,Idle,Reserved,OverCommitted,"
                                         "Reported"}),
                                  data, style);
  EXPECT_EQ(out.out, "lab|210|10310|1000|0|11520\n");
  data.waiting["cpu"] = 60 * 12000;  // more than was idle
  out = RenderReport(Parse({"cluster", "Utilization",
                            "format=Cluster,Allocated,Idle,Reserved,OverCommitted,"
                            "Reported"}),
                     data, style);
  EXPECT_EQ(out.out, "lab|210|0|11310|690|11520\n");
}

// Reservations: their time is Allocated (MAINT's PLND Down), with the time of
// the jobs that ran in them counted once; association lines count jobs only.
TEST_F(SreportTest, ReservationTimeIsAllocatedOrPlannedDown) {
  UsageData data = Scenario();
  data.reserved["cpu"] = 60 * 600;        // 600 CPU-minutes held
  data.in_reservation["cpu"] = 60 * 120;  // alice's 120 minutes were inside it
  data.maint["cpu"] = 60 * 2000;
  ReportStyle style = Style();
  style.layout.parsable2 = true;
  style.layout.no_header = true;
  ReportOutput out = RenderReport(
      Parse({"cluster", "Utilization", "format=Cluster,Allocated,Down,PlannedDown,Idle,Reported"}),
      data, style);
  // 210 - 120 + 600 allocated, 2000 down for maintenance, the rest of 11520 idle.
  EXPECT_EQ(out.out, "lab|690|0|2000|8830|11520\n");
  out = RenderReport(Parse({"cluster", "AccountUtilizationByUser", "format=Login,Used"}), data,
                     style);
  EXPECT_EQ(out.out, "|210\n|210\nalice|120\nbob|60\n|30\ncarol|30\n");
}

TEST_F(SreportTest, AccountUtilizationByUserRollsUpTheTree) {
  ReportStyle style = Style(ReportTimeFormat::kSeconds);
  style.layout.no_header = true;
  style.layout.parsable = true;
  ReportOutput out =
      RenderReport(Parse({"cluster", "AccountUtilizationByUser"}), Scenario(), style);
  // root's own user ran nothing: no line.
  EXPECT_EQ(out.out,
            "lab|root|||12600|0|\n"
            "lab|research|||12600|0|\n"
            "lab|research|alice|Alice Liddell|7200|0|\n"
            "lab|research|bob||3600|0|\n"
            "lab|physics|||1800|0|\n"
            "lab|physics|carol||1800|0|\n");

  out = RenderReport(Parse({"cluster", "AccountUtilizationByUser", "Tree", "Accounts=physics"}),
                     Scenario(), Style());
  EXPECT_EQ(out.out, kDashes +
                         "\n"
                         "Cluster/Account/User Utilization 2026-11-24T00:00:00 - "
                         "2026-11-24T23:59:59 (86400 secs)\n"
                         "Usage reported in CPU Minutes\n" +
                         kDashes +
                         "\n"
                         "  Cluster Account                  Login     Proper Name     Used   "
                         "Energy \n"
                         "--------- -------------------- --------- --------------- -------- "
                         "-------- \n"
                         "      lab physics                                              30  "
                         "      0 \n"
                         "      lab  physics                 carol                       30  "
                         "      0 \n");
}

TEST_F(SreportTest, TopUsageListsTheLargestUsersFirst) {
  UsageData data = Scenario();
  data.usage.push_back({"physics", "alice", 600});
  ReportStyle style = Style();
  style.layout.parsable2 = true;
  ReportOutput out = RenderReport(Parse({"user", "TopUsage", "TopCount=3"}), data, style);
  EXPECT_EQ(out.out, kDashes +
                         "\n"
                         "Top 3 Users 2026-11-24T00:00:00 - 2026-11-24T23:59:59 (86400 secs)\n"
                         "Usage reported in CPU Minutes\n" +
                         kDashes +
                         "\n"
                         "Cluster|Login|Proper Name|Account|Used|Energy\n"
                         "lab|alice|Alice Liddell|research|120|0\n"
                         "lab|bob||research|60|0\n"
                         "lab|carol||physics|30|0\n");
  style.layout.no_header = true;
  out = RenderReport(Parse({"user", "top", "group", "format=Login,Account,Used"}), data, style);
  EXPECT_EQ(out.out,
            "alice|research, physics|130\n"
            "bob|research|60\n"
            "carol|physics|30\n");
  style.sort_by_name = true;
  out = RenderReport(Parse({"user", "top", "format=Login,Used", "TopCount=2"}), data, style);
  EXPECT_EQ(out.out, "alice|120\nalice|10\n");
}

// The scenario with GPUs: 2 nodes of 4 CPUs and 2 a100s each. alice ran 2
// GPUs for 90 s (180 GPU-seconds), bob none.
UsageData GpuScenario() {
  UsageData data = Scenario();
  data.usage = {
      {"research", "alice", 7200, {{"cpu", 7200}, {"gres/gpu", 180}, {"gres/gpu:a100", 180}}},
      {"research", "bob", 3600, {{"cpu", 3600}}}};
  data.cluster_tres = {{"cpu", 8},      {"mem", 2048},       {"energy", 0}, {"node", 2},
                       {"billing", 8},  {"fs/disk", 0},      {"vmem", 0},   {"pages", 0},
                       {"gres/gpu", 4}, {"gres/gpu:a100", 4}};
  return data;
}

std::vector<std::string> Names(const UsageData& data) {
  std::vector<std::string> names;
  for (const auto& [name, count] : data.cluster_tres) names.push_back(name);
  return names;
}

TEST_F(SreportTest, TresListFollowsSlurmsBuildTresList) {
  const std::vector<std::string> cluster = Names(GpuScenario());
  EXPECT_EQ(*SelectReportTres("", cluster, ReportTimeFormat::kMinutes),
            (std::vector<std::string>{"cpu"}));
  EXPECT_EQ(*SelectReportTres("GRES/GPU,cpu,bogus", cluster, ReportTimeFormat::kMinutes),
            (std::vector<std::string>{"gres/gpu", "cpu"}));
  EXPECT_EQ(*SelectReportTres("cpu,all", cluster, ReportTimeFormat::kMinutes), cluster);
  absl::StatusOr<std::vector<std::string>> none =
      SelectReportTres("gres/fpga", cluster, ReportTimeFormat::kMinutes);
  EXPECT_EQ(none.status().message(), "No valid TRES given");
  absl::StatusOr<std::vector<std::string>> node =
      SelectReportTres("node", cluster, ReportTimeFormat::kPercent);
  EXPECT_FALSE(node.ok());
  EXPECT_TRUE(SelectReportTres("node", cluster, ReportTimeFormat::kHours).ok());
}

TEST_F(SreportTest, UtilizationPrintsALinePerTres) {
  ReportStyle style = Style(ReportTimeFormat::kSeconds);
  style.tres_named = true;
  style.tres = {"cpu", "gres/gpu"};
  ReportOutput out = RenderReport(Parse({"cluster", "Utilization"}), GpuScenario(), style);
  EXPECT_EQ(out.err, "");
  // GPUs: 180 of 4 x 86400 GPU-seconds.
  EXPECT_EQ(out.out, kDashes +
                         "\n"
                         "Cluster Utilization 2026-11-24T00:00:00 - 2026-11-24T23:59:59\n"
                         "Usage reported in TRES Seconds\n" +
                         kDashes +
                         "\n"
                         "  Cluster      TRES Name Allocate     Down PLND Dow     Idle  Planned "
                         "Reported \n"
                         "--------- -------------- -------- -------- -------- -------- -------- "
                         "-------- \n"
                         "      lab            cpu    10800        0        0   680400        0 "
                         "  691200 \n"
                         "      lab       gres/gpu      180        0        0   345420        0 "
                         "  345600 \n");
}

TEST_F(SreportTest, AssociationReportsPrintALinePerTresOfEachLine) {
  ReportStyle style = Style(ReportTimeFormat::kSeconds);
  style.tres_named = true;
  style.tres = {"cpu", "gres/gpu"};
  style.layout.no_header = true;
  style.layout.parsable2 = true;
  ReportOutput out =
      RenderReport(Parse({"cluster", "AccountUtilizationByUser"}), GpuScenario(), style);
  EXPECT_EQ(out.out,
            "lab|root|||cpu|10800\n"
            "lab|root|||gres/gpu|180\n"
            "lab|research|||cpu|10800\n"
            "lab|research|||gres/gpu|180\n"
            "lab|research|alice|Alice Liddell|cpu|7200\n"
            "lab|research|alice|Alice Liddell|gres/gpu|180\n"
            "lab|research|bob||cpu|3600\n"
            "lab|research|bob||gres/gpu|0\n");
  // GPU time alone: bob used none and has no line; the typed TRES counts too.
  style.tres = {"gres/gpu:a100"};
  out = RenderReport(Parse({"cluster", "UserUtilizationByAccount"}), GpuScenario(), style);
  EXPECT_EQ(out.out, "lab|alice|Alice Liddell|research|gres/gpu:a100|180\n");
  style.tres = {"gres/gpu"};
  style.time_format = ReportTimeFormat::kMinutes;
  out = RenderReport(Parse({"user", "TopUsage"}), GpuScenario(), style);
  EXPECT_EQ(out.out, "lab|alice|Alice Liddell|research|gres/gpu|3\n");
}

TEST_F(SreportTest, TopUsageSortsByTheFirstTresListed) {
  UsageData data = GpuScenario();
  // bob: more CPU time, less GPU time than carol.
  data.usage = {{"research", "bob", 9000, {{"cpu", 9000}, {"gres/gpu", 60}}},
                {"physics", "carol", 60, {{"cpu", 60}, {"gres/gpu", 3600}}}};
  ReportStyle style = Style(ReportTimeFormat::kSeconds);
  style.tres_named = true;
  style.layout.no_header = true;
  style.layout.parsable2 = true;
  style.tres = {"gres/gpu", "cpu"};
  ReportOutput out =
      RenderReport(Parse({"user", "TopUsage", "format=Login,TresName,Used"}), data, style);
  EXPECT_EQ(out.out,
            "carol|gres/gpu|3600\ncarol|cpu|60\n"
            "bob|gres/gpu|60\nbob|cpu|9000\n");
  style.tres = {"cpu", "gres/gpu"};
  out = RenderReport(Parse({"user", "TopUsage", "format=Login,TresName,Used"}), data, style);
  EXPECT_EQ(out.out,
            "bob|cpu|9000\nbob|gres/gpu|60\n"
            "carol|cpu|60\ncarol|gres/gpu|3600\n");
}

TEST_F(SreportTest, UnknownFieldsAreLeftOutWithSlurmsMessage) {
  ReportStyle style = Style();
  style.layout.parsable2 = true;
  style.layout.no_header = true;
  ReportOutput out = RenderReport(
      Parse({"cluster", "Utilization", "format=Cluster,Bogus,Reported"}), Scenario(), style);
  EXPECT_EQ(out.err, " Unknown field 'Bogus'\n");
  EXPECT_EQ(out.exit_code, 1);
  EXPECT_EQ(out.out, "lab|11520\n");
}

TEST_F(SreportTest, AnotherClusterHasNoLines) {
  ReportStyle style = Style();
  style.layout.no_header = true;
  style.layout.parsable2 = true;
  ReportOutput out = RenderReport(Parse({"cluster", "AccountUtilizationByUser", "Clusters=other"}),
                                  Scenario(), style);
  EXPECT_EQ(out.out, "");
}

}  // namespace
}  // namespace skiff::cli
