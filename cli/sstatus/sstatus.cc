// sstatus: the cluster's GPU usage and free nodes, then one user's GPU limits
// and jobs; Skiff's own command (Slurm has none), after the hand-written
// sstatus of a lab's admin course (issue 36).
#include <unistd.h>

#include <iostream>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/common/getopt_args.h"
#include "client/ctld_client.h"
#include "client/job_text.h"
#include "client/status_report.h"
#include "common/users.h"

namespace {

constexpr char kProgram[] = "sstatus";

constexpr char kHelp[] =
    "Usage: sstatus [OPTIONS]\n"
    "Show the cluster's GPU usage and free nodes, then a user's GPU limits and jobs.\n"
    "\n"
    "  -u, --user=USER     show USER's limits and jobs (default: yourself)\n"
    "      --json          print the same data as a JSON object\n"
    "  -h, --help          show this help and exit\n"
    "  -V, --version       show the version and exit\n";

int Fail(const absl::Status& status) { return skiff::client::ReportError(kProgram, status); }

}  // namespace

int skiff::cli::SstatusMain(int argc, char** argv) {
  // getopt_long's reading (abbreviations, "-ualice", "--user=alice"); its
  // refusals in Slurm's error form.
  const std::vector<skiff::cli::GetoptOption> table = {
      {"-h,--help"},
      {"--json"},
      {"-u,--user", skiff::cli::GetoptArgument::kRequired},
      {"-V,--version"},
  };
  enum { kHelpOption, kJsonOption, kUserOption, kVersionOption };
  absl::StatusOr<skiff::cli::GetoptParsed> parsed = skiff::cli::ParseGetopt(
      std::vector<std::string>(argv + 1, argv + argc), table, skiff::cli::GetoptOrder::kPermute);
  if (!parsed.ok()) {
    std::cerr << "sstatus: error: " << parsed.status().message() << "\n"
              << "Try \"sstatus --help\" for more information\n";
    return 1;
  }
  std::string user;
  bool json = false, version = false, help = false;
  for (const skiff::cli::GetoptFound& found : parsed->found) {
    switch (found.option) {
      case kHelpOption:
        help = true;
        break;
      case kJsonOption:
        json = true;
        break;
      case kUserOption:
        user = found.value.value_or("");
        break;
      case kVersionOption:
        version = true;
        break;
    }
  }
  if (skiff::cli::PrintAskedInfo(
          {version, help, false}, [] { return std::string(kHelp); }, nullptr)) {
    return 0;
  }
  if (!parsed->operands.empty()) {
    std::cerr << "sstatus: error: Unrecognized option: " << parsed->operands[0] << "\n"
              << "Try \"sstatus --help\" for more information\n";
    return 1;
  }
  skiff::client::SstatusInput input;
  if (user.empty()) {
    input.user = skiff::UserName(getuid());
  } else {
    absl::StatusOr<std::string> name = skiff::client::ResolveUserName(user);
    if (!name.ok()) return Fail(name.status());
    input.user = *name;
  }

  absl::StatusOr<std::unique_ptr<skiff::client::CtldClient>> client =
      skiff::client::CtldClient::Connect("");
  if (!client.ok()) return Fail(client.status());
  skiff::client::CtldClient& ctld = **client;
  skiff::v1::GetConfigReply config;
  if (absl::Status s =
          ctld.Call(&skiff::v1::Ctld::Stub::GetConfig, skiff::v1::GetConfigRequest(), &config);
      !s.ok()) {
    return Fail(s);
  }
  for (const skiff::v1::ConfigEntry& entry : config.entries()) {
    if (entry.key() == "ClusterName") input.cluster_name = entry.value();
  }
  if (absl::Status s =
          ctld.Call(&skiff::v1::Ctld::Stub::GetNodes, skiff::v1::GetNodesRequest(), &input.nodes);
      !s.ok()) {
    return Fail(s);
  }
  skiff::v1::GetJobsRequest jobs;
  jobs.add_users(input.user);
  for (skiff::v1::JobState state : skiff::client::ActiveJobStates()) jobs.add_states(state);
  if (absl::Status s = ctld.Call(&skiff::v1::Ctld::Stub::GetJobs, jobs, &input.jobs); !s.ok()) {
    return Fail(s);
  }
  if (absl::Status s =
          ctld.Call(&skiff::v1::Ctld::Stub::GetQos, skiff::v1::GetQosRequest(), &input.qos);
      !s.ok()) {
    return Fail(s);
  }
  if (absl::Status s = ctld.Call(&skiff::v1::Ctld::Stub::GetAccounts,
                                 skiff::v1::GetAccountsRequest(), &input.accounts);
      !s.ok()) {
    return Fail(s);
  }
  const skiff::client::SstatusReport report = skiff::client::BuildSstatusReport(input);
  std::cout << (json ? skiff::client::FormatSstatusJson(report)
                     : skiff::client::FormatSstatusText(report));
  return 0;
}
