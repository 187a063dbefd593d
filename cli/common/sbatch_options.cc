#include "cli/common/sbatch_options.h"

#include <time.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cli/common/getopt_args.h"
#include "cli/common/sbatch_help.h"
#include "client/job_text.h"
#include "common/checked_math.h"
#include "common/hostlist.h"
#include "common/size.h"
#include "common/time_format.h"
#include "google/protobuf/stubs/common.h"

namespace skiff::cli {
namespace {

// ---- Option table -----------------------------------------------------------

// Slurm options that take a value and that Skiff accepts but ignores, with a
// warning, so that job scripts written for Slurm still submit.
// Placement and binding hints (--hint, --threads-per-core, --mem-bind, ...)
// are common in job scripts written for Slurm; Skiff places by CPU count.
constexpr const char* kIgnoredWithValue[] = {
    "--wckey",
    "-L,--licenses",
    "-m,--distribution",
    "--time-min",
    "--tmp",
    "--acctg-freq",
    "--hint",
    "--cores-per-socket",
    "--sockets-per-node",
    "--threads-per-core",
    "--ntasks-per-core",
    "--ntasks-per-socket",
    "-B,--extra-node-info",
    "--mem-bind",
    "--cpu-freq",
    "--gpu-bind",
    "--gpu-freq",
    "--gres-flags",
    "--profile",
    "--network",
    "--switches",
    "--delay-boot",
    "--power",
    "--mcs-label",
    "--core-spec",
    "--thread-spec",
    "--wait-all-nodes",
    "--prefer",
};
// The same for flags.
constexpr const char* kIgnoredFlags[] = {
    "-k,--no-kill",
    "-s,--oversubscribe",
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
        Flag("-O,--overcommit", &O::overcommit),
        Flag("--spread-job", &O::spread_job),
        Flag("--contiguous", &O::contiguous),
        Flag("--use-min-nodes", &O::use_min_nodes),
        Text("--wrap", &O::wrap),
        Text("-a,--array", &O::array),
        Text("-w,--nodelist", &O::nodelist),
        Text("-x,--exclude", &O::exclude),
        Text("-C,--constraint", &O::constraint),
        Text("--mail-type", &O::mail_type),
        Text("--mail-user", &O::mail_user),
        OptionalText("--exclusive", &O::exclusive, "exclusive"),  // [=user|mcs]
        OptionalText("--get-user-env", &O::get_user_env, "0"),    // [=timeout][S|L]
        OptionalText("--nice", &O::nice, "100"),                  // [=adjustment]
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

// ---- Values -----------------------------------------------------------------

// Slurm's own words for a value it refuses without naming it
// (src/common/slurm_opt.c): "Invalid --mem specification".
absl::Status BadSpecification(const std::string& option) {
  return absl::InvalidArgumentError(absl::StrCat("Invalid ", option, " specification"));
}

absl::Status BadValue(const std::string& option, const std::string& value) {
  return absl::InvalidArgumentError(
      absl::StrCat("Invalid ", option, " specification: '", value, "'"));
}

std::optional<int64_t> PositiveInt(std::string_view text) {
  if (text.empty() || !std::all_of(text.begin(), text.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) != 0;
      })) {
    return std::nullopt;
  }
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || value <= 0 || value > INT32_MAX) {
    return std::nullopt;
  }
  return value;
}

absl::StatusOr<int32_t> CountOption(const std::string& option, const std::string& value) {
  std::optional<int64_t> n = PositiveInt(value);
  if (!n) {
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid numeric value \"", value, "\" for ", option, "."));
  }
  return static_cast<int32_t>(*n);
}

// A memory size in MiB (bare numbers are MiB), rounded up to whole MiB.
absl::StatusOr<uint64_t> MemoryOption(const std::string& option, const std::string& value) {
  absl::StatusOr<uint64_t> bytes = ParseSize(value, kMiB);
  if (!bytes.ok()) return BadSpecification(option);
  return *bytes / kMiB + (*bytes % kMiB != 0 ? 1 : 0);
}

std::string Absolute(const std::string& path, const std::string& base) {
  if (path.empty() || path[0] == '/') return path;
  if (path == ".") return base;
  std::string rel = path;
  while (rel.size() > 2 && rel.compare(0, 2, "./") == 0) rel.erase(0, 2);
  if (base.empty() || base.back() == '/') return base + rel;
  return base + "/" + rel;
}

std::string BaseName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool StartsWith(const std::string& text, const std::string& prefix) {
  return text.size() >= prefix.size() && text.compare(0, prefix.size(), prefix) == 0;
}

// Splits on `sep`, keeping empty pieces.
std::vector<std::string> SplitKeepEmpty(const std::string& text, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    size_t end = text.find(sep, start);
    parts.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

bool AllDigits(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
  });
}

// -G/--gpus and --gpus-per-node: "N" or "type:N", a comma list for -G (Slurm
// takes "a100:1,v100:2"). Only the form is checked; ctld knows the types.
absl::Status GpuCountOption(const std::string& option, const std::string& value, bool list) {
  std::vector<std::string> items = list ? SplitKeepEmpty(value, ',') : std::vector{value};
  for (const std::string& item : items) {
    std::vector<std::string> parts = SplitKeepEmpty(item, ':');
    if (parts.size() > 2 || !PositiveInt(parts.back()) || parts.front().empty()) {
      return BadValue(option, value);
    }
  }
  return absl::OkStatus();
}

// --array, checked for form: INDEXES[%MAX] where INDEXES is a comma list of N,
// N-M or N-M:STEP (M >= N, STEP > 0). ctld checks it against MaxArraySize.
absl::Status ArrayOption(const std::string& value) {
  std::string indexes = value;
  if (size_t pct = value.find('%'); pct != std::string::npos) {
    indexes = value.substr(0, pct);
    if (!AllDigits(value.substr(pct + 1))) return BadValue("--array", value);
  }
  for (const std::string& item : SplitKeepEmpty(indexes, ',')) {
    std::string range = item, step;
    if (size_t colon = item.find(':'); colon != std::string::npos) {
      range = item.substr(0, colon);
      step = item.substr(colon + 1);
      if (!PositiveInt(step) || range.find('-') == std::string::npos) {
        return BadValue("--array", value);
      }
    }
    std::vector<std::string> bounds = SplitKeepEmpty(range, '-');
    if (bounds.size() > 2 || !AllDigits(bounds.front()) || !AllDigits(bounds.back()) ||
        bounds.front().size() > 9 || bounds.back().size() > 9 ||
        std::stoll(bounds.back()) < std::stoll(bounds.front())) {
      return BadValue("--array", value);
    }
  }
  return absl::OkStatus();
}

// --mail-type: a comma list of Slurm's event names, any case. Slurm quietly
// drops unknown names when at least one is known; Skiff refuses them, with
// Slurm's message, so that a typo ("--mail-type=ENDS") does not go unnoticed.
absl::Status MailTypeOption(const std::string& value) {
  static const std::set<std::string> kTypes = {
      "NONE",           "BEGIN",         "END",           "FAIL",
      "REQUEUE",        "ALL",           "STAGE_OUT",     "TIME_LIMIT",
      "TIME_LIMIT_90",  "TIME_LIMIT_80", "TIME_LIMIT_50", "ARRAY_TASKS",
      "INVALID_DEPEND",
  };
  std::vector<std::string> items = client::SplitCommaList(value);
  bool ok = !items.empty() && std::all_of(items.begin(), items.end(), [](const std::string& t) {
    return kTypes.count(absl::AsciiStrToUpper(t)) != 0;
  });
  if (!ok) return BadSpecification("--mail-type");
  return absl::OkStatus();
}

// The names in a Slurm host file: one entry per line, each a name or hostlist
// expression (commas allowed), "name*N" meaning the name N times, '#' starting a
// comment unless escaped as "\#".
absl::StatusOr<std::vector<std::string>> NamesInHostFile(const std::string& text,
                                                         const std::string& path) {
  std::vector<std::string> names;
  int lineno = 0;
  for (std::string line : SplitKeepEmpty(text, '\n')) {
    ++lineno;
    for (size_t i = 0; i < line.size(); ++i) {
      if (line[i] != '#') continue;
      if (i > 0 && line[i - 1] == '\\') {
        line.erase(i - 1, 1);
        --i;
        continue;
      }
      line.resize(i);
      break;
    }
    std::string entry(absl::StripAsciiWhitespace(line));
    if (entry.empty()) continue;
    absl::StatusOr<std::vector<std::string>> expanded = ExpandHostlist(entry);
    if (!expanded.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Invalid hostfile ", path, " contents on line ", lineno, ": ", entry));
    }
    for (std::string& name : *expanded) {
      if (size_t star = name.find('*'); star != std::string::npos) name.resize(star);
      names.push_back(std::move(name));
    }
  }
  return names;
}

// -w/-x: a hostlist expression, or a host file when the value holds a '/', as
// in Slurm. Names come back expanded, in order, without duplicates.
absl::StatusOr<std::vector<std::string>> NodeListOption(const std::string& option,
                                                        const std::string& value,
                                                        const SubmitContext& context) {
  std::vector<std::string> names;
  if (value.find('/') != std::string::npos) {
    absl::StatusOr<std::string> text = context.read_file
                                           ? context.read_file(Absolute(value, context.cwd))
                                           : absl::UnavailableError("no file reader");
    if (!text.ok()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "Unable to read the node file of ", option, ", ", value, ": ", text.status().message()));
    }
    absl::StatusOr<std::vector<std::string>> read = NamesInHostFile(*text, value);
    if (!read.ok()) return absl::FailedPreconditionError(read.status().message());
    if (read->empty()) {
      return absl::FailedPreconditionError(
          absl::StrCat("The node file of ", option, ", ", value, ", names no nodes"));
    }
    names = std::move(*read);
  } else {
    absl::StatusOr<std::vector<std::string>> expanded = ExpandHostlist(value);
    if (!expanded.ok() || expanded->empty()) return BadValue(option, value);
    names = std::move(*expanded);
  }
  std::vector<std::string> unique;
  std::set<std::string> seen;
  for (std::string& name : names) {
    if (seen.insert(name).second) unique.push_back(std::move(name));
  }
  return unique;
}

// --export: the environment the job gets. SLURM_* variables always go, as in Slurm.
absl::Status FillEnvironment(const std::string& mode, const SubmitContext& context,
                             v1::JobSpec* spec) {
  auto* env = spec->mutable_environment();
  std::string upper = absl::AsciiStrToUpper(mode);
  if (upper == "ALL") {
    env->insert(context.environment.begin(), context.environment.end());
    return absl::OkStatus();
  }
  for (const auto& [name, value] : context.environment) {
    if (StartsWith(name, "SLURM_")) (*env)[name] = value;
  }
  if (upper == "NONE") return absl::OkStatus();
  std::vector<std::string> items = client::SplitCommaList(mode);
  if (items.empty()) return BadValue("--export", mode);
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string& item = items[i];
    if (i == 0 && absl::AsciiStrToUpper(item) == "ALL") {
      env->insert(context.environment.begin(), context.environment.end());
      continue;
    }
    if (absl::AsciiStrToUpper(item) == "NONE" || absl::AsciiStrToUpper(item) == "ALL") {
      return absl::InvalidArgumentError(
          absl::StrCat("Invalid --export specification: '", mode, "': ", item,
                       " may only stand alone (ALL may also lead a list)"));
    }
    size_t eq = item.find('=');
    std::string name = item.substr(0, eq);
    if (name.empty()) return BadValue("--export", mode);
    if (eq == std::string::npos) {
      auto it = context.environment.find(name);
      if (it != context.environment.end()) (*env)[name] = it->second;
    } else {
      (*env)[name] = item.substr(eq + 1);
    }
  }
  return absl::OkStatus();
}

// SBATCH_* variables Skiff reads, as Slurm's sbatch does.
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
      {"SBATCH_EXCLUSIVE", &SbatchRawOptions::exclusive},
      {"SBATCH_GPUS", &SbatchRawOptions::gpus},
      {"SBATCH_GPUS_PER_NODE", &SbatchRawOptions::gpus_per_node},
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
  if (env.count("SBATCH_WAIT")) o.wait = true;
  if (env.count("SBATCH_OVERCOMMIT")) o.overcommit = true;
  if (env.count("SBATCH_SPREAD_JOB")) o.spread_job = true;
  if (env.count("SBATCH_USE_MIN_NODES")) o.use_min_nodes = true;
  if (env.count("SBATCH_REQUEUE")) o.requeue = true;
  if (env.count("SBATCH_NO_REQUEUE")) o.requeue = false;
  return o;
}

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

// `high` over `low`, field by field. Setting any memory option at the higher
// level replaces all three of the lower level's, so that "--mem-per-cpu" on the
// command line overrides "#SBATCH --mem" instead of conflicting with it, as in
// Slurm (only options set at one level conflict).
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
  take(out.nice, high.nice);
  take(out.open_mode, high.open_mode);
  take(out.signal, high.signal);
  take(out.ntasks_per_node, high.ntasks_per_node);
  take(out.priority, high.priority);
  take(out.mincpus, high.mincpus);
  take(out.overcommit, high.overcommit);
  take(out.spread_job, high.spread_job);
  take(out.contiguous, high.contiguous);
  take(out.use_min_nodes, high.use_min_nodes);
  take(out.nodelist, high.nodelist);
  take(out.exclude, high.exclude);
  take(out.constraint, high.constraint);
  take(out.mail_type, high.mail_type);
  take(out.mail_user, high.mail_user);
  out.container = MergeContainer(low.container, high.container);
  out.ignored.insert(out.ignored.end(), high.ignored.begin(), high.ignored.end());
  return out;
}

// Seconds in a --begin unit; 0 for an unknown unit.
int64_t BeginUnit(const std::string& unit) {
  static const std::pair<const char*, int64_t> kUnits[] = {
      {"", 1},         {"s", 1},        {"sec", 1},     {"secs", 1},      {"second", 1},
      {"seconds", 1},  {"m", 60},       {"min", 60},    {"mins", 60},     {"minute", 60},
      {"minutes", 60}, {"h", 3600},     {"hour", 3600}, {"hours", 3600},  {"d", 86400},
      {"day", 86400},  {"days", 86400}, {"w", 604800},  {"week", 604800}, {"weeks", 604800},
  };
  for (const auto& [name, seconds] : kUnits) {
    if (unit == name) return seconds;
  }
  return 0;
}

// Parses "HH:MM[:SS]" into *h *m *s.
bool ParseClock(const std::string& text, int* h, int* m, int* s) {
  char tail = 0;
  *s = 0;
  int n = std::sscanf(text.c_str(), "%2d:%2d:%2d%c", h, m, s, &tail);
  if (n == 2) {
    n = std::sscanf(text.c_str(), "%2d:%2d%c", h, m, &tail);
    if (n != 2) return false;
  } else if (n != 3) {
    return false;
  }
  return *h >= 0 && *h < 24 && *m >= 0 && *m < 60 && *s >= 0 && *s < 60;
}

}  // namespace

std::vector<GivenOption> SbatchGivenOptions(const SbatchRawOptions& options) {
  std::vector<GivenOption> given;
  std::set<const void*> shown;  // a field several options set is shown once
  for (const SbatchOption& option : SbatchOptions()) {
    const std::string name = LongName(option.getopt.names).substr(2);
    if (option.text != nullptr && options.*option.text) {
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

std::vector<JobSpecTextField> JobSpecTextFields(const v1::JobSpec& spec) {
  auto one = [](std::string_view name, const std::string& value) {
    return JobSpecTextField{name, {&value}};
  };
  auto many = [](std::string_view name,
                 const google::protobuf::RepeatedPtrField<std::string>& values) {
    JobSpecTextField field{name, {}};
    for (const std::string& value : values) field.values.push_back(&value);
    return field;
  };
  return {one("partition", spec.partition()),
          one("account", spec.account()),
          one("qos", spec.qos()),
          many("gres", spec.gres()),
          one("submit_host", spec.submit_host()),
          one("dependency", spec.dependency()),
          one("export_mode", spec.export_mode()),
          one("array", spec.array()),
          one("gpus", spec.gpus()),
          one("gpus_per_node", spec.gpus_per_node()),
          many("nodelist", spec.nodelist()),
          many("exclude", spec.exclude()),
          one("constraint", spec.constraint()),
          one("mail_type", spec.mail_type()),
          one("mail_user", spec.mail_user()),
          one("open_mode", spec.open_mode()),
          one("reservation", spec.reservation()),
          one("gpus_per_task", spec.gpus_per_task())};
}

namespace {

// Names of things (partition, account, QOS, features, dependencies, ...) are
// text on the wire; free text (script, name, comment, paths, environment
// values) is bytes and goes as written. A name that is not UTF-8 cannot match
// anything, so it is refused here, naming the option, instead of failing in
// protobuf's UTF-8 check with an empty message.
absl::Status CheckTextFields(const v1::JobSpec& spec) {
  for (const JobSpecTextField& field : JobSpecTextFields(spec)) {
    for (const std::string* value : field.values) {
      if (google::protobuf::internal::IsStructurallyValidUTF8(value->data(),
                                                              static_cast<int>(value->size()))) {
        continue;
      }
      std::string option = field.name == "export_mode" ? "export" : std::string(field.name);
      std::replace(option.begin(), option.end(), '_', '-');
      return absl::InvalidArgumentError(
          absl::StrCat("Invalid --", option, " specification: not valid UTF-8"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateScript(std::string_view script) {
  if (script.empty()) return absl::FailedPreconditionError("Batch script is empty!");
  if (std::all_of(script.begin(), script.end(),
                  [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; })) {
    return absl::FailedPreconditionError("Batch script contains only whitespace!");
  }
  if (script.substr(0, 2) != "#!") {
    return absl::FailedPreconditionError(
        "This does not look like a batch script.  The first\n"
        "line must start with #! followed by the path to an interpreter.\n"
        "For instance: #!/bin/sh");
  }
  if (script.find('\0') != std::string_view::npos) {
    return absl::FailedPreconditionError(
        "The Skiff controller does not allow scripts that\n"
        "contain a NULL character '\\0'.");
  }
  if (script.find("\r\n") != std::string_view::npos) {
    return absl::FailedPreconditionError(
        "Batch script contains DOS line breaks (\\r\\n)\n"
        "instead of expected UNIX line breaks (\\n).");
  }
  return absl::OkStatus();
}

std::string WrapScript(std::string_view command) {
  return absl::StrCat("#!/bin/sh\n", std::string(command), "\n");
}

absl::StatusOr<int64_t> ParseBeginTime(std::string_view text_in, int64_t now) {
  std::string text = absl::AsciiStrToLower(std::string(text_in));
  auto bad = [&] {
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid --begin specification: '", std::string(text_in), "'"));
  };
  time_t now_t = static_cast<time_t>(now);
  struct tm today;
  localtime_r(&now_t, &today);
  // A local wall-clock time on the day `day` (0 = today) from now.
  auto at = [&](int day, int h, int m, int s) {
    struct tm t = today;
    t.tm_mday += day;
    t.tm_hour = h;
    t.tm_min = m;
    t.tm_sec = s;
    t.tm_isdst = -1;
    return static_cast<int64_t>(mktime(&t));
  };
  // Today at h:m:s, or tomorrow when that has passed.
  auto next = [&](int h, int m, int s) {
    int64_t t = at(0, h, m, s);
    return t < now ? at(1, h, m, s) : t;
  };
  if (text == "now") return now;
  if (text == "today") return at(0, 0, 0, 0);
  if (text == "tomorrow") return at(1, 0, 0, 0);
  if (text == "midnight") return at(1, 0, 0, 0);
  if (text == "noon") return next(12, 0, 0);
  if (text == "teatime") return next(16, 0, 0);
  if (StartsWith(text, "now+")) {
    std::string rest = text.substr(4);
    size_t digits = 0;
    while (digits < rest.size() && std::isdigit(static_cast<unsigned char>(rest[digits]))) {
      ++digits;
    }
    std::optional<int64_t> count = PositiveInt(rest.substr(0, digits));
    int64_t unit = BeginUnit(rest.substr(digits));
    if (!count || unit == 0) return bad();
    return now + *count * unit;
  }
  int h = 0, m = 0, s = 0;
  if (ParseClock(text, &h, &m, &s)) return next(h, m, s);
  // YYYY-MM-DD[THH:MM[:SS]]
  h = m = s = 0;  // ParseClock may have written part of a failed match
  int year = 0, month = 0, day = 0;
  char tail = 0;
  std::string date = text.substr(0, text.find('t'));
  if (std::sscanf(date.c_str(), "%4d-%2d-%2d%c", &year, &month, &day, &tail) != 3 ||
      date.size() != 10 || month < 1 || month > 12 || day < 1 || day > 31) {
    return bad();
  }
  if (size_t t_pos = text.find('t'); t_pos != std::string::npos) {
    if (!ParseClock(text.substr(t_pos + 1), &h, &m, &s)) return bad();
  }
  struct tm t = {};
  t.tm_year = year - 1900;
  t.tm_mon = month - 1;
  t.tm_mday = day;
  t.tm_hour = h;
  t.tm_min = m;
  t.tm_sec = s;
  t.tm_isdst = -1;
  time_t result = mktime(&t);
  if (result == static_cast<time_t>(-1) || t.tm_mday != day) return bad();
  return static_cast<int64_t>(result);
}

absl::StatusOr<SbatchSubmission> BuildSubmission(const SbatchCommandLine& command_line,
                                                 std::string_view script,
                                                 const SubmitContext& context) {
  if (absl::Status s = ValidateScript(script); !s.ok()) return s;
  const bool wrap = command_line.options.wrap.has_value();
  SbatchRawOptions directives;
  if (!wrap) {
    absl::StatusOr<SbatchRawOptions> parsed = ParseDirectives(script);
    if (!parsed.ok()) return parsed.status();
    directives = std::move(*parsed);
  }
  const SbatchRawOptions o =
      Merge(Merge(directives, OptionsFromEnvironment(context.environment)), command_line.options);

  SbatchSubmission out;
  v1::JobSpec& spec = out.spec;
  spec.set_script(std::string(script));
  for (const std::string& arg : command_line.script_args) spec.add_argv(arg);
  spec.set_submit_dir(context.cwd);
  spec.set_submit_host(context.hostname);
  out.parsable = o.parsable.value_or(false);
  out.wait = o.wait.value_or(false);
  out.test_only = o.test_only.value_or(false);
  if (command_line.verbose > 0) {
    std::vector<GivenOption> given = SbatchGivenOptions(o);
    given.push_back({"verbose", absl::StrCat(command_line.verbose)});
    out.defined_options = DefinedOptionsBlock(given, {context.now, context.cwd});
  }
  for (const std::string& name : o.ignored) {
    out.warnings.push_back(absl::StrCat(name, " is not supported by Skiff and was ignored"));
  }

  // Name and command.
  if (wrap) {
    spec.set_name("wrap");
    spec.set_command("(wrap)");
  } else if (!command_line.script_path.empty()) {
    spec.set_name(BaseName(command_line.script_path));
    spec.set_command(Absolute(command_line.script_path, context.cwd));
  } else {
    spec.set_name("sbatch");  // Slurm's name for a script read from stdin
  }
  if (o.job_name) spec.set_name(*o.job_name);

  if (o.partition) spec.set_partition(*o.partition);
  if (o.account) spec.set_account(*o.account);
  if (o.qos) spec.set_qos(*o.qos);
  if (o.reservation) spec.set_reservation(*o.reservation);
  // A relative --container is the submitting directory's, not -D's.
  absl::StatusOr<ContainerBuild> container = BuildContainerRequest(o.container, context.cwd);
  if (!container.ok()) return container.status();
  if (HasContainer(container->request)) *spec.mutable_container() = std::move(container->request);
  for (std::string& warning : container->warnings) out.warnings.push_back(std::move(warning));
  if (o.comment) spec.set_comment(*o.comment);
  if (o.dependency) spec.set_dependency(*o.dependency);
  if (o.hold) spec.set_hold(*o.hold);
  if (o.requeue) spec.set_requeue(*o.requeue);
  if (o.constraint) spec.set_constraint(*o.constraint);
  if (o.mail_user) spec.set_mail_user(*o.mail_user);
  if (o.mail_type) {
    if (absl::Status s = MailTypeOption(*o.mail_type); !s.ok()) return s;
    spec.set_mail_type(*o.mail_type);
  }
  if (o.array) {
    if (absl::Status s = ArrayOption(*o.array); !s.ok()) return s;
    spec.set_array(*o.array);
  }
  if (o.kill_on_invalid_dep) {
    std::string v = absl::AsciiStrToLower(*o.kill_on_invalid_dep);
    if (v != "yes" && v != "no") return BadValue("--kill-on-invalid-dep", *o.kill_on_invalid_dep);
    spec.set_kill_on_invalid_dep(v == "yes");
  }
  if (o.signal) {
    // Slurm's [{R|B}:]<sig_num>[@sig_time]; R (reservation ends) has no
    // meaning without reservations and is accepted as Slurm accepts it.
    std::string text = *o.signal;
    bool batch_only = false;
    while (text.size() > 2 && text[1] == ':' &&
           (text[0] == 'B' || text[0] == 'b' || text[0] == 'R' || text[0] == 'r')) {
      batch_only |= text[0] == 'B' || text[0] == 'b';
      text = text.substr(2);
    }
    const size_t at = text.find('@');
    absl::StatusOr<int> number = client::ParseSignal(text.substr(0, at));
    std::optional<int64_t> seconds =
        at == std::string::npos ? std::optional<int64_t>(60) : PositiveInt(text.substr(at + 1));
    if (!number.ok() || *number <= 0 || !seconds || *seconds > 65535) {
      return absl::InvalidArgumentError("Invalid --signal specification");
    }
    spec.set_warn_signal(*number);
    spec.set_warn_time(static_cast<int32_t>(*seconds));
    spec.set_warn_batch_only(batch_only);
  }
  if (o.open_mode) {
    const std::string mode = absl::AsciiStrToLower(*o.open_mode);
    if (mode != "append" && mode != "truncate" && mode != "a" && mode != "t") {
      return BadSpecification("--open-mode");
    }
    spec.set_open_mode(mode[0] == 'a' ? "append" : "truncate");
  }
  if (o.nice) {
    // Slurm's range: +/- (NICE_OFFSET - 3); a value that is not a number reads
    // as 0, as strtoll reads it there.
    int64_t nice = 0;
    if (!absl::SimpleAtoi(*o.nice, &nice)) nice = 0;
    if (nice > 2147483645 || nice < -2147483645) {
      return absl::InvalidArgumentError("Invalid --nice value, out of range (+/- 2147483645)");
    }
    spec.set_nice(static_cast<int32_t>(nice));
  }
  if (o.exclusive) {
    std::string v = absl::AsciiStrToLower(*o.exclusive);
    if (v != "exclusive" && v != "user" && v != "mcs" && v != "oversubscribe") {
      return BadSpecification("--exclusive");
    }
    if (v != "oversubscribe" &&
        std::count(o.ignored.begin(), o.ignored.end(), "--oversubscribe") != 0) {
      return absl::FailedPreconditionError(
          "--exclusive and --oversubscribe options are mutually exclusive");
    }
    if (v == "user" || v == "mcs") {
      out.warnings.push_back(absl::StrCat("--exclusive=", *o.exclusive,
                                          " is not supported by Skiff; the job gets its nodes "
                                          "to itself, as with --exclusive"));
    }
    spec.set_exclusive(v != "oversubscribe");
  }
  if (o.nodelist) {
    absl::StatusOr<std::vector<std::string>> names =
        NodeListOption("--nodelist", *o.nodelist, context);
    if (!names.ok()) return names.status();
    for (const std::string& name : *names) spec.add_nodelist(name);
  }
  if (o.exclude) {
    absl::StatusOr<std::vector<std::string>> names =
        NodeListOption("--exclude", *o.exclude, context);
    if (!names.ok()) return names.status();
    for (const std::string& name : *names) spec.add_exclude(name);
  }

  // Burst buffer: --bb text, then --bbf's file on lines of their own.
  std::string burst_buffer = o.burst_buffer.value_or("");
  if (o.burst_buffer_file) {
    const std::string& path = *o.burst_buffer_file;
    absl::StatusOr<std::string> text = context.read_file
                                           ? context.read_file(Absolute(path, context.cwd))
                                           : absl::UnavailableError("no file reader");
    if (!text.ok()) {
      // Slurm's words (slurm_opt.c, _read_file), which exit 1.
      return absl::FailedPreconditionError(absl::StrCat(
          "Could not open burst buffer specification file ", path, ": ", text.status().message()));
    }
    if (!burst_buffer.empty() && burst_buffer.back() != '\n') burst_buffer += '\n';
    burst_buffer += *text;
  }
  if (!burst_buffer.empty()) spec.set_burst_buffer(burst_buffer);

  if (o.nodes) {
    const std::string& v = *o.nodes;
    size_t dash = v.find('-');
    // Slurm's verify_node_count names the part that is not a count.
    auto not_a_count = [](const std::string& part) {
      return absl::InvalidArgumentError(absl::StrCat("\"", part, "\" is not a valid node count"));
    };
    const std::string min_text = v.substr(0, dash);
    // "-3": up to three nodes, at least one (Slurm's verify_node_count).
    std::optional<int64_t> lo = dash == 0 ? std::optional<int64_t>(1) : PositiveInt(min_text);
    if (!lo) return not_a_count(min_text);
    std::optional<int64_t> hi = lo;
    if (dash != std::string::npos) {
      const std::string max_text = v.substr(dash + 1);
      hi = PositiveInt(max_text);
      if (!hi) return not_a_count(max_text);
    }
    if (*hi < *lo) {
      return absl::InvalidArgumentError(
          absl::StrCat("Maximum node count ", *hi, " is less than minimum node count ", *lo));
    }
    spec.set_min_nodes(static_cast<int32_t>(*lo));
    spec.set_max_nodes(static_cast<int32_t>(*hi));
  }
  if (o.ntasks) {
    absl::StatusOr<int32_t> n = CountOption("--ntasks", *o.ntasks);
    if (!n.ok()) return n.status();
    spec.set_ntasks(*n);
  }
  if (o.priority) {
    // A number, or TOP for the highest; ctld takes it from operators only and
    // refuses anyone else's (Slurm 22.05 drops it without a word).
    const std::string& v = *o.priority;
    std::optional<int64_t> n =
        absl::AsciiStrToUpper(v) == "TOP" ? std::optional<int64_t>(4294967294) : PositiveInt(v);
    if (!n || *n > 4294967294) return BadSpecification("--priority");
    spec.set_priority(*n);
  }
  if (o.ntasks_per_node) {
    absl::StatusOr<int32_t> n = CountOption("--ntasks-per-node", *o.ntasks_per_node);
    if (!n.ok()) return n.status();
    spec.set_ntasks_per_node(*n);
  }
  if (o.mincpus) {
    absl::StatusOr<int32_t> n = CountOption("--mincpus", *o.mincpus);
    if (!n.ok()) return n.status();
    spec.set_min_cpus_per_node(*n);
  }
  spec.set_overcommit(o.overcommit.value_or(false));
  spec.set_spread_job(o.spread_job.value_or(false));
  spec.set_contiguous(o.contiguous.value_or(false));
  spec.set_use_min_nodes(o.use_min_nodes.value_or(false));
  // Slurm's sbatch and srun shrink -N to -n with this warning.
  if (spec.ntasks() > 0 && spec.min_nodes() > spec.ntasks() && !spec.overcommit()) {
    out.warnings.push_back(absl::StrCat("can't run ", spec.ntasks(), " processes on ",
                                        spec.min_nodes(), " nodes, setting nnodes to ",
                                        spec.ntasks()));
    spec.set_min_nodes(spec.ntasks());
    spec.set_max_nodes(spec.ntasks());
  }
  if (o.cpus_per_task) {
    absl::StatusOr<int32_t> n = CountOption("--cpus-per-task", *o.cpus_per_task);
    if (!n.ok()) return n.status();
    spec.set_cpus_per_task(*n);
  }
  if ((o.mem ? 1 : 0) + (o.mem_per_cpu ? 1 : 0) + (o.mem_per_gpu ? 1 : 0) > 1) {
    return absl::FailedPreconditionError(
        "--mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.");
  }
  if (o.mem) {
    absl::StatusOr<uint64_t> mb = MemoryOption("--mem", *o.mem);
    if (!mb.ok()) return mb.status();
    if (*mb == 0) {
      out.warnings.push_back(
          "--mem=0 (all of a node's memory) is not supported by Skiff; the default applies");
    }
    spec.set_mem_per_node_mb(*mb);
  }
  if (o.mem_per_cpu) {
    absl::StatusOr<uint64_t> mb = MemoryOption("--mem-per-cpu", *o.mem_per_cpu);
    if (!mb.ok()) return mb.status();
    spec.set_mem_per_cpu_mb(*mb);
  }
  if (o.mem_per_gpu) {
    absl::StatusOr<uint64_t> mb = MemoryOption("--mem-per-gpu", *o.mem_per_gpu);
    if (!mb.ok()) return mb.status();
    spec.set_mem_per_gpu_mb(*mb);
  }
  if (o.time) {
    absl::StatusOr<int64_t> seconds = ParseDuration(*o.time);
    // Slurm's exact words (shared/reference/sbatch_err_invalid_time.txt).
    // Past Slurm's largest limit (0xfffffffd minutes) is no limit it could keep.
    if (!seconds.ok() || *seconds > kMaxTimeLimitSeconds) {
      return absl::InvalidArgumentError("Invalid --time specification");
    }
    // As in Slurm, a limit of zero means no limit.
    spec.set_time_limit(*seconds == 0 ? kInfiniteDuration : *seconds);
  }
  if (o.gres) {
    std::vector<std::string> items = client::SplitCommaList(*o.gres);
    if (items.empty()) return BadValue("--gres", *o.gres);
    for (std::string& item : items) {
      if (StartsWith(item, "gres:")) item = item.substr(5);
      if (item.empty() || item[0] == ':') return BadValue("--gres", *o.gres);
      spec.add_gres(item);
    }
  }
  if (o.gpus) {
    if (absl::Status s = GpuCountOption("--gpus", *o.gpus, true); !s.ok()) return s;
    spec.set_gpus(*o.gpus);
  }
  if (o.gpus_per_node) {
    if (absl::Status s = GpuCountOption("--gpus-per-node", *o.gpus_per_node, false); !s.ok()) {
      return s;
    }
    spec.set_gpus_per_node(*o.gpus_per_node);
  }
  if (o.gpus_per_task) {
    if (absl::Status s = GpuCountOption("--gpus-per-task", *o.gpus_per_task, false); !s.ok()) {
      return s;
    }
    spec.set_gpus_per_task(*o.gpus_per_task);
  }
  if (o.cpus_per_gpu) {
    if (o.cpus_per_task) {
      return absl::FailedPreconditionError(
          "--cpus-per-gpu is mutually exclusive with --cpus-per-task");
    }
    absl::StatusOr<int32_t> n = CountOption("--cpus-per-gpu", *o.cpus_per_gpu);
    if (!n.ok()) return n.status();
    spec.set_cpus_per_gpu(*n);
  }
  if (o.begin) {
    absl::StatusOr<int64_t> begin = ParseBeginTime(*o.begin, context.now);
    if (!begin.ok()) return begin.status();
    spec.set_begin_time(*begin);
  }
  if (o.deadline) {
    absl::StatusOr<int64_t> deadline = ParseSlurmTime(*o.deadline, context.now, /*past=*/false);
    if (!deadline.ok() || *deadline <= 0) {
      return absl::InvalidArgumentError("Invalid --deadline specification");
    }
    spec.set_deadline(*deadline);
  }

  // Directories and files.
  spec.set_work_dir(o.chdir ? Absolute(*o.chdir, context.cwd) : context.cwd);
  if (o.output) spec.set_stdout_pattern(Absolute(*o.output, spec.work_dir()));
  if (o.error) spec.set_stderr_pattern(Absolute(*o.error, spec.work_dir()));
  if (o.input) spec.set_stdin_path(Absolute(*o.input, spec.work_dir()));

  const std::string export_mode = o.export_env.value_or("ALL");
  spec.set_export_mode(export_mode);
  if (absl::Status s = FillEnvironment(export_mode, context, &spec); !s.ok()) return s;
  // --get-user-env, and --export other than ALL (which imply it in Slurm):
  // noded starts the job from the user's login environment, the job's on top.
  // The timeout and mode are checked as Slurm checks them; like Slurm 22.05's
  // slurmd, noded uses its own (120 s, a login shell).
  if (o.get_user_env) {
    const std::string& value = *o.get_user_env;
    size_t digits = 0;
    while (digits < value.size() && std::isdigit(static_cast<unsigned char>(value[digits]))) {
      ++digits;
    }
    const std::string mode = value.substr(digits);
    if (!(mode.empty() || mode == "S" || mode == "s" || mode == "L" || mode == "l")) {
      return absl::InvalidArgumentError("Invalid --get-user-env specification");
    }
  }
  if (o.get_user_env || absl::AsciiStrToUpper(export_mode) != "ALL") {
    (*spec.mutable_environment())["SLURM_GET_USER_ENV"] = "1";
  }
  if (o.export_file) {
    // A number from 3 up is an open file descriptor, as in Slurm.
    const std::string& what = *o.export_file;
    std::optional<int64_t> fd = PositiveInt(what);
    const std::string path =
        fd && *fd >= 3 ? absl::StrCat("/dev/fd/", *fd) : Absolute(what, context.cwd);
    absl::StatusOr<std::string> text =
        context.read_file ? context.read_file(path) : absl::UnavailableError("no file reader");
    if (!text.ok()) {
      return absl::FailedPreconditionError(
          absl::StrCat("Could not read environment file ", what, ": ", text.status().message()));
    }
    // NUL-separated (values may hold newlines), else one entry per line.
    const char separator = text->find('\0') != std::string::npos ? '\0' : '\n';
    for (absl::string_view entry : absl::StrSplit(*text, separator, absl::SkipEmpty())) {
      const size_t eq = entry.find('=');
      if (eq == absl::string_view::npos || eq == 0) continue;  // Slurm skips such lines
      (*spec.mutable_environment())[std::string(entry.substr(0, eq))] =
          std::string(entry.substr(eq + 1));
    }
  }
  if (absl::Status s = CheckTextFields(spec); !s.ok()) return s;
  return out;
}

std::string FormatWillRun(uint64_t job_id, int64_t start, int32_t cpus, const std::string& nodes,
                          const std::string& partition) {
  return absl::StrCat("Job ", job_id, " to start at ", FormatTimestamp(start), " using ", cpus,
                      " processors on nodes ", nodes, " in partition ", partition);
}

std::string FormatSubmitted(uint64_t job_id, bool parsable) {
  return parsable ? absl::StrCat(job_id, "\n") : absl::StrCat("Submitted batch job ", job_id, "\n");
}

std::optional<int> WaitExitCode(const std::vector<v1::JobInfo>& jobs) {
  int code = 0;
  for (const v1::JobInfo& job : jobs) {
    if (client::IsActiveJobState(job.state()) || job.state() == v1::REQUEUED) return std::nullopt;
    code = std::max(code, job.exit_signal() != 0 ? 1 : job.exit_code());
  }
  return code;
}

bool IsGetoptError(const absl::Status& status) {
  return status.GetPayload(kGetoptPayload).has_value();
}

int SbatchExitCode(const absl::Status& status) {
  return status.code() == absl::StatusCode::kInvalidArgument ? 255 : 1;
}

}  // namespace skiff::cli
