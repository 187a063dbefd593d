// sprio: view the factors that make up pending jobs' priorities, as Slurm's sprio.
#include <CLI/CLI.hpp>
#include <iostream>
#include <string>
#include <vector>

#include "cli/common/ctld_client.h"
#include "cli/common/job_text.h"
#include "cli/common/version.h"
#include "cli/sprio/sprio_format.h"

namespace {

constexpr char kProgram[] = "sprio";

int Fail(const absl::Status& status) { return skiff::ReportError(kProgram, status); }

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"sprio: view the factors that make up pending jobs' scheduling priorities"};
  // -h is --noheader in Slurm's CLIs, so help is --help only.
  app.set_help_flag("--help", "print this help and exit");
  skiff::SprioOptions options;
  std::vector<std::string> jobs, users;
  bool version = false;
  app.add_option("-j,--jobs", jobs, "only these jobs (ids, 42_7, 42_[1-3])");
  app.add_option("-u,--user", users, "only these users' jobs (names or uids)")->delimiter(',');
  app.add_flag("-l,--long", options.long_format, "every factor, and the user");
  app.add_flag("-n,--norm", options.normalized, "factors as fractions of their weights");
  app.add_flag("-h,--noheader", options.no_header, "no header line");
  app.add_flag("-w,--weights", options.weights, "print the configured weights");
  app.add_option("-o,--format", options.format, "output format, e.g. \"%.15i %.10Y\"");
  app.add_flag("-V,--version", version, "print the version and exit");
  CLI11_PARSE(app, argc, argv);
  if (version) {
    std::cout << "skiff " << skiff::kSkiffVersion << "\n";
    return 0;
  }

  skiff::v1::GetJobsRequest request;
  request.add_states(skiff::v1::PENDING);
  for (const std::string& text : jobs) {
    absl::StatusOr<std::vector<skiff::v1::JobRef>> refs = skiff::ParseJobRefList(text);
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
    absl::StatusOr<std::string> name = skiff::ResolveUserName(user);
    if (!name.ok()) return Fail(name.status());
    request.add_users(*name);
  }
  options.jobs_named = !jobs.empty();
  options.show_user = !users.empty();
  if (!options.format.empty()) {
    if (absl::Status s = skiff::ParseSprioFormat(options.format).status(); !s.ok()) {
      return Fail(s);
    }
  }

  absl::StatusOr<std::unique_ptr<skiff::CtldClient>> client = skiff::CtldClient::Connect("");
  if (!client.ok()) return Fail(client.status());
  skiff::v1::GetConfigReply config;
  absl::Status status =
      (*client)->Call(&skiff::v1::Ctld::Stub::GetConfig, skiff::v1::GetConfigRequest(), &config);
  if (!status.ok()) return Fail(status);
  skiff::PriorityWeights weights = skiff::WeightsFromConfig(config);
  if (absl::Status s = skiff::CheckPriorityType(weights); !s.ok()) {
    std::cerr << s.message() << "\n";
    return 1;
  }
  skiff::v1::GetJobsReply reply;
  status = (*client)->Call(&skiff::v1::Ctld::Stub::GetJobs, request, &reply);
  // An unknown job id is "no such job" here, not an error.
  if (!status.ok() && !(status.code() == absl::StatusCode::kNotFound && options.jobs_named)) {
    return Fail(status);
  }
  absl::StatusOr<std::string> out = skiff::FormatSprio(reply, weights, options);
  if (!out.ok()) return Fail(out.status());
  std::cout << *out;
  return 0;
}
