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
#include "cli/common/ctld_client.h"
#include "cli/common/getopt_args.h"
#include "cli/common/version.h"
#include "cli/sacct/sacct_format.h"
#include "cli/sacct/sacct_options.h"

namespace {

constexpr char kProgram[] = "sacct";

// Slurm's sacct usage (src/sacct/options.c _usage), the options Skiff takes.
constexpr char kUsage[] =
    "Usage: sacct [options]\n"
    "\tUse --help for help\n";

constexpr char kHelp[] =
    "sacct [<OPTION>]\n"
    "     Valid <OPTION> values are:\n"
    "     -a, --allusers:\n"
    "\t           Display jobs for all users. By default, only the\n"
    "                   current user's jobs are displayed.  If ran by user root\n"
    "                   this is the default.\n"
    "     -A, --accounts:\n"
    "\t           Use this comma separated list of accounts to select jobs\n"
    "                   to display.  By default, all accounts are selected.\n"
    "     -b, --brief:\n"
    "\t           Equivalent to '--format=jobstep,state,error'.\n"
    "     -D, --duplicates:\n"
    "\t           If Slurm job ids are reset, some job numbers will\n"
    "\t           probably appear more than once refering to different jobs.\n"
    "\t           Without this option only the most recent jobs will be displayed.\n"
    "     --delimiter:\n"
    "\t           ASCII characters used to separate the fields when\n"
    "\t           specifying the  -p  or  -P options. The default delimiter\n"
    "\t           is a '|'. This option is ignored if -p or -P options\n"
    "\t           are not specified.\n"
    "     -e, --helpformat:\n"
    "\t           Print a list of fields that can be specified with the\n"
    "\t           '--format' option\n"
    "     -E, --endtime:\n"
    "                   Select jobs eligible before this time.  If states are\n"
    "                   given with the -s option then return jobs in this\n"
    "                   state before this period.\n"
    "     -g, --gid, --group:\n"
    "\t           Use this comma separated list of gids or group names\n"
    "                   to select jobs to display.  By default, all groups are\n"
    "                   selected.\n"
    "     -h, --help:   Print this description of use.\n"
    "     -j, --jobs:\n"
    "\t           Format is <job(.step)>. Display information about this\n"
    "                   job or comma-separated list of jobs. The default is all\n"
    "                   jobs. Adding .step will display the specific job step of\n"
    "                   that job. (A step id of 'batch' will display the\n"
    "                   information about the batch step.)\n"
    "     --json:\n"
    "\t           Produce JSON output\n"
    "     -l, --long:\n"
    "\t           Equivalent to specifying\n"
    "\t           '--format=jobid,jobidraw,jobname,partition,ntasks,alloccpus,elapsed,\n"
    "\t           state,exitcode,reqmem,reqtres,alloctres'\n"
    "     -M, --clusters:\n"
    "\t           Only send data about these clusters. Use \"all\" for all\n"
    "\t           clusters.\n"
    "     -n, --noheader:\n"
    "\t           No header will be added to the beginning of output.\n"
    "                   The default is to print a header.\n"
    "     --name:\n"
    "\t           Display jobs that have any of these name(s).\n"
    "     -N, --nodelist:\n"
    "\t           Display jobs that ran on any of these nodes,\n"
    "                   can be one or more using a ranged string.\n"
    "     -o, --format:\n"
    "\t           Comma separated list of fields. (use \"--helpformat\"\n"
    "                   for a list of available fields).\n"
    "     -p, --parsable: output will be '|' delimited with a '|' at the end\n"
    "     -P, --parsable2: output will be '|' delimited without a '|' at the end\n"
    "     -q, --qos:\n"
    "\t           Only send data about jobs using these qos.  Default is all.\n"
    "     -r, --partition:\n"
    "\t           Comma separated list of partitions to select jobs and\n"
    "                   job steps from. The default is all partitions.\n"
    "     -s, --state:\n"
    "\t           Select jobs based on their current state or the state\n"
    "                   they were in during the time period given: running (r),\n"
    "                   completed (cd), failed (f), timeout (to), resizing (rs),\n"
    "                   deadline (dl) and node_fail (nf).\n"
    "     -S, --starttime:\n"
    "                   Select jobs eligible after this time.  Default is\n"
    "                   00:00:00 of the current day, unless '-s' is set then\n"
    "                   the default is 'now'.\n"
    "     -T, --truncate:\n"
    "                   Truncate time.  So if a job started before --starttime\n"
    "                   the start time would be truncated to --starttime.\n"
    "                   The same for end time and --endtime.\n"
    "     -u, --uid, --user:\n"
    "\t           Use this comma separated list of uids or user names\n"
    "                   to select jobs to display.  By default, the running\n"
    "                   user's uid is used.\n"
    "     --usage:      Display brief usage message.\n"
    "     -V, --version: Print version.\n"
    "     -X, --allocations:\n"
    "\t           Only show statistics relevant to the job allocation\n"
    "\t           itself, not taking steps into consideration.\n"
    "\n"
    "     Note, valid start/end time formats are...\n"
    "\t           HH:MM[:SS] [AM|PM]\n"
    "\t           MMDD[YY] or MM/DD[/YY] or MM.DD[.YY]\n"
    "\t           MM/DD[/YY]-HH:MM[:SS]\n"
    "\t           YYYY-MM-DD[THH:MM[:SS]]\n"
    "\t           today, midnight, noon, teatime, "
    "now[{+|-}count[seconds(default)|minutes|hours|days|weeks]]\n"
    "\n";

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

int main(int argc, char** argv) {
  CLI::App app{"sacct"};
  app.set_help_flag();
  skiff::SacctCommandLine line;
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
  if (int rc = skiff::ParseGetoptCommandLine(app, kProgram, argc, argv, &operands); rc >= 0) {
    return rc;
  }
  if (version) {
    std::cout << "skiff " << skiff::kSkiffVersion << "\n";
    return 0;
  }
  if (help) {
    std::cout << kHelp;
    return 0;
  }
  if (usage) {
    std::cout << kUsage;
    return 0;
  }
  if (help_format) {
    std::cout << skiff::SacctHelpFormat();
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

  absl::StatusOr<std::unique_ptr<skiff::CtldClient>> client = skiff::CtldClient::Connect("");
  if (!client.ok()) return skiff::ReportError(kProgram, client.status());
  skiff::SacctContext context;
  context.now = time(nullptr);
  context.uid = getuid();
  context.uid_of = UidOf;
  context.gid_of = GidOf;
  if (!line.clusters.empty()) {
    skiff::v1::PingReply ping;
    absl::Status s = (*client)->Call(&skiff::v1::Ctld::Stub::Ping, skiff::v1::PingRequest(), &ping);
    if (!s.ok()) return skiff::ReportError(kProgram, s);
    context.cluster = ping.cluster_name();
  }
  absl::StatusOr<skiff::SacctPlan> plan = skiff::PlanSacct(line, context);
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
  if (!status.ok()) return skiff::ReportError(kProgram, status);
  if (json) {
    skiff::WriteSacctJson(reply, [](std::string_view piece) {
      std::cout.write(piece.data(), static_cast<std::streamsize>(piece.size()));
    });
    return 0;
  }
  std::cout << skiff::FormatSacct(reply, plan->fields, plan->layout);
  return 0;
}
