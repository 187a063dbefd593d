// strigger: set, get or clear event triggers, as Slurm 22.05's strigger
// (src/strigger/strigger.c); the command line and table are strigger_options.h.
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "cli/command.h"
#include "cli/strigger/strigger_options.h"
#include "client/ctld_client.h"

namespace {

constexpr char kProgram[] = "strigger";
// strigger retries a set refused with EAGAIN (too many triggers) this often.
constexpr unsigned kRetrySeconds = 5;

// Slurm's uid_from_string: a name, else a number.
std::optional<uint32_t> UidFromString(const std::string& text) {
  if (struct passwd* pw = getpwnam(text.c_str())) return pw->pw_uid;
  uint32_t uid = 0;
  if (absl::SimpleAtoi(text, &uid)) return uid;
  return std::nullopt;
}

std::string CheckProgram(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return "Invalid --program value, file not found";
  if (!S_ISREG(st.st_mode)) return "Invalid --program value, not regular file";
  return "";
}

std::string UserName(uint32_t uid) {
  if (struct passwd* pw = getpwuid(uid)) return pw->pw_name;
  return "unknown";
}

// Slurm's slurm_perror: "<call>: <message>" on stderr.
void Perror(const char* call, const absl::Status& status) {
  std::cerr << call << ": " << status.message() << "\n";
}

void Verbose(const skiff::cli::StriggerParams& params, const std::string& line) {
  if (params.verbose > 0) std::cerr << kProgram << ": " << line << "\n";
}

}  // namespace

int skiff::cli::StriggerMain(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  skiff::cli::StriggerParse parsed =
      skiff::cli::ParseStrigger(args, UidFromString, CheckProgram, skiff::cli::VersionLine());
  std::cout << parsed.out;
  std::cerr << parsed.err;
  if (!parsed.params) return parsed.exit_code;
  const skiff::cli::StriggerParams& params = *parsed.params;
  if (params.mode_set) {
    if (std::vector<std::string> lacking = skiff::cli::UnsupportedEvents(params);
        !lacking.empty()) {
      std::cerr << kProgram << ": error: " << lacking.front()
                << ": Skiff has no backup controller, slurmdbd, front end nodes or burst buffer "
                   "triggers; only node and job events may be set\n";
      return 1;
    }
  }

  absl::StatusOr<std::unique_ptr<skiff::client::CtldClient>> client =
      skiff::client::CtldClient::Connect("");
  if (!client.ok()) return skiff::client::ReportError(kProgram, client.status());
  const std::string& local = (*client)->config().skiff.cluster_name;
  if (params.cluster && *params.cluster != local) {
    return skiff::client::ReportError(
        kProgram, absl::InvalidArgumentError(
                      "Skiff has no multi-cluster support: -M/--cluster takes only this cluster (" +
                      local + ")"));
  }

  if (params.mode_set) {
    skiff::v1::SetTriggerRequest request;
    *request.mutable_trigger() = skiff::cli::TriggerToSet(params);
    for (;;) {
      skiff::v1::SetTriggerReply reply;
      absl::Status status = (*client)->Call(&skiff::v1::Ctld::Stub::SetTrigger, request, &reply);
      if (status.ok()) break;
      Perror("slurm_set_trigger", status);
      // Slurm's EAGAIN: too many triggers now; try again.
      if (status.message() != "Resource temporarily unavailable") return 1;
      sleep(kRetrySeconds);
    }
    Verbose(params, "trigger set");
    return 0;
  }

  if (params.mode_get) {
    skiff::v1::GetTriggersReply reply;
    absl::Status status = (*client)->Call(&skiff::v1::Ctld::Stub::GetTriggers,
                                          skiff::v1::GetTriggersRequest(), &reply);
    if (!status.ok()) {
      Perror("slurm_get_triggers", status);
      return 1;
    }
    Verbose(params, "Read " + std::to_string(reply.triggers_size()) + " trigger records");
    std::cout << skiff::cli::FormatTriggers({reply.triggers().begin(), reply.triggers().end()},
                                            params, UserName);
    return 0;
  }

  skiff::v1::ClearTriggersRequest request;
  request.set_trig_id(params.trigger_id);
  request.set_job_id(params.job_id);
  if (params.user_id) request.set_user_id(*params.user_id);
  skiff::v1::ClearTriggersReply reply;
  absl::Status status = (*client)->Call(&skiff::v1::Ctld::Stub::ClearTriggers, request, &reply);
  if (!status.ok()) {
    if (!params.quiet) {
      Perror("slurm_clear_trigger", status);
      return 1;
    }
    return 0;
  }
  if (params.job_id != 0) {
    Verbose(params, "triggers for job " + std::to_string(params.job_id) + " cleared");
  } else if (params.user_id) {
    Verbose(params, "triggers for user " + std::to_string(*params.user_id) + " cleared");
  } else {
    Verbose(params, "trigger " + std::to_string(params.trigger_id) + " cleared");
  }
  return 0;
}
