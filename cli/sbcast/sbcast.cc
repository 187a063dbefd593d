// sbcast: copies a file to every node of a job's allocation, as Slurm's
// sbcast. ctld says where the job is (GetJobs: its state, nodes and step
// manager); the job's step manager (noded BroadcastFile) writes each node's
// copy as the job's user, forwarding the file to the job's other nodes as it
// arrives. The file is read and sent a chunk at a time, never whole.
//
// One thread; exits through ExitNow (no gRPC teardown).
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/command.h"
#include "cli/common/environment.h"
#include "cli/sbcast/sbcast_help.h"
#include "cli/sbcast/sbcast_options.h"
#include "client/ctld_client.h"
#include "common/hostlist.h"
#include "common/rpc/auth_metadata.h"
#include "common/rpc/channel.h"
#include "proto/ctld.grpc.pb.h"
#include "proto/noded.grpc.pb.h"

namespace {

// Slurm's SLURM_ERROR, as sbcast's exit status.
constexpr int kSlurmError = 255;
constexpr char kLdd[] = "/usr/bin/ldd";

void Line(const std::string& text) { fprintf(stderr, "%s\n", text.c_str()); }
void Verbose(const skiff::cli::SbcastArgs& args, const std::string& text) {
  if (args.verbose > 0) fprintf(stderr, "sbcast: %s\n", text.c_str());
}

// The file to send, open (Slurm's _file_state).
struct Source {
  std::string path;
  int fd = -1;
  struct stat st {};
};

bool OpenSource(const skiff::cli::SbcastArgs& args, const std::string& path, Source* source) {
  source->path = path;
  source->fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (source->fd < 0) {
    Line(absl::StrCat("sbcast: error: Can't open `", path, "`: ", strerror(errno)));
    return false;
  }
  if (fstat(source->fd, &source->st) != 0) {
    Line(absl::StrCat("sbcast: error: Can't stat `", path, "`: ", strerror(errno)));
    return false;
  }
  const struct stat& st = source->st;
  for (const std::string& line : skiff::cli::SourceLines(
           st.st_mode, st.st_uid, st.st_gid, st.st_atime, st.st_mtime, st.st_ctime, st.st_size)) {
    Verbose(args, line);
  }
  if (st.st_size == 0) Line(absl::StrCat("sbcast: error: Warning: file `", path, "` is empty."));
  return true;
}

// `ldd SOURCE`'s libraries; nullopt when ldd failed (Slurm then sends the file
// alone).
std::optional<std::vector<std::string>> LddLibraries(const std::string& path) {
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return std::nullopt;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  std::string arg0 = "ldd", arg1 = path;
  char* argv[] = {arg0.data(), arg1.data(), nullptr};
  pid_t pid = -1;
  const int spawned = posix_spawn(&pid, kLdd, &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  std::string output;
  if (spawned == 0) {
    char buf[4096];
    for (ssize_t n; (n = read(out[0], buf, sizeof(buf))) != 0;) {
      if (n < 0) {
        if (errno == EINTR) continue;
        break;
      }
      output.append(buf, static_cast<size_t>(n));
    }
  }
  close(out[0]);
  if (spawned != 0) return std::nullopt;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  return skiff::cli::LibrariesFromLdd(output);
}

// The job's step manager, and how sbcast talks to it.
struct Target {
  skiff::client::CtldClient* ctld = nullptr;
  std::string first_node;
  std::string address;
  std::shared_ptr<grpc::Channel> channel;
  int timeout_seconds = 10;  // per chunk, as Slurm's per message
  bool configuring = false;  // ctld had the job CONFIGURING: not launched yet, or just
};

// One file to `destination` on every node; the exit code Slurm's sbcast would
// end with (0 when every copy was written).
int Send(const skiff::cli::SbcastArgs& args, Target& target, const Source& source,
         const std::string& destination, bool make_libs_dir) {
  const uint64_t size = static_cast<uint64_t>(source.st.st_size);
  const uint64_t chunk = skiff::cli::ChunkSize(args.block_size, size);
  const uint64_t blocks = size == 0 ? 1 : (size + chunk - 1) / chunk;
  if (!target.channel) {
    target.channel = skiff::MakeChannel(target.address);
    if (!target.channel->WaitForConnected(std::chrono::system_clock::now() +
                                          std::chrono::seconds(target.timeout_seconds))) {
      Line(absl::StrCat("sbcast: error: REQUEST_FILE_BCAST(", target.first_node,
                        "): Communication connection failure (its noded at ", target.address,
                        " did not answer within ", target.timeout_seconds, "s)"));
      return kSlurmError;
    }
  }
  auto stub = skiff::v1::Noded::NewStub(target.channel);
  grpc::ClientContext context;
  // Slurm bounds each block's message by the timeout; the whole transfer here.
  context.set_deadline(
      std::chrono::system_clock::now() +
      std::chrono::seconds(int64_t{target.timeout_seconds} * static_cast<int64_t>(blocks)));
  if (args.compress) context.set_compression_algorithm(GRPC_COMPRESS_GZIP);
  if (absl::Status s = skiff::AttachCredential(target.ctld->auth(), &context); !s.ok()) {
    Line(absl::StrCat("sbcast: error: ", s.message()));
    return kSlurmError;
  }
  skiff::v1::BroadcastFileReply reply;
  std::unique_ptr<grpc::ClientWriter<skiff::v1::FileChunk>> writer =
      stub->BroadcastFile(&context, &reply);
  skiff::v1::FileChunk first;
  skiff::v1::BroadcastHeader* header = first.mutable_header();
  header->set_job_id(args.job.job_id);
  header->set_has_step(args.job.has_step);
  header->set_step_id(args.job.step_id);
  header->set_batch_step(args.job.batch_step);
  header->set_path(destination);
  header->set_mode(source.st.st_mode);
  header->set_force(args.force);
  header->set_preserve(args.preserve);
  if (args.preserve) {
    header->set_atime(source.st.st_atime);
    header->set_mtime(source.st.st_mtime);
  }
  header->set_size(size);
  header->set_make_libs_dir(make_libs_dir);
  header->set_compress(args.compress);
  bool open = writer->Write(first);
  std::string buf(chunk, '\0');
  uint64_t sent = 0;
  uint32_t block_no = 0;
  while (open && sent < size) {
    const ssize_t n = pread(source.fd, buf.data(), std::min<uint64_t>(chunk, size - sent),
                            static_cast<off_t>(sent));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      Line(absl::StrCat("sbcast: error: Can't read `", source.path, "`: ", strerror(errno)));
      context.TryCancel();
      break;
    }
    if (n == 0) break;  // the file shrank: the nodes say the transfer was short
    if (args.verbose > 1) {
      fprintf(stderr, "sbcast: debug:  block %u, size %zd\n", ++block_no, n);
    }
    skiff::v1::FileChunk data;
    data.set_data(buf.data(), static_cast<size_t>(n));
    sent += static_cast<uint64_t>(n);
    open = writer->Write(data);
  }
  if (open) writer->WritesDone();
  const grpc::Status status = writer->Finish();
  if (status.ok()) {
    const skiff::cli::BroadcastOutcome outcome = skiff::cli::OutcomeOf(reply);
    for (const std::string& line : outcome.errors) Line(line);
    return outcome.exit_code;
  }
  switch (status.error_code()) {
    case grpc::StatusCode::PERMISSION_DENIED:
      // Slurm's slurmctld refuses another user's job with this text.
      Line(skiff::cli::LookupError(args.job, "Invalid user id"));
      return kSlurmError;
    case grpc::StatusCode::NOT_FOUND:
      Line(skiff::cli::LookupError(
          args.job, target.configuring ? "Job is pending execution" : status.error_message()));
      return kSlurmError;
    case grpc::StatusCode::INVALID_ARGUMENT:
      Line(absl::StrCat("sbcast: error: ", status.error_message()));
      return kSlurmError;
    default:
      Line(absl::StrCat("sbcast: error: slurm_send_recv_msgs: the job's step manager at ",
                        target.address, ": ", status.error_message()));
      return 1;
  }
}

}  // namespace

int skiff::cli::SbcastMain(int argc, char** argv) {
  const std::map<std::string, std::string> env = skiff::cli::ProcessEnvironment();
  char cwd_buf[4096];
  const std::string cwd = getcwd(cwd_buf, sizeof(cwd_buf)) != nullptr ? cwd_buf : "/";
  const skiff::cli::SbcastParse parsed =
      skiff::cli::ParseSbcastArgs(std::vector<std::string>(argv + 1, argv + argc), env, cwd);
  for (const std::string& line : parsed.warnings) Line(line);
  if (!parsed.args) {
    for (const std::string& line : parsed.errors) Line(line);
    return parsed.exit_code;
  }
  const skiff::cli::SbcastArgs& args = *parsed.args;
  if (args.version) {
    std::cout << skiff::cli::VersionLine();
    return 0;
  }
  if (args.help) {
    std::cout << skiff::cli::SbcastHelp();
    return 0;
  }
  if (args.usage) {
    std::cout << skiff::cli::SbcastUsage();
    return 0;
  }
  for (const std::string& line : skiff::cli::SbcastOptionLines(args)) Verbose(args, line);

  // Slurm's order: the source file, then the job, then the transfer.
  Source source;
  if (!OpenSource(args, args.source, &source)) skiff::client::ExitNow(kSlurmError);

  absl::StatusOr<std::unique_ptr<skiff::client::CtldClient>> ctld =
      skiff::client::CtldClient::Connect("");
  if (!ctld.ok()) {
    Line(skiff::cli::LookupError(args.job, std::string(ctld.status().message())));
    skiff::client::ExitNow(kSlurmError);
  }
  if (args.job.het_offset) {  // Skiff has no heterogeneous jobs
    Line(skiff::cli::LookupError(args.job, "Invalid job id specified"));
    skiff::client::ExitNow(kSlurmError);
  }
  skiff::v1::GetJobsRequest request;
  if (args.job.array_task) {
    skiff::v1::JobRef* ref = request.add_refs();
    ref->set_job_id(args.job.job_id);
    ref->set_array_task_id(*args.job.array_task);
  } else {
    request.add_job_ids(args.job.job_id);
  }
  skiff::v1::GetJobsReply jobs;
  if (absl::Status s = (*ctld)->Call(&skiff::v1::Ctld::Stub::GetJobs, request, &jobs); !s.ok()) {
    Line(skiff::cli::LookupError(args.job, std::string(s.message())));
    skiff::client::ExitNow(kSlurmError);
  }
  if (args.job.job_id == 0 || jobs.jobs_size() == 0) {
    Line(skiff::cli::LookupError(args.job, "Invalid job id specified"));
    skiff::client::ExitNow(kSlurmError);
  }
  const skiff::v1::JobInfo& job = jobs.jobs(0);
  std::string refusal = skiff::cli::JobStateRefusal(job.state());
  if (refusal.empty() && (job.stepmgr_address().empty() || job.nodes().empty())) {
    refusal = "Job/step already completing or completed";
  }
  if (!refusal.empty()) {
    Line(skiff::cli::LookupError(args.job, refusal));
    skiff::client::ExitNow(kSlurmError);
  }
  skiff::cli::SbcastArgs sending = args;
  sending.job.job_id = job.job_id();  // an array task's own id
  Verbose(args, absl::StrCat("jobid      = ", args.job.text));
  Verbose(args, absl::StrCat("node_list  = ",
                             skiff::CompressHostlist({job.nodes().begin(), job.nodes().end()})));

  Target target;
  target.ctld = ctld->get();
  target.first_node = job.nodes(0);
  target.address = job.stepmgr_address();
  target.configuring = job.state() == skiff::v1::CONFIGURING;
  target.timeout_seconds = args.timeout_seconds > 0
                               ? args.timeout_seconds
                               : static_cast<int>((*ctld)->config().skiff.message_timeout);

  // --send-libs: if ldd cannot name the libraries, the file goes alone.
  std::optional<std::vector<std::string>> libraries;
  if (args.send_libs) {
    libraries = LddLibraries(args.source);
    if (!libraries) {
      Line(absl::StrCat("sbcast: error: Cannot autodetect libraries for '", args.source,
                        "' with ldd command; still sending the file but ignoring send_libs"));
    } else if (libraries->empty()) {
      Verbose(args, "ldd exited normally but returned no libraries");
    }
  }
  int rc = Send(sending, target, source, args.destination, libraries.has_value());
  close(source.fd);
  if (rc != 0 || !libraries) skiff::client::ExitNow(rc);
  if (libraries->empty()) {
    Verbose(args, absl::StrCat("No shared objects detected for '", args.source, "'"));
    skiff::client::ExitNow(0);
  }
  std::vector<std::string> warnings;
  const std::vector<std::string> excluded =
      skiff::cli::ExcludedDirectories(args.exclude, &warnings);
  for (const std::string& line : warnings) Line(line);
  size_t sent = 0;
  for (const std::string& library : *libraries) {
    if (skiff::cli::IsExcluded(library, excluded)) {
      Verbose(args, absl::StrCat("Skipping broadcast of excluded '", library, "'"));
      continue;
    }
    Source lib;
    rc = OpenSource(args, library, &lib)
             ? Send(sending, target, lib, skiff::cli::LibraryDestination(args.destination, library),
                    false)
             : kSlurmError;
    if (lib.fd >= 0) close(lib.fd);
    if (rc != 0) {
      Line(absl::StrCat("sbcast: error: Broadcast of '", library, "' failed"));
      skiff::client::ExitNow(rc);
    }
    Verbose(args, absl::StrCat("Broadcast of shared object '", library,
                               "' to destination cache directory succeeded (", ++sent, "/",
                               libraries->size(), ")"));
  }
  skiff::client::ExitNow(0);
}
