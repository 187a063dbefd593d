// sbatch: submit a batch script, as Slurm's sbatch.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/command.h"
#include "cli/common/getopt_args.h"
#include "cli/common/sbatch_options.h"
#include "client/ctld_client.h"

extern char** environ;

namespace {

constexpr char kProgram[] = "sbatch";

int Fail(const absl::Status& status) {
  if (skiff::cli::IsGetoptError(status)) {
    std::cerr << skiff::cli::GetoptErrorText(kProgram, std::string(status.message()));
    return skiff::cli::SbatchExitCode(status);
  }
  return skiff::client::ReportError(kProgram, status, skiff::cli::SbatchExitCode(status));
}

// The whole file at `path`, read as the user running sbatch; the error message
// is strerror's text alone.
absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return absl::NotFoundError(std::strerror(errno));
  std::string text;
  char buffer[65536];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), file)) > 0) text.append(buffer, n);
  bool failed = std::ferror(file) != 0;
  int saved = errno;
  std::fclose(file);
  if (failed) return absl::UnavailableError(std::strerror(saved));
  return text;
}

skiff::cli::SubmitContext CurrentContext() {
  skiff::cli::SubmitContext context;
  std::vector<char> cwd(4096);
  while (getcwd(cwd.data(), cwd.size()) == nullptr && errno == ERANGE) cwd.resize(cwd.size() * 2);
  context.cwd = cwd.data();
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  context.hostname = host;
  context.hostname = context.hostname.substr(0, context.hostname.find('.'));
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string entry(*e);
    size_t eq = entry.find('=');
    if (eq == std::string::npos) continue;
    // Values are bytes and go as they are; a name must be text on the wire
    // (no shell can make a non-ASCII one, so only a hostile caller loses it).
    const std::string name = entry.substr(0, eq);
    if (std::any_of(name.begin(), name.end(), [](char c) { return (c & 0x80) != 0; })) continue;
    context.environment[name] = entry.substr(eq + 1);
  }
  context.now = time(nullptr);
  context.read_file = ReadWholeFile;
  return context;
}

// sbatch --wait: looks at the job until it (every task of an array) has ended,
// and returns its exit code. Slurm looks after 2, 10, 42, ... s; Skiff looks
// sooner (a short job's pipeline should not wait 2 s for nothing) and backs off
// to one look every 2 s.
int WaitForJob(skiff::client::CtldClient& client, uint64_t job_id) {
  skiff::v1::GetJobsRequest request;
  request.add_job_ids(job_id);
  int delay_ms = 50;
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    delay_ms = std::min(delay_ms * 2, 2000);
    skiff::v1::GetJobsReply reply;
    absl::Status status = client.Call(&skiff::v1::Ctld::Stub::GetJobs, request, &reply);
    if (status.code() == absl::StatusCode::kNotFound || (status.ok() && reply.jobs().empty())) {
      fprintf(stderr, "%s: error: Job %lu no longer found and exit code not found\n", kProgram,
              static_cast<unsigned long>(job_id));
      return 0;
    }
    if (!status.ok()) {
      fprintf(stderr, "%s: error: Currently unable to load job state information, retrying: %s\n",
              kProgram, std::string(status.message()).c_str());
      continue;
    }
    std::optional<int> code = skiff::cli::WaitExitCode(
        std::vector<skiff::v1::JobInfo>(reply.jobs().begin(), reply.jobs().end()));
    if (code.has_value()) return *code;
  }
}

// The batch script named on the command line. read(2), not a stream: a
// stream's buffer throws on a read error (a directory), and every failure must
// be a message and an exit code.
absl::StatusOr<std::string> ReadScriptFile(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::FailedPreconditionError(absl::StrCat("Unable to open file ", path));
  std::string text;
  char buffer[65536];
  for (;;) {
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      close(fd);
      return absl::FailedPreconditionError(
          absl::StrCat("Unable to read file ", path, ": ", strerror(err)));
    }
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  return text;
}

}  // namespace

int skiff::cli::SbatchMain(int argc, char** argv) {
  absl::StatusOr<skiff::cli::SbatchCommandLine> command_line =
      skiff::cli::ParseSbatchCommandLine(std::vector<std::string>(argv + 1, argv + argc));
  if (!command_line.ok()) return Fail(command_line.status());
  if (command_line->help) {
    std::cout << command_line->help_text;
    return 0;
  }
  if (command_line->version) {
    std::cout << skiff::cli::VersionLine();
    return 0;
  }

  std::string script;
  if (command_line->options.wrap) {
    script = skiff::cli::WrapScript(*command_line->options.wrap);
  } else if (!command_line->script_path.empty()) {
    absl::StatusOr<std::string> read = ReadScriptFile(command_line->script_path);
    if (!read.ok()) return Fail(read.status());
    script = *std::move(read);
  } else {
    std::ostringstream in;
    in << std::cin.rdbuf();
    script = in.str();
  }

  absl::StatusOr<skiff::cli::SbatchSubmission> submission =
      skiff::cli::BuildSubmission(*command_line, script, CurrentContext());
  if (!submission.ok()) return Fail(submission.status());
  for (const std::string& line : submission->defined_options) {
    fprintf(stderr, "%s: %s\n", kProgram, line.c_str());
  }
  for (const std::string& warning : submission->warnings) {
    fprintf(stderr, "%s: warning: %s\n", kProgram, warning.c_str());
  }

  absl::StatusOr<std::unique_ptr<skiff::client::CtldClient>> client =
      skiff::client::CtldClient::Connect("");
  if (!client.ok()) return skiff::client::ReportError(kProgram, client.status());
  // ctld refuses it too; checked here first so that a huge script is not sent
  // only to be cut off by gRPC's message limit with a transport error.
  const int64_t max_script = (*client)->config().skiff.scheduler_parameters.max_script_size;
  if (static_cast<int64_t>(script.size()) > max_script) {
    return skiff::client::ReportError(
        kProgram,
        absl::InvalidArgumentError(absl::StrCat("Batch job submission failed: ",
                                                skiff::ScriptTooLarge(script.size(), max_script))));
  }
  // A gres the cluster does not define at all is refused by sbatch itself, as
  // Slurm's does (without "Batch job submission failed").
  const std::vector<std::string>& gres_types = (*client)->config().skiff.gres_types;
  for (const std::string& entry : submission->spec.gres()) {
    const std::string name = entry.substr(0, entry.find(':'));
    if (name != "gpu" &&
        std::find(gres_types.begin(), gres_types.end(), name) == gres_types.end()) {
      return skiff::client::ReportError(
          kProgram, absl::InvalidArgumentError("Invalid generic resource (gres) specification"));
    }
  }
  skiff::v1::SubmitJobRequest request;
  *request.mutable_spec() = submission->spec;
  if (submission->test_only) {
    request.set_test_only(true);
    skiff::v1::SubmitJobReply will;
    absl::Status status = (*client)->Call(&skiff::v1::Ctld::Stub::SubmitJob, request, &will);
    if (!status.ok()) {
      std::string message(status.message());
      if (const size_t cut = message.rfind('\n'); cut != std::string::npos) {
        message = message.substr(cut + 1);
      }
      return skiff::client::ReportError(
          kProgram, absl::Status(status.code(), absl::StrCat("allocation failure: ", message)));
    }
    for (const std::string& warning : will.warnings()) {
      fprintf(stderr, "%s: warning: %s\n", kProgram, warning.c_str());
    }
    fprintf(stderr, "%s: %s\n", kProgram,
            skiff::cli::FormatWillRun(will.job_id(), will.will_start(), will.will_cpus(),
                                      will.will_nodes(), will.will_partition())
                .c_str());
    return 0;
  }
  skiff::v1::SubmitJobReply reply;
  absl::Status status = (*client)->Call(&skiff::v1::Ctld::Stub::SubmitJob, request, &reply);
  if (!status.ok()) {
    // ctld may send detail lines first (a burst_buffer.lua message): they are
    // printed as they are, and the last line is Slurm's summary, as in
    // "sbatch: error: burst_buffer/lua: ...\nsbatch: error: Batch job submission
    // failed: Burst Buffer request invalid".
    std::string message(status.message());
    std::string detail;
    if (const size_t cut = message.rfind('\n'); cut != std::string::npos) {
      detail = message.substr(0, cut + 1);
      message = message.substr(cut + 1);
    }
    return skiff::client::ReportError(
        kProgram, absl::Status(status.code(),
                               absl::StrCat(detail, "Batch job submission failed: ", message)));
  }
  for (const std::string& warning : reply.warnings()) {
    fprintf(stderr, "%s: warning: %s\n", kProgram, warning.c_str());
  }
  std::cout << skiff::cli::FormatSubmitted(reply.job_id(), submission->parsable);
  if (!submission->wait) skiff::client::ExitNow(0);
  std::cout.flush();
  return WaitForJob(**client, reply.job_id());
}
