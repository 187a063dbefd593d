#include "cli/srun/srun_command_line.h"

#include <strings.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/numbers.h"
#include "cli/common/getopt_args.h"
#include "cli/common/option_values.h"

namespace skiff::cli {

int SlurmdDebugIncrement(const std::string& text, bool* capped) {
  static const char* const kNames[] = {"quiet", "fatal",  "error",  "info",   "verbose",
                                       "debug", "debug2", "debug3", "debug4", "debug5"};
  constexpr int kMost = 4;  // LOG_LEVEL_DEBUG2 - LOG_LEVEL_ERROR
  int level = -1;           // NO_VAL16: more than the most
  if (!text.empty() && text[0] >= '0' && text[0] <= '9') {
    level = static_cast<uint16_t>(atoi(text.c_str()));
  } else {
    for (int i = 0; i < 10; ++i) {
      if (strcasecmp(text.c_str(), kNames[i]) == 0) level = i;
    }
  }
  *capped = level < 0 || level > kMost;
  return *capped ? kMost : level;
}

int ParseSrunCommandLine(int argc, char** argv, const std::map<std::string, std::string>& env,
                         SrunCommandLine* line) {
  CLI::App app{"srun"};
  app.set_help_flag();
  SrunArgs& args = line->args;
  for (const std::string& error : ApplySrunEnvironment(env, &args, &line->verbose)) {
    fprintf(stderr, "srun: error: %s\n", error.c_str());
  }
  app.add_option("-A,--account", args.account);
  // Counts are read as text and checked below, as Slurm's parse_int checks
  // them (CLI11 would refuse a bad one in its own words).
  std::optional<std::string> cpus_per_task, gpus_per_task, cpus_per_gpu, ntasks, ntasks_per_node,
      mincpus, wait, kill_on_bad_exit;
  app.add_option("-c,--cpus-per-task", cpus_per_task);
  app.add_option("-C,--constraint", args.constraint);
  app.add_option("--prefer", args.prefer);
  app.add_option("--mail-type", args.mail_type);
  app.add_option("--mail-user", args.mail_user);
  app.add_option("--deadline", args.deadline);
  app.add_option("--priority", args.priority);
  app.add_option("--comment", args.comment);
  app.add_option("--gres-flags", args.gres_flags);
  app.add_option("-d,--dependency", args.dependency);
  CLI::Option* nice_option = app.add_option("--nice", args.nice)->expected(0, 1);
  app.add_option("--cpu-bind,--cpu_bind", args.cpu_bind);
  app.add_option("-D,--chdir", args.chdir);
  app.add_option("-i,--input", args.input);
  app.add_option("-o,--output", args.output);
  app.add_option("-e,--error", args.error);
  app.add_flag("--multi-prog", args.multi_prog);
  app.add_flag("--exact", args.exact);
  CLI::Option* exclusive_option = app.add_flag("--exclusive", args.exclusive);
  CLI::Option* oversubscribe_option = app.add_flag("-s,--oversubscribe", line->oversubscribe);
  CLI::Option* no_kill_option = app.add_option("-k,--no-kill", line->no_kill)->expected(0, 1);
  app.add_option("--export", args.export_env);
  app.add_option("-x,--exclude", args.exclude);
  app.add_option("-G,--gpus", args.gpus);
  app.add_option("--gpus-per-node", args.gpus_per_node);
  app.add_option("--gpus-per-task", gpus_per_task);
  app.add_option("--gres", args.gres);
  app.add_flag("-h,--help", line->help);
  app.add_option("-I,--immediate", line->immediate)->expected(0, 1);
  app.add_option("-J,--job-name", args.job_name);
  app.add_option("-K,--kill-on-bad-exit", kill_on_bad_exit)->expected(0, 1);
  app.add_flag("-l,--label", args.label);
  app.add_option("--mem", args.mem);
  app.add_option("--mem-per-cpu", args.mem_per_cpu);
  app.add_option("--mem-per-gpu", args.mem_per_gpu);
  app.add_option("--cpus-per-gpu", cpus_per_gpu);
  app.add_option("--gpu-bind", args.gpu_bind);
  app.add_option("--mpi", args.mpi);
  app.add_option("-n,--ntasks", ntasks);
  app.add_option("--ntasks-per-node", ntasks_per_node);
  app.add_option("-N,--nodes", args.nodes);
  app.add_option("-w,--nodelist", args.nodelist);
  app.add_flag("--overlap", args.overlap);
  app.add_flag("-O,--overcommit", args.overcommit);
  app.add_flag("--spread-job", args.spread_job);
  app.add_flag("--contiguous", args.contiguous);
  app.add_flag("--use-min-nodes", args.use_min_nodes);
  app.add_option("--mincpus", mincpus);
  app.add_option("-p,--partition", args.partition);
  app.add_flag("--pty", args.pty);
  app.add_option("-q,--qos", args.qos);
  app.add_option("--reservation", args.reservation);
  app.add_flag("-Q,--quiet", line->quiet);
  app.add_option("-t,--time", args.time);
  app.add_option("--time-min", args.time_min);
  app.add_flag("-u,--unbuffered", args.unbuffered);
  app.add_flag("--usage", line->usage);
  app.add_flag("-v,--verbose", line->verbose);
  app.add_flag("-V,--version", line->version);
  app.add_option("-W,--wait", wait);
  app.add_option("-b,--begin", line->begin);
  app.add_flag("-H,--hold", line->hold);
  app.add_option("--tmp", line->tmp);
  app.add_option("-L,--licenses", line->licenses);
  app.add_option("-m,--distribution", args.distribution);
  app.add_option("--signal", args.signal);
  app.add_option("-B,--extra-node-info", line->topology.extra_node_info);
  app.add_option("--sockets-per-node", line->topology.sockets_per_node);
  app.add_option("--cores-per-socket", line->topology.cores_per_socket);
  app.add_option("--threads-per-core", line->topology.threads_per_core);
  app.add_option("-T,--threads", line->threads);
  app.add_option("--slurmd-debug", line->slurmd_debug);
  app.add_flag("--quit-on-interrupt", line->quit_on_interrupt);
  app.add_option("--task-prolog", args.task_prolog);
  app.add_option("--task-epilog", args.task_epilog);
  ContainerFlags container_flags;
  AddContainerOptions(app, &args.container, &container_flags);
  const int rc = ParseGetoptCommandLine(app, "srun", argc, argv, &args.command,
                                        GetoptOrder::kStopAtOperand, /*error_exit=*/255);
  if (rc >= 0) return rc;
  ApplyContainerFlags(app, container_flags, &args.container);
  // -s and --exclusive are one setting in Slurm (opt->shared): the later wins.
  const CLI::Option* shared = nullptr;
  for (const CLI::Option* option : app.parse_order()) {
    if (option == exclusive_option || option == oversubscribe_option) shared = option;
  }
  if (shared == exclusive_option) line->oversubscribe = false;
  if (shared == oversubscribe_option) args.exclusive = false;
  if (no_kill_option->count() > 0 && (!line->no_kill || line->no_kill->empty())) {
    line->no_kill = "set";
  }
  // A bare --nice is Slurm's 100.
  if (nice_option->count() > 0 && (!args.nice || args.nice->empty())) args.nice = "100";
  // The values Slurm checks as it reads them, in the command line's order.
  // (Each option's last value: getopt's.)
  const std::map<std::string, const std::optional<std::string>*> checked = {
      {"cpus-per-task", &cpus_per_task},
      {"ntasks", &ntasks},
      {"ntasks-per-node", &ntasks_per_node},
      {"mincpus", &mincpus},
      {"cpus-per-gpu", &cpus_per_gpu},
      {"threads", &line->threads},
      {"wait", &wait},
      {"kill-on-bad-exit", &kill_on_bad_exit},
      {"immediate", &line->immediate},
      {"mem", &args.mem},
      {"mem-per-cpu", &args.mem_per_cpu},
      {"mem-per-gpu", &args.mem_per_gpu},
      {"nodes", &args.nodes},
      {"time", &args.time},
      {"begin", &line->begin},
      {"gpu-bind", &args.gpu_bind},
      {"distribution", &args.distribution},
      {"gres-flags", &args.gres_flags},
      {"signal", &args.signal},
      {"extra-node-info", &line->topology.extra_node_info},
      {"sockets-per-node", &line->topology.sockets_per_node},
      {"cores-per-socket", &line->topology.cores_per_socket},
      {"threads-per-core", &line->topology.threads_per_core},
  };
  if (std::optional<OptionValueError> bad = CheckParsedOptionValues(app, checked)) {
    fprintf(stderr, "srun: error: %s\n", bad->message.c_str());
    return bad->exit_code;
  }
  ApplyTopologyOptions(app, line->topology, &line->sockets_per_node, &line->cores_per_socket,
                       &line->threads_per_core);
  auto number = [](const std::optional<std::string>& text) -> std::optional<int> {
    int n = 0;
    if (!text || !absl::SimpleAtoi(*text, &n)) return std::nullopt;
    return n;
  };
  for (auto [text, into] : {std::pair{&cpus_per_task, &args.cpus_per_task},
                            {&ntasks, &args.ntasks},
                            {&ntasks_per_node, &args.ntasks_per_node},
                            {&mincpus, &args.mincpus},
                            {&cpus_per_gpu, &args.cpus_per_gpu},
                            {&wait, &args.wait}}) {
    if (*text) *into = number(*text);
  }
  // --gpus-per-task=[type:]N: the count (the step's GPUs are the job's).
  if (gpus_per_task) {
    const std::string count = gpus_per_task->substr(gpus_per_task->rfind(':') + 1);
    std::optional<int> n = number(count);
    if (!n || *n < 0 || count.find_first_not_of("0123456789") != std::string::npos) {
      fprintf(stderr, "srun: error: Invalid --gpus-per-task specification: '%s'\n",
              gpus_per_task->c_str());
      return 1;
    }
    args.gpus_per_task = n;
  }
  // -K alone, or -K N: kill the step when a task fails unless N is 0.
  if (kill_on_bad_exit)
    args.kill_on_bad_exit = kill_on_bad_exit->empty() || *number(*kill_on_bad_exit) != 0;
  if (line->immediate) args.immediate = true;
  return -1;
}

std::vector<GivenOption> SrunGivenOptions(const SrunCommandLine& line,
                                          const std::map<std::string, std::string>& env) {
  const SrunArgs& a = line.args;
  std::vector<GivenOption> given;
  auto text = [&](const char* name, const std::optional<std::string>& value) {
    if (value) given.push_back({name, *value});
  };
  auto number = [&](const char* name, const std::optional<int>& value) {
    if (value) given.push_back({name, std::to_string(*value)});
  };
  auto flag = [&](const char* name, bool value) {
    if (value) given.push_back({name, std::nullopt});
  };
  auto from_env = [&](const char* name, const char* variable) {
    if (auto it = env.find(variable); it != env.end()) given.push_back({name, it->second});
  };
  text("account", a.account);
  number("cpus-per-task", a.cpus_per_task);
  text("constraint", a.constraint);
  text("prefer", a.prefer);
  text("mail-type", a.mail_type);
  text("mail-user", a.mail_user);
  text("deadline", a.deadline);
  text("priority", a.priority);
  text("comment", a.comment);
  text("gres-flags", a.gres_flags);
  text("dependency", a.dependency);
  text("nice", a.nice);
  text("cpu-bind", a.cpu_bind);
  text("chdir", a.chdir);
  text("input", a.input);
  text("output", a.output);
  text("error", a.error);
  flag("multi-prog", a.multi_prog);
  flag("exact", a.exact);
  flag("exclusive", a.exclusive);
  text("export", a.export_env);
  text("exclude", a.exclude);
  text("gpus", a.gpus);
  text("gpus-per-node", a.gpus_per_node);
  number("gpus-per-task", a.gpus_per_task);
  text("gres", a.gres);
  if (line.immediate && !line.immediate->empty()) {
    given.push_back({"immediate", *line.immediate});
  } else {
    flag("immediate", a.immediate);
  }
  flag("kill-on-bad-exit", a.kill_on_bad_exit);
  flag("label", a.label);
  text("mem", a.mem);
  text("mem-per-cpu", a.mem_per_cpu);
  text("mem-per-gpu", a.mem_per_gpu);
  number("cpus-per-gpu", a.cpus_per_gpu);
  text("gpu-bind", a.gpu_bind);
  text("mpi", a.mpi);
  number("ntasks-per-node", a.ntasks_per_node);
  text("nodelist", a.nodelist);
  flag("overlap", a.overlap);
  flag("overcommit", a.overcommit);
  flag("spread-job", a.spread_job);
  flag("contiguous", a.contiguous);
  flag("use-min-nodes", a.use_min_nodes);
  number("mincpus", a.mincpus);
  text("partition", a.partition);
  flag("pty", a.pty);
  text("qos", a.qos);
  text("reservation", a.reservation);
  text("time", a.time);
  text("time-min", a.time_min);
  flag("unbuffered", a.unbuffered);
  number("wait", a.wait);
  text("task-prolog", a.task_prolog);
  text("task-epilog", a.task_epilog);
  text("container", a.container.bundle);
  text("begin", line.begin);
  flag("hold", line.hold);
  text("tmp", line.tmp);
  text("licenses", line.licenses);
  text("distribution", a.distribution);
  text("signal", a.signal);
  text("extra-node-info", line.topology.extra_node_info);
  text("sockets-per-node", line.topology.sockets_per_node);
  text("cores-per-socket", line.topology.cores_per_socket);
  text("threads-per-core", line.topology.threads_per_core);
  flag("oversubscribe", line.oversubscribe);
  text("no-kill", line.no_kill);
  text("threads", line.threads);
  text("slurmd-debug", line.slurmd_debug);
  flag("quit-on-interrupt", line.quit_on_interrupt);
  if (line.quiet) given.push_back({"quiet", "1"});
  given.push_back({"verbose", std::to_string(line.verbose)});
  const bool in_allocation = env.count("SLURM_JOB_ID") > 0;
  if (in_allocation) {
    from_env("jobid", "SLURM_JOB_ID");
    from_env("(null)", "SLURM_JOB_NODELIST");
    if (!a.job_name) from_env("job-name", "SLURM_JOB_NAME");
    if (!a.nodes) from_env("nodes", "SLURM_NNODES");
    if (!a.ntasks) from_env("ntasks", "SLURM_NTASKS");
  }
  // The command line's, over the allocation's.
  text("job-name", a.job_name);
  text("nodes", a.nodes);
  number("ntasks", a.ntasks);
  return given;
}

}  // namespace skiff::cli
