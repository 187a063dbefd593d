// sacct: job accounting records (pending, running and finished jobs and their
// steps) from ctld's database, as Slurm's sacct.
#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <ctime>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "cli/command.h"
#include "cli/common/getopt_args.h"
#include "cli/sacct/sacct_format.h"
#include "cli/sacct/sacct_help.h"
#include "cli/sacct/sacct_options.h"
#include "client/ctld_client.h"

namespace {

constexpr char kProgram[] = "sacct";

std::optional<uid_t> UidOf(const std::string& text) {
  uint32_t number = 0;
  if (absl::SimpleAtoi(text, &number)) return static_cast<uid_t>(number);
  struct passwd pwd;
  struct passwd* found = nullptr;
  char buffer[4096];
  if (getpwnam_r(text.c_str(), &pwd, buffer, sizeof(buffer), &found) != 0 || found == nullptr) {
    return std::nullopt;
  }
  return found->pw_uid;
}

std::optional<gid_t> GidOf(const std::string& text) {
  uint32_t number = 0;
  if (absl::SimpleAtoi(text, &number)) return static_cast<gid_t>(number);
  struct group grp;
  struct group* found = nullptr;
  char buffer[4096];
  if (getgrnam_r(text.c_str(), &grp, buffer, sizeof(buffer), &found) != 0 || found == nullptr) {
    return std::nullopt;
  }
  return found->gr_gid;
}

}  // namespace

int skiff::cli::SacctMain(int argc, char** argv) {
  CLI::App app{"sacct"};
  app.set_help_flag();
  skiff::cli::SacctCommandLine line;
  bool help = false, usage = false, version = false, help_format = false, json = false;
  bool duplicates = false, all_clusters = false;
  // Slurm's long_options order (getopt lists ambiguous candidates in it).
  app.add_flag("-a,--allusers", line.all_users);
  app.add_option("-A,--accounts", line.accounts);
  app.add_flag("-b,--brief", line.brief);
  app.add_flag("-D,--duplicates", duplicates);
  app.add_option("--delimiter", line.delimiter);
  app.add_flag("-e,--helpformat", help_format);
  app.add_option("-E,--endtime", line.end_time);
  app.add_option("-g,--gid,--group", line.groups);
  app.add_flag("-h,--help", help);
  app.add_option("-j,--jobs", line.jobs);
  app.add_flag("--json", json);
  app.add_flag("-l,--long", line.long_format);
  app.add_flag("-L,--allclusters", all_clusters);
  app.add_option("-M,--clusters", line.clusters);
  app.add_flag("-n,--noheader", line.no_header);
  app.add_option("--name", line.names);
  app.add_option("-N,--nodelist", line.nodes);
  app.add_option("-o,--format", line.format);
  app.add_flag("-p,--parsable", line.parsable);
  app.add_flag("-P,--parsable2", line.parsable2);
  app.add_option("-q,--qos", line.qos);
  app.add_option("-r,--partition", line.partitions);
  app.add_option("-s,--state", line.states);
  app.add_option("-S,--starttime", line.start_time);
  app.add_flag("-T,--truncate", line.truncate);
  app.add_option("-u,--uid,--user", line.users);
  app.add_option("--units", line.units);
  app.add_flag("--usage", usage);
  app.add_flag("-V,--version", version);
  app.add_flag("-X,--allocations", line.allocations);
  std::vector<std::string> operands;
  if (int rc = skiff::cli::ParseGetoptCommandLine(app, kProgram, argc, argv, &operands); rc >= 0) {
    return rc;
  }
  if (skiff::cli::PrintAskedInfo({version, help, usage}, &skiff::cli::SacctHelp,
                                 &skiff::cli::SacctUsage)) {
    return 0;
  }
  if (help_format) {
    std::cout << skiff::cli::SacctHelpFormat();
    return 0;
  }
  if (!operands.empty()) {
    std::cerr << "sacct: error: Unknown arguments:";
    for (const std::string& operand : operands) std::cerr << " " << operand;
    std::cerr << "\n";
    return 1;
  }
  (void)duplicates;
  (void)all_clusters;

  absl::StatusOr<std::unique_ptr<skiff::client::CtldClient>> client =
      skiff::client::CtldClient::Connect("");
  if (!client.ok()) return skiff::client::ReportError(kProgram, client.status());
  skiff::cli::SacctContext context;
  context.now = time(nullptr);
  context.uid = getuid();
  context.uid_of = UidOf;
  context.gid_of = GidOf;
  if (!line.clusters.empty()) {
    skiff::v1::PingReply ping;
    absl::Status s = (*client)->Call(&skiff::v1::Ctld::Stub::Ping, skiff::v1::PingRequest(), &ping);
    if (!s.ok()) return skiff::client::ReportError(kProgram, s);
    context.cluster = ping.cluster_name();
  }
  absl::StatusOr<skiff::cli::SacctPlan> plan = skiff::cli::PlanSacct(line, context);
  if (!plan.ok()) {
    const std::string message(plan.status().message());
    // Slurm's sacct dies with fatal() for these, error() for the rest.
    if (message.rfind("Invalid unit type '", 0) == 0) {  // get_unit_type's error, then fatal
      std::cerr << "sacct: error: " << message << "\nsacct: fatal: Invalid unit type\n";
      return 1;
    }
    const bool fatal =
        message.rfind("unrecognized job state", 0) == 0 || message.rfind("Options -o", 0) == 0;
    std::cerr << "sacct: " << (fatal ? "fatal: " : "error: ") << message << "\n";
    return 1;
  }
  skiff::v1::GetAccountingReply reply;
  absl::Status status =
      (*client)->Call(&skiff::v1::Ctld::Stub::GetAccounting, plan->request, &reply);
  if (!status.ok()) return skiff::client::ReportError(kProgram, status);
  if (json) {
    skiff::cli::WriteSacctJson(reply, [](std::string_view piece) {
      std::cout.write(piece.data(), static_cast<std::streamsize>(piece.size()));
    });
    return 0;
  }
  std::cout << skiff::cli::FormatSacct(reply, plan->fields, plan->layout);
  return 0;
}
