// sstat: what the running steps of a job have used so far, as Slurm's sstat.
// ctld says which steps run (GetSteps) and where the job's step manager is;
// the step manager gathers its tasks' usage from every node of the step.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cli/command.h"
#include "cli/common/getopt_args.h"
#include "cli/sstat/sstat_format.h"
#include "cli/sstat/sstat_help.h"
#include "client/ctld_client.h"
#include "common/rpc/auth_metadata.h"
#include "common/rpc/channel.h"
#include "proto/noded.grpc.pb.h"

namespace {

constexpr char kProgram[] = "sstat";

void Error(const std::string& message) {
  fprintf(stderr, "%s: error: %s\n", kProgram, message.c_str());
}

// One -j item: the job and, when given, its step ("0", "batch").
struct Wanted {
  uint64_t job_id = 0;
  std::string step;
};

}  // namespace

int skiff::cli::SstatMain(int argc, char** argv) {
  CLI::App app{"sstat"};
  app.set_help_flag();
  bool all_steps = false, help = false, help_format = false, pid_format = false, no_header = false,
       no_convert = false, parsable = false, parsable2 = false, usage = false, version = false;
  int verbose = 0;
  std::string jobs, format;
  app.add_flag("-a,--allsteps", all_steps);
  app.add_flag("-e,--helpformat", help_format);
  app.add_flag("-h,--help", help);
  app.add_flag("-i,--pidformat", pid_format);
  app.add_option("-j,--jobs", jobs);
  app.add_flag("-n,--noheader", no_header);
  app.add_flag("--noconvert", no_convert);
  app.add_option("-o,--format,--fields", format);
  app.add_flag("-p,--parsable", parsable);
  app.add_flag("-P,--parsable2", parsable2);
  app.add_flag("--usage", usage);
  app.add_flag("-v,--verbose", verbose);
  app.add_flag("-V,--version", version);
  if (int rc = skiff::cli::ParseGetoptCommandLine(app, kProgram, argc, argv); rc >= 0) return rc;
  if (skiff::cli::PrintAskedInfo({version, help, usage}, &skiff::cli::SstatHelp,
                                 &skiff::cli::SstatUsage)) {
    return 0;
  }
  if (help_format) {
    std::cout << skiff::cli::SstatHelpFormat();
    return 0;
  }
  absl::StatusOr<std::vector<skiff::cli::SstatField>> fields = skiff::cli::ParseSstatFormat(
      !format.empty()
          ? format
          : (pid_format ? skiff::cli::kSstatPidFields : skiff::cli::kSstatDefaultFields));
  if (!fields.ok()) {
    Error(std::string(fields.status().message()));
    return 1;
  }
  std::vector<Wanted> wanted;
  for (const std::string& item :
       std::vector<std::string>(absl::StrSplit(jobs, ',', absl::SkipEmpty()))) {
    Wanted w;
    const size_t dot = item.find('.');
    if (!absl::SimpleAtoi(item.substr(0, dot), &w.job_id) || w.job_id == 0) {
      Error("Invalid job id: " + item);
      return 1;
    }
    if (dot != std::string::npos) w.step = item.substr(dot + 1);
    wanted.push_back(w);
  }
  if (wanted.empty()) {
    Error("You didn't give me any jobs to stat.");
    return 1;
  }

  absl::StatusOr<std::unique_ptr<skiff::client::CtldClient>> connected =
      skiff::client::CtldClient::Connect("");
  if (!connected.ok()) return skiff::client::ReportError(kProgram, connected.status());
  skiff::client::CtldClient& client = **connected;
  skiff::cli::PrintFieldsLayout layout;
  layout.no_header = no_header;
  layout.parsable = parsable;
  layout.parsable2 = parsable2;
  std::vector<std::string> names;
  std::vector<int> widths;
  for (const skiff::cli::SstatField& f : *fields) {
    names.push_back(f.name);
    widths.push_back(f.width);
  }
  std::cout << skiff::cli::PrintFieldsHeader(names, widths, layout);
  // 1 once a step's manager refused the caller (another user's job): Slurm's
  // error line, and an exit status a script can see. A step not found running
  // is only said, as Slurm's sstat does.
  int rc = 0;

  for (const Wanted& w : wanted) {
    skiff::v1::GetStepsRequest step_request;
    step_request.add_job_ids(w.job_id);
    skiff::v1::GetStepsReply steps;
    skiff::v1::GetJobsRequest job_request;
    job_request.add_job_ids(w.job_id);
    skiff::v1::GetJobsReply job;
    if (!client.Call(&skiff::v1::Ctld::Stub::GetSteps, step_request, &steps).ok() ||
        !client.Call(&skiff::v1::Ctld::Stub::GetJobs, job_request, &job).ok()) {
      Error(absl::StrCat("couldn't get steps for job ", w.job_id));
      continue;
    }
    // Which steps: the one named; else the lowest numbered (all with -a).
    std::vector<std::string> chosen;
    for (const skiff::v1::StepInfo& step : steps.steps()) {
      const std::string& id = step.step().step_id();
      const bool numbered = !id.empty() && std::isdigit(static_cast<unsigned char>(id[0]));
      if (!w.step.empty() ? id == w.step : (numbered || all_steps)) chosen.push_back(id);
      if (w.step.empty() && !all_steps && !chosen.empty()) break;
    }
    if (chosen.empty() || job.jobs_size() == 0 || job.jobs(0).stepmgr_address().empty()) {
      if (w.step.empty()) {
        Error(absl::StrCat("No steps running for job ", w.job_id));
      } else {
        Error(absl::StrCat("StepId=", w.job_id, ".", w.step, " not found running."));
      }
      continue;
    }
    auto stub = skiff::v1::Noded::NewStub(skiff::MakeChannel(job.jobs(0).stepmgr_address()));
    std::vector<skiff::cli::SstatStep> rows;
    for (const std::string& id : chosen) {
      skiff::v1::StatStepRequest request;
      request.set_job_id(w.job_id);
      uint32_t number = 0;
      if (id == "batch") {
        request.set_batch(true);
      } else if (absl::SimpleAtoi(id, &number)) {
        request.set_step_id(number);
      } else {
        continue;  // extern and other special steps: nothing to sample
      }
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() +
                           std::chrono::seconds(client.config().skiff.message_timeout));
      if (absl::Status s = skiff::AttachCredential(client.auth(), &context); !s.ok()) {
        return skiff::client::ReportError(kProgram, s);
      }
      skiff::cli::SstatStep row;
      row.id = absl::StrCat(w.job_id, ".", id);
      const grpc::Status status = stub->StatStep(&context, request, &row.usage);
      if (status.error_code() == grpc::StatusCode::PERMISSION_DENIED) {
        Error(absl::StrCat("problem getting step_layout for StepId=", row.id, ": ",
                           status.error_message()));
        rc = 1;
        continue;
      }
      if (!status.ok()) {
        Error(absl::StrCat("StepId=", row.id, " not found running."));
        continue;
      }
      rows.push_back(std::move(row));
    }
    skiff::cli::PrintFieldsLayout body = layout;
    body.no_header = true;
    std::cout << skiff::cli::FormatSstat(rows, *fields, body);
  }
  return rc;
}
