// seff: a job's CPU, memory and GPU efficiency, as Slurm's contrib seff.
#include <unistd.h>

#include <ctime>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "cli/command.h"
#include "cli/seff/seff_report.h"
#include "client/ctld_client.h"

namespace {

constexpr char kProgram[] = "seff";

int Usage() {
  std::cout << "Usage: seff [Options] <Jobid>\n"
               "       Options:\n"
               "       -h    Help menu\n"
               "       -v    Version\n"
               "       -d    Debug mode: display raw Slurm data\n";
  return 1;
}

// "15" or "15_7" (task 7 of array 15), as seff's step_list takes them.
bool ParseJobId(const std::string& text, skiff::v1::AcctJobSelector* selector) {
  std::vector<std::string> parts = absl::StrSplit(text, '_');
  uint64_t job_id = 0;
  int32_t task = -1;
  if (parts.size() > 2 || !absl::SimpleAtoi(parts[0], &job_id) || job_id == 0) return false;
  if (parts.size() == 2 && (!absl::SimpleAtoi(parts[1], &task) || task < 0)) return false;
  selector->set_job_id(job_id);
  selector->set_array_task_id(task);
  return true;
}

}  // namespace

int skiff::cli::SeffMain(int argc, char** argv) {
  bool debug = false;
  std::vector<std::string> operands;
  // Perl's getopts('hvdf:'): bundled flags, -f takes a value (unused, as in seff).
  int i = 1;
  for (; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") {
      ++i;
      break;
    }
    // Long forms seff lacks, as every skiff-client command answers them (the
    // man page is made from --help): exit 0, where -h and -v exit 1 as seff's.
    if (arg == "--help") {
      Usage();
      return 0;
    }
    if (arg == "--version") {
      std::cout << "seff Version 2.1\n";
      return 0;
    }
    if (arg.size() < 2 || arg[0] != '-') break;
    for (size_t k = 1; k < arg.size(); ++k) {
      switch (arg[k]) {
        case 'h':
          return Usage();
        case 'v':
          std::cout << "seff Version 2.1\n";
          return 1;
        case 'd':
          debug = true;
          break;
        case 'f':
          if (k + 1 == arg.size()) ++i;  // the value is the next word
          k = arg.size();
          break;
        default:
          std::cerr << "Unknown option: " << arg[k] << "\n";
          return Usage();
      }
    }
  }
  for (; i < argc; ++i) operands.push_back(argv[i]);
  if (operands.size() != 1) return Usage();

  skiff::v1::GetAccountingRequest request;
  request.set_steps(true);
  if (!ParseJobId(operands[0], request.add_jobs())) {
    std::cerr << "Job not found.\n";
    return 2;
  }
  absl::StatusOr<std::unique_ptr<skiff::client::CtldClient>> client =
      skiff::client::CtldClient::Connect("");
  if (!client.ok()) return skiff::client::ReportError(kProgram, client.status());
  skiff::v1::GetAccountingReply reply;
  absl::Status status = (*client)->Call(&skiff::v1::Ctld::Stub::GetAccounting, request, &reply);
  if (!status.ok()) return skiff::client::ReportError(kProgram, status);
  if (reply.jobs_size() < 1) {
    std::cerr << "Job not found.\n";
    return 2;
  }
  std::cout << skiff::cli::SeffReport(reply.jobs(0), time(nullptr), debug);
  return 0;
}
