#include "cli/srun/srun_allocation.h"

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <ctime>
#include <utility>

#include "absl/status/status.h"
#include "cli/common/allocation.h"

namespace skiff::cli {
namespace {

constexpr char kProgram[] = "srun";

// Set by SIGINT or SIGTERM while srun waits for its allocation.
volatile std::sig_atomic_t g_interrupted = 0;
void OnInterrupt(int) { g_interrupted = 1; }

std::string Basename(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Each line of `message` as its own "srun: error: " line (ctld's refusals
// come as slurmctld's err_msg line, then the summary).
int Fail(const std::string& message) {
  return client::ReportError(kProgram, absl::UnknownError(message), 1);
}

}  // namespace

SbatchRawOptions SrunAllocationOptions(const SrunArgs& args) {
  SbatchRawOptions o;
  auto text = [](const std::optional<int>& n) -> std::optional<std::string> {
    return n ? std::optional<std::string>(std::to_string(*n)) : std::nullopt;
  };
  o.partition = args.partition;
  o.time = args.time;
  o.account = args.account;
  o.qos = args.qos;
  o.reservation = args.reservation;
  o.constraint = args.constraint;
  o.prefer = args.prefer;
  o.time_min = args.time_min;
  o.mail_type = args.mail_type;
  o.mail_user = args.mail_user;
  o.deadline = args.deadline;
  o.priority = args.priority;
  o.comment = args.comment;
  o.gres_flags = args.gres_flags;
  o.dependency = args.dependency;
  o.nice = args.nice;
  if (args.exclusive) o.exclusive = "exclusive";
  o.nodes = args.nodes;
  o.ntasks = text(args.ntasks);
  o.ntasks_per_node = text(args.ntasks_per_node);
  o.cpus_per_task = text(args.cpus_per_task);
  o.mincpus = text(args.mincpus);
  if (args.overcommit) o.overcommit = true;
  if (args.spread_job) o.spread_job = true;
  if (args.contiguous) o.contiguous = true;
  if (args.use_min_nodes) o.use_min_nodes = true;
  o.mem = args.mem;
  o.mem_per_cpu = args.mem_per_cpu;
  o.mem_per_gpu = args.mem_per_gpu;
  o.cpus_per_gpu = text(args.cpus_per_gpu);
  o.gres = args.gres;
  o.gpus = args.gpus;
  o.gpus_per_node = args.gpus_per_node;
  if (args.gpus_per_task && !args.gpus) {
    // In 64 bits: sbatch's parser refuses a total past int, never a wrapped one.
    o.gpus = std::to_string(int64_t{*args.gpus_per_task} * args.ntasks.value_or(1));
  }
  o.signal = args.signal;  // the allocation's, as sbatch's --signal
  o.nodelist = args.nodelist;
  o.exclude = args.exclude;
  o.chdir = args.chdir;
  o.job_name = args.job_name ? *args.job_name
                             : (args.command.empty() ? "srun" : Basename(args.command.front()));
  o.output = "/dev/null";
  o.export_env = "NONE";
  // The container options are the step's (BuildStepRequest), not the
  // allocation's: its job only holds the nodes.
  return o;
}

int AllocateForStep(const SrunCommandLine& line, const std::string& cwd,
                    std::map<std::string, std::string>* env, std::optional<SrunAllocation>* own) {
  SbatchCommandLine command_line;
  command_line.options = SrunAllocationOptions(line.args);
  command_line.options.begin = line.begin;
  command_line.options.tmp = line.tmp;
  command_line.options.licenses = line.licenses;
  command_line.options.sockets_per_node = line.sockets_per_node;
  command_line.options.cores_per_socket = line.cores_per_socket;
  command_line.options.threads_per_core = line.threads_per_core;
  if (line.oversubscribe) command_line.options.exclusive = "oversubscribe";
  command_line.options.no_kill = line.no_kill;
  if (line.hold) command_line.options.hold = true;
  SubmitContext submit;
  submit.cwd = cwd;
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  submit.hostname = std::string(host).substr(0, std::string(host).find('.'));
  submit.now = time(nullptr);
  absl::StatusOr<SbatchSubmission> submission =
      BuildSubmission(command_line, kAllocationHolderScript, submit);
  if (!submission.ok()) return Fail(std::string(submission.status().message()));
  absl::StatusOr<std::unique_ptr<client::CtldClient>> client = client::CtldClient::Connect("");
  if (!client.ok()) return Fail(std::string(client.status().message()));
  std::signal(SIGINT, OnInterrupt);
  std::signal(SIGTERM, OnInterrupt);
  AllocationPatience patience;
  if (line.args.immediate) {
    absl::StatusOr<int> seconds = ImmediateSeconds(line.immediate.value_or(""));
    if (!seconds.ok()) {  // Slurm's parse_int, which exits 1 (checked first as srun reads -I)
      fprintf(stderr, "srun: error: %s\n", std::string(seconds.status().message()).c_str());
      return 1;
    }
    patience.immediate_seconds = *seconds;
  }
  absl::StatusOr<v1::JobInfo> job = Allocate(
      **client, submission->spec, {kProgram, false}, [] { return g_interrupted != 0; }, patience);
  if (absl::IsDeadlineExceeded(job.status())) return 1;  // Allocate said why
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  if (!job.ok()) {
    if (absl::IsCancelled(job.status()) || absl::IsUnavailable(job.status())) {
      fprintf(stderr, "srun: %s\n", std::string(job.status().message()).c_str());
      return 1;
    }
    return Fail(std::string(job.status().message()));
  }
  for (const auto& [key, value] :
       AllocationEnvironment(*job, (*client)->config().skiff.cluster_name, cwd, submit.hostname)) {
    (*env)[key] = value;
  }
  own->emplace(SrunAllocation{std::move(*client), *job});
  return -1;
}

void EndSrun(SrunAllocation* own, int code) {
  fflush(stdout);
  fflush(stderr);
  if (own != nullptr) {
    if (absl::Status s = Relinquish(*own->ctld, own->job, code); !s.ok()) {
      fprintf(stderr, "srun: error: %s\n", std::string(s.message()).c_str());
    }
  }
  _exit(code);
}

}  // namespace skiff::cli
