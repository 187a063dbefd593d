#include "cli/srun/srun_options.h"

#include <signal.h>
#include <string.h>
#include <strings.h>

#include <algorithm>
#include <cstdlib>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "cli/common/task_distribution.h"
#include "common/checked_math.h"
#include "common/hostlist.h"
#include "common/size.h"
#include "common/time_format.h"

namespace skiff::cli {
namespace {

std::optional<std::string> Get(const std::map<std::string, std::string>& env,
                               const std::string& key) {
  auto it = env.find(key);
  if (it == env.end() || it->second.empty()) return std::nullopt;
  return it->second;
}

absl::StatusOr<int> Count(const std::string& text, const std::string& what) {
  int n = 0;
  if (!absl::SimpleAtoi(text, &n) || n < 0) {
    return absl::InvalidArgumentError(absl::StrCat("Invalid ", what, " specification: ", text));
  }
  return n;
}

// --gres=gpu[:type][:N][,...]: GPUs per node. shard and mps entries ask for
// a share of a GPU the job's allocation already has (ctld chose it): a step
// is given the job's GPUs then, as without --gres. Other gres are refused.
// nullopt: no gpu entry.
absl::StatusOr<std::optional<int>> GpusOfGres(const std::string& text) {
  std::optional<int> gpus;
  for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    std::vector<std::string> parts = absl::StrSplit(item, ':');
    if (parts[0] == "shard" || parts[0] == "mps") continue;
    if (parts[0] != "gpu") {
      return absl::InvalidArgumentError(
          absl::StrCat("Invalid generic resource (gres) specification: ", text));
    }
    int n = 1;
    if (parts.size() > 1 && !absl::SimpleAtoi(parts.back(), &n)) {
      if (parts.size() > 2) {
        return absl::InvalidArgumentError(
            absl::StrCat("Invalid generic resource (gres) specification: ", text));
      }
      n = 1;  // gpu:type
    }
    gpus = gpus.value_or(0) + n;
  }
  return gpus;
}

// --gpus=[type:]N.
absl::StatusOr<int> GpuCount(const std::string& text) {
  std::vector<std::string> parts = absl::StrSplit(text, ':');
  int n = 0;
  if (!absl::SimpleAtoi(parts.back(), &n) || n < 0) {
    return absl::InvalidArgumentError(absl::StrCat("Invalid --gpus specification: ", text));
  }
  return n;
}

}  // namespace

IoTarget ClassifyIo(const std::string& value, int ntasks) {
  IoTarget target;
  if (strncasecmp(value.c_str(), "all", 3) == 0 || value.rfind('-', 0) == 0) return target;
  if (strcasecmp(value.c_str(), "none") == 0) {
    target.kind = IoTarget::kNone;
    return target;
  }
  // strtoul's number, the whole value ("" is 0, as there).
  char* end = nullptr;
  const unsigned long task = strtoul(value.c_str(), &end, 10);
  if (*end == '\0' && task < static_cast<unsigned long>(std::max(ntasks, 0))) {
    target.kind = IoTarget::kTask;
    target.task = static_cast<int>(task);
    return target;
  }
  target.kind = IoTarget::kFile;
  return target;
}

absl::StatusOr<v1::StepRequest> BuildStepRequest(const SrunArgs& args,
                                                 const std::map<std::string, std::string>& env,
                                                 const std::string& cwd) {
  v1::StepRequest request;
  const std::optional<std::string> job = Get(env, "SLURM_JOB_ID");
  uint64_t job_id = 0;
  if (!job || !absl::SimpleAtoi(*job, &job_id) || job_id == 0) {
    return absl::InvalidArgumentError("SLURM_JOB_ID is not a job id");
  }
  request.set_job_id(job_id);
  if (args.command.empty()) return absl::InvalidArgumentError("No command given to execute.");
  for (const std::string& word : args.command) request.add_argv(word);

  // Node count: -N, else every node of the job when -n is not given either.
  int min_nodes = 0, max_nodes = 0;
  if (args.nodes) {
    std::vector<std::string> range = absl::StrSplit(*args.nodes, '-');
    if (range.size() > 2 || !absl::SimpleAtoi(range[0], &min_nodes) || min_nodes < 1 ||
        (range.size() == 2 && (!absl::SimpleAtoi(range[1], &max_nodes) || max_nodes < min_nodes))) {
      return absl::InvalidArgumentError(absl::StrCat("invalid node count `", *args.nodes, "'"));
    }
  }
  // As srun's input environment: SLURM_NNODES is -N, SLURM_NTASKS -n,
  // SLURM_NTASKS_PER_NODE --ntasks-per-node, SLURM_CPUS_PER_TASK -c; the
  // command line wins. Inside `sbatch -N2` a bare srun therefore spans both
  // nodes, and `srun -n1` there shrinks to one node, as Slurm's does.
  // (SLURM_JOB_NUM_NODES and SLURM_NPROCS are the same counts' other names.)
  int job_nodes = 0;
  if (std::optional<std::string> n = Get(env, "SLURM_NNODES")) {
    (void)absl::SimpleAtoi(*n, &job_nodes);
  } else if (std::optional<std::string> m = Get(env, "SLURM_JOB_NUM_NODES")) {
    (void)absl::SimpleAtoi(*m, &job_nodes);
  }
  if (!args.nodes && !args.nodelist && job_nodes > 0) min_nodes = job_nodes;
  std::optional<int> ntasks_per_node = args.ntasks_per_node;
  if (!ntasks_per_node) {
    if (std::optional<std::string> n = Get(env, "SLURM_NTASKS_PER_NODE")) {
      int count = 0;
      if (absl::SimpleAtoi(*n, &count) && count > 0) ntasks_per_node = count;
    }
  }
  // Tasks: -n, else --ntasks-per-node x nodes, else the job's SLURM_NTASKS, else
  // one per node.
  int64_t ntasks = 0;
  if (args.ntasks) {
    ntasks = *args.ntasks;
  } else if (ntasks_per_node) {
    ntasks = int64_t{*ntasks_per_node} * std::max(1, min_nodes);
  } else if (std::optional<std::string> n =
                 Get(env, "SLURM_NTASKS") ? Get(env, "SLURM_NTASKS") : Get(env, "SLURM_NPROCS");
             n && !args.nodes) {
    absl::StatusOr<int> count = Count(*n, "SLURM_NTASKS");
    if (!count.ok()) return count.status();
    ntasks = *count;
  } else {
    ntasks = std::max(1, min_nodes);
  }
  if (ntasks < 1) return absl::InvalidArgumentError("Invalid number of tasks (-n 0)");
  // Slurm's bound on a step's tasks: its nodes x MaxTasksPerNode (step_mgr.c,
  // ESLURM_BAD_TASK_COUNT). The step manager holds every step to it; srun
  // checks the job's nodes first, before --multi-prog's table is sized by it.
  const int64_t most = job_nodes > 0 ? job_nodes * kMaxTasksPerNode : INT32_MAX;
  if (ntasks > std::min<int64_t>(most, INT32_MAX)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Unable to create step for job ", job_id, ": ", kBadTaskCount));
  }
  request.set_ntasks(static_cast<int32_t>(ntasks));
  request.set_min_nodes(min_nodes);
  request.set_max_nodes(max_nodes);
  if (ntasks_per_node) request.set_ntasks_per_node(*ntasks_per_node);
  int cpus_per_task = 1;
  if (args.cpus_per_gpu) {
    // Slurm's cpus_per_task = cpus_per_gres * gres_per_task.
    if (args.cpus_per_task) {
      return absl::InvalidArgumentError(
          "--cpus-per-gpu is mutually exclusive with --cpus-per-task");
    }
    if (!args.gpus_per_task || *args.gpus_per_task < 1 || *args.cpus_per_gpu < 1) {
      return absl::InvalidArgumentError(
          "--cpus-per-gpu needs --gpus-per-task in Skiff's srun (or give -c)");
    }
    const int64_t cpus = int64_t{*args.cpus_per_gpu} * *args.gpus_per_task;
    if (cpus > INT32_MAX) {
      return absl::InvalidArgumentError(
          absl::StrCat("Invalid --cpus-per-gpu argument: ", *args.cpus_per_gpu));
    }
    cpus_per_task = static_cast<int>(cpus);
  } else if (args.cpus_per_task) {
    cpus_per_task = *args.cpus_per_task;
  } else if (std::optional<std::string> c = Get(env, "SLURM_CPUS_PER_TASK")) {
    absl::StatusOr<int> count = Count(*c, "SLURM_CPUS_PER_TASK");
    if (!count.ok()) return count.status();
    cpus_per_task = *count;
  } else if (std::optional<std::string> per_gpu = Get(env, "SLURM_CPUS_PER_GPU");
             per_gpu && args.gpus_per_task && *args.gpus_per_task > 0) {
    // A job of sbatch --gpus-per-task --cpus-per-gpu: each task its GPUs'
    // CPUs, as Slurm's cpus_per_task = cpus_per_gres * gres_per_task.
    absl::StatusOr<int> count = Count(*per_gpu, "SLURM_CPUS_PER_GPU");
    if (!count.ok()) return count.status();
    const int64_t cpus = int64_t{*count} * *args.gpus_per_task;
    if (cpus > INT32_MAX) {
      return absl::InvalidArgumentError(absl::StrCat("Invalid SLURM_CPUS_PER_GPU: ", *per_gpu));
    }
    cpus_per_task = static_cast<int>(cpus);
  }
  if (cpus_per_task < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid --cpus-per-task argument: ", cpus_per_task));
  }
  request.set_cpus_per_task(cpus_per_task);
  if ((args.mem ? 1 : 0) + (args.mem_per_cpu ? 1 : 0) + (args.mem_per_gpu ? 1 : 0) > 1) {
    return absl::InvalidArgumentError(
        "--mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.");
  }
  if (args.mem) {
    absl::StatusOr<uint64_t> bytes = ParseSize(*args.mem, kMiB);
    if (!bytes.ok())
      return absl::InvalidArgumentError(absl::StrCat("invalid memory constraint ", *args.mem));
    request.set_mem_given(*bytes != 0);  // --mem=0: the whole memory, as Slurm
    request.set_mem_per_node_mb(*bytes / kMiB);
  }
  for (const auto& [given, set] :
       {std::pair{&args.mem_per_cpu, &v1::StepRequest::set_mem_per_cpu_mb},
        std::pair{&args.mem_per_gpu, &v1::StepRequest::set_mem_per_gpu_mb}}) {
    if (!*given) continue;
    absl::StatusOr<uint64_t> bytes = ParseSize(**given, kMiB);
    // Past 2^40 MB (an exabyte) per CPU or GPU no node holds it; refused, so
    // that no product with a CPU count wraps.
    if (!bytes.ok() || *bytes / kMiB > (uint64_t{1} << 40)) {
      return absl::InvalidArgumentError(absl::StrCat("invalid memory constraint ", **given));
    }
    // 0, as --mem=0: the node's whole job memory, unreserved.
    (request.*set)(*bytes / kMiB);
  }
  request.set_gpus_per_node(-1);
  if (args.gres) {
    absl::StatusOr<std::optional<int>> gpus = GpusOfGres(*args.gres);
    if (!gpus.ok()) return gpus.status();
    if (gpus->has_value()) request.set_gpus_per_node(**gpus);
  }
  if (args.gpus_per_node) {
    absl::StatusOr<int> gpus = GpuCount(*args.gpus_per_node);
    if (!gpus.ok()) return gpus.status();
    request.set_gpus_per_node(*gpus);
  }
  if (args.gpus) {
    absl::StatusOr<int> gpus = GpuCount(*args.gpus);
    if (!gpus.ok()) return gpus.status();
    request.set_gpus_total(*gpus);
    request.set_gpus_per_node(0);
  }
  if (args.gpu_bind) {
    // Slurm's --gpu-bind: none turns off the per-task binding --gpus-per-task
    // implies; per_task:N binds each task to N GPUs of the step's, in order;
    // map_gpu:, mask_gpu:, closest and single:N are applied per task on the
    // node (noded/steps/gpu_bind.h).
    std::string bind = absl::AsciiStrToLower(*args.gpu_bind);
    if (bind.rfind("verbose,", 0) == 0) bind = bind.substr(8);
    int per_task = 0;
    if (bind == "none") {
      request.set_gpu_bind_per_task(-1);
    } else if (bind.rfind("per_task:", 0) == 0 && absl::SimpleAtoi(bind.substr(9), &per_task) &&
               per_task > 0) {
      request.set_gpu_bind_per_task(per_task);
    } else if (bind.rfind("map_gpu:", 0) == 0 || bind.rfind("mask_gpu:", 0) == 0 ||
               bind == "closest" || bind.rfind("single:", 0) == 0) {
      request.set_gpu_bind(bind);
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("--gpu-bind=", *args.gpu_bind,
                       " is not supported by Skiff (none, per_task:N, map_gpu:, mask_gpu:, "
                       "closest and single:N are)"));
    }
  }
  if (args.gpus_per_task) {
    request.set_gpus_per_task(*args.gpus_per_task);
    request.set_gpus_per_node(0);
  }
  for (const auto* list : {&args.nodelist, &args.exclude}) {
    if (!*list) continue;
    absl::StatusOr<std::vector<std::string>> names = ExpandHostlist(**list);
    if (!names.ok())
      return absl::InvalidArgumentError(absl::StrCat("Invalid node name specified: ", **list));
    for (const std::string& name : *names) {
      (list == &args.nodelist ? request.add_nodelist() : request.add_exclude())->assign(name);
    }
  }
  // Slurm 22.05: -c implies --exact.
  request.set_exact(args.exact || args.cpus_per_task.has_value());
  request.set_overlap(args.overlap);
  request.set_immediate(args.immediate);
  if (args.job_name) request.set_name(*args.job_name);
  request.set_kill_on_bad_exit(args.kill_on_bad_exit);
  request.set_pty(args.pty);
  // stdin: every task unless --input says otherwise (Slurm 22.05's IO_ALL
  // default; with one task, as in `srun --pty bash`, the same thing).
  request.set_stdin_task(args.pty ? 0 : -1);  // --pty: the terminal is task zero's
  if (args.input) {
    const IoTarget in = ClassifyIo(*args.input, static_cast<int>(ntasks));
    if (in.kind == IoTarget::kAll) {
      request.set_stdin_task(-1);
    } else if (in.kind == IoTarget::kNone) {
      request.set_stdin_task(-2);
    } else if (in.kind == IoTarget::kTask) {
      request.set_stdin_task(in.task);  // the others read /dev/null
    } else {
      request.set_input_pattern(*args.input);  // a file on each task's node
      request.set_stdin_task(-2);
    }
  }
  if (args.time) {
    absl::StatusOr<int64_t> seconds = ParseDuration(*args.time);
    if (!seconds.ok() || *seconds > kMaxTimeLimitSeconds) {
      return absl::InvalidArgumentError("Invalid --time specification");
    }
    request.set_time_limit(*seconds == kInfiniteDuration ? 0 : *seconds);
  }
  // -o/-e: "none" discarded, a task id that task's alone (the others'
  // discarded), a file pattern, or "all" streamed; without -e stderr follows
  // -o, with -e all it is streamed whatever -o says.
  if (args.output) {
    const IoTarget out = ClassifyIo(*args.output, static_cast<int>(ntasks));
    if (out.kind == IoTarget::kNone) request.set_output_pattern("/dev/null");
    if (out.kind == IoTarget::kTask) request.set_output_task(out.task);
    if (out.kind == IoTarget::kFile) request.set_output_pattern(*args.output);
  }
  if (args.error) {
    const IoTarget err = ClassifyIo(*args.error, static_cast<int>(ntasks));
    if (err.kind == IoTarget::kAll) request.set_error_task(-1);
    if (err.kind == IoTarget::kNone) request.set_error_pattern("/dev/null");
    if (err.kind == IoTarget::kTask) request.set_error_task(err.task);
    if (err.kind == IoTarget::kFile) request.set_error_pattern(*args.error);
  }
  if (args.mpi && *args.mpi != "none") {
    return absl::InvalidArgumentError(
        absl::StrCat("MPI type '", *args.mpi,
                     "' is not supported by Skiff (only --mpi=none); launch MPI programs with "
                     "their own launcher inside the allocation"));
  }
  if (args.distribution) {
    auto plane_env = env.find("SLURM_DIST_PLANESIZE");
    absl::StatusOr<TaskDistribution> distribution = ParseTaskDistribution(
        *args.distribution,
        plane_env == env.end() ? std::nullopt : std::optional<std::string>(plane_env->second));
    if (!distribution.ok()) return distribution.status();
    if (distribution->nodes == TaskDistribution::Nodes::kArbitrary) {
      return absl::InvalidArgumentError(
          "--distribution=arbitrary is not supported by Skiff (tasks are laid out block, cyclic "
          "or plane=N over the step's nodes)");
    }
    if (distribution->nodes == TaskDistribution::Nodes::kCyclic) {
      request.set_distribution(v1::StepRequest::CYCLIC);
    } else if (distribution->nodes == TaskDistribution::Nodes::kPlane) {
      request.set_distribution(v1::StepRequest::PLANE);
      request.set_plane_size(distribution->plane_size);
    }
    request.set_distribution_name(distribution->name);
  }
  request.set_work_dir(args.chdir ? *args.chdir : cwd);
  request.set_overcommit(args.overcommit);
  if (args.task_prolog) request.set_task_prolog(*args.task_prolog);
  if (args.task_epilog) request.set_task_epilog(*args.task_epilog);
  absl::StatusOr<ContainerBuild> container = BuildContainerRequest(args.container, cwd);
  if (!container.ok()) return container.status();
  if (HasContainer(container->request)) *request.mutable_container() = container->request;

  // The tasks' environment: srun's, as --export says.
  const std::string exports = args.export_env.value_or("ALL");
  std::vector<std::string> items = absl::StrSplit(exports, ',', absl::SkipEmpty());
  const bool all = !items.empty() && items[0] == "ALL";
  const bool none = !items.empty() && items[0] == "NONE";
  auto& out = *request.mutable_environment();
  for (const auto& [key, value] : env) {
    if (all || key.rfind("SLURM_", 0) == 0) out[key] = value;
  }
  for (size_t i = (all || none) ? 1 : 0; i < items.size(); ++i) {
    const std::string& item = items[i];
    const size_t eq = item.find('=');
    if (eq != std::string::npos) {
      out[item.substr(0, eq)] = item.substr(eq + 1);
    } else if (auto it = env.find(item); it != env.end()) {
      out[item] = it->second;
    }
  }
  if (!all && out.find("PATH") == out.end()) out["PATH"] = "/usr/bin:/bin";
  if (args.job_name) out["SLURM_JOB_NAME"] = *args.job_name;
  return request;
}

namespace {

// Whitespace-separated words; '...' and "..." group.
std::vector<std::string> Words(const std::string& line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (char c : line) {
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else {
        word += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

}  // namespace

std::vector<std::string> ApplySrunEnvironment(const std::map<std::string, std::string>& env,
                                              SrunArgs* args, int* verbose) {
  std::vector<std::string> errors;
  auto get = [&](const char* name) -> const std::string* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : &it->second;
  };
  auto text = [&](const char* name, std::optional<std::string>* into) {
    if (const std::string* v = get(name)) *into = *v;
  };
  auto number = [&](const char* name, std::optional<int>* into) {
    const std::string* v = get(name);
    if (v == nullptr) return;
    int n = 0;
    if (absl::SimpleAtoi(*v, &n) && n >= 0) {
      *into = n;
    } else {
      errors.push_back(absl::StrCat("Invalid ", name, ": ", *v));
    }
  };
  // Set at all: on (Slurm's srun reads these so); "0" only for the two below.
  auto flag = [&](const char* name, bool* into) {
    if (get(name) != nullptr) *into = true;
  };
  auto zero_or_one = [&](const char* name, bool* into) {
    if (const std::string* v = get(name)) *into = *v != "0";
  };
  text("SLURM_ACCOUNT", &args->account);
  text("SLURM_CONSTRAINT", &args->constraint);
  text("SLURM_CPU_BIND", &args->cpu_bind);
  number("SRUN_CPUS_PER_TASK", &args->cpus_per_task);
  if (const std::string* v = get("SLURM_DEBUG")) {
    int level = 0;
    if (absl::SimpleAtoi(*v, &level) && level >= 0) *verbose = level;
  }
  flag("SLURM_EXACT", &args->exact);
  flag("SLURM_EXCLUSIVE", &args->exclusive);
  text("SLURM_EXPORT_ENV", &args->export_env);
  text("SLURM_GPUS", &args->gpus);
  text("SLURM_GPU_BIND", &args->gpu_bind);  // sbatch/salloc --gpu-bind set it
  text("SLURM_GPUS_PER_NODE", &args->gpus_per_node);
  // sbatch --gpus-per-task=[type:]N sets it as written; srun takes the count.
  if (const std::string* v = get("SLURM_GPUS_PER_TASK")) {
    const std::string count = v->substr(v->rfind(':') + 1);  // npos + 1 == 0: all of it
    int n = 0;
    if (absl::SimpleAtoi(count, &n) && n >= 0) {
      args->gpus_per_task = n;
    } else {
      errors.push_back(absl::StrCat("Invalid SLURM_GPUS_PER_TASK: ", *v));
    }
  }
  text("SLURM_GRES", &args->gres);
  text("SLURM_STEP_GRES", &args->gres);  // steps: wins over SLURM_GRES
  flag("SLURM_IMMEDIATE", &args->immediate);
  if (get("SLURM_JOB_ID") == nullptr) text("SLURM_JOB_NAME", &args->job_name);
  zero_or_one("SLURM_KILL_BAD_EXIT", &args->kill_on_bad_exit);
  flag("SLURM_LABELIO", &args->label);
  text("SLURM_MPI_TYPE", &args->mpi);
  flag("SLURM_OVERCOMMIT", &args->overcommit);
  flag("SLURM_OVERLAP", &args->overlap);
  text("SLURM_PARTITION", &args->partition);
  text("SLURM_QOS", &args->qos);
  text("SLURM_RESERVATION", &args->reservation);
  text("SLURM_REMOTE_CWD", &args->chdir);
  text("SLURM_DISTRIBUTION", &args->distribution);  // sbatch/salloc -m set it
  flag("SLURM_SPREAD_JOB", &args->spread_job);
  text("SLURM_STDOUTMODE", &args->output);
  text("SLURM_STDERRMODE", &args->error);
  text("SLURM_STDINMODE", &args->input);
  text("SLURM_TASK_PROLOG", &args->task_prolog);
  text("SLURM_TASK_EPILOG", &args->task_epilog);
  text("SLURM_TIMELIMIT", &args->time);
  flag("SLURM_UNBUFFEREDIO", &args->unbuffered);
  number("SLURM_WAIT", &args->wait);
  // Set but empty: no container (what an exported empty variable means).
  if (const std::string* v = get("SRUN_CONTAINER"); v != nullptr && !v->empty()) {
    args->container.bundle = *v;
  }
  return errors;
}

std::vector<std::string> VerboseLaunchLines(
    uint64_t job_id, uint32_t step_id,
    const google::protobuf::RepeatedPtrField<v1::StepTaskPlacement>& placement) {
  std::vector<std::string> nodes;
  std::string counts;  // every run with its (xN), as Slurm's srun prints them
  for (int i = 0; i < placement.size();) {
    int run = 1;
    while (i + run < placement.size() && placement[i + run].cpus() == placement[i].cpus()) ++run;
    absl::StrAppend(&counts, counts.empty() ? "" : ",", placement[i].cpus(), "(x", run, ")");
    i += run;
  }
  for (const v1::StepTaskPlacement& node : placement) nodes.push_back(node.node());
  std::vector<std::string> lines = {absl::StrCat("jobid ", job_id, ": nodes(", placement.size(),
                                                 "):`", CompressHostlist(nodes),
                                                 "', cpu counts: ", counts)};
  for (const v1::StepTaskPlacement& node : placement) {
    std::vector<int> ids(node.task_ids().begin(), node.task_ids().end());
    std::sort(ids.begin(), ids.end());
    std::string ranges;
    for (size_t k = 0; k < ids.size();) {
      size_t end = k;
      while (end + 1 < ids.size() && ids[end + 1] == ids[end] + 1) ++end;
      absl::StrAppend(&ranges, ranges.empty() ? "" : ",", ids[k]);
      if (end > k) absl::StrAppend(&ranges, "-", ids[end]);
      k = end + 1;
    }
    if (ids.size() > 1) ranges = "[" + ranges + "]";
    lines.push_back(absl::StrCat("launching StepId=", job_id, ".", step_id, " on host ",
                                 node.node(), ", ", ids.size(), " tasks: ", ranges));
  }
  return lines;
}

absl::StatusOr<std::vector<std::vector<std::string>>> ParseMultiProg(const std::string& text,
                                                                     const std::string& file,
                                                                     int ntasks, bool ntasks_set) {
  std::vector<std::vector<std::string>> commands(static_cast<size_t>(std::max(ntasks, 0)));
  std::vector<bool> set(commands.size(), false);
  bool asterisk = false;
  bool grown = false;  // Slurm's i_set_ntasks: the file has raised the count
  int line_number = 0;
  for (absl::string_view raw : absl::StrSplit(text, '\n')) {
    ++line_number;
    const std::vector<std::string> words = Words(std::string(raw));
    if (words.empty() || words[0][0] == '#') continue;
    // Each error is srun's line for it, then this one.
    const std::string line_error =
        absl::StrCat("\nLine ", line_number, " of configuration file ", file, " invalid");
    if (words.size() < 2) return absl::InvalidArgumentError(line_error.substr(1));
    std::vector<std::pair<int, int>> ranges;
    if (words[0] == "*") {
      ranges.push_back({0, ntasks - 1});
      ntasks_set = true;  // no line may raise the count after it
    } else {
      // As Slurm's _validate_ranks reads "N", "N-M" (digits only).
      for (absl::string_view range : absl::StrSplit(words[0], ',', absl::SkipEmpty())) {
        if (asterisk) {
          return absl::InvalidArgumentError("Task range specification with asterisk must be last" +
                                            line_error);
        }
        const size_t digits = std::min(range.find_first_not_of("0123456789"), range.size());
        int low = 0, high = 0;
        if (digits == range.size()) {
          (void)absl::SimpleAtoi(range, &low);
          high = low;
        } else if (range[digits] == '-') {
          const absl::string_view upper = range.substr(digits + 1);
          if (upper.find_first_not_of("0123456789") != absl::string_view::npos) {
            return absl::InvalidArgumentError("Invalid task range specification" + line_error);
          }
          (void)absl::SimpleAtoi(range.substr(0, digits), &low);  // atoi: "" is 0
          (void)absl::SimpleAtoi(upper, &high);
        } else {
          return absl::InvalidArgumentError(
              absl::StrCat("Invalid task range specification (", range, ")", line_error));
        }
        if (low > high) {
          return absl::InvalidArgumentError(
              absl::StrCat("Invalid task range, ", low, "-", high, line_error));
        }
        if (high >= ntasks) {
          // Without -n (or the job's count), the file sets the count.
          if (ntasks_set && !grown) {
            return absl::InvalidArgumentError(
                absl::StrCat("Invalid task id, ", high, " >= ntasks", line_error));
          }
          ntasks = high + 1;
          ntasks_set = grown = true;
          commands.resize(static_cast<size_t>(ntasks));
          set.resize(static_cast<size_t>(ntasks), false);
        }
        ranges.push_back({low, high});
      }
    }
    // %o counts the line's tasks in the order its ranges list them ("1,4":
    // 0 and 1), as Slurm's; with "*", it is the task id.
    int offset = 0;
    for (const auto& [low, high] : ranges) {
      for (int task = low; task <= high; ++task, ++offset) {
        if (set[static_cast<size_t>(task)]) {
          if (words[0] == "*") continue;  // '*' fills what is left
          return absl::InvalidArgumentError(
              absl::StrCat("Duplicate record for task ", task, line_error));
        }
        std::vector<std::string> argv;
        for (size_t w = 1; w < words.size(); ++w) {
          argv.push_back(absl::StrReplaceAll(
              words[w], {{"%t", std::to_string(task)}, {"%o", std::to_string(offset)}}));
        }
        commands[static_cast<size_t>(task)] = std::move(argv);
        set[static_cast<size_t>(task)] = true;
      }
    }
    if (words[0] == "*") asterisk = true;
  }
  for (size_t task = 0; task < set.size(); ++task) {
    if (!set[task]) {
      return absl::InvalidArgumentError(
          absl::StrCat("Configuration file ", file, " invalid, no record for task id ", task));
    }
  }
  return commands;
}

bool TaskCountGiven(const SrunArgs& args, const std::map<std::string, std::string>& env) {
  return args.ntasks.has_value() ||
         (!args.nodes && (Get(env, "SLURM_NTASKS") || Get(env, "SLURM_NPROCS")));
}

std::vector<std::string> StepStatusLines(uint64_t job_id, uint32_t step_id, int ntasks,
                                         const std::vector<TaskResult>& ended) {
  std::vector<int> failed, running, abnormal, normal;
  std::vector<bool> seen(static_cast<size_t>(std::max(ntasks, 0)), false);
  for (const TaskResult& r : ended) {
    if (r.task_id < 0 || r.task_id >= ntasks) continue;
    seen[static_cast<size_t>(r.task_id)] = true;
    if (!r.failure.empty()) {
      failed.push_back(r.task_id);
    } else if (r.exit_code != 0 || r.signal != 0) {
      abnormal.push_back(r.task_id);
    } else {
      normal.push_back(r.task_id);
    }
  }
  for (int t = 0; t < ntasks; ++t) {
    if (!seen[static_cast<size_t>(t)]) running.push_back(t);
  }
  std::vector<std::string> lines;
  auto add = [&](const std::vector<int>& ids, const char* what) {
    if (ids.empty()) return;
    lines.push_back(absl::StrCat("StepId=", job_id, ".", step_id, " task",
                                 ids.size() == 1 ? "" : "s", " ", TaskRanges(ids), ": ", what));
  };
  add(failed, "failed to start");
  add(running, "running");
  add(abnormal, "exited abnormally");
  add(normal, "exited");
  return lines;
}

std::string TaskRanges(std::vector<int> ids) {
  std::sort(ids.begin(), ids.end());
  std::vector<std::string> parts;
  for (size_t i = 0; i < ids.size();) {
    size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    parts.push_back(j == i ? absl::StrCat(ids[i]) : absl::StrCat(ids[i], "-", ids[j]));
    i = j + 1;
  }
  return absl::StrJoin(parts, ",");
}

int SrunExitCode(const std::vector<TaskResult>& results) {
  int highest_signal = 0, highest_code = 0;
  for (const TaskResult& r : results) {
    highest_signal = std::max(highest_signal, r.signal);
    highest_code = std::max(highest_code, r.exit_code);
  }
  // As Slurm: a task killed by a signal decides over exit codes.
  return highest_signal != 0 ? 128 + highest_signal : highest_code;
}

std::vector<std::string> TaskErrorLines(const std::vector<TaskResult>& results) {
  // Grouped by node and outcome, in the order of their first task.
  std::vector<std::pair<std::string, std::string>> keys;  // node, outcome
  std::map<std::pair<std::string, std::string>, std::vector<int>> tasks;
  for (const TaskResult& r : results) {
    std::string outcome;
    if (r.signal != 0) {
      outcome = strsignal(r.signal);
    } else if (r.exit_code != 0) {
      outcome = absl::StrCat("Exited with exit code ", r.exit_code);
    } else {
      continue;
    }
    auto key = std::make_pair(r.node, outcome);
    if (tasks.find(key) == tasks.end()) keys.push_back(key);
    tasks[key].push_back(r.task_id);
  }
  std::vector<std::string> lines;
  for (const auto& key : keys) {
    const std::vector<int>& ids = tasks[key];
    lines.push_back(absl::StrCat("srun: error: ", key.first, ": ",
                                 ids.size() > 1 ? "tasks " : "task ", TaskRanges(ids), ": ",
                                 key.second));
  }
  return lines;
}

}  // namespace skiff::cli
