// BuildSubmission: the merged options validated into a JobSpec; with the checks
// of the script and the text of sbatch's answers.
#include "cli/common/sbatch_options.h"

#include <algorithm>
#include <cctype>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cli/common/gpu_bind_check.h"
#include "cli/common/sbatch_options_internal.h"
#include "cli/common/task_distribution.h"
#include "client/job_text.h"
#include "common/checked_math.h"
#include "common/time_format.h"
#include "google/protobuf/stubs/common.h"

namespace skiff::cli {

using sbatch_internal::Absolute;
using sbatch_internal::ArrayOption;
using sbatch_internal::BadSpecification;
using sbatch_internal::BadValue;
using sbatch_internal::CountOption;
using sbatch_internal::FillEnvironment;
using sbatch_internal::GpuCountOption;
using sbatch_internal::MailTypeOption;
using sbatch_internal::MemoryOption;
using sbatch_internal::Merge;
using sbatch_internal::NodeListOption;
using sbatch_internal::OptionsFromEnvironment;
using sbatch_internal::PositiveInt;
using sbatch_internal::StartsWith;

namespace {

std::string BaseName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

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
          one("exclusive_kind", spec.exclusive_kind()),
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
          one("gpus_per_task", spec.gpus_per_task()),
          one("licenses", spec.licenses()),
          one("prefer", spec.prefer())};
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

absl::StatusOr<WarnSignal> ParseSignalOption(const std::string& value) {
  // Slurm's [{R|B}:]<sig_num>[@sig_time]; R (reservation ends) has no
  // meaning without reservations and is accepted as Slurm accepts it.
  std::string text = value;
  WarnSignal out;
  while (text.size() > 2 && text[1] == ':' &&
         (text[0] == 'B' || text[0] == 'b' || text[0] == 'R' || text[0] == 'r')) {
    out.batch_only |= text[0] == 'B' || text[0] == 'b';
    text = text.substr(2);
  }
  const size_t at = text.find('@');
  absl::StatusOr<int> number = client::ParseSignal(text.substr(0, at));
  std::optional<int64_t> seconds =
      at == std::string::npos ? std::optional<int64_t>(60) : PositiveInt(text.substr(at + 1));
  if (!number.ok() || *number <= 0 || !seconds || *seconds > 65535) {
    return absl::InvalidArgumentError("Invalid --signal specification");
  }
  out.number = *number;
  out.seconds = static_cast<int32_t>(*seconds);
  return out;
}

std::string WrapScript(std::string_view command) {
  return absl::StrCat("#!/bin/sh\n", std::string(command), "\n");
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
  if (o.licenses) spec.set_licenses(*o.licenses);  // checked by ctld against Licenses=
  if (o.dependency) spec.set_dependency(*o.dependency);
  if (o.hold) spec.set_hold(*o.hold);
  if (o.requeue) spec.set_requeue(*o.requeue);
  if (o.constraint) spec.set_constraint(*o.constraint);
  if (o.prefer) spec.set_prefer(*o.prefer);
  if (o.gres_flags) {
    const std::string flags = absl::AsciiStrToLower(*o.gres_flags);
    if (flags != "disable-binding" && flags != "enforce-binding") {
      return absl::InvalidArgumentError("Invalid --gres-flags specification");
    }
  }
  if (o.wait_all_nodes) {
    const std::string& v = *o.wait_all_nodes;
    // Slurm's parse_int (exit 1), then its own bound.
    if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos || v.size() > 9) {
      return absl::FailedPreconditionError(
          absl::StrCat("Invalid numeric value \"", v, "\" for --wait-all-nodes."));
    }
    if (std::stoi(v) > 1)
      return absl::InvalidArgumentError("Invalid --wait-all-nodes specification");
  }
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
    absl::StatusOr<WarnSignal> signal = ParseSignalOption(*o.signal);
    if (!signal.ok()) return signal.status();
    spec.set_warn_signal(signal->number);
    spec.set_warn_time(signal->seconds);
    spec.set_warn_batch_only(signal->batch_only);
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
    if (v == "user" || v == "mcs") {
      out.warnings.push_back(absl::StrCat("--exclusive=", *o.exclusive,
                                          " is not supported by Skiff; the job gets its nodes "
                                          "to itself, as with --exclusive"));
      spec.set_exclusive_kind(v);  // OverSubscribe=USER / MCS, as Slurm shows it
    }
    // -s and --exclusive=oversubscribe: OverSubscribe=YES.
    spec.set_exclusive(v != "oversubscribe");
    spec.set_oversubscribe(v == "oversubscribe");
  }
  if (o.no_kill) {
    absl::StatusOr<bool> no_kill = ParseNoKillOption(*o.no_kill);
    if (!no_kill.ok()) return no_kill.status();
    spec.set_no_kill(*no_kill);
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
  if (o.tmp) {
    absl::StatusOr<uint64_t> mb = MemoryOption("--tmp", *o.tmp);
    if (!mb.ok()) return mb.status();
    spec.set_min_tmp_disk_mb(*mb);
  }
  struct TopologyOption {
    const char* name;
    const std::optional<std::string>& value;
    void (v1::JobSpec::*set)(int32_t);
  };
  for (const TopologyOption& t : {TopologyOption{"--sockets-per-node", o.sockets_per_node,
                                                 &v1::JobSpec::set_sockets_per_node},
                                  TopologyOption{"--cores-per-socket", o.cores_per_socket,
                                                 &v1::JobSpec::set_cores_per_socket},
                                  TopologyOption{"--threads-per-core", o.threads_per_core,
                                                 &v1::JobSpec::set_threads_per_core}}) {
    if (!t.value) continue;
    absl::StatusOr<int32_t> floor = TopologyFloorOption(t.name, *t.value);
    if (!floor.ok()) return floor.status();
    (spec.*t.set)(*floor);
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
  if (o.time_min) {
    absl::StatusOr<int64_t> seconds = ParseDuration(*o.time_min);
    if (!seconds.ok() || (*seconds > kMaxTimeLimitSeconds && *seconds != kInfiniteDuration)) {
      return absl::InvalidArgumentError("Invalid --time-min specification");
    }
    // Whole minutes, as Slurm keeps it; UNLIMITED or 0: none.
    if (*seconds != kInfiniteDuration) spec.set_time_min((*seconds + 59) / 60 * 60);
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
  if (o.distribution) {
    // The job's steps are laid out so: srun reads what sbatch leaves, as
    // Slurm's sbatch sets it (set_envs).
    auto plane_env = context.environment.find("SLURM_DIST_PLANESIZE");
    absl::StatusOr<TaskDistribution> distribution =
        ParseTaskDistribution(*o.distribution, plane_env == context.environment.end()
                                                   ? std::nullopt
                                                   : std::optional<std::string>(plane_env->second));
    if (!distribution.ok()) return distribution.status();
    auto& env = *spec.mutable_environment();
    if (!distribution->name.empty()) env["SLURM_DISTRIBUTION"] = distribution->name;
    if (distribution->nodes == TaskDistribution::Nodes::kPlane) {
      env["SLURM_DIST_PLANESIZE"] = absl::StrCat(distribution->plane_size);
    }
  }
  if (o.gpu_bind) {
    if (std::optional<std::string> bad = GpuBindError(*o.gpu_bind)) {
      return absl::InvalidArgumentError(*bad);
    }
    (*spec.mutable_environment())["SLURM_GPU_BIND"] = *o.gpu_bind;
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

int SbatchExitCode(const absl::Status& status) {
  return status.code() == absl::StatusCode::kInvalidArgument ? 255 : 1;
}

}  // namespace skiff::cli
