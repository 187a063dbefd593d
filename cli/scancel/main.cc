// scancel: cancel or signal jobs, as Slurm's scancel.
#include <CLI/CLI.hpp>
#include <iostream>
#include <string>

#include "cli/common/ctld_client.h"
#include "cli/common/job_text.h"
#include "cli/common/version.h"
#include "cli/scancel/scancel_request.h"

int main(int argc, char** argv) {
  constexpr char kProgram[] = "scancel";
  CLI::App app{"scancel: cancel or signal Skiff jobs"};
  app.set_help_flag("-h,--help", "print this help and exit");
  skiff::ScancelArgs args;
  bool version = false;
  app.add_option("job_id", args.job_ids, "job ids (comma lists allowed)");
  app.add_option("-u,--user", args.user, "only this user's jobs");
  app.add_option("-n,--name,--jobname", args.name, "only jobs with this name");
  app.add_option("-t,--state", args.states, "only jobs in these states (PENDING, RUNNING)");
  app.add_option("-p,--partition", args.partitions, "only jobs in these partitions");
  app.add_option("-s,--signal", args.signal, "send this signal instead of cancelling");
  app.add_flag("-b,--batch", args.batch, "signal only the batch shell");
  app.add_flag("--hurry", args.hurry, "skip burst-buffer stage-out");
  app.add_flag("-v,--verbose", args.verbose, "say what is done to each job");
  app.add_flag("-V,--version", version, "print the version and exit");
  CLI11_PARSE(app, argc, argv);
  if (version) {
    std::cout << "skiff " << skiff::kSkiffVersion << "\n";
    return 0;
  }

  absl::StatusOr<skiff::ScancelCommand> command = skiff::BuildScancelCommand(args);
  if (!command.ok()) return skiff::ReportError(kProgram, command.status());
  absl::StatusOr<std::unique_ptr<skiff::CtldClient>> client = skiff::CtldClient::Connect("");
  if (!client.ok()) return skiff::ReportError(kProgram, client.status());
  skiff::v1::CancelJobsReply reply;
  absl::Status status =
      (*client)->Call(&skiff::v1::Ctld::Stub::CancelJobs, command->request, &reply);
  if (!status.ok()) return skiff::ReportError(kProgram, status);
  // Results carry job ids only; look up how to print the ones scancel reports on,
  // so that array tasks show as "15400_2". Best effort: ids stay plain on failure.
  skiff::JobNames names;
  if (std::vector<uint64_t> ids = skiff::JobsToName(reply, *command); !ids.empty()) {
    skiff::v1::GetJobsRequest lookup;
    for (uint64_t id : ids) lookup.add_job_ids(id);
    for (skiff::v1::JobState s : skiff::AllJobStates()) lookup.add_states(s);
    skiff::v1::GetJobsReply jobs;
    if ((*client)->Call(&skiff::v1::Ctld::Stub::GetJobs, lookup, &jobs).ok()) {
      names = skiff::NamesOf(jobs);
    }
  }
  skiff::ScancelOutcome outcome = skiff::DescribeCancelResults(reply, *command, names);
  std::cerr << outcome.stderr_text;
  return outcome.exit_code;
}
