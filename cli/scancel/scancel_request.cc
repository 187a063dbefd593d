#include "cli/scancel/scancel_request.h"

#include <algorithm>
#include <csignal>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "client/job_text.h"

namespace skiff::cli {
namespace {

// Slurm's scancel exits with the largest error number it met, truncated to 8
// bits: ESLURM_ACCESS_DENIED (2002) gives 210, ESLURM_TRANSITION_STATE_NO_UPDATE
// (2020) 228, ESLURM_ALREADY_DONE (2021) 229; a job it could not find, 1.
constexpr int kAccessDenied = 2002;
constexpr int kTransitionStateNoUpdate = 2020;
constexpr int kAlreadyDone = 2021;

}  // namespace

void ApplyScancelEnvironment(const std::function<const char*(const char*)>& getenv,
                             ScancelArgs* args, std::vector<std::string>* errors) {
  auto flag = [&](const char* name, auto set) {
    const char* value = getenv(name);
    if (value == nullptr) return;
    if (absl::EqualsIgnoreCase(value, "true") || absl::EqualsIgnoreCase(value, "T")) {
      set(true);
    } else if (absl::EqualsIgnoreCase(value, "false") || absl::EqualsIgnoreCase(value, "F")) {
      set(false);
    } else {
      errors->push_back(absl::StrCat("Unrecognized ", name, " value: ", value));
    }
  };
  flag("SCANCEL_BATCH", [&](bool on) { args->batch = on; });
  flag("SCANCEL_FULL", [&](bool on) { args->full = on; });
  flag("SCANCEL_VERBOSE", [&](bool on) { args->verbose = on ? 1 : 0; });
  if (getenv("SCANCEL_HURRY") != nullptr) args->hurry = true;  // set at all: on, as in Slurm
  auto text = [&](const char* name, std::string* into) {
    if (const char* value = getenv(name)) *into = value;
  };
  text("SCANCEL_NAME", &args->name);
  text("SCANCEL_PARTITION", &args->partitions);
  text("SCANCEL_STATE", &args->states);
  text("SCANCEL_USER", &args->user);
}

absl::StatusOr<ScancelCommand> BuildScancelCommand(const ScancelArgs& args) {
  ScancelCommand command;
  command.verbose = args.verbose;
  v1::CancelJobsRequest& request = command.request;
  for (const std::string& text : args.job_ids) {
    // Steps, "42.3" (alone or in a plain comma list): only those steps.
    if (text.find('.') != std::string::npos && text.find('[') == std::string::npos) {
      for (const std::string& item : client::SplitCommaList(text)) {
        const size_t dot = item.find('.');
        uint64_t job = 0;
        uint32_t step = 0;
        if (dot == std::string::npos || !absl::SimpleAtoi(item.substr(0, dot), &job) || job == 0 ||
            !absl::SimpleAtoi(item.substr(dot + 1), &step)) {
          return absl::InvalidArgumentError(absl::StrCat("Invalid job id ", item));
        }
        v1::StepRef* ref = request.add_steps();
        ref->set_job_id(job);
        ref->set_step_id(step);
      }
      continue;
    }
    absl::StatusOr<std::vector<v1::JobRef>> refs = client::ParseJobRefList(text);
    if (!refs.ok()) {
      // Slurm's scancel: "Invalid job id abc", without the colon.
      std::string message(refs.status().message());
      if (absl::StartsWith(message, "Invalid job id: ")) message.erase(14, 1);
      return absl::InvalidArgumentError(message);
    }
    for (const v1::JobRef& ref : *refs) {
      if (ref.has_array_task_id()) {
        *request.add_refs() = ref;
      } else {
        request.add_job_ids(ref.job_id());
      }
    }
  }
  if (!args.user.empty()) {
    absl::StatusOr<std::string> user = client::ResolveUserName(args.user);
    if (!user.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("Invalid user name: ", args.user));
    }
    request.set_user(*user);
  }
  request.set_name(args.name);
  if (!args.states.empty()) {
    for (const std::string& item : client::SplitCommaList(args.states)) {
      absl::StatusOr<v1::JobState> state = client::ParseJobState(item);
      if (!state.ok() || (*state != v1::PENDING && *state != v1::RUNNING)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Invalid job state specified: ", item, "\nValid job states are PENDING and RUNNING"));
      }
      request.add_states(*state);
    }
  }
  for (const std::string& p : client::SplitCommaList(args.partitions)) request.add_partitions(p);
  if (!args.signal.empty()) {
    absl::StatusOr<int> sig = client::ParseSignal(args.signal);
    if (!sig.ok()) return sig.status();
    command.signal = *sig;
    // Slurm cancels the job for SIGKILL; anything else is only delivered.
    request.set_signal(*sig == SIGKILL ? 0 : *sig);
  }
  request.set_batch_only(args.batch);
  request.set_full(args.full);
  request.set_hurry(args.hurry);
  if (request.job_ids_size() == 0 && request.refs_size() == 0 && request.steps_size() == 0 &&
      request.user().empty() && request.name().empty() && request.states_size() == 0 &&
      request.partitions_size() == 0) {
    return absl::InvalidArgumentError("No job identification provided");
  }
  return command;
}

ScancelOutcome DescribeCancelResults(const v1::CancelJobsReply& reply,
                                     const ScancelCommand& command, const JobNames& names,
                                     const std::map<uint64_t, int>& retries) {
  ScancelOutcome outcome;
  int worst = 0;  // Slurm's error number, or 1
  const bool signalling = command.signal != 0 && command.signal != SIGKILL;
  for (const v1::CancelJobResult& result : reply.results()) {
    auto name = names.find(result.job_id());
    std::string job = name != names.end() ? name->second : absl::StrCat(result.job_id());
    if (command.verbose > 0 && result.is_step()) {
      if (!signalling) {
        absl::StrAppend(&outcome.stderr_text, "scancel: Terminating step ", job, ".",
                        result.step_id(), "\n");
      } else {
        absl::StrAppend(&outcome.stderr_text, "scancel: Signal ", command.signal, " to step ", job,
                        ".", result.step_id(), "\n");
      }
    } else if (command.verbose > 0) {
      if (command.signal == 0) {
        absl::StrAppend(&outcome.stderr_text, "scancel: Terminating job ", job, "\n");
      } else {
        absl::StrAppend(&outcome.stderr_text, "scancel: Signal ", command.signal, " to job ", job,
                        "\n");
      }
      if (auto retried = retries.find(result.job_id()); retried != retries.end()) {
        for (int i = 0; i < retried->second; ++i) {
          absl::StrAppend(&outcome.stderr_text,
                          "scancel: Job is in transitional state, retrying\n");
        }
      }
    }
    absl::Status status(static_cast<absl::StatusCode>(result.code()), result.message());
    if (result.is_step()) {
      // Slurm 22.05 names the job, not the step, in this message; a step
      // already gone is no error for a kill.
      if (status.ok()) continue;
      const bool done = status.code() == absl::StatusCode::kNotFound;
      if (done && command.verbose == 0) continue;
      absl::StrAppend(&outcome.stderr_text, "scancel: error: Kill job error on job step id ", job,
                      ": ", status.message(), "\n");
      if (!done) {
        worst = std::max(worst,
                         status.code() == absl::StatusCode::kPermissionDenied ? kAccessDenied : 1);
      }
      continue;
    }
    if (status.ok()) continue;
    // Unknown or already finished: said only with -v; no error for a kill,
    // ESLURM_ALREADY_DONE's exit for a signal, as Slurm's _cancel_job_id.
    const bool quiet_failure = status.code() == absl::StatusCode::kNotFound ||
                               status.code() == absl::StatusCode::kFailedPrecondition;
    if (!quiet_failure || command.verbose > 0) {
      absl::StrAppend(&outcome.stderr_text, "scancel: error: Kill job error on job id ", job, ": ",
                      client::SlurmJobErrorText(status, client::JobRpc::kCancel), "\n");
    }
    if (quiet_failure) {
      if (signalling && status.code() == absl::StatusCode::kFailedPrecondition) {
        worst = std::max(worst, kAlreadyDone);
      }
    } else if (status.code() == absl::StatusCode::kPermissionDenied) {
      worst = std::max(worst, kAccessDenied);
    } else if (status.code() == absl::StatusCode::kUnavailable) {
      worst = std::max(worst, kTransitionStateNoUpdate);
    } else {
      worst = std::max(worst, 1);
    }
  }
  outcome.exit_code = worst & 0xff;
  return outcome;
}

std::vector<uint64_t> StillTransitional(const v1::CancelJobsReply& reply) {
  std::vector<uint64_t> ids;
  for (const v1::CancelJobResult& result : reply.results()) {
    if (!result.is_step() &&
        static_cast<absl::StatusCode>(result.code()) == absl::StatusCode::kUnavailable) {
      ids.push_back(result.job_id());
    }
  }
  return ids;
}

v1::CancelJobsRequest RetryRequest(const v1::CancelJobsRequest& request,
                                   const std::vector<uint64_t>& job_ids) {
  v1::CancelJobsRequest retry = request;
  retry.clear_job_ids();
  retry.clear_refs();
  retry.clear_steps();
  for (uint64_t id : job_ids) retry.add_job_ids(id);
  return retry;
}

void TakeRetried(const v1::CancelJobsReply& retried, v1::CancelJobsReply* reply) {
  for (const v1::CancelJobResult& again : retried.results()) {
    for (v1::CancelJobResult& result : *reply->mutable_results()) {
      if (!result.is_step() && result.job_id() == again.job_id()) result = again;
    }
  }
}

std::vector<uint64_t> JobsToName(const v1::CancelJobsReply& reply, const ScancelCommand& command) {
  std::vector<uint64_t> ids;
  for (const v1::CancelJobResult& result : reply.results()) {
    auto code = static_cast<absl::StatusCode>(result.code());
    if (code == absl::StatusCode::kNotFound) continue;
    bool printed = command.verbose > 0 ||
                   (code != absl::StatusCode::kOk && code != absl::StatusCode::kFailedPrecondition);
    if (printed) ids.push_back(result.job_id());
  }
  return ids;
}

JobNames NamesOf(const v1::GetJobsReply& jobs) {
  JobNames names;
  for (const v1::JobInfo& job : jobs.jobs()) names[job.job_id()] = client::JobIdText(job);
  return names;
}

}  // namespace skiff::cli
