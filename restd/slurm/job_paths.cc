// /slurm/{version}/jobs (GET, DELETE), job/{job_id} (GET, POST, DELETE) and
// job/submit (POST): squeue, scontrol update, scancel and sbatch over REST.
// ctld decides, as for the commands, who may see, change and cancel what.
#include <pwd.h>
#include <unistd.h>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "client/job_text.h"
#include "nlohmann/json.hpp"
#include "restd/data_parser/job_desc.h"
#include "restd/data_parser/job_json.h"
#include "restd/data_parser/values.h"
#include "restd/slurm/slurm_paths.h"

namespace skiff::restd {
namespace {

// What JOB_INFO_RESP and KILL_JOBS_RESP require of a failure too.
Json NoJobs() {
  return {{"jobs", Json::Array()}, {"last_backfill", NoNumber()}, {"last_update", NoNumber()}};
}
Json NoStatus() { return {{"status", Json::Array()}}; }

// The nodes by name, for job_resources and gres_detail. Kept in `reply`.
JobJsonContext ContextFor(RestCall& call, v1::GetNodesReply* reply) {
  JobJsonContext context;
  context.cluster = call.ctld.config().skiff.cluster_name;
  if (call.Call(&v1::Ctld::Stub::GetNodes, v1::GetNodesRequest(), reply).ok()) {
    for (const v1::NodeInfo& node : reply->nodes()) context.nodes[node.name()] = &node;
  }
  return context;
}

HttpResponse JobsAnswer(RestCall& call, const v1::GetJobsRequest& request) {
  v1::GetJobsReply jobs;
  if (absl::Status s = call.Call(&v1::Ctld::Stub::GetJobs, request, &jobs); !s.ok()) {
    return Failure(call, s, NoJobs());
  }
  v1::GetNodesReply nodes;
  const JobJsonContext context = ContextFor(call, &nodes);
  v1::GetStatsReply stats;
  const bool have_stats = call.Call(&v1::Ctld::Stub::GetStats, v1::GetStatsRequest(), &stats).ok();
  // Written job by job, compact: 10,000 jobs as one tree first would be a
  // million allocations held at once (see bench/restd_bench.sh).
  const Json document = {
      {"jobs", Json::Array()},
      {"last_backfill", have_stats ? Number(stats.bf_when_last_cycle()) : NoNumber()},
      {"last_update", Number(jobs.now())},
      {"meta", Meta(call)},
      {"errors", Json::Array()},
      {"warnings", Json::Array()}};
  HttpResponse response;
  response.body.reserve(static_cast<size_t>(jobs.jobs_size()) * 3072 + 4096);
  Json::WriteWithElements(
      document, "jobs", jobs.jobs_size(),
      [&](size_t i) { return JobJson(jobs.jobs(static_cast<int>(i)), context); },
      [&](std::string_view piece) { response.body.append(piece); }, kListStyle);
  return response;
}

HttpResponse GetJobs(RestCall& call) { return JobsAnswer(call, v1::GetJobsRequest()); }

HttpResponse GetJob(RestCall& call) {
  absl::StatusOr<std::vector<v1::JobRef>> refs = client::ParseJobRef(call.args[0]);
  if (!refs.ok()) return Failure(call, refs.status(), NoJobs());
  v1::GetJobsRequest request;
  for (const v1::JobRef& ref : *refs) *request.add_refs() = ref;
  return JobsAnswer(call, request);
}

// A signal as the query or body names it: "SIGUSR1", "USR1", "10"; none is
// SIGKILL (cancel).
absl::StatusOr<int> SignalOf(const std::string& text) {
  if (text.empty()) return 0;
  absl::StatusOr<int> signal = client::ParseSignal(text);
  if (!signal.ok())
    return absl::InvalidArgumentError(absl::StrCat("signal: ", signal.status().message()));
  return signal;
}

// Each result as data_parser's KILL_JOBS_RESP_JOB.
Json KillResults(const v1::CancelJobsReply& reply) {
  Json results = Json::Array();
  for (const v1::CancelJobResult& result : reply.results()) {
    const bool ok = result.code() == 0;
    results.Push({{"error",
                   {{"string", ok ? "" : result.message()},
                    {"code", result.code()},
                    {"message", ok ? "" : result.message()}}},
                  {"step_id", result.is_step() ? absl::StrCat(result.step_id()) : ""},
                  {"job_id", Number(result.job_id())},
                  {"federation", {{"sibling", ""}}}});
  }
  return results;
}

// The worst of the results, for the HTTP status: a user refused someone
// else's job hears 403, an unknown job 404.
absl::Status FirstFailure(const v1::CancelJobsReply& reply) {
  for (const v1::CancelJobResult& result : reply.results()) {
    if (result.code() != 0) {
      return absl::Status(static_cast<absl::StatusCode>(result.code()), result.message());
    }
  }
  return absl::OkStatus();
}

HttpResponse KillAnswer(RestCall& call, const v1::CancelJobsRequest& request) {
  v1::CancelJobsReply reply;
  if (absl::Status s = call.Call(&v1::Ctld::Stub::CancelJobs, request, &reply); !s.ok()) {
    return Failure(call, s, NoStatus());
  }
  Json body = {{"status", KillResults(reply)}};
  const absl::Status failed = FirstFailure(reply);
  if (failed.ok()) return Answer(call, std::move(body));
  return Failure(call, failed, std::move(body));
}

HttpResponse DeleteJob(RestCall& call) {
  absl::StatusOr<std::vector<v1::JobRef>> refs = client::ParseJobRef(call.args[0]);
  if (!refs.ok()) return Failure(call, refs.status(), NoStatus());
  absl::StatusOr<int> signal = SignalOf(call.Query("signal"));
  if (!signal.ok()) return Failure(call, signal.status(), NoStatus());
  v1::CancelJobsRequest request;
  for (const v1::JobRef& ref : *refs) *request.add_refs() = ref;
  request.set_signal(*signal);
  for (absl::string_view flag : absl::StrSplit(call.Query("flags"), ',', absl::SkipEmpty())) {
    if (flag == "BATCH_JOB") request.set_batch_only(true);
    if (flag == "FULL_JOB") request.set_full(true);
    if (flag == "HURRY") request.set_hurry(true);
  }
  return KillAnswer(call, request);
}

// DELETE /jobs with a KILL_JOBS_MSG body: these jobs, or every job of the
// filters (as scancel -u/-n/-p/-t).
HttpResponse DeleteJobs(RestCall& call) {
  const nlohmann::json body = nlohmann::json::parse(call.request.body, nullptr, false);
  if (!body.is_object()) {
    return Failure(call, absl::InvalidArgumentError("the body must be a JSON kill_jobs_msg"),
                   NoStatus());
  }
  v1::CancelJobsRequest request;
  if (body.contains("jobs")) {
    if (!body["jobs"].is_array()) {
      return Failure(call, absl::InvalidArgumentError("jobs: expected a list of job ids"),
                     NoStatus());
    }
    for (const nlohmann::json& id : body["jobs"]) {
      const std::string text = id.is_string() ? id.get<std::string>() : id.dump();
      absl::StatusOr<std::vector<v1::JobRef>> refs = client::ParseJobRef(text);
      if (!refs.ok()) return Failure(call, refs.status(), NoStatus());
      for (const v1::JobRef& ref : *refs) *request.add_refs() = ref;
    }
  }
  absl::StatusOr<int> signal = SignalOf(body.value("signal", std::string()));
  if (!signal.ok()) return Failure(call, signal.status(), NoStatus());
  request.set_signal(*signal);
  request.set_user(body.value("user_name", std::string()));
  request.set_name(body.value("job_name", std::string()));
  if (const std::string partition = body.value("partition", std::string()); !partition.empty()) {
    request.add_partitions(partition);
  }
  if (body.contains("job_state") && body["job_state"].is_array()) {
    for (const nlohmann::json& state : body["job_state"]) {
      absl::StatusOr<v1::JobState> parsed = client::ParseJobState(state.get<std::string>());
      if (!parsed.ok()) return Failure(call, parsed.status(), NoStatus());
      request.add_states(*parsed);
    }
  }
  if (request.refs().empty() && request.user().empty() && request.name().empty() &&
      request.partitions().empty() && request.states().empty()) {
    return Failure(call, absl::InvalidArgumentError("no jobs and no filter: nothing to signal"),
                   NoStatus());
  }
  return KillAnswer(call, request);
}

std::string HomeOf(const std::string& user) {
  struct passwd entry;
  struct passwd* found = nullptr;
  char buffer[4096];
  if (getpwnam_r(user.c_str(), &entry, buffer, sizeof(buffer), &found) != 0 || !found) return "/";
  return found->pw_dir;
}

std::string ShortHostName() {
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  std::string name = host;
  return name.substr(0, name.find('.'));
}

HttpResponse Submit(RestCall& call) {
  const nlohmann::json body = nlohmann::json::parse(call.request.body, nullptr, false);
  if (!body.is_object()) {
    return Failure(call, absl::InvalidArgumentError("the body must be a JSON job_submit_req"));
  }
  if (body.contains("jobs")) {
    return Failure(call, absl::InvalidArgumentError(
                             "jobs: heterogeneous jobs are not supported by Skiff; send \"job\""));
  }
  if (!body.contains("job")) {
    return Failure(call, absl::InvalidArgumentError("job: the job description is required"));
  }
  nlohmann::json desc = body["job"];
  // The deprecated top-level script still works, as in slurmrestd.
  if (body.contains("script") && desc.is_object() && !desc.contains("script")) {
    desc["script"] = body["script"];
  }
  absl::StatusOr<ParsedJobDesc> parsed =
      JobSpecFromDesc(desc, {HomeOf(call.user_name), ShortHostName()});
  if (!parsed.ok()) return Failure(call, parsed.status());
  v1::SubmitJobRequest request;
  *request.mutable_spec() = parsed->spec;
  v1::SubmitJobReply reply;
  if (absl::Status s = call.Call(&v1::Ctld::Stub::SubmitJob, request, &reply); !s.ok()) {
    return Failure(call, s);
  }
  Json warnings = Json::Array();
  for (const std::string& warning : parsed->warnings) {
    warnings.Push({{"description", warning}, {"source", "job"}});
  }
  return Answer(call, {{"job_id", reply.job_id()},
                       {"step_id", "batch"},
                       {"job_submit_user_msg", absl::StrJoin(reply.warnings(), "\n")},
                       {"warnings", std::move(warnings)}});
}

// POST /job/{job_id}: scontrol update of the job (or of every task of an
// array named by its id), as its owner or an operator; ctld decides.
HttpResponse UpdateJob(RestCall& call) {
  const Json no_results = {{"results", Json::Array()}};
  if (absl::StrContains(call.args[0], '_')) {
    return Failure(call,
                   absl::InvalidArgumentError("Rejecting request. Submit job update against Array "
                                              "Job's JobID instead of array task id."),
                   no_results);
  }
  absl::StatusOr<uint64_t> id = client::ParseJobId(call.args[0]);
  if (!id.ok()) return Failure(call, id.status(), no_results);
  absl::StatusOr<ParsedJobUpdate> update =
      JobUpdateFromDesc(nlohmann::json::parse(call.request.body, nullptr, false));
  if (!update.ok()) return Failure(call, update.status(), no_results);
  update->request.set_job_id(*id);
  v1::UpdateJobReply reply;
  if (absl::Status s = call.Call(&v1::Ctld::Stub::UpdateJob, update->request, &reply); !s.ok()) {
    return Failure(call, s, no_results);
  }
  Json warnings = Json::Array();
  for (const std::string& warning : update->warnings) {
    warnings.Push({{"description", warning}, {"source", "job"}});
  }
  return Answer(call, {{"results", Json::Array()}, {"warnings", std::move(warnings)}});
}

}  // namespace

void AddJobPaths(Router& router) {
  router.Add("GET", "/slurm/{version}/jobs", GetJobs);
  router.Add("DELETE", "/slurm/{version}/jobs", DeleteJobs);
  router.Add("GET", "/slurm/{version}/job/{job_id}", GetJob);
  router.Add("DELETE", "/slurm/{version}/job/{job_id}", DeleteJob);
  router.Add("POST", "/slurm/{version}/job/{job_id}", UpdateJob);
  router.Add("POST", "/slurm/{version}/job/submit", Submit);
}

}  // namespace skiff::restd
