#include "cli/sbcast/sbcast_options.h"

#include <climits>
#include <cstdlib>
#include <ctime>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cli/common/getopt_args.h"
#include "proto/job.pb.h"

namespace skiff::cli {
namespace {

// Slurm's step ids for the special steps.
constexpr uint32_t kExternStep = 0xfffffffc;
constexpr uint32_t kInteractiveStep = 0xfffffffa;

constexpr uint64_t kMinChunk = 4 << 10;
constexpr uint64_t kMaxChunk = 8 << 20;
constexpr uint64_t kInvalidSizeChunk = 512 << 10;  // Slurm's when -s was invalid

// Slurm's compression values, as -v prints them (enum compress_type).
constexpr int kCompressOff = 0;
constexpr int kCompressLz4 = 2;

int Atoi(const std::string& text) { return atoi(text.c_str()); }

bool StartsWithDigit(const std::string& text) {
  return !text.empty() && absl::ascii_isdigit(static_cast<unsigned char>(text[0]));
}

// Slurm's parse_compress_type: no value means its default (lz4).
bool ParseCompress(const std::optional<std::string>& value, std::vector<std::string>* warnings) {
  if (!value || absl::EqualsIgnoreCase(*value, "lz4")) return true;
  if (absl::EqualsIgnoreCase(*value, "none")) return false;
  warnings->push_back(absl::StrCat("sbcast: error: Compression type '", *value,
                                   "' unknown, disabling compression support."));
  return false;
}

// Slurm's parse_send_libs: 1 yes, 0 no, -1 unrecognized.
int ParseSendLibs(const std::optional<std::string>& value) {
  if (!value || absl::EqualsIgnoreCase(*value, "yes") || absl::EqualsIgnoreCase(*value, "y")) {
    return 1;
  }
  if (absl::EqualsIgnoreCase(*value, "no") || absl::EqualsIgnoreCase(*value, "n")) return 0;
  return -1;
}

// Slurm's _map_size: bytes, or k/m suffixed; 0 (with its line) when invalid.
uint32_t MapSize(const std::string& text, std::vector<std::string>* warnings) {
  char* end = nullptr;
  errno = 0;
  long size = strtol(text.c_str(), &end, 10);
  const char suffix = *end;
  if (size == LONG_MIN || size == LONG_MAX || size < 0) {
    size = -1;
  } else if (suffix == '\0') {
  } else if (suffix == 'k' || suffix == 'K') {
    size *= 1024;
  } else if (suffix == 'm' || suffix == 'M') {
    size *= 1024 * 1024;
  } else {
    size = -1;
  }
  if (size < 0) {
    warnings->push_back("size specification is invalid, ignored");
    return 0;
  }
  return static_cast<uint32_t>(size);
}

std::string Ctime(int64_t when) {
  const time_t t = static_cast<time_t>(when);
  char buf[64] = {};
  struct tm tm {};
  localtime_r(&t, &tm);
  strftime(buf, sizeof(buf), "%a %b %d %H:%M:%S %Y", &tm);
  return buf;
}

}  // namespace

absl::StatusOr<JobStepId> ParseJobStep(const std::string& text) {
  JobStepId id;
  std::string name = text;
  std::string het_step;
  if (const size_t dot = name.find('.'); dot != std::string::npos) {
    std::string step = name.substr(dot + 1);
    name.resize(dot);
    id.has_step = true;
    if (step == "batch") {
      id.batch_step = true;
    } else if (step == "extern") {
      id.step_id = kExternStep;
    } else if (step == "interactive") {
      id.step_id = kInteractiveStep;
    } else if (StartsWithDigit(step)) {
      id.step_id = static_cast<uint32_t>(Atoi(step));
    } else {
      return absl::InvalidArgumentError(absl::StrCat("Bad step specified: ", name));
    }
    if (const size_t plus = step.find('+'); plus != std::string::npos) het_step = step.substr(plus);
  }
  if (const size_t under = name.find('_'); under != std::string::npos) {
    const std::string task = name.substr(under + 1);
    name.resize(under);
    if (!StartsWithDigit(task)) {
      return absl::InvalidArgumentError(absl::StrCat("Bad job array element specified: ", name));
    }
    id.array_task = Atoi(task);
  } else if (const size_t plus = name.find('+'); het_step.empty() && plus != std::string::npos) {
    const std::string offset = name.substr(plus + 1);
    name.resize(plus);
    if (!StartsWithDigit(offset)) {
      return absl::InvalidArgumentError(absl::StrCat("Bad hetjob offset specified: ", name));
    }
    id.het_offset = true;
    absl::StrAppend(&name, "+", Atoi(offset));
  }
  id.job_id = static_cast<uint32_t>(Atoi(name));
  id.text = absl::StrCat(id.job_id);
  if (id.array_task) absl::StrAppend(&id.text, "_", *id.array_task);
  if (id.het_offset) absl::StrAppend(&id.text, name.substr(name.find('+')));
  if (id.batch_step) {
    absl::StrAppend(&id.text, ".batch");
  } else if (id.has_step && id.step_id == kExternStep) {
    absl::StrAppend(&id.text, ".extern");
  } else if (id.has_step && id.step_id == kInteractiveStep) {
    absl::StrAppend(&id.text, ".interactive");
  } else if (id.has_step) {
    absl::StrAppend(&id.text, ".", id.step_id);
  }
  return id;
}

SbcastParse ParseSbcastArgs(const std::vector<std::string>& args,
                            const std::map<std::string, std::string>& env, const std::string& cwd) {
  SbcastParse result;
  SbcastArgs parsed;
  auto getenv = [&](const char* name) -> std::optional<std::string> {
    auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
  if (auto v = getenv("SBCAST_COMPRESS")) parsed.compress = ParseCompress(*v, &result.warnings);
  if (auto v = getenv("SBCAST_EXCLUDE")) parsed.exclude = *v;
  if (auto v = getenv("SBCAST_FANOUT")) parsed.fanout = Atoi(*v);
  if (getenv("SBCAST_FORCE")) parsed.force = true;
  if (getenv("SBCAST_PRESERVE")) parsed.preserve = true;
  if (auto v = getenv("SBCAST_SEND_LIBS")) {
    const int send = ParseSendLibs(*v);
    if (send < 0) {
      result.warnings.push_back(
          absl::StrCat("sbcast: error: Ignoring unrecognized SBCAST_SEND_LIBS value '", *v, "'"));
    } else {
      parsed.send_libs = send == 1;
    }
  }
  if (auto v = getenv("SBCAST_SIZE")) parsed.block_size = MapSize(*v, &result.warnings);
  if (auto v = getenv("SBCAST_TIMEOUT")) parsed.timeout_seconds = Atoi(*v);

  // Slurm's getopt_long table, in its order.
  enum Option {
    kCompress,
    kExclude,
    kFanout,
    kForce,
    kJobid,
    kSendLibs,
    kPreserve,
    kSize,
    kTimeout,
    kVerbose,
    kVersion,
    kHelp,
    kUsage
  };
  static const std::vector<GetoptOption> kTable = {
      {"-C,--compress", GetoptArgument::kOptional}, {"--exclude", GetoptArgument::kRequired},
      {"-F,--fanout", GetoptArgument::kRequired},   {"-f,--force", GetoptArgument::kNone},
      {"-j,--jobid", GetoptArgument::kRequired},    {"--send-libs", GetoptArgument::kOptional},
      {"-p,--preserve", GetoptArgument::kNone},     {"-s,--size", GetoptArgument::kRequired},
      {"-t,--timeout", GetoptArgument::kRequired},  {"-v,--verbose", GetoptArgument::kNone},
      {"-V,--version", GetoptArgument::kNone},      {"--help", GetoptArgument::kNone},
      {"--usage", GetoptArgument::kNone},
  };
  absl::StatusOr<GetoptParsed> line = ParseGetopt(args, kTable, GetoptOrder::kPermute);
  if (!line.ok()) {
    for (absl::string_view text :
         absl::StrSplit(GetoptErrorText("sbcast", std::string(line.status().message())), '\n',
                        absl::SkipEmpty())) {
      result.errors.emplace_back(text);
    }
    return result;
  }
  std::optional<JobStepId> job;
  for (const GetoptFound& found : line->found) {
    const std::string value = found.value.value_or("");
    switch (static_cast<Option>(found.option)) {
      case kCompress:
        parsed.compress = ParseCompress(found.value, &result.warnings);
        break;
      case kExclude:
        parsed.exclude = value;
        break;
      case kFanout:
        parsed.fanout = Atoi(value);
        break;
      case kForce:
        parsed.force = true;
        break;
      case kJobid: {
        absl::StatusOr<JobStepId> id = ParseJobStep(value);
        if (!id.ok()) {
          result.errors.push_back(absl::StrCat("sbcast: fatal: ", id.status().message()));
          return result;
        }
        job = *id;
        break;
      }
      case kSendLibs: {
        const int send = ParseSendLibs(found.value);
        if (send < 0) {
          result.warnings.push_back(
              absl::StrCat("sbcast: error: Ignoring unrecognized --send-libs value '", value, "'"));
        } else {
          parsed.send_libs = send == 1;
        }
        break;
      }
      case kPreserve:
        parsed.preserve = true;
        break;
      case kSize:
        parsed.block_size = MapSize(value, &result.warnings);
        break;
      case kTimeout:
        parsed.timeout_seconds = Atoi(value);
        break;
      case kVerbose:
        ++parsed.verbose;
        break;
      case kVersion:
        parsed.version = true;
        result.args = parsed;
        return result;
      case kHelp:
        parsed.help = true;
        result.args = parsed;
        return result;
      case kUsage:
        parsed.usage = true;
        result.args = parsed;
        return result;
    }
  }
  if (line->operands.size() != 2) {
    result.errors.push_back(
        absl::StrCat("Need two file names, have ", line->operands.size(), " names"));
    result.errors.push_back("Try \"sbcast --help\" for more information");
    return result;
  }
  if (!job) {
    auto from_env = getenv("SLURM_JOB_ID");
    if (!from_env) {
      result.errors.push_back(
          "sbcast: error: Need a job id to run this command.  Run from within a Slurm job or use "
          "the --jobid option.");
      return result;
    }
    absl::StatusOr<JobStepId> id = ParseJobStep(*from_env);
    if (!id.ok()) {
      result.errors.push_back(absl::StrCat("sbcast: fatal: ", id.status().message()));
      return result;
    }
    job = *id;
  }
  parsed.job = *job;
  parsed.source = line->operands[0];
  const std::string& dest = line->operands[1];
  // Slurm's BcastParameters=DestDir is not read (docs/compatibility.md): a
  // relative name is in the current directory.
  parsed.destination = absl::StartsWith(dest, "/") ? dest : absl::StrCat(cwd, "/", dest);
  if (absl::EndsWith(parsed.destination, "/")) {
    result.errors.push_back("sbcast: error: Target filename cannot be a directory.");
    return result;
  }
  result.args = parsed;
  return result;
}

std::vector<std::string> SbcastOptionLines(const SbcastArgs& args) {
  auto yes = [](bool b) { return b ? "true" : "false"; };
  return {
      "-----------------------------",
      absl::StrCat("block_size = ", args.block_size),
      absl::StrCat("compress   = ", args.compress ? kCompressLz4 : kCompressOff),
      absl::StrCat("exclude    = ", args.exclude),
      absl::StrCat("force      = ", yes(args.force)),
      absl::StrCat("fanout     = ", args.fanout),
      absl::StrCat("preserve   = ", yes(args.preserve)),
      absl::StrCat("send_libs  = ", yes(args.send_libs)),
      absl::StrCat("timeout    = ", int64_t{args.timeout_seconds} * 1000),
      absl::StrCat("verbose    = ", args.verbose),
      absl::StrCat("source     = ", args.source),
      absl::StrCat("dest       = ", args.destination),
      "-----------------------------",
  };
}

uint64_t ChunkSize(uint32_t block_size, uint64_t file_size) {
  uint64_t size = block_size != 0 ? block_size : kInvalidSizeChunk;
  size = std::max(kMinChunk, std::min(kMaxChunk, size));
  return std::max<uint64_t>(1, std::min(size, file_size));
}

std::vector<std::string> LibrariesFromLdd(const std::string& ldd_output) {
  // Slurm's _get_lib_paths: from the first '/' of a line to the next blank
  // (a path with no blank after it, as in "statically linked", is no library).
  std::vector<std::string> libraries;
  for (absl::string_view line : absl::StrSplit(ldd_output, '\n', absl::SkipEmpty())) {
    const size_t slash = line.find('/');
    if (slash == absl::string_view::npos) continue;
    const size_t blank = line.find(' ', slash);
    if (blank == absl::string_view::npos) continue;
    libraries.emplace_back(line.substr(slash, blank - slash));
  }
  return libraries;
}

std::vector<std::string> ExcludedDirectories(const std::string& exclude,
                                             std::vector<std::string>* warnings) {
  std::vector<std::string> directories;
  if (absl::EqualsIgnoreCase(exclude, "none")) return directories;
  for (absl::string_view entry : absl::StrSplit(exclude, ',', absl::SkipEmpty())) {
    if (!absl::StartsWith(entry, "/")) {
      warnings->push_back(
          absl::StrCat("sbcast: error: Ignoring non-absolute excluded path: '", entry, "'"));
      continue;
    }
    directories.emplace_back(entry);
  }
  return directories;
}

bool IsExcluded(const std::string& library, const std::vector<std::string>& directories) {
  for (std::string dir : directories) {
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    if (library == dir || absl::StartsWith(library, dir == "/" ? dir : dir + "/")) return true;
  }
  return false;
}

std::string LibraryDestination(const std::string& destination, const std::string& library) {
  const size_t slash = library.rfind('/');
  const std::string base = slash == std::string::npos ? library : library.substr(slash + 1);
  return absl::StrCat(destination, "_libs/", base);
}

BroadcastOutcome OutcomeOf(const v1::BroadcastFileReply& reply) {
  BroadcastOutcome outcome;
  for (const v1::BroadcastNodeResult& node : reply.results()) {
    if (node.error_number() == 0) continue;
    outcome.errors.push_back(
        absl::StrCat("sbcast: error: REQUEST_FILE_BCAST(", node.node(), "): ", node.error()));
    outcome.exit_code = node.error_number() > 0 ? (node.error_number() & 0xff) : 255;
    if (outcome.exit_code == 0) outcome.exit_code = 255;
  }
  return outcome;
}

std::string JobStateRefusal(int job_state) {
  switch (job_state) {
    case v1::RUNNING:
    // Its batch script may already run (ctld hears of the launch after it
    // started): the step manager decides (NOT_FOUND: not launched there yet).
    case v1::CONFIGURING:
      return "";
    case v1::PENDING:
      return "Job is pending execution";
    default:
      return "Job/step already completing or completed";
  }
}

std::string LookupError(const JobStepId& job, const std::string& text) {
  return absl::StrCat("sbcast: error: Slurm job ", job.text, " lookup error: ", text);
}

std::vector<std::string> SourceLines(uint32_t mode, uid_t uid, gid_t gid, int64_t atime,
                                     int64_t mtime, int64_t ctime, int64_t size) {
  char octal[16];
  snprintf(octal, sizeof(octal), "%o", mode);
  return {
      absl::StrCat("modes    = ", octal),        absl::StrCat("uid      = ", uid),
      absl::StrCat("gid      = ", gid),          absl::StrCat("atime    = ", Ctime(atime)),
      absl::StrCat("mtime    = ", Ctime(mtime)), absl::StrCat("ctime    = ", Ctime(ctime)),
      absl::StrCat("size     = ", size),
  };
}

}  // namespace skiff::cli
