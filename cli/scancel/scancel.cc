// scancel: cancel or signal jobs, as Slurm's scancel.
#include <stdlib.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <iostream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "cli/command.h"
#include "cli/common/getopt_args.h"
#include "cli/scancel/scancel_help.h"
#include "cli/scancel/scancel_request.h"
#include "client/ctld_client.h"
#include "client/job_text.h"

namespace {

constexpr char kProgram[] = "scancel";

// Slurm's scancel prints these value errors bare (fprintf), the rest through
// error() as "scancel: error: ...".
bool PrintedBare(const absl::Status& status) {
  return absl::StartsWith(status.message(), "Unknown job signal: ") ||
         absl::StartsWith(status.message(), "Invalid job state specified: ");
}

}  // namespace

int skiff::cli::ScancelMain(int argc, char** argv) {
  CLI::App app{"scancel"};
  app.set_help_flag();  // --help is Slurm's text (scancel_help.h)
  skiff::cli::ScancelArgs args;
  std::vector<std::string> env_errors;
  skiff::cli::ApplyScancelEnvironment([](const char* name) { return getenv(name); }, &args,
                                      &env_errors);
  for (const std::string& error : env_errors) std::cerr << "scancel: error: " << error << "\n";
  bool version = false, help = false, usage = false, quiet = false, me = false, ctld = false;
  // In the order of Slurm's option table, which is the order getopt_long lists
  // the candidates of an ambiguous abbreviation in.
  app.add_flag("-b,--batch", args.batch);
  app.add_flag("--ctld", ctld);  // Skiff always asks ctld
  app.add_flag("-f,--full", args.full);
  app.add_flag("--help", help);
  app.add_flag("-H,--hurry", args.hurry);
  app.add_option("-n,--jobname,--name", args.name);
  app.add_flag("--me", me);
  app.add_option("-p,--partition", args.partitions);
  app.add_flag("-Q,--quiet", quiet);
  app.add_option("-s,--signal", args.signal);
  app.add_option("-t,--state", args.states);
  app.add_flag("--usage", usage);
  app.add_option("-u,--user", args.user);
  app.add_flag("-v,--verbose", args.verbose);
  app.add_flag("-V,--version", version);
  if (int rc = skiff::cli::ParseGetoptCommandLine(app, kProgram, argc, argv, &args.job_ids);
      rc >= 0) {
    return rc;
  }
  // Slurm acts on the first of these it meets; Skiff reads them after the whole
  // line, in the same precedence for the usual single one.
  if (skiff::cli::PrintAskedInfo({version, help, usage}, &skiff::cli::ScancelHelp,
                                 &skiff::cli::ScancelUsage)) {
    return 0;
  }
  if (me) args.user = std::to_string(getuid());
  if (quiet) args.verbose = 0;

  absl::StatusOr<skiff::cli::ScancelCommand> command = skiff::cli::BuildScancelCommand(args);
  if (!command.ok()) {
    if (PrintedBare(command.status())) {
      std::cerr << command.status().message() << "\n";
      return 1;
    }
    return skiff::client::ReportError(kProgram, command.status());
  }
  absl::StatusOr<std::unique_ptr<skiff::client::CtldClient>> client =
      skiff::client::CtldClient::Connect("");
  if (!client.ok()) return skiff::client::ReportError(kProgram, client.status());
  skiff::v1::CancelJobsReply reply;
  absl::Status status =
      (*client)->Call(&skiff::v1::Ctld::Stub::CancelJobs, command->request, &reply);
  if (!status.ok()) return skiff::client::ReportError(kProgram, status);
  // A signal to a job not running yet: tried again, as Slurm's scancel does.
  std::map<uint64_t, int> retries;
  for (int attempt = 0; attempt < skiff::cli::kTransitionalTries; ++attempt) {
    const std::vector<uint64_t> waiting = skiff::cli::StillTransitional(reply);
    if (waiting.empty()) break;
    for (uint64_t id : waiting) ++retries[id];
    std::this_thread::sleep_for(
        std::chrono::seconds(skiff::cli::TransitionalDelaySeconds(attempt)));
    skiff::v1::CancelJobsReply again;
    status = (*client)->Call(&skiff::v1::Ctld::Stub::CancelJobs,
                             skiff::cli::RetryRequest(command->request, waiting), &again);
    if (!status.ok()) return skiff::client::ReportError(kProgram, status);
    skiff::cli::TakeRetried(again, &reply);
  }
  // Results carry job ids only; look up how to print the ones scancel reports on,
  // so that array tasks show as "15400_2". Best effort: ids stay plain on failure.
  skiff::cli::JobNames names;
  if (std::vector<uint64_t> ids = skiff::cli::JobsToName(reply, *command); !ids.empty()) {
    skiff::v1::GetJobsRequest lookup;
    for (uint64_t id : ids) lookup.add_job_ids(id);
    for (skiff::v1::JobState s : skiff::client::AllJobStates()) lookup.add_states(s);
    skiff::v1::GetJobsReply jobs;
    if ((*client)->Call(&skiff::v1::Ctld::Stub::GetJobs, lookup, &jobs).ok()) {
      names = skiff::cli::NamesOf(jobs);
    }
  }
  skiff::cli::ScancelOutcome outcome =
      skiff::cli::DescribeCancelResults(reply, *command, names, retries);
  std::cerr << outcome.stderr_text;
  return outcome.exit_code;
}
