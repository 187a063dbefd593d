// sprio: view the factors that make up pending jobs' priorities, as Slurm's sprio.
#include <CLI/CLI.hpp>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "cli/command.h"
#include "cli/common/getopt_args.h"
#include "cli/sprio/sprio_format.h"
#include "cli/sprio/sprio_help.h"
#include "client/ctld_client.h"
#include "client/job_text.h"

namespace {

constexpr char kProgram[] = "sprio";

int Fail(const absl::Status& status) { return skiff::client::ReportError(kProgram, status); }

}  // namespace

int skiff::cli::SprioMain(int argc, char** argv) {
  CLI::App app{"sprio"};
  app.set_help_flag();  // --help is Slurm's text, above
  skiff::cli::SprioOptions options;
  std::string job_list, user_list;
  bool version = false, help = false, usage = false;
  // In the order of Slurm's option table (getopt_long lists the candidates of
  // an ambiguous abbreviation in it). -j's value is optional, as in Slurm: "-j 5"
  // takes the jobs from the first operand.
  app.add_flag("-h,--noheader", options.no_header);
  CLI::Option* jobs_option = app.add_option("-j,--jobs", job_list)->expected(0, 1);
  app.add_flag("-l,--long", options.long_format);
  app.add_flag("-n,--norm", options.normalized);
  app.add_option("-o,--format", options.format);
  app.add_option("-u,--user,--users", user_list);
  app.add_flag("-V,--version", version);
  app.add_flag("-w,--weights", options.weights);
  app.add_flag("--help", help);
  app.add_flag("--usage", usage);
  std::vector<std::string> operands;
  if (int rc = skiff::cli::ParseGetoptCommandLine(app, kProgram, argc, argv, &operands); rc >= 0) {
    return rc;
  }
  if (skiff::cli::PrintAskedInfo({version, help, usage}, &skiff::cli::SprioHelp,
                                 &skiff::cli::SprioUsage)) {
    return 0;
  }
  const bool job_flag = jobs_option->count() > 0;
  size_t next = 0;
  if (job_flag && job_list.empty() && next < operands.size()) job_list = operands[next++];
  if (next < operands.size()) {
    // Slurm: error() on stderr, then _usage() on stdout.
    std::cerr << "sprio: error: Unrecognized option: " << operands[next] << "\n";
    std::cout << skiff::cli::SprioUsage();
    return 1;
  }
  if (options.long_format && !options.format.empty()) {
    std::cerr << "sprio: fatal: Options -o(--format) and -l(--long) are mutually exclusive. "
                 "Please remove one and retry.\n";
    return 1;
  }
  std::vector<std::string> jobs, users;
  if (!job_list.empty()) jobs.push_back(job_list);
  if (!user_list.empty()) users = absl::StrSplit(user_list, ',', absl::SkipEmpty());
  skiff::v1::GetJobsRequest request;
  request.add_states(skiff::v1::PENDING);
  for (const std::string& text : jobs) {
    absl::StatusOr<std::vector<skiff::v1::JobRef>> refs = skiff::client::ParseJobRefList(text);
    if (!refs.ok()) return Fail(refs.status());
    for (const skiff::v1::JobRef& ref : *refs) {
      if (ref.has_array_task_id()) {
        *request.add_refs() = ref;
      } else {
        request.add_job_ids(ref.job_id());
      }
    }
  }
  for (const std::string& user : users) {
    absl::StatusOr<std::string> name = skiff::client::ResolveUserName(user);
    if (!name.ok()) return Fail(name.status());
    request.add_users(*name);
  }
  options.jobs_named = !jobs.empty();
  options.show_user = !users.empty();
  if (!options.format.empty()) {
    if (absl::Status s = skiff::cli::ParseSprioFormat(options.format).status(); !s.ok()) {
      return Fail(s);
    }
  }

  absl::StatusOr<std::unique_ptr<skiff::client::CtldClient>> client =
      skiff::client::CtldClient::Connect("");
  if (!client.ok()) return Fail(client.status());
  skiff::v1::GetConfigReply config;
  absl::Status status =
      (*client)->Call(&skiff::v1::Ctld::Stub::GetConfig, skiff::v1::GetConfigRequest(), &config);
  if (!status.ok()) return Fail(status);
  skiff::cli::PublishedWeights weights = skiff::cli::WeightsFromConfig(config);
  if (absl::Status s = skiff::cli::CheckPriorityType(weights); !s.ok()) {
    std::cerr << s.message() << "\n";
    return 1;
  }
  skiff::v1::GetJobsReply reply;
  status = (*client)->Call(&skiff::v1::Ctld::Stub::GetJobs, request, &reply);
  // An unknown job id is "no such job" here, not an error.
  if (!status.ok() && !(status.code() == absl::StatusCode::kNotFound && options.jobs_named)) {
    return Fail(status);
  }
  absl::StatusOr<std::string> out = skiff::cli::FormatSprio(reply, weights, options);
  if (!out.ok()) return Fail(out.status());
  std::cout << *out;
  return 0;
}
