// sshare: fair-share shares and usage of the account tree (and service units
// with -l), as Slurm's sshare.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "cli/command.h"
#include "cli/common/getopt_args.h"
#include "cli/sshare/sshare_format.h"
#include "cli/sshare/sshare_help.h"
#include "client/ctld_client.h"
#include "client/job_text.h"
#include "common/users.h"

namespace {

constexpr char kProgram[] = "sshare";

int Fail(const absl::Status& status) { return skiff::client::ReportError(kProgram, status); }

constexpr char kHelpFormat[] =
    "Account             Cluster             EffectvUsage        FairShare           \n"
    "GrpTRESMins         GrpTRESRaw          ID                  LevelFS             \n"
    "NormShares          NormUsage           Partition           RawShares           \n"
    "RawUsage            TRESRunMins         User                \n";

}  // namespace

int skiff::cli::SshareMain(int argc, char** argv) {
  CLI::App app{"sshare"};
  app.set_help_flag();
  skiff::cli::SshareOptions options;
  std::string accounts, users, cluster;
  bool help_format = false, partition = false, verbose = false, version = false, help = false;
  app.add_flag("-a,--all", options.all_users);
  app.add_option("-A,--accounts", accounts);
  app.add_flag("-e,--helpformat", help_format);
  app.add_flag("-h", options.no_header);  // Slurm's other spelling of -n
  app.add_flag("-l,--long", options.long_format);
  app.add_flag("-m,--partition", partition);
  app.add_option("-M,--cluster,--clusters", cluster);
  app.add_flag("-n,--noheader", options.no_header);
  app.add_option("-o,--format", options.format);
  app.add_flag("-p,--parsable", options.parsable);
  app.add_flag("-P,--parsable2", options.parsable2);
  app.add_option("-u,--users", users);
  app.add_flag("-U,--Users", options.users_only);
  app.add_flag("-v,--verbose", verbose);
  app.add_flag("-V,--version", version);
  app.add_flag("--help,--usage", help);
  std::vector<std::string> operands;
  if (int rc = skiff::cli::ParseGetoptCommandLine(app, kProgram, argc, argv, &operands); rc >= 0) {
    return rc;
  }
  if (skiff::cli::PrintAskedInfo({version, help, false}, &skiff::cli::SshareHelp, nullptr)) {
    return 0;
  }
  if (help_format) {
    std::cout << kHelpFormat;
    return 0;
  }
  if (!operands.empty()) {
    std::cerr << "sshare: error: Unrecognized option: " << operands[0] << "\n"
              << skiff::cli::SshareHelp();
    return 1;
  }
  if (partition && options.format.empty()) {
    options.format = options.long_format
                         ? "A,User,P,RawShares,NormShares,RawUsage,NormUsage,Eff,Fairshare,"
                           "GrpTRESMins,TRESRunMins"
                         : "A,User,P,RawShares,NormShares,RawUsage,Eff,Fairshare";
  }
  if (!accounts.empty()) options.accounts = absl::StrSplit(accounts, ',', absl::SkipEmpty());
  if (users == "-1") {  // Slurm: every user
    options.all_users = true;
    users.clear();
  } else if (!users.empty()) {
    options.all_users = false;
  }
  for (const std::string& user :
       std::vector<std::string>(absl::StrSplit(users, ',', absl::SkipEmpty()))) {
    absl::StatusOr<std::string> name = skiff::client::ResolveUserName(user);
    if (!name.ok()) return Fail(name.status());
    options.users.push_back(*name);
  }
  options.caller = skiff::UserName(getuid());

  absl::StatusOr<std::unique_ptr<skiff::client::CtldClient>> client =
      skiff::client::CtldClient::Connect("");
  if (!client.ok()) return Fail(client.status());
  if (!cluster.empty()) {
    skiff::v1::PingReply ping;
    if (absl::Status s =
            (*client)->Call(&skiff::v1::Ctld::Stub::Ping, skiff::v1::PingRequest(), &ping);
        !s.ok()) {
      return Fail(s);
    }
    if (cluster != ping.cluster_name()) {
      std::cerr << "sshare: error: No cluster '" << cluster << "' known by database.\n";
      return 1;
    }
  }
  skiff::v1::GetAccountsReply reply;
  absl::Status status =
      (*client)->Call(&skiff::v1::Ctld::Stub::GetAccounts, skiff::v1::GetAccountsRequest(), &reply);
  if (!status.ok()) return Fail(status);
  absl::StatusOr<std::string> out = skiff::cli::FormatSshare(reply, options);
  if (!out.ok()) {
    std::cerr << "sshare: error: " << out.status().message() << "\n";
    return 1;
  }
  std::cout << *out;
  return 0;
}
