// squeue: view the job queue, as Slurm 22.05's squeue. Parses the command
// line (getopt_long's rules, Slurm's error texts), asks ctld, prints with the
// pure code of squeue_format.h, squeue_sort.h and squeue_json.h.
#include <time.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "cli/command.h"
#include "cli/common/getopt_args.h"
#include "cli/squeue/squeue_cli.h"
#include "cli/squeue/squeue_format.h"
#include "cli/squeue/squeue_sort.h"
#include "client/ctld_client.h"
#include "client/job_text.h"
#include "client/jobs_json.h"

namespace {

constexpr char kProgram[] = "squeue";

// Slurm's error(): "squeue: error: <message>".
int Error(const std::string& message) {
  std::cerr << kProgram << ": error: " << message << "\n";
  return 1;
}

std::string Date() {
  time_t now = time(nullptr);
  struct tm tm;
  localtime_r(&now, &tm);
  char text[64];
  strftime(text, sizeof(text), "%a %b %d %H:%M:%S %Y", &tm);
  return text;
}

// Which of -o and -O came first on the command line ('o', 'O' or 0).
char FirstFormatOption(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") break;
    if (arg.rfind("--fo", 0) == 0) return 'o';
    if (arg.rfind("--Fo", 0) == 0) return 'O';
    if (arg.size() >= 2 && arg[0] == '-' && arg[1] != '-') {
      for (size_t k = 1; k < arg.size(); ++k) {
        if (arg[k] == 'o' || arg[k] == 'O') return arg[k];
        if (std::string("AiLMnpqRSstuUw").find(arg[k]) != std::string::npos) break;  // a value
      }
    }
  }
  return 0;
}

struct EnvDefault {
  const char* variable;
  const char* option;
  std::string* value;
};

// Takes each variable's value for its option when the command line lacks it.
template <typename Given>
void ReadSqueueEnvironment(const std::vector<EnvDefault>& defaults, Given given,
                           std::set<std::string>* from_env) {
  for (const EnvDefault& d : defaults) {
    const char* value = getenv(d.variable);
    if (value == nullptr || given(d.option)) continue;
    *d.value = value;
    from_env->insert(d.option);
  }
}

}  // namespace

int skiff::cli::SqueueMain(int argc, char** argv) {
  CLI::App app{"squeue"};
  app.set_help_flag();  // --help is Slurm's text, below
  skiff::cli::SqueueOptions options;
  std::string accounts, iterate, jobs, licenses, clusters, names, nodes, partitions, qos,
      reservation, sort, steps, states, users, format, format_fields, explain;
  bool help = false, usage = false, me = false, version = false, json = false, yaml = false;
  bool ignored = false;
  int verbose = 0;
  app.add_option("-A,-U,--accounts", accounts);
  app.add_flag("-a,--all", ignored);
  app.add_flag("-r,--array", options.array);
  app.add_flag("--array-unique", ignored);
  app.add_option("-O,--Format", format_fields);
  app.add_option("-o,--format", format);
  app.add_flag("--federation", ignored);
  app.add_flag("--help", help);
  app.add_flag("--hide", ignored);
  app.add_option("-i,--iterate", iterate);
  CLI::Option* jobs_option = app.add_option("-j,--jobs", jobs)->expected(0, 1);
  app.add_flag("--local", ignored);
  app.add_flag("-l,--long", options.long_format);
  app.add_option("-L,--licenses", licenses);
  app.add_option("-M,--cluster,--clusters", clusters);
  app.add_flag("--me", me);
  app.add_option("-n,--name", names);
  app.add_flag("--noconvert", ignored);
  app.add_option("-w,--node,--nodes,--nodelist", nodes);
  app.add_flag("-h,--noheader", options.no_header);
  app.add_option("-p,--partitions", partitions);
  app.add_flag("-P,--priority", ignored);
  app.add_option("-q,--qos", qos);
  app.add_option("-R,--reservation", reservation);
  app.add_flag("--sib,--sibling", ignored);
  app.add_option("-S,--sort", sort);
  app.add_flag("--start", options.start);
  CLI::Option* steps_option = app.add_option("-s,--steps", steps)->expected(0, 1);
  app.add_option("-t,--states", states);
  app.add_flag("--usage", usage);
  app.add_option("-u,--user,--users", users);
  app.add_flag("-v,--verbose", verbose);
  app.add_flag("-V,--version", version);
  app.add_flag("--json", json);
  app.add_flag("--yaml", yaml);
  app.add_option("--explain", explain);  // Skiff's: why a pending job waits
  std::vector<std::string> operands;
  if (int rc = skiff::cli::ParseGetoptCommandLine(app, kProgram, argc, argv, &operands); rc >= 0) {
    return rc;
  }
  // Options given on the command line, or (as Slurm's opts.c reads them) set
  // by SQUEUE_* environment variables where the command line is silent.
  std::set<std::string> from_env;
  auto given = [&](const char* name) {
    return app.get_option(name)->count() > 0 || from_env.count(name) > 0;
  };
  // Slurm acts on these as getopt meets them; any of them ends the command.
  if (help) {
    std::cout << skiff::cli::SqueueHelpText();
    return 0;
  }
  if (usage) {
    std::cout << skiff::cli::SqueueUsageText();
    return 0;
  }
  if (version) {
    std::cout << skiff::cli::VersionLine();
    return 0;
  }
  ReadSqueueEnvironment(
      {{"SQUEUE_ACCOUNT", "--accounts", &accounts},
       {"SQUEUE_NAMES", "--name", &names},
       {"SQUEUE_PARTITION", "--partitions", &partitions},
       {"SQUEUE_QOS", "--qos", &qos},
       {"SQUEUE_STATES", "--states", &states},
       {"SQUEUE_SORT", "--sort", &sort}},
      [&](const char* name) { return given(name) || (std::string(name) == "--user" && me); },
      &from_env);
  if (!given("--user") && !me && getenv("SQUEUE_USERS") != nullptr) {
    users = getenv("SQUEUE_USERS");
    from_env.insert("--user");
  }
  // Slurm reads SQUEUE_LICENSES only when no partition is given (opts.c).
  if (!given("--licenses") && !given("--partitions") && getenv("SQUEUE_LICENSES") != nullptr) {
    licenses = getenv("SQUEUE_LICENSES");
    from_env.insert("--licenses");
  }
  if (getenv("SQUEUE_ARRAY") != nullptr) options.array = true;
  // SQUEUE_FORMAT, else SQUEUE_FORMAT2, unless the command line chose a format.
  const bool format_chosen = given("--format") || given("--Format") || options.long_format ||
                             options.start || steps_option->count() > 0;
  if (!format_chosen && getenv("SQUEUE_FORMAT") != nullptr) {
    format = getenv("SQUEUE_FORMAT");
    from_env.insert("--format");
  } else if (!format_chosen && getenv("SQUEUE_FORMAT2") != nullptr) {
    format_fields = getenv("SQUEUE_FORMAT2");
    from_env.insert("--Format");
  }
  options.format_given = given("--format");
  options.format_fields_given = given("--Format");
  if (options.format_given && options.format_fields_given) {
    return Error(FirstFormatOption(argc, argv) == 'O'
                     ? "-o (--format) is incompatible with -O (--Format)"
                     : "-O (--Format) is incompatible with -o (--format)");
  }
  options.format = format;
  options.format_fields = format_fields;
  int iterate_seconds = 0;
  if (given("--iterate")) {
    absl::StatusOr<int> seconds = skiff::cli::ParseSqueueIterate(iterate);
    if (!seconds.ok()) return Error(std::string(seconds.status().message()));
    iterate_seconds = *seconds;
  }
  const bool jobs_flag = jobs_option->count() > 0, steps_flag = steps_option->count() > 0;
  if (options.long_format && options.format_given) {
    std::cerr << kProgram
              << ": fatal: Options -o(--format) and -l(--long) are mutually exclusive. Please "
                 "remove one and retry.\n";
    return 1;
  }
  // Operands: the job list after a bare -j, or the step list after a bare -s.
  size_t next = 0;
  if (next < operands.size() && jobs_flag && jobs.empty()) {
    jobs = operands[next++];
  } else if (next < operands.size() && steps_flag && steps.empty() && !jobs_flag) {
    steps = operands[next++];
  }
  if (next < operands.size()) {
    Error("Unrecognized option: " + operands[next]);
    std::cout << skiff::cli::SqueueUsageText();
    return 1;
  }
  if (jobs_flag && steps_flag && jobs.empty())
    return Error("Incompatible options --jobs and --steps");
  std::vector<skiff::v1::JobRef> job_refs;
  if (!jobs.empty()) {
    absl::StatusOr<std::vector<skiff::v1::JobRef>> refs = skiff::cli::ParseSqueueJobs(jobs);
    if (!refs.ok()) return Error(std::string(refs.status().message()));
    job_refs = *refs;
  }
  if (!steps.empty()) {
    if (absl::Status s = skiff::cli::CheckSqueueSteps(steps); !s.ok()) {
      return Error(std::string(s.message()));
    }
  }
  if (given("--states")) {
    absl::StatusOr<skiff::cli::SqueueStates> parsed = skiff::cli::ParseSqueueStates(states);
    if (!parsed.ok()) {
      const std::string message(parsed.status().message());
      const size_t cut = message.find('\n');
      Error(message.substr(0, cut));
      return Error(message.substr(cut + 1));
    }
    options.states_given = true;
    options.states = parsed->states;
  } else if (options.start && !steps_flag) {
    options.states_given = true;
    options.states = {skiff::v1::PENDING};  // --start is about pending jobs only
  } else if (!job_refs.empty()) {
    options.states_given = false;  // Slurm's default filter still applies
  }
  options.sort = sort;
  if (given("--sort")) {
    absl::StatusOr<skiff::cli::SqueueSort> parsed = skiff::cli::ParseSqueueSort(sort);
    if (!parsed.ok()) return Error(std::string(parsed.status().message()));
    for (const std::string& note : parsed->notes) std::cerr << kProgram << ": " << note << "\n";
  }
  options.licenses_given = given("--licenses");
  options.licenses = skiff::client::SplitCommaList(licenses);
  if (yaml) return Error("--yaml is not supported by Skiff; use --json");

  absl::StatusOr<std::unique_ptr<skiff::client::CtldClient>> client =
      skiff::client::CtldClient::Connect("");
  if (!client.ok()) return skiff::client::ReportError(kProgram, client.status());
  if (given("--explain")) return skiff::client::PrintJobExplanation(**client, kProgram, explain);
  const std::string cluster = (*client)->config().skiff.cluster_name;
  if (given("--clusters") && clusters != cluster) {
    return Error("Skiff has no multi-cluster support: -M/--clusters takes only this cluster (" +
                 cluster + ")");
  }

  skiff::v1::GetJobsRequest request;
  bool match_none = false;
  if (me) users = std::to_string(getuid());
  if (given("--user") || me) {
    int valid = 0;
    for (const std::string& user : skiff::client::SplitCommaList(users)) {
      absl::StatusOr<std::string> name = skiff::client::ResolveUserName(user);
      if (!name.ok()) {
        Error("Invalid user: " + user + "\n");  // Slurm's text, newline and all
        continue;
      }
      request.add_users(*name);
      ++valid;
    }
    if (valid == 0) match_none = true;  // Slurm then lists nobody's jobs
  }
  for (const skiff::v1::JobRef& ref : job_refs) {
    if (ref.has_array_task_id()) {
      *request.add_refs() = ref;
    } else {
      request.add_job_ids(ref.job_id());
    }
  }
  for (const std::string& p : skiff::client::SplitCommaList(partitions)) request.add_partitions(p);
  for (const std::string& n : skiff::client::SplitCommaList(names)) request.add_names(n);
  for (const std::string& a : skiff::client::SplitCommaList(accounts)) request.add_accounts(a);
  for (const std::string& q : skiff::client::SplitCommaList(qos)) request.add_qos(q);
  if (given("--nodelist")) request.add_nodes(nodes);
  if (options.states_given) {
    for (skiff::v1::JobState s : options.states) request.add_states(s);
    if (options.states.empty()) match_none = true;
  } else {
    // Finished jobs ctld still holds (MinJobAge) are not shown: not sent either.
    for (skiff::v1::JobState s : skiff::client::ActiveJobStates()) request.add_states(s);
  }
  // --json prints every field; a format that shows only what ctld keeps in
  // memory gets a summary (a fraction of the reply with large queues).
  request.set_summary(!json && skiff::cli::SqueueNeedsOnlySummary(options));
  // Without -r a waiting array is one line: one record from ctld too.
  request.set_collapse_pending_arrays(request.summary() && !options.array);

  if (verbose > 0) {
    skiff::cli::SqueueVerboseOptions v;
    v.array = options.array;
    v.start = options.start;
    v.steps_flag = steps_flag;
    v.jobs_flag = jobs_flag;
    v.iterate = iterate_seconds;
    v.verbose = verbose;
    v.format = format, v.format_set = options.format_given;
    if (options.start && !options.format_given)
      v.format = skiff::cli::kSqueueStartFormat, v.format_set = true;
    v.jobs = jobs, v.jobs_set = !jobs.empty();
    v.licenses = licenses, v.licenses_set = options.licenses_given;
    v.names = names, v.names_set = given("--name");
    v.nodes = nodes;
    v.partitions = partitions, v.partitions_set = given("--partitions");
    v.all = v.partitions_set;
    v.sort = sort.empty() && options.start ? "S" : sort,
    v.sort_set = given("--sort") || options.start;
    v.states = states.empty() && options.start ? "PD" : states;
    v.states_set = given("--states") || options.start;
    v.steps = steps, v.steps_set = !steps.empty();
    v.users = users, v.users_set = given("--user") || me;
    std::cout << skiff::cli::SqueueVerboseText(v);
  }

  while (true) {
    if (!options.no_header && (iterate_seconds > 0 || verbose > 0 || options.long_format) &&
        !json) {
      std::cout << Date() << "\n";
    }
    if (steps_flag) {
      skiff::v1::GetStepsRequest step_request;
      step_request.mutable_job_ids()->CopyFrom(request.job_ids());
      step_request.mutable_users()->CopyFrom(request.users());
      step_request.mutable_partitions()->CopyFrom(request.partitions());
      skiff::v1::GetStepsReply step_reply;
      if (!match_none) {
        absl::Status status =
            (*client)->Call(&skiff::v1::Ctld::Stub::GetSteps, step_request, &step_reply);
        if (!status.ok()) return skiff::client::ReportError(kProgram, status);
      }
      // -s LIST: only the steps named ("15.0", "15.batch").
      const std::vector<std::string> named = skiff::client::SplitCommaList(steps);
      std::vector<skiff::v1::StepInfo> shown;
      for (const skiff::v1::StepInfo& step : step_reply.steps()) {
        const std::string id = skiff::cli::SqueueStepId(step);
        const std::string plain = absl::StrCat(step.job_id(), ".", step.step().step_id());
        if (named.empty() || std::find(named.begin(), named.end(), id) != named.end() ||
            std::find(named.begin(), named.end(), plain) != named.end()) {
          shown.push_back(step);
        }
      }
      std::cout << skiff::cli::FormatSqueueSteps(
          format, options.no_header, shown,
          step_reply.now() != 0 ? step_reply.now() : time(nullptr));
    } else {
      skiff::v1::GetJobsReply reply;
      if (!match_none) {
        absl::Status status = (*client)->Call(&skiff::v1::Ctld::Stub::GetJobs, request, &reply);
        if (status.code() == absl::StatusCode::kNotFound) {
          std::cerr << "slurm_load_jobs error: Invalid job id specified\n";
          return 1;
        }
        if (status.code() == absl::StatusCode::kInvalidArgument) {
          return Error(std::string(status.message()));
        }
        if (!status.ok()) return skiff::client::ReportError(kProgram, status);
      }
      if (given("--reservation")) {
        // -R NAME[,NAME...]: only the jobs that run (or wait) in those reservations.
        const std::vector<std::string> names = skiff::client::SplitCommaList(reservation);
        auto* jobs = reply.mutable_jobs();
        jobs->erase(std::remove_if(jobs->begin(), jobs->end(),
                                   [&](const skiff::v1::JobInfo& job) {
                                     return std::find(names.begin(), names.end(),
                                                      job.spec().reservation()) == names.end();
                                   }),
                    jobs->end());
      }
      options.now = reply.now() != 0 ? reply.now() : time(nullptr);
      if (json) {
        skiff::cli::SqueueOptions every = options;
        every.array = true;  // one record per job, as Slurm's
        std::vector<const skiff::v1::JobInfo*> selected;
        for (const skiff::cli::SqueueRow& row : skiff::cli::SelectAndSortRows(reply, every)) {
          selected.push_back(row.job);
        }
        skiff::client::WriteSqueueJson(selected, cluster, [](std::string_view piece) {
          std::cout.write(piece.data(), static_cast<std::streamsize>(piece.size()));
        });
        skiff::client::ExitNow(0);
      }
      for (const std::string& e : skiff::cli::SqueueFormatFor(options).errors) Error(e);
      if (verbose > 0) {
        std::cout << "last_update_time=" << options.now << " records=" << reply.jobs_size() << "\n";
      }
      std::cout << skiff::cli::FormatSqueue(reply, options);
    }
    if (iterate_seconds <= 0) break;
    std::cout << "\n" << std::flush;
    sleep(static_cast<unsigned>(iterate_seconds));
  }
  skiff::client::ExitNow(0);  // without tearing gRPC down: scripts poll squeue
}
