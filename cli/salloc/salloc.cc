// salloc: obtains an allocation, runs a command (the user's shell by default)
// with the allocation's SLURM_* environment, and relinquishes the allocation
// when the command exits, as Slurm's salloc. The command's exit code is
// salloc's and the job's.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/command.h"
#include "cli/common/allocation.h"
#include "cli/common/container_options.h"
#include "cli/common/defined_options.h"
#include "cli/common/getopt_args.h"
#include "cli/common/option_values.h"
#include "cli/common/sbatch_options.h"
#include "cli/common/task_distribution.h"
#include "cli/salloc/salloc_environment.h"
#include "cli/salloc/salloc_help.h"
#include "client/ctld_client.h"

extern char** environ;

namespace {

constexpr char kProgram[] = "salloc";

volatile std::sig_atomic_t g_interrupted = 0;
void OnInterrupt(int) { g_interrupted = 1; }

std::string Basename(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

int skiff::cli::SallocMain(int argc, char** argv) {
  CLI::App app{"salloc"};
  app.set_help_flag();
  skiff::cli::SbatchRawOptions o;
  bool help = false, usage = false, version = false, quiet = false, no_shell = false;
  bool hold = false;
  std::optional<std::string> immediate;  // -I[secs]
  std::optional<std::string> exclusive;  // --exclusive[=...], resolved with -s after parsing
  bool oversubscribe = false;            // -s
  bool overcommit = false, spread_job = false, use_min_nodes = false, contiguous = false;
  int verbose = 0;
  app.add_option("-A,--account", o.account);
  app.add_option("-b,--begin", o.begin);
  app.add_option("-c,--cpus-per-task", o.cpus_per_task);
  app.add_option("--comment", o.comment);
  app.add_option("-C,--constraint", o.constraint);
  app.add_option("--prefer", o.prefer);
  app.add_option("--gres-flags", o.gres_flags);
  app.add_option("--wait-all-nodes", o.wait_all_nodes);
  app.add_option("--mail-type", o.mail_type);
  app.add_option("--mail-user", o.mail_user);
  app.add_option("--deadline", o.deadline);
  app.add_option("--priority", o.priority);
  app.add_option("-d,--dependency", o.dependency);
  app.add_option("-D,--chdir", o.chdir);
  CLI::Option* exclusive_option = app.add_option("--exclusive", exclusive)->expected(0, 1);
  CLI::Option* oversubscribe_option = app.add_flag("-s,--oversubscribe", oversubscribe);
  CLI::Option* no_kill_option = app.add_option("-k,--no-kill", o.no_kill)->expected(0, 1);
  app.add_option("-x,--exclude", o.exclude);
  app.add_option("-G,--gpus", o.gpus);
  app.add_option("--gpus-per-node", o.gpus_per_node);
  app.add_option("--gpu-bind", o.gpu_bind);
  app.add_option("--gpus-per-task", o.gpus_per_task);
  app.add_option("--cpus-per-gpu", o.cpus_per_gpu);
  app.add_option("--gres", o.gres);
  app.add_flag("-h,--help", help);
  app.add_flag("-H,--hold", hold);
  app.add_option("-I,--immediate", immediate)->expected(0, 1);
  app.add_option("-J,--job-name", o.job_name);
  app.add_option("--mem", o.mem);
  app.add_option("--mem-per-cpu", o.mem_per_cpu);
  app.add_option("--mem-per-gpu", o.mem_per_gpu);
  app.add_option("--nice", o.nice)->expected(0, 1);
  app.add_flag("--no-shell", no_shell);
  app.add_option("-n,--ntasks", o.ntasks);
  app.add_option("--mincpus", o.mincpus);
  app.add_flag("-O,--overcommit", overcommit);
  app.add_flag("--spread-job", spread_job);
  app.add_flag("--contiguous", contiguous);
  app.add_flag("--use-min-nodes", use_min_nodes);
  app.add_option("--ntasks-per-node", o.ntasks_per_node);
  app.add_option("-N,--nodes", o.nodes);
  app.add_option("-w,--nodelist", o.nodelist);
  app.add_option("-p,--partition", o.partition);
  app.add_option("-q,--qos", o.qos);
  app.add_option("--reservation", o.reservation);
  app.add_flag("-Q,--quiet", quiet);
  app.add_option("-t,--time", o.time);
  app.add_option("--time-min", o.time_min);
  app.add_option("--tmp", o.tmp);
  app.add_option("-L,--licenses", o.licenses);
  app.add_option("-m,--distribution", o.distribution);
  app.add_option("--signal", o.signal);
  skiff::cli::TopologyOptionValues topology;
  app.add_option("-B,--extra-node-info", topology.extra_node_info);
  app.add_option("--sockets-per-node", topology.sockets_per_node);
  app.add_option("--cores-per-socket", topology.cores_per_socket);
  app.add_option("--threads-per-core", topology.threads_per_core);
  app.add_flag("--usage", usage);
  app.add_flag("-v,--verbose", verbose);
  app.add_flag("-V,--version", version);
  skiff::cli::ContainerFlags container_flags;
  skiff::cli::AddContainerOptions(app, &o.container, &container_flags);
  // Slurm's input variable (set but empty: none); the command line overrides it.
  if (const char* bundle = getenv("SALLOC_CONTAINER"); bundle != nullptr && *bundle != '\0') {
    o.container.bundle = bundle;
  }
  std::vector<std::string> command;
  // SALLOC_PARTITION, SALLOC_ACCOUNT, ...: their options, read before the
  // command line's as Slurm reads them, so the command line wins.
  std::map<std::string, std::string> environment;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const size_t eq = entry.find('=');
    if (eq != std::string::npos) environment.emplace(entry.substr(0, eq), entry.substr(eq + 1));
  }
  std::vector<std::string> from_environment = skiff::cli::SallocEnvironmentOptions(environment);
  std::vector<char*> with_environment = {argv[0]};
  for (std::string& arg : from_environment) with_environment.push_back(arg.data());
  with_environment.insert(with_environment.end(), argv + 1, argv + argc);
  with_environment.push_back(nullptr);
  argc = static_cast<int>(with_environment.size()) - 1;
  argv = with_environment.data();
  // A command line getopt refuses ends salloc with 255, as Slurm's.
  if (int rc = skiff::cli::ParseGetoptCommandLine(app, kProgram, argc, argv, &command,
                                                  skiff::cli::GetoptOrder::kStopAtOperand,
                                                  /*error_exit=*/255);
      rc >= 0) {
    return rc;
  }
  // The values Slurm's salloc checks as it reads them, in their order, with
  // its exit codes (1 for a count, else 255).
  if (std::optional<skiff::cli::OptionValueError> bad = skiff::cli::CheckParsedOptionValues(
          app, {{"cpus-per-task", &o.cpus_per_task},
                {"ntasks", &o.ntasks},
                {"ntasks-per-node", &o.ntasks_per_node},
                {"mincpus", &o.mincpus},
                {"cpus-per-gpu", &o.cpus_per_gpu},
                {"immediate", &immediate},
                {"mem", &o.mem},
                {"mem-per-cpu", &o.mem_per_cpu},
                {"mem-per-gpu", &o.mem_per_gpu},
                {"nodes", &o.nodes},
                {"time", &o.time},
                {"begin", &o.begin},
                {"gpu-bind", &o.gpu_bind},
                {"distribution", &o.distribution},
                {"gres-flags", &o.gres_flags},
                {"wait-all-nodes", &o.wait_all_nodes},
                {"signal", &o.signal},
                {"exclusive", &exclusive},
                {"extra-node-info", &topology.extra_node_info},
                {"sockets-per-node", &topology.sockets_per_node},
                {"cores-per-socket", &topology.cores_per_socket},
                {"threads-per-core", &topology.threads_per_core}})) {
    fprintf(stderr, "%s: error: %s\n", kProgram, bad->message.c_str());
    return bad->exit_code;
  }
  skiff::cli::ApplyContainerFlags(app, container_flags, &o.container);
  if (skiff::cli::PrintAskedInfo({version, help, usage}, &skiff::cli::SallocHelp,
                                 &skiff::cli::SallocUsage)) {
    return 0;
  }
  if (o.tmp) {
    if (absl::Status s = skiff::cli::CheckTmpOption(*o.tmp); !s.ok()) {
      return skiff::client::ReportError(kProgram, s, 255);
    }
  }
  if (no_kill_option->count() > 0 && (!o.no_kill || o.no_kill->empty())) o.no_kill = "set";
  if (o.no_kill) {
    if (absl::Status s = skiff::cli::ParseNoKillOption(*o.no_kill).status(); !s.ok()) {
      return skiff::client::ReportError(kProgram, s, 255);
    }
  }
  // -s and --exclusive are one setting (Slurm's opt->shared): the later wins.
  for (const CLI::Option* option : app.parse_order()) {
    if (option == exclusive_option) {
      o.exclusive = exclusive && !exclusive->empty() ? *exclusive : "exclusive";
      o.exclusive_named = true;
    } else if (option == oversubscribe_option) {
      o.exclusive = "oversubscribe";
      o.oversubscribe_named = true;
    }
  }
  skiff::cli::ApplyTopologyOptions(app, topology, &o.sockets_per_node, &o.cores_per_socket,
                                   &o.threads_per_core);
  if (hold) o.hold = true;
  if (overcommit) o.overcommit = true;
  if (spread_job) o.spread_job = true;
  if (contiguous) o.contiguous = true;
  if (use_min_nodes) o.use_min_nodes = true;
  if (verbose > 0) {
    // What was given, before salloc's own defaults below.
    std::vector<skiff::cli::GivenOption> given = skiff::cli::SbatchGivenOptions(o);
    if (immediate) {
      given.push_back({"immediate", immediate->empty() ? std::optional<std::string>() : immediate});
    }
    if (no_shell) given.push_back({"no-shell", std::nullopt});
    if (quiet) given.push_back({"quiet", "1"});
    given.push_back({"verbose", absl::StrCat(verbose)});
    char dir[4096];
    for (const std::string& line : skiff::cli::DefinedOptionsBlock(
             given, {time(nullptr), getcwd(dir, sizeof(dir)) ? dir : "/"})) {
      fprintf(stderr, "%s: %s\n", kProgram, line.c_str());
    }
  }
  if (command.empty() && !no_shell) {
    const char* shell = getenv("SHELL");
    command = {shell != nullptr && *shell != '\0' ? shell : "/bin/sh"};
  }
  if (!o.job_name) o.job_name = command.empty() ? "interactive" : Basename(command.front());
  o.output = "/dev/null";

  skiff::cli::SbatchCommandLine line;
  line.options = o;
  // The allocation's environment is the job's own (SLURM_*), not the caller's.
  line.options.export_env = "NONE";
  skiff::cli::SubmitContext context;
  char cwd[4096];
  context.cwd = getcwd(cwd, sizeof(cwd)) ? cwd : "/";
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  context.hostname = std::string(host).substr(0, std::string(host).find('.'));
  context.now = time(nullptr);
  absl::StatusOr<skiff::cli::SbatchSubmission> submission =
      skiff::cli::BuildSubmission(line, skiff::cli::kAllocationHolderScript, context);
  if (!submission.ok()) return skiff::client::ReportError(kProgram, submission.status());
  for (const std::string& warning : submission->warnings) {
    fprintf(stderr, "%s: warning: %s\n", kProgram, warning.c_str());
  }
  absl::StatusOr<std::unique_ptr<skiff::client::CtldClient>> client =
      skiff::client::CtldClient::Connect("");
  if (!client.ok()) return skiff::client::ReportError(kProgram, client.status());

  std::signal(SIGINT, OnInterrupt);
  std::signal(SIGTERM, OnInterrupt);
  skiff::cli::AllocationPatience patience;
  if (immediate) {
    absl::StatusOr<int> seconds = skiff::cli::ImmediateSeconds(*immediate);
    if (!seconds.ok()) {
      // Slurm's parse_int, which exits 1.
      return skiff::client::ReportError(kProgram, seconds.status(), 1);
    }
    patience.immediate_seconds = *seconds;
  }
  absl::StatusOr<skiff::v1::JobInfo> job = skiff::cli::Allocate(
      **client, submission->spec, {kProgram, !quiet, /*says_revoked=*/true},
      [] { return g_interrupted != 0; }, patience);
  if (absl::IsDeadlineExceeded(job.status())) return 1;  // Allocate said why
  if (!job.ok()) {
    if (absl::IsCancelled(job.status()) || absl::IsUnavailable(job.status())) {
      fprintf(stderr, "salloc: %s\n", std::string(job.status().message()).c_str());
      return 1;
    }
    return skiff::client::ReportError(kProgram, job.status());
  }
  if (no_shell) return 0;

  const std::map<std::string, std::string> alloc_env = skiff::cli::AllocationEnvironment(
      *job, (*client)->config().skiff.cluster_name, context.cwd, context.hostname);
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string kv = *e;
    if (alloc_env.count(kv.substr(0, kv.find('='))) == 0) env_strings.push_back(kv);
  }
  for (const auto& [key, value] : alloc_env) env_strings.push_back(key + "=" + value);
  // salloc --gpu-bind: for the sruns the command starts (Slurm's set_env_from_opts).
  if (o.gpu_bind) env_strings.push_back("SLURM_GPU_BIND=" + *o.gpu_bind);
  // salloc -m: the sruns lay their tasks out so (Slurm's env_array_for_job).
  if (o.distribution) {
    const char* plane = getenv("SLURM_DIST_PLANESIZE");
    absl::StatusOr<skiff::cli::TaskDistribution> distribution = skiff::cli::ParseTaskDistribution(
        *o.distribution, plane == nullptr ? std::nullopt : std::optional<std::string>(plane));
    if (distribution.ok() && !distribution->name.empty()) {
      env_strings.push_back("SLURM_DISTRIBUTION=" + distribution->name);
    }
    if (distribution.ok() && distribution->nodes == skiff::cli::TaskDistribution::Nodes::kPlane) {
      env_strings.push_back("SLURM_DIST_PLANESIZE=" + std::to_string(distribution->plane_size));
    }
  }
  std::vector<char*> envp;
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<char*> args;
  for (std::string& s : command) args.push_back(s.data());
  args.push_back(nullptr);

  // The command owns the terminal's Ctrl-C; salloc waits it out.
  std::signal(SIGINT, SIG_IGN);
  std::signal(SIGQUIT, SIG_IGN);
  const pid_t child = fork();
  if (child == 0) {
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGQUIT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    execvpe(args[0], args.data(), envp.data());
    fprintf(stderr, "salloc: error: %s: %s\n", args[0], strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (!quiet)
    fprintf(stderr, "salloc: Relinquishing job allocation %lu\n",
            static_cast<unsigned long>(job->job_id()));
  if (absl::Status s = skiff::cli::Relinquish(**client, *job, code); !s.ok()) {
    skiff::client::ReportError(kProgram, s);
  }
  return code;
}
