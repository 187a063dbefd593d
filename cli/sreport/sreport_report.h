// sreport as pure functions: a report command's words ("cluster Utilization
// start=... format=...") to a request, and ctld's usage sums to the table Slurm
// 22.05's sreport prints (src/sreport/cluster_reports.c, user_reports.c,
// common.c): the 80-dash banner, "Usage reported in CPU Minutes", columns sized
// by the largest value, times as seconds, minutes, hours or percentages.
//
// Skiff keeps TRES-seconds (cpu, mem, node, billing, gres/gpu, gres/gpu:TYPE)
// per account and user (JobStore::SumUsage), summed from job records rather
// than Slurm's hourly rollups; the window is rounded to whole hours as
// Slurm's is. With -T, every report prints one line per listed TRES for each
// association, user or (Utilization) the cluster, with its TRES Name. Node
// down time is not recorded, so Down is 0. Planned (22.05's sreport.1: idle
// time while eligible jobs waited) is what waiting jobs asked for times their
// wait, capped by what no job used over the whole window (Slurm caps each
// hour), OverCommitted the rest; Idle is what is left. Advance reservations
// count as Slurm's rollup counts them: a reservation's time is Allocated with
// its jobs' time inside it (PLND Down for MAINT; IGNORE_JOBS ones not at all,
// their jobs as any other's); association lines count jobs only (Slurm spreads
// a reservation's unused time over its associations; Skiff does not).
#ifndef SKIFF_CLI_SREPORT_SREPORT_REPORT_H_
#define SKIFF_CLI_SREPORT_SREPORT_REPORT_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/common/print_fields.h"

namespace skiff::cli {

// -t: how usage values print.
enum class ReportTimeFormat {
  kSeconds,
  kMinutes,
  kHours,
  kPercent,
  kSecondsPercent,  // SecPer: "123(4.56%)"
  kMinutesPercent,
  kHoursPercent,
};

// Slurm's _set_time_format: SecPer, MinPer, HourPer (6 letters at least), then
// Seconds, Minutes, Hours, Percent (any prefix). Error: InvalidArgument
// "unknown time format X".
absl::StatusOr<ReportTimeFormat> ParseReportTimeFormat(const std::string& text);

// "Minutes", "Percentage of Total", "Hours/Percentage of Total", ...
std::string ReportTimeFormatName(ReportTimeFormat format);

// slurmdb_report_print_time's text for `seconds` out of `total` seconds.
std::string FormatReportTime(ReportTimeFormat format, uint64_t seconds, uint64_t total);

// sreport_set_usage_col_width: 8 characters up to 99,999,999 seconds, one more
// per further digit, 9 more for the "(%)" formats.
int ReportUsageColumnWidth(uint64_t max_seconds, ReportTimeFormat format);

// slurmdb_report_set_start_end_time after sanity_check_endtime, in local time:
// 0 means the default (start: yesterday's midnight; end: today's); a given time
// is rounded to its nearest hour (30 minutes up); an end later than `now` is
// `now` first; the window is at least an hour.
struct ReportWindow {
  int64_t start = 0;
  int64_t end = 0;
};
ReportWindow RoundReportWindow(int64_t start, int64_t end, int64_t now);

enum class ReportKind {
  kUtilization,               // cluster Utilization
  kAccountUtilizationByUser,  // cluster AccountUtilizationByUser
  kUserUtilizationByAccount,  // cluster UserUtilizationByAccount
  kTopUsage,                  // user TopUsage
};

struct ReportRequest {
  ReportKind kind = ReportKind::kUtilization;
  std::vector<FieldRequest> format;  // empty = the report's default
  int64_t start = 0;                 // as given (0 = default), before rounding
  int64_t end = 0;
  std::vector<std::string> users;     // Users= (and bare words)
  std::vector<std::string> accounts;  // Accounts=
  std::vector<std::string> clusters;  // Clusters=
  bool tree = false;                  // AccountUtilizationByUser: Tree
  bool group = false;                 // TopUsage: Group
  uint32_t top_count = 10;            // TopUsage: TopCount=
};

// What a command prints: the report, Slurm's messages for what it skipped
// (unknown conditions and fields, which do not stop the report), and the exit
// code.
struct ReportOutput {
  std::string out;
  std::string err;
  int exit_code = 0;
};

// Reads the words after sreport's options: "cluster Utilization start=...",
// "cluster AccountUtilizationByUser Accounts=a Tree", "user TopUsage
// TopCount=5 Group", with Slurm's abbreviations. Unknown conditions go to
// `messages->err` (exit 1) as Slurm reports them; the report still runs. Errors
// (the whole command refused, with `messages` holding Slurm's text): an unknown
// or missing report, reports Skiff does not keep (job sizes, reservations,
// wckeys), a time it cannot parse.
absl::StatusOr<ReportRequest> ParseReportCommand(const std::vector<std::string>& words, int64_t now,
                                                 ReportOutput* messages);

// ctld's answer (GetUsageReport and the association tree of GetAccounts),
// reduced to what the reports read.
struct UsageByAssociation {
  std::string account;
  std::string user;
  double cpu_seconds = 0;
  // Per TRES name; empty from a ctld that sums CPUs only (cpu_seconds counts).
  std::map<std::string, double> tres_seconds;
};
struct AccountNode {  // depth first from root, as GetAccounts lists them
  std::string account;
  std::string user;    // "" for the account's own association
  std::string parent;  // the parent account of an account's association
};
struct UsageData {
  std::string cluster;
  int64_t total_cpus = 0;
  ReportWindow window;  // as applied
  std::vector<UsageByAssociation> usage;
  std::vector<AccountNode> tree;
  // The cluster's TRES and their counts in Slurm's order (GetUsageReport's
  // `tres`); empty from a ctld that sums CPUs only (total_cpus counts).
  std::vector<std::pair<std::string, double>> cluster_tres;
  // Per TRES: what eligible jobs asked for times the seconds they waited in
  // the window (GetUsageReport's waiting_tres_seconds): Planned up to the idle
  // time, OverCommitted beyond it.
  std::map<std::string, double> waiting;
  // Per TRES, advance reservations' time in the window (GetUsageReport's
  // reserved_/maint_/in_reservation_tres_seconds): the cluster's Allocated is
  // the jobs' time outside reservations plus `reserved`; PLND Down is `maint`.
  std::map<std::string, double> reserved;
  std::map<std::string, double> maint;
  std::map<std::string, double> in_reservation;
};

// sreport.c's _build_tres_list over the cluster's TRES names: -T's
// comma-separated names (any case) in the order given, unknown ones left out
// silently as Slurm does; "ALL" (any case) is every TRES of the cluster. An
// empty `text` is cpu alone. Errors (InvalidArgument, Slurm's fatal text): no
// name known ("No valid TRES given"), node with a percentage format ("TRES
// node usage is no longer reported in percent format reports.  Please use
// TRES CPU instead.").
absl::StatusOr<std::vector<std::string>> SelectReportTres(const std::string& text,
                                                          const std::vector<std::string>& cluster,
                                                          ReportTimeFormat format);

struct ReportStyle {
  ReportTimeFormat time_format = ReportTimeFormat::kMinutes;
  PrintFieldsLayout layout;
  // -T given: "Usage reported in TRES ...", and the default formats gain a
  // TRES Name column.
  bool tres_named = false;
  std::vector<std::string> tres;  // SelectReportTres's; empty = cpu
  bool sort_by_name = false;      // -s Name: users by name instead of by usage
  // The first field of the user's GECOS, as Slurm's "Proper Name"; may return "".
  std::function<std::string(const std::string& user)> proper_name;
};

// The report, banner included. Unknown format fields go to `err` as Slurm
// prints them (" Unknown field 'X'") and are left out; exit code 1.
ReportOutput RenderReport(const ReportRequest& request, const UsageData& data,
                          const ReportStyle& style);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_SREPORT_SREPORT_REPORT_H_
