#include "cli/squeue/squeue_cli.h"

#include <cctype>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cli/common/help_text.h"

namespace skiff::cli {
namespace {

struct SlurmState {
  const char* name;
  const char* code;
  v1::JobState skiff;  // JOB_STATE_UNSPECIFIED: a state Skiff never has
};

// job_state_num's order: the base states, then the flag states.
constexpr SlurmState kSlurmStates[] = {
    {"PENDING", "PD", v1::PENDING},
    {"RUNNING", "R", v1::RUNNING},
    {"SUSPENDED", "S", v1::SUSPENDED},
    {"COMPLETED", "CD", v1::COMPLETED},
    {"CANCELLED", "CA", v1::CANCELLED},
    {"FAILED", "F", v1::FAILED},
    {"TIMEOUT", "TO", v1::TIMEOUT},
    {"NODE_FAIL", "NF", v1::NODE_FAIL},
    {"PREEMPTED", "PR", v1::PREEMPTED},
    {"BOOT_FAIL", "BF", v1::JOB_STATE_UNSPECIFIED},
    {"DEADLINE", "DL", v1::DEADLINE},
    {"OUT_OF_MEMORY", "OOM", v1::OUT_OF_MEMORY},
    {"COMPLETING", "CG", v1::COMPLETING},
    {"CONFIGURING", "CF", v1::CONFIGURING},
    {"RESIZING", "RS", v1::JOB_STATE_UNSPECIFIED},
    {"RESV_DEL_HOLD", "RD", v1::JOB_STATE_UNSPECIFIED},
    {"REQUEUED", "RQ", v1::REQUEUED},
    {"REQUEUE_FED", "RF", v1::JOB_STATE_UNSPECIFIED},
    {"REQUEUE_HOLD", "RH", v1::JOB_STATE_UNSPECIFIED},
    {"REVOKED", "RV", v1::JOB_STATE_UNSPECIFIED},
    {"SIGNALING", "SI", v1::JOB_STATE_UNSPECIFIED},
    {"SPECIAL_EXIT", "SE", v1::JOB_STATE_UNSPECIFIED},
    {"STAGE_OUT", "SO", v1::STAGE_OUT},
    {"STOPPED", "ST", v1::JOB_STATE_UNSPECIFIED},
};

std::string OrNull(bool set, const std::string& value) { return set ? value : "(null)"; }

}  // namespace

// The lines of Slurm's squeue --help that Skiff does not support (its own
// --help marks them, cli/common/help_text.h).
constexpr std::string_view kUnsupportedOptions[] = {"--array-unique", "--noconvert", "--yaml"};

std::string SqueueHelpText() {
  return MarkUnsupported(
      "Usage: squeue [OPTIONS]\n"
      "  -A, --account=account(s)        comma separated list of accounts\n"
      "\t\t\t\t  to view, default is all accounts\n"
      "  -a, --all                       display jobs in hidden partitions\n"
      "      --array-unique              display one unique pending job array\n"
      "                                  element per line\n"
      "      --federation                Report federated information if a member\n"
      "                                  of one\n"
      "  -h, --noheader                  no headers on output\n"
      "      --hide                      do not display jobs in hidden partitions\n"
      "  -i, --iterate=seconds           specify an interation period\n"
      "  -j, --job=job(s)                comma separated list of jobs IDs\n"
      "                                  to view, default is all\n"
      "      --json                      Produce JSON output\n"
      "      --local                     Report information only about jobs on the\n"
      "                                  local cluster. Overrides --federation.\n"
      "  -l, --long                      long report\n"
      "  -L, --licenses=(license names)  comma separated list of license names to view\n"
      "  -M, --clusters=cluster_name     cluster to issue commands to.  Default is\n"
      "                                  current cluster.  cluster with no name will\n"
      "                                  reset to default. Implies --local.\n"
      "  -n, --name=job_name(s)          comma separated list of job names to view\n"
      "      --noconvert                 don't convert units from their original type\n"
      "                                  (e.g. 2048M won't be converted to 2G).\n"
      "  -o, --format=format             format specification\n"
      "  -O, --Format=format             format specification\n"
      "  -p, --partition=partition(s)    comma separated list of partitions\n"
      "\t\t\t\t  to view, default is all partitions\n"
      "  -q, --qos=qos(s)                comma separated list of qos's\n"
      "\t\t\t\t  to view, default is all qos's\n"
      "  -R, --reservation=name          reservation to view, default is all\n"
      "  -r, --array                     display one job array element per line\n"
      "      --sibling                   Report information about all sibling jobs\n"
      "                                  on a federated cluster. Implies --federation.\n"
      "  -s, --step=step(s)              comma separated list of job steps\n"
      "\t\t\t\t  to view, default is all\n"
      "  -S, --sort=fields               comma separated list of fields to sort on\n"
      "      --start                     print expected start times of pending jobs\n"
      "      --explain=job_id            why a pending job waits, and what would start\n"
      "                                  it sooner (Skiff's)\n"
      "  -t, --states=states             comma separated list of states to view,\n"
      "\t\t\t\t  default is pending and running,\n"
      "\t\t\t\t  '--states=all' reports all states\n"
      "  -u, --user=user_name(s)         comma separated list of users to view\n"
      "      --name=job_name(s)          comma separated list of job names to view\n"
      "  -v, --verbose                   verbosity level\n"
      "  -V, --version                   output version information and exit\n"
      "  -w, --nodelist=hostlist         list of nodes to view, default is \n"
      "\t\t\t\t  all nodes\n"
      "      --yaml                      Produce YAML output\n"
      "\n"
      "Help options:\n"
      "  --help                          show this help message\n"
      "  --usage                         display a brief summary of squeue options\n",
      kUnsupportedOptions);
}

std::string SqueueUsageText() {
  return "Usage: squeue [-A account] [--clusters names] [-i seconds] [--job jobid]\n"
         "              [-n name] [-o format] [-p partitions] [--qos qos]\n"
         "              [--reservation reservation] [--sort fields] [--start]\n"
         "              [--step step_id] [-t states] [-u user_name] [--usage]\n"
         "              [-L licenses] [-w nodes] [--federation] [--local] [--sibling]\n"
         "\t      [-ahjlrsv]\n";
}

absl::StatusOr<SqueueStates> ParseSqueueStates(std::string_view text) {
  SqueueStates out;
  if (absl::EqualsIgnoreCase(std::string(text), "all")) {
    // Every state, finished ones included (those ctld still holds).
    out.all = true;
    for (const SlurmState& s : kSlurmStates) {
      if (s.skiff != v1::JOB_STATE_UNSPECIFIED) out.states.push_back(s.skiff);
    }
    return out;
  }
  for (absl::string_view piece :
       absl::StrSplit(absl::string_view(text.data(), text.size()), ',', absl::SkipEmpty())) {
    const SlurmState* found = nullptr;
    for (const SlurmState& s : kSlurmStates) {
      if (absl::EqualsIgnoreCase(piece, s.name) || absl::EqualsIgnoreCase(piece, s.code)) {
        found = &s;
        break;
      }
    }
    if (found == nullptr) {
      std::string valid;
      for (const SlurmState& s : kSlurmStates)
        absl::StrAppend(&valid, valid.empty() ? "" : ",", s.name);
      return absl::InvalidArgumentError(
          absl::StrCat("Invalid job state specified: ", std::string(piece),
                       "\nValid job states include: ", valid, "\n"));
    }
    if (found->skiff != v1::JOB_STATE_UNSPECIFIED) out.states.push_back(found->skiff);
  }
  return out;
}

absl::StatusOr<int> ParseSqueueIterate(std::string_view text) {
  // atoi: leading blanks, a sign, then digits as far as they go.
  std::string copy(text);
  const int value = std::atoi(copy.c_str());
  if (value <= 0) return absl::InvalidArgumentError(absl::StrCat("--iterate=", copy, "\n"));
  return value;
}

absl::StatusOr<std::vector<v1::JobRef>> ParseSqueueJobs(std::string_view text) {
  std::vector<v1::JobRef> refs;
  for (absl::string_view piece :
       absl::StrSplit(absl::string_view(text.data(), text.size()), ',', absl::SkipEmpty())) {
    const std::string item(piece);
    char* end = nullptr;
    const long id = std::strtol(item.c_str(), &end, 10);
    if (id <= 0) return absl::InvalidArgumentError(absl::StrCat("Invalid job id: ", item));
    v1::JobRef ref;
    ref.set_job_id(static_cast<uint64_t>(id));
    if (*end == '_') ref.set_array_task_id(static_cast<int32_t>(std::strtol(end + 1, &end, 10)));
    refs.push_back(ref);
  }
  return refs;
}

absl::Status CheckSqueueSteps(std::string_view text) {
  for (absl::string_view piece :
       absl::StrSplit(absl::string_view(text.data(), text.size()), ',', absl::SkipEmpty())) {
    std::vector<std::string> parts = absl::StrSplit(piece, '.', absl::SkipEmpty());
    if (parts.empty()) break;
    if (parts.size() < 2) {
      return absl::InvalidArgumentError(absl::StrCat("Invalid job_step id: ", parts[0], ".??"));
    }
    const long job = std::strtol(parts[0].c_str(), nullptr, 10);
    const long step = std::strtol(parts[1].c_str(), nullptr, 10);
    if (job <= 0 || step < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Invalid job_step id: ", parts[0], ".", parts[1]));
    }
  }
  return absl::OkStatus();
}

std::string SqueueVerboseText(const SqueueVerboseOptions& o) {
  auto flag = [](bool b) { return b ? "true" : "false"; };
  std::string out = "-----------------------------\n";
  absl::StrAppend(&out, "all         = ", flag(o.all), "\n");
  absl::StrAppend(&out, "array       = ", flag(o.array), "\n");
  absl::StrAppend(&out, "federation  = false\n");
  absl::StrAppend(&out, "format      = ", OrNull(o.format_set, o.format), "\n");
  absl::StrAppend(&out, "iterate     = ", o.iterate, "\n");
  absl::StrAppend(&out, "job_flag    = ", o.jobs_flag ? 1 : 0, "\n");
  absl::StrAppend(&out, "jobs        = ", OrNull(o.jobs_set, o.jobs), "\n");
  absl::StrAppend(&out, "licenses    = ", OrNull(o.licenses_set, o.licenses), "\n");
  absl::StrAppend(&out, "local       = false\n");
  absl::StrAppend(&out, "names       = ", OrNull(o.names_set, o.names), "\n");
  absl::StrAppend(&out, "nodes       = ", o.nodes, "\n");
  absl::StrAppend(&out, "partitions  = ", OrNull(o.partitions_set, o.partitions), "\n");
  absl::StrAppend(&out, "priority    = false\n");
  absl::StrAppend(&out, "reservation = (null)\n");
  absl::StrAppend(&out, "sibling      = false\n");
  absl::StrAppend(&out, "sort        = ", OrNull(o.sort_set, o.sort), "\n");
  absl::StrAppend(&out, "start_flag  = ", o.start ? 1 : 0, "\n");
  absl::StrAppend(&out, "states      = ", OrNull(o.states_set, o.states), "\n");
  absl::StrAppend(&out, "step_flag   = ", o.steps_flag ? 1 : 0, "\n");
  absl::StrAppend(&out, "steps       = ", OrNull(o.steps_set, o.steps), "\n");
  absl::StrAppend(&out, "users       = ", OrNull(o.users_set, o.users), "\n");
  absl::StrAppend(&out, "verbose     = ", o.verbose, "\n");
  absl::StrAppend(&out, "-----------------------------\n\n\n");
  return out;
}

}  // namespace skiff::cli
