// Where sbatch's options come from: its option table as getopt_long reads it on
// the command line and in #SBATCH directives, SBATCH_* variables, and the merge
// of the three levels (directives < environment < command line).
#include <cctype>
#include <map>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "cli/common/getopt_args.h"
#include "cli/common/sbatch_help.h"
#include "cli/common/sbatch_options.h"
#include "cli/common/sbatch_options_internal.h"

namespace skiff::cli {
namespace {

// ---- Option table -----------------------------------------------------------

// Slurm options that take a value and that Skiff accepts but ignores, with a
// warning, so that job scripts written for Slurm still submit.
// Placement and binding hints (--hint, --threads-per-core, --mem-bind, ...)
// are common in job scripts written for Slurm; Skiff places by CPU count.
constexpr const char* kIgnoredWithValue[] = {
    "--wckey",     "--acctg-freq",  "--hint",       "--ntasks-per-core", "--ntasks-per-socket",
    "--mem-bind",  "--cpu-freq",    "--gpu-freq",   "--gres-flags",      "--profile",
    "--network",   "--switches",    "--delay-boot", "--power",           "--mcs-label",
    "--core-spec", "--thread-spec",
};
// The same for flags.
constexpr const char* kIgnoredFlags[] = {
    "--reboot",
    "--ignore-pbs",
};

// The long name of a name list: "-w,--nodelist" -> "--nodelist".
std::string LongName(const std::string& names) {
  size_t comma = names.rfind(',');
  return comma == std::string::npos ? names : names.substr(comma + 1);
}

struct ParsedArgs {
  SbatchRawOptions options;
  std::vector<std::string> rest;  // from the first non-option on
  int verbose = 0;                // -v, repeated
  bool help = false;
  bool usage = false;
  bool version = false;
  std::string help_text;
};

// One of sbatch's options and where it goes. Options apply in command-line
// order, so the last one given wins, as with getopt (--requeue --no-requeue is
// --no-requeue).
struct SbatchOption {
  GetoptOption getopt;
  std::optional<std::string> SbatchRawOptions::*text = nullptr;  // its value
  const char* bare = nullptr;  // what `text` gets when an optional value is not given
  std::optional<bool> SbatchRawOptions::*flag = nullptr;  // set to `flag_value`
  bool flag_value = true;
  bool ParsedArgs::*command = nullptr;  // --help, --usage, --version
  int ParsedArgs::*count = nullptr;     // -v: counted
  bool ignored = false;                 // accepted with a warning
  // The container options (SbatchRawOptions::container): a value, or a flag
  // set to `flag_value`.
  std::optional<std::string> ContainerOptions::*container_text = nullptr;
  std::optional<bool> ContainerOptions::*container_flag = nullptr;
};

SbatchOption Text(const char* names, std::optional<std::string> SbatchRawOptions::*field) {
  SbatchOption option{{names, GetoptArgument::kRequired}};
  option.text = field;
  return option;
}

// An optional value, which only the "--name=value" form gives (getopt's
// optional_argument); alone, the option means `bare` (Slurm's default).
SbatchOption OptionalText(const char* names, std::optional<std::string> SbatchRawOptions::*field,
                          const char* bare) {
  SbatchOption option{{names, GetoptArgument::kOptional}};
  option.text = field;
  option.bare = bare;
  return option;
}

// A flag that sets a text field to `value`: -s is --exclusive=oversubscribe.
SbatchOption FixedText(const char* names, std::optional<std::string> SbatchRawOptions::*field,
                       const char* value) {
  SbatchOption option{{names, GetoptArgument::kNone}};
  option.text = field;
  option.bare = value;
  return option;
}

SbatchOption Flag(const char* names, std::optional<bool> SbatchRawOptions::*field,
                  bool value = true) {
  SbatchOption option{{names, GetoptArgument::kNone}};
  option.flag = field;
  option.flag_value = value;
  return option;
}

SbatchOption ContainerText(const char* names, std::optional<std::string> ContainerOptions::*field) {
  SbatchOption option{{names, GetoptArgument::kRequired}};
  option.container_text = field;
  return option;
}

SbatchOption ContainerFlag(const char* names, std::optional<bool> ContainerOptions::*field,
                           bool value) {
  SbatchOption option{{names, GetoptArgument::kNone}};
  option.container_flag = field;
  option.flag_value = value;
  return option;
}

SbatchOption Command(const char* names, bool ParsedArgs::*field) {
  SbatchOption option{{names, GetoptArgument::kNone}};
  option.command = field;
  return option;
}

SbatchOption Count(const char* names, int ParsedArgs::*field) {
  SbatchOption option{{names, GetoptArgument::kNone}};
  option.count = field;
  return option;
}

SbatchOption Ignored(const char* names, GetoptArgument argument) {
  SbatchOption option{{names, argument}};
  option.ignored = true;
  return option;
}

// sbatch's option table. The candidates of an ambiguous abbreviation are
// listed in Slurm's table order instead (SlurmTableOrder()).
const std::vector<SbatchOption>& SbatchOptions() {
  static const std::vector<SbatchOption>* const table = [] {
    using O = SbatchRawOptions;
    auto* options = new std::vector<SbatchOption>{
        Command("-h,--help", &ParsedArgs::help),
        Command("--usage", &ParsedArgs::usage),
        Command("-V,--version", &ParsedArgs::version),
        Text("-J,--job-name", &O::job_name),
        Text("-p,--partition", &O::partition),
        Text("-N,--nodes", &O::nodes),
        Text("-n,--ntasks", &O::ntasks),
        Text("-c,--cpus-per-task", &O::cpus_per_task),
        Text("--mem", &O::mem),
        Text("--mem-per-cpu", &O::mem_per_cpu),
        Text("--mem-per-gpu", &O::mem_per_gpu),
        Text("-t,--time", &O::time),
        Text("--time-min", &O::time_min),
        Text("-o,--output", &O::output),
        Text("-e,--error", &O::error),
        Text("-i,--input", &O::input),
        Text("-D,--chdir", &O::chdir),
        Text("--export", &O::export_env),
        Text("--export-file", &O::export_file),
        Text("-q,--qos", &O::qos),
        Text("--reservation", &O::reservation),
        Text("-A,--account", &O::account),
        Text("--gres", &O::gres),
        Text("-G,--gpus", &O::gpus),
        Text("--gpus-per-node", &O::gpus_per_node),
        Text("--gpu-bind", &O::gpu_bind),
        Text("--gpus-per-task", &O::gpus_per_task),
        Text("--cpus-per-gpu", &O::cpus_per_gpu),
        Text("-b,--begin", &O::begin),
        Text("--deadline", &O::deadline),
        Text("--comment", &O::comment),
        Text("-d,--dependency", &O::dependency),
        Text("--kill-on-invalid-dep", &O::kill_on_invalid_dep),
        Text("--bb", &O::burst_buffer),
        Text("--bbf", &O::burst_buffer_file),
        Text("--signal", &O::signal),
        Text("--open-mode", &O::open_mode),
        Text("--ntasks-per-node,--tasks-per-node", &O::ntasks_per_node),
        Text("--priority", &O::priority),
        Text("--mincpus", &O::mincpus),
        Text("--tmp", &O::tmp),
        Text("-L,--licenses", &O::licenses),
        Text("-m,--distribution", &O::distribution),
        Text("-B,--extra-node-info", &O::extra_node_info),
        Text("--sockets-per-node", &O::sockets_per_node),
        Text("--cores-per-socket", &O::cores_per_socket),
        Text("--threads-per-core", &O::threads_per_core),
        Flag("-O,--overcommit", &O::overcommit),
        Flag("--spread-job", &O::spread_job),
        Flag("--contiguous", &O::contiguous),
        Flag("--use-min-nodes", &O::use_min_nodes),
        Text("--wrap", &O::wrap),
        Text("-a,--array", &O::array),
        Text("-w,--nodelist", &O::nodelist),
        Text("-x,--exclude", &O::exclude),
        Text("-C,--constraint", &O::constraint),
        Text("--prefer", &O::prefer),
        Text("--gres-flags", &O::gres_flags),
        Text("--wait-all-nodes", &O::wait_all_nodes),
        Text("--mail-type", &O::mail_type),
        Text("--mail-user", &O::mail_user),
        OptionalText("--exclusive", &O::exclusive, "exclusive"),  // [=user|mcs]
        FixedText("-s,--oversubscribe", &O::exclusive, "oversubscribe"),
        OptionalText("-k,--no-kill", &O::no_kill, "set"),       // [=off]
        OptionalText("--get-user-env", &O::get_user_env, "0"),  // [=timeout][S|L]
        OptionalText("--nice", &O::nice, "100"),                // [=adjustment]
        Flag("-H,--hold", &O::hold),
        Flag("--parsable", &O::parsable),
        Flag("--test-only", &O::test_only),
        Flag("-W,--wait", &O::wait),
        Flag("--requeue", &O::requeue),
        Flag("--no-requeue", &O::requeue, false),
        ContainerText("--container", &ContainerOptions::bundle),
        // pyxis's, which Slurm's getopt table has after its own (SPANK options).
        ContainerText("--container-image", &ContainerOptions::image),
        ContainerText("--container-mounts", &ContainerOptions::mounts),
        ContainerText("--container-workdir", &ContainerOptions::workdir),
        ContainerText("--container-name", &ContainerOptions::name),
        ContainerFlag("--container-mount-home", &ContainerOptions::mount_home, true),
        ContainerFlag("--no-container-mount-home", &ContainerOptions::mount_home, false),
        ContainerFlag("--container-remap-root", &ContainerOptions::remap_root, true),
        ContainerFlag("--no-container-remap-root", &ContainerOptions::remap_root, false),
        ContainerText("--container-env", &ContainerOptions::env),
    };
    for (const char* names : kIgnoredWithValue) {
      options->push_back(Ignored(names, GetoptArgument::kRequired));
    }
    for (const char* names : kIgnoredFlags) {
      options->push_back(Ignored(names, GetoptArgument::kNone));
    }
    // -Q is quietly accepted: sbatch prints nothing it would silence. -v
    // prints the defined options (DefinedOptionsBlock).
    options->push_back({{"-Q,--quiet", GetoptArgument::kNone}});
    options->push_back(Count("-v,--verbose", &ParsedArgs::verbose));
    return options;
  }();
  return *table;
}

// The getopt table of SbatchOptions(), in its order.
const std::vector<GetoptOption>& SbatchGetoptTable() {
  static const std::vector<GetoptOption>* const table = [] {
    auto* getopt = new std::vector<GetoptOption>;
    for (const SbatchOption& option : SbatchOptions()) getopt->push_back(option.getopt);
    return getopt;
  }();
  return *table;
}

// getopt_long lists an ambiguous abbreviation's candidates in the order of
// Slurm's option table (defined_options.h); names sbatch lacks are not asked for.
const std::vector<std::string>& SlurmTableOrder() { return SlurmOptionOrder(); }

// Marks a status as getopt's refusal of the command line (see IsGetoptError).
constexpr char kGetoptPayload[] = "skiff.cli/getopt";

absl::Status GetoptError(const std::string& message) {
  absl::Status status = absl::InvalidArgumentError(message);
  status.SetPayload(kGetoptPayload, absl::Cord("1"));
  return status;
}

// Parses `args` with sbatch's option table as getopt_long reads Slurm's (see
// cli/common/getopt_args.h), stopping at the first non-option.
absl::StatusOr<ParsedArgs> ParseArgs(const std::vector<std::string>& args) {
  absl::StatusOr<GetoptParsed> read =
      ParseGetopt(args, SbatchGetoptTable(), GetoptOrder::kStopAtOperand, SlurmTableOrder());
  if (!read.ok()) return GetoptError(std::string(read.status().message()));
  ParsedArgs parsed;
  const std::vector<SbatchOption>& options = SbatchOptions();
  for (GetoptFound& found : read->found) {
    const SbatchOption& option = options[found.option];
    if (option.text != nullptr) {
      // A required value is always there; an optional one may not be.
      parsed.options.*option.text =
          found.value ? std::move(*found.value) : std::string(option.bare ? option.bare : "");
      // Slurm refuses a bad --tmp or --no-kill as it reads it.
      if (option.text == &SbatchRawOptions::tmp) {
        if (absl::Status s = CheckTmpOption(*parsed.options.tmp); !s.ok()) return s;
      }
      if (option.text == &SbatchRawOptions::extra_node_info) {
        absl::StatusOr<std::array<std::string, 3>> floors =
            ExtraNodeInfoFloors(*parsed.options.extra_node_info);
        if (!floors.ok()) return floors.status();
        parsed.options.sockets_per_node = (*floors)[0];
        parsed.options.cores_per_socket = (*floors)[1];
        parsed.options.threads_per_core = (*floors)[2];
      }
      if (option.text == &SbatchRawOptions::no_kill) {
        if (absl::Status s = ParseNoKillOption(*parsed.options.no_kill).status(); !s.ok()) {
          return s;
        }
      }
      if (option.text == &SbatchRawOptions::exclusive) {
        (LongName(option.getopt.names) == "--oversubscribe" ? parsed.options.oversubscribe_named
                                                            : parsed.options.exclusive_named) =
            true;
      }
    } else if (option.flag != nullptr) {
      parsed.options.*option.flag = option.flag_value;
    } else if (option.command != nullptr) {
      parsed.*option.command = true;
    } else if (option.count != nullptr) {
      ++(parsed.*option.count);
    } else if (option.ignored) {
      parsed.options.ignored.push_back(LongName(option.getopt.names));
    } else if (option.container_text != nullptr) {
      parsed.options.container.*option.container_text = std::move(*found.value);
    } else if (option.container_flag != nullptr) {
      parsed.options.container.*option.container_flag = option.flag_value;
    }
  }
  parsed.rest = std::move(read->operands);
  if (parsed.help || parsed.usage) parsed.help_text = parsed.help ? SbatchHelp() : SbatchUsage();
  parsed.help = parsed.help || parsed.usage;
  return parsed;
}

// ---- Directives -------------------------------------------------------------

// Slurm's get_argument: the next argument of an #SBATCH line from *pos, or
// nullopt at the end of the line (or at a '#', which starts a comment).
absl::StatusOr<std::optional<std::string>> NextArgument(std::string_view line, size_t* pos,
                                                        int lineno) {
  size_t i = *pos;
  while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
  std::string arg;
  bool any = false, quoted = false, escape = false;
  char quote = 0;
  while (i < line.size() && (quoted || !std::isspace(static_cast<unsigned char>(line[i])))) {
    char c = line[i];
    if (escape) {
      escape = false;
    } else if (c == '\\') {
      escape = true;
      ++i;
      continue;
    } else if (quoted) {
      if (c == quote) {
        quoted = false;
        ++i;
        any = true;
        continue;
      }
    } else if (c == '"' || c == '\'') {
      quoted = true;
      quote = c;
      ++i;
      any = true;
      continue;
    } else if (c == '#') {
      break;
    }
    arg += c;
    any = true;
    ++i;
  }
  if (quoted) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Unmatched ", std::string(1, quote), " in #SBATCH line ", lineno, ": ", std::string(line)));
  }
  *pos = i;
  if (!any) return std::optional<std::string>();
  return std::optional<std::string>(std::move(arg));
}

// ---- Levels -----------------------------------------------------------------

// The container options of `high` over `low`'s, option by option, except
// that the container itself is one choice: Slurm's bundle at the higher level
// replaces the lower's pyxis image and name, and an image or a name replaces
// the lower's bundle ("sbatch --container-image=x" over "#SBATCH
// --container=/b" is no conflict; only options at one level conflict).
ContainerOptions MergeContainer(const ContainerOptions& low, const ContainerOptions& high) {
  ContainerOptions out = low;
  if (high.bundle) {
    out.image.reset();
    out.name.reset();
  }
  if (high.image || high.name) out.bundle.reset();
  auto take = [](auto& dst, const auto& src) {
    if (src.has_value()) dst = src;
  };
  take(out.bundle, high.bundle);
  take(out.image, high.image);
  take(out.mounts, high.mounts);
  take(out.workdir, high.workdir);
  take(out.env, high.env);
  take(out.name, high.name);
  take(out.remap_root, high.remap_root);
  take(out.mount_home, high.mount_home);
  return out;
}

}  // namespace

namespace sbatch_internal {

SbatchRawOptions OptionsFromEnvironment(const std::map<std::string, std::string>& env) {
  SbatchRawOptions o;
  const std::pair<const char*, std::optional<std::string> SbatchRawOptions::*> table[] = {
      {"SBATCH_ACCOUNT", &SbatchRawOptions::account},
      {"SBATCH_JOB_NAME", &SbatchRawOptions::job_name},
      {"SBATCH_PARTITION", &SbatchRawOptions::partition},
      {"SBATCH_QOS", &SbatchRawOptions::qos},
      {"SBATCH_RESERVATION", &SbatchRawOptions::reservation},
      {"SBATCH_TIMELIMIT", &SbatchRawOptions::time},
      {"SBATCH_EXPORT", &SbatchRawOptions::export_env},
      {"SBATCH_GRES", &SbatchRawOptions::gres},
      {"SBATCH_BURST_BUFFER", &SbatchRawOptions::burst_buffer},
      {"SBATCH_ARRAY_INX", &SbatchRawOptions::array},
      {"SBATCH_CONSTRAINT", &SbatchRawOptions::constraint},
      {"SBATCH_DISTRIBUTION", &SbatchRawOptions::distribution},
      {"SBATCH_GRES_FLAGS", &SbatchRawOptions::gres_flags},
      {"SBATCH_OPEN_MODE", &SbatchRawOptions::open_mode},
      {"SBATCH_SIGNAL", &SbatchRawOptions::signal},
      {"SBATCH_THREADS_PER_CORE", &SbatchRawOptions::threads_per_core},
      {"SBATCH_EXCLUSIVE", &SbatchRawOptions::exclusive},
      {"SBATCH_GPUS", &SbatchRawOptions::gpus},
      {"SBATCH_GPUS_PER_NODE", &SbatchRawOptions::gpus_per_node},
      {"SBATCH_GPU_BIND", &SbatchRawOptions::gpu_bind},
      {"SBATCH_GPUS_PER_TASK", &SbatchRawOptions::gpus_per_task},
      {"SBATCH_CPUS_PER_GPU", &SbatchRawOptions::cpus_per_gpu},
      {"SBATCH_MEM_PER_CPU", &SbatchRawOptions::mem_per_cpu},
      {"SBATCH_MEM_PER_GPU", &SbatchRawOptions::mem_per_gpu},
      {"SBATCH_MEM_PER_NODE", &SbatchRawOptions::mem},
  };
  for (const auto& [name, field] : table) {
    auto it = env.find(name);
    if (it != env.end()) o.*field = it->second;
  }
  // Set but empty: no container (what an exported empty variable means).
  if (auto it = env.find("SBATCH_CONTAINER"); it != env.end() && !it->second.empty()) {
    o.container.bundle = it->second;
  }
  // A set but empty SBATCH_EXCLUSIVE means a bare --exclusive.
  if (o.exclusive && o.exclusive->empty()) o.exclusive = "exclusive";
  o.exclusive_named = o.exclusive.has_value();
  // SBATCH_NO_KILL: set but empty is a bare -k; else its value, as -k's.
  if (auto it = env.find("SBATCH_NO_KILL"); it != env.end()) {
    o.no_kill = it->second.empty() ? "set" : it->second;
  }
  if (env.count("SBATCH_WAIT")) o.wait = true;
  if (env.count("SBATCH_OVERCOMMIT")) o.overcommit = true;
  if (env.count("SBATCH_SPREAD_JOB")) o.spread_job = true;
  if (env.count("SBATCH_USE_MIN_NODES")) o.use_min_nodes = true;
  if (env.count("SBATCH_REQUEUE")) o.requeue = true;
  if (env.count("SBATCH_NO_REQUEUE")) o.requeue = false;
  return o;
}

SbatchRawOptions Merge(const SbatchRawOptions& low, const SbatchRawOptions& high) {
  SbatchRawOptions out = low;
  auto take = [](auto& dst, const auto& src) {
    if (src.has_value()) dst = src;
  };
  if (high.mem || high.mem_per_cpu || high.mem_per_gpu) {
    out.mem = high.mem;
    out.mem_per_cpu = high.mem_per_cpu;
    out.mem_per_gpu = high.mem_per_gpu;
  }
  take(out.job_name, high.job_name);
  take(out.partition, high.partition);
  take(out.nodes, high.nodes);
  take(out.ntasks, high.ntasks);
  take(out.cpus_per_task, high.cpus_per_task);
  take(out.time, high.time);
  take(out.time_min, high.time_min);
  take(out.output, high.output);
  take(out.error, high.error);
  take(out.input, high.input);
  take(out.chdir, high.chdir);
  take(out.export_env, high.export_env);
  take(out.export_file, high.export_file);
  take(out.qos, high.qos);
  take(out.reservation, high.reservation);
  take(out.account, high.account);
  take(out.gres, high.gres);
  take(out.gpus, high.gpus);
  take(out.gpus_per_node, high.gpus_per_node);
  take(out.gpu_bind, high.gpu_bind);
  take(out.gpus_per_task, high.gpus_per_task);
  take(out.cpus_per_gpu, high.cpus_per_gpu);
  take(out.begin, high.begin);
  take(out.deadline, high.deadline);
  take(out.get_user_env, high.get_user_env);
  take(out.comment, high.comment);
  take(out.dependency, high.dependency);
  take(out.kill_on_invalid_dep, high.kill_on_invalid_dep);
  take(out.burst_buffer, high.burst_buffer);
  take(out.burst_buffer_file, high.burst_buffer_file);
  take(out.wrap, high.wrap);
  take(out.hold, high.hold);
  take(out.parsable, high.parsable);
  take(out.wait, high.wait);
  take(out.test_only, high.test_only);
  take(out.requeue, high.requeue);
  take(out.array, high.array);
  take(out.exclusive, high.exclusive);
  out.exclusive_named |= high.exclusive_named;
  out.oversubscribe_named |= high.oversubscribe_named;
  take(out.no_kill, high.no_kill);
  take(out.nice, high.nice);
  take(out.open_mode, high.open_mode);
  take(out.signal, high.signal);
  take(out.ntasks_per_node, high.ntasks_per_node);
  take(out.priority, high.priority);
  take(out.mincpus, high.mincpus);
  take(out.tmp, high.tmp);
  take(out.licenses, high.licenses);
  take(out.distribution, high.distribution);
  take(out.extra_node_info, high.extra_node_info);
  take(out.sockets_per_node, high.sockets_per_node);
  take(out.cores_per_socket, high.cores_per_socket);
  take(out.threads_per_core, high.threads_per_core);
  take(out.overcommit, high.overcommit);
  take(out.spread_job, high.spread_job);
  take(out.contiguous, high.contiguous);
  take(out.use_min_nodes, high.use_min_nodes);
  take(out.nodelist, high.nodelist);
  take(out.exclude, high.exclude);
  take(out.constraint, high.constraint);
  take(out.prefer, high.prefer);
  take(out.gres_flags, high.gres_flags);
  take(out.wait_all_nodes, high.wait_all_nodes);
  take(out.mail_type, high.mail_type);
  take(out.mail_user, high.mail_user);
  out.container = MergeContainer(low.container, high.container);
  out.ignored.insert(out.ignored.end(), high.ignored.begin(), high.ignored.end());
  return out;
}

}  // namespace sbatch_internal

using sbatch_internal::StartsWith;

std::vector<GivenOption> SbatchGivenOptions(const SbatchRawOptions& options) {
  std::vector<GivenOption> given;
  std::set<const void*> shown;  // a field several options set is shown once
  for (const SbatchOption& option : SbatchOptions()) {
    const std::string name = LongName(option.getopt.names).substr(2);
    if (option.text == &SbatchRawOptions::exclusive) {
      // One value, shown under each of the two names that set it.
      const bool named =
          name == "oversubscribe" ? options.oversubscribe_named : options.exclusive_named;
      if (named && options.exclusive) given.push_back({name, *options.exclusive});
    } else if (option.text != nullptr && options.*option.text) {
      if (shown.insert(&(options.*option.text)).second)
        given.push_back({name, *(options.*option.text)});
    } else if (option.flag != nullptr && options.*option.flag == option.flag_value) {
      // --no-requeue's false is shown by its own name, as Slurm's.
      if (shown.insert(&(options.*option.flag)).second) given.push_back({name, std::nullopt});
    }
  }
  if (options.container.bundle) given.push_back({"container", *options.container.bundle});
  return given;
}

absl::StatusOr<SbatchCommandLine> ParseSbatchCommandLine(const std::vector<std::string>& args) {
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args);
  if (!parsed.ok()) return parsed.status();
  SbatchCommandLine out;
  out.options = std::move(parsed->options);
  out.help = parsed->help;
  out.help_text = std::move(parsed->help_text);
  out.version = parsed->version;
  out.verbose = parsed->verbose;
  if (!parsed->rest.empty()) {
    out.script_path = parsed->rest.front();
    out.script_args.assign(parsed->rest.begin() + 1, parsed->rest.end());
  }
  if (out.options.wrap && !out.script_path.empty()) {
    return absl::FailedPreconditionError("Script arguments not permitted with --wrap option");
  }
  return out;
}

absl::StatusOr<std::vector<std::string>> ExtractDirectives(std::string_view script) {
  std::vector<std::string> args;
  int lineno = 0;
  size_t start = 0;
  while (start < script.size()) {
    size_t end = script.find('\n', start);
    if (end == std::string_view::npos) end = script.size();
    std::string_view line = script.substr(start, end - start);
    start = end + 1;
    ++lineno;
    constexpr std::string_view kMagic = "#SBATCH";
    if (line.substr(0, kMagic.size()) != kMagic) {
      // Stop at the first command: a line whose first non-blank is not '#'.
      size_t first = line.find_first_not_of(" \t\r\f\v");
      if (first != std::string_view::npos && line[first] != '#') break;
      continue;
    }
    size_t pos = kMagic.size();
    for (;;) {
      absl::StatusOr<std::optional<std::string>> arg = NextArgument(line, &pos, lineno);
      if (!arg.ok()) return arg.status();
      if (!arg->has_value()) break;
      args.push_back(std::move(**arg));
    }
  }
  return args;
}

absl::StatusOr<SbatchRawOptions> ParseDirectives(std::string_view script) {
  absl::StatusOr<std::vector<std::string>> args = ExtractDirectives(script);
  if (!args.ok()) return args.status();
  // Most scripts (every --wrap) have none: nothing to build a parser for.
  if (args->empty()) return SbatchRawOptions{};
  // Help and version are command-line matters; in a script they are invalid.
  for (const std::string& arg : *args) {
    if (arg == "-h" || arg == "--help" || arg == "-V" || arg == "--version" || arg == "--wrap" ||
        StartsWith(arg, "--wrap=")) {
      return absl::InvalidArgumentError(
          absl::StrCat("Invalid directive found in batch script: ", arg));
    }
  }
  // An unknown option or a missing value is refused in getopt's words, as
  // Slurm's sbatch does (its second pass exits through the same '?' case).
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(*args);
  if (!parsed.ok()) return parsed.status();
  if (!parsed->rest.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid directive found in batch script: ", parsed->rest.front()));
  }
  return std::move(parsed->options);
}

bool IsGetoptError(const absl::Status& status) {
  return status.GetPayload(kGetoptPayload).has_value();
}

}  // namespace skiff::cli
