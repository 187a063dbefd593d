// squeue: view the job queue, as Slurm's squeue.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <ctime>
#include <iostream>
#include <string>
#include <vector>

#include "cli/common/ctld_client.h"
#include "cli/common/job_text.h"
#include "cli/common/version.h"
#include "cli/squeue/squeue_format.h"

namespace {

constexpr char kProgram[] = "squeue";

int Fail(const absl::Status& status) { return skiff::ReportError(kProgram, status); }

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"squeue: view information about jobs in the Skiff queue"};
  // -h is --noheader in Slurm's CLIs, so help is --help only.
  app.set_help_flag("--help", "print this help and exit");
  skiff::SqueueOptions options;
  std::vector<std::string> users, jobs, partitions, states, names;
  bool me = false, version = false, all = false;
  app.add_flag("-h,--noheader", options.no_header, "no header line");
  app.add_flag("-l,--long", options.long_format, "more columns, and a timestamp line");
  app.add_option("-o,--format", options.format, "output format, e.g. \"%.18i %.9P %j\"");
  app.add_option("-O,--Format", options.format_fields,
                 "output fields by name, e.g. \"JobID:.10,Name,BurstBuffer\"");
  app.add_flag("-r,--array", options.array, "one line per array task (no collapsing)");
  app.add_option("-u,--user", users, "only these users' jobs (names or uids)")->delimiter(',');
  app.add_flag("--me", me, "only my jobs");
  app.add_option("-j,--jobs", jobs, "only these jobs: ids, array tasks 42_7 or 42_[1-3]");
  app.add_option("-p,--partition", partitions, "only these partitions")->delimiter(',');
  app.add_option("-t,--states", states, "only jobs in these states (PD,R,CG,CD,... or all)")
      ->delimiter(',');
  app.add_option("-n,--name", names, "only jobs with these names")->delimiter(',');
  app.add_flag("-a,--all", all, "accepted for Slurm compatibility (Skiff hides no partitions)");
  app.add_flag("--start", options.start, "expected start times of pending jobs");
  app.add_flag("-V,--version", version, "print the version and exit");
  CLI11_PARSE(app, argc, argv);

  if (version) {
    std::cout << "skiff " << skiff::kSkiffVersion << "\n";
    return 0;
  }

  skiff::v1::GetJobsRequest request;
  if (me) users.push_back(std::to_string(getuid()));
  for (const std::string& user : users) {
    absl::StatusOr<std::string> name = skiff::ResolveUserName(user);
    if (!name.ok()) return Fail(name.status());
    request.add_users(*name);
  }
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
  int named_jobs = request.job_ids_size() + request.refs_size();
  for (const std::string& p : partitions) request.add_partitions(p);
  for (const std::string& n : names) request.add_names(n);
  if (!states.empty()) {
    for (const std::string& text : states) {
      absl::StatusOr<std::vector<skiff::v1::JobState>> parsed = skiff::ParseJobStateList(text);
      if (!parsed.ok()) return Fail(parsed.status());
      options.states.insert(options.states.end(), parsed->begin(), parsed->end());
    }
  } else if (options.start) {
    options.states = {skiff::v1::PENDING};  // --start is about pending jobs only
  } else if (named_jobs > 0) {
    // As in Slurm: jobs named by id are shown whatever their state.
    options.states = skiff::AllJobStates();
  }
  for (skiff::v1::JobState s : options.states) request.add_states(s);
  // Validate -o before asking ctld anything.
  if (!options.format.empty()) {
    absl::StatusOr<std::vector<skiff::SqueueFormatItem>> items =
        skiff::ParseSqueueFormat(options.format);
    if (!items.ok()) return Fail(items.status());
  } else if (!options.format_fields.empty()) {
    absl::StatusOr<std::vector<skiff::SqueueFormatItem>> items =
        skiff::ParseSqueueLongFormat(options.format_fields);
    if (!items.ok()) return Fail(items.status());
  }

  absl::StatusOr<std::unique_ptr<skiff::CtldClient>> client = skiff::CtldClient::Connect("");
  if (!client.ok()) return Fail(client.status());
  skiff::v1::GetJobsReply reply;
  absl::Status status = (*client)->Call(&skiff::v1::Ctld::Stub::GetJobs, request, &reply);
  bool one_job = named_jobs == 1;
  if ((status.code() == absl::StatusCode::kNotFound && one_job) ||
      (status.ok() && one_job && reply.jobs_size() == 0)) {
    std::cerr << "slurm_load_jobs error: Invalid job id specified\n";
    return 1;
  }
  if (!status.ok()) return Fail(status);
  options.now = reply.now() != 0 ? reply.now() : time(nullptr);
  absl::StatusOr<std::string> out = skiff::FormatSqueue(reply, options);
  if (!out.ok()) return Fail(out.status());
  std::cout << *out;
  return 0;
}
