#include "cli/sattach/sattach_options.h"

#include <getopt.h>

#include <climits>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/hostlist.h"

namespace skiff::cli {
namespace {

constexpr char kUsage[] = "Usage: sattach [options] <jobid.stepid>\n";

enum LongOption {
  kLayout = 0x100,
  kDebuggerTest,
  kInputFilter,
  kOutputFilter,
  kErrorFilter,
  kPty,
};

// Slurm's _get_pos_int: a non-negative int, whitespace allowed after it.
std::optional<int> PositiveInt(const std::string& arg, const char* what,
                               std::vector<std::string>* errors) {
  char* end = nullptr;
  const long value = strtol(arg.c_str(), &end, 10);
  const bool blank_rest = absl::StripAsciiWhitespace(end).empty();
  if (end == arg.c_str() || !blank_rest || value < 0) {
    errors->push_back(
        absl::StrCat("sattach: error: Invalid numeric value \"", arg, "\" for ", what, "."));
    return std::nullopt;
  }
  if (value > INT_MAX) {
    errors->push_back(
        absl::StrCat("sattach: error: Numeric argument ", value, " to big for ", what, "."));
    return std::nullopt;
  }
  return static_cast<int>(value);
}

}  // namespace

SattachParse ParseSattachArgs(const std::vector<std::string>& argv_in) {
  SattachParse result;
  SattachArgs args;
  std::vector<std::string> storage = argv_in;
  std::vector<char*> argv;
  for (std::string& a : storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  static const struct option kLong[] = {
      {"help", no_argument, nullptr, 'h'},
      {"label", no_argument, nullptr, 'l'},
      {"quiet", no_argument, nullptr, 'Q'},
      {"usage", no_argument, nullptr, 'u'},
      {"verbose", no_argument, nullptr, 'v'},
      {"version", no_argument, nullptr, 'V'},
      {"layout", no_argument, nullptr, kLayout},
      {"debugger-test", no_argument, nullptr, kDebuggerTest},
      {"input-filter", required_argument, nullptr, kInputFilter},
      {"output-filter", required_argument, nullptr, kOutputFilter},
      {"error-filter", required_argument, nullptr, kErrorFilter},
      {"pty", no_argument, nullptr, kPty},
      {nullptr, 0, nullptr, 0},
  };
  const int argc = static_cast<int>(storage.size());
  optind = 0;
  opterr = 0;  // getopt's own line is made here, so that it can be returned
  bool output_filter_set = false, error_filter_set = false;
  for (int c; (c = getopt_long(argc, argv.data(), "+hlQuvV", kLong, nullptr)) != -1;) {
    switch (c) {
      case 'h':
        args.help = true;
        result.args = args;
        return result;
      case 'u':
        args.usage = true;
        result.args = args;
        return result;
      case 'V':
        args.version = true;
        result.args = args;
        return result;
      case 'l':
        args.label = true;
        break;
      case 'Q':
        ++args.quiet;
        break;
      case 'v':
        ++args.verbose;
        break;
      case kLayout:
        args.layout_only = true;
        break;
      case kDebuggerTest:
        break;  // TotalView's test mode: nothing to test here
      case kPty:
        args.pty = true;
        break;
      case kInputFilter:
      case kOutputFilter:
      case kErrorFilter: {
        const char* what = c == kInputFilter    ? "input-filter"
                           : c == kOutputFilter ? "output-filter"
                                                : "error-filter";
        std::optional<int> task;
        if (std::string(optarg) != "-") {
          task = PositiveInt(optarg, what, &result.errors);
          if (!task) return result;
        }
        if (c == kInputFilter) {
          args.input_filter = task;
          args.input_filter_set = true;
        } else if (c == kOutputFilter) {
          args.output_filter = task;
          output_filter_set = true;
        } else {
          args.error_filter = task;
          error_filter_set = true;
        }
        break;
      }
      default: {
        // getopt's line, as glibc words it, then Slurm's hint.
        const std::string arg = optind >= 1 && optind - 1 < argc ? storage[optind - 1] : "";
        if (optopt == 0) {
          result.errors.push_back(absl::StrCat("sattach: unrecognized option '", arg, "'"));
        } else if (optopt >= 0x100) {
          result.errors.push_back(absl::StrCat("sattach: option '", arg, "' requires an argument"));
        } else {
          result.errors.push_back(absl::StrCat("sattach: invalid option -- '",
                                               std::string(1, static_cast<char>(optopt)), "'"));
        }
        result.errors.push_back("Try \"sattach --help\" for more information");
        return result;
      }
    }
  }
  if (argc - optind != 1) {
    result.errors.push_back("sattach: error: too many parameters");
    result.print_usage = true;
    return result;
  }
  // Slurm's slurm_parse_step_str: JOB.STEP; a job alone has no step.
  const std::string step_text = storage[optind];
  const size_t dot = step_text.find('.');
  if (dot == std::string::npos || !absl::SimpleAtoi(step_text.substr(0, dot), &args.job_id) ||
      !absl::SimpleAtoi(step_text.substr(dot + 1), &args.step_id)) {
    result.errors.push_back("sattach: error: Failed to parse stepid from command line options");
    result.print_usage = true;
    return result;
  }
  bool verified = true;
  if (args.quiet > 0 && args.verbose > 0) {
    result.errors.push_back("sattach: error: don't specify both --verbose (-v) and --quiet (-Q)");
    verified = false;
  }
  if ((args.input_filter_set || output_filter_set || error_filter_set) && args.pty) {
    result.errors.push_back("sattach: error: don't specify both --pty and I/O filtering");
    verified = false;
  }
  if (!verified) return result;
  if (!error_filter_set && output_filter_set) args.error_filter = args.output_filter;
  result.args = args;
  return result;
}

std::string SattachUsage() { return kUsage; }

std::string SattachHelp() {
  // Slurm 22.05.8's `sattach --help`, byte for byte.
  return absl::StrCat(
      kUsage,
      "      --input-filter=taskid  send stdin to only the specified task\n"
      "      --output-filter=taskid only print stdout from the specified task\n"
      "      --error-filter=taskid  only print stderr from the specified task\n"
      "  -l, --label        prepend task number to lines of stdout & stderr\n"
      "      --layout       print task layout info and exit (does not attach to tasks)\n"
      "  -Q, --quiet        quiet mode (suppress informational messages)\n"
      "  -v, --verbose      verbose mode (multiple -v's increase verbosity)\n"
      "  -V, --version      print the Slurm version and exit\n\n"
      "Help options:\n"
      "  -h, --help         print this help message\n"
      "  -u, --usage        print a brief usage message\n");
}

int StepTaskCount(const v1::StepOutput& layout) {
  int n = 0;
  for (const v1::StepTaskPlacement& place : layout.placement()) n += place.task_ids_size();
  return n;
}

std::string SattachLayout(const v1::StepOutput& layout) {
  std::vector<std::string> names;
  for (const v1::StepTaskPlacement& place : layout.placement()) names.push_back(place.node());
  std::string out =
      absl::StrCat("Job step layout:\n\t", StepTaskCount(layout), " tasks, ",
                   layout.placement_size(), " nodes (", CompressHostlist(names), ")\n\n");
  for (int i = 0; i < layout.placement_size(); ++i) {
    const v1::StepTaskPlacement& place = layout.placement(i);
    absl::StrAppend(&out, "\tNode ", i, " (", place.node(), "), ", place.task_ids_size(),
                    " task(s): ");
    for (int t : place.task_ids()) absl::StrAppend(&out, t, " ");
    out += "\n";
  }
  return out;
}

int SattachErrorExit(const char* slurm_exit_error, std::string* warning) {
  if (slurm_exit_error == nullptr) return 1;
  int code = 0;
  if (!absl::SimpleAtoi(slurm_exit_error, &code) || code == 0) {
    *warning = "sattach: error: SLURM_EXIT_ERROR has zero value";
    return 1;
  }
  return code;
}

}  // namespace skiff::cli
