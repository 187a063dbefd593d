// /slurmdb/{version}/jobs and job/{job_id}: ctld's accounting records (what
// sacct reads) as slurmdbd's job records.
#include <grp.h>

#include <ctime>
#include <optional>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/users.h"
#include "restd/slurmdb/jobs_json.h"
#include "restd/slurmdb/jobs_query.h"
#include "restd/slurmdb/slurmdb_paths.h"

namespace skiff::restd {
namespace {

int64_t LocalMidnight(int64_t now) {
  const time_t now_t = static_cast<time_t>(now);
  struct tm midnight;
  localtime_r(&now_t, &midnight);
  midnight.tm_hour = midnight.tm_min = midnight.tm_sec = 0;
  midnight.tm_isdst = -1;
  return static_cast<int64_t>(mktime(&midnight));
}

std::optional<gid_t> GidOf(const std::string& name) {
  uint32_t number = 0;
  if (absl::SimpleAtoi(name, &number)) return static_cast<gid_t>(number);
  struct group entry;
  struct group* found = nullptr;
  char buffer[4096];
  if (getgrnam_r(name.c_str(), &entry, buffer, sizeof(buffer), &found) != 0 || !found) {
    return std::nullopt;
  }
  return found->gr_gid;
}

// The records `request` selects, with the association ids their
// association_short needs; as the request's user.
HttpResponse AnswerJobs(RestCall& call, const v1::GetAccountingRequest& request, bool one_job,
                        const std::string& job_id) {
  v1::GetAccountingReply reply;
  if (absl::Status s = call.Call(&v1::Ctld::Stub::GetAccounting, request, &reply); !s.ok()) {
    return SlurmdbFailure(call, s, "jobs");
  }
  if (one_job && reply.jobs().empty()) {
    // No record, or one PrivateData=jobs hides from this user: sacct -j
    // prints nothing for either.
    return SlurmdbFoundNothing(call, "jobs", "slurmdb_jobs_get");
  }
  v1::GetAccountsReply accounts;
  if (absl::Status s = call.Call(&v1::Ctld::Stub::GetAccounts, v1::GetAccountsRequest(), &accounts);
      !s.ok()) {
    return SlurmdbFailure(call, s, "jobs");
  }
  SlurmdbJobContext context;
  context.now = reply.now() > 0 ? reply.now() : time(nullptr);
  context.assoc_ids = AssocIdsOf(accounts);
  context.user_name = [](uint32_t uid) { return UserName(uid); };
  // Written record by record, compact: a tree of every record first, then
  // its copy into the envelope, costs seconds for a year of a busy lab's jobs.
  const Json document = {{"jobs", Json::Array()},
                         {"meta", SlurmdbMeta(call)},
                         {"errors", Json::Array()},
                         {"warnings", Json::Array()}};
  HttpResponse response;
  Json::WriteWithElements(
      document, "jobs", reply.jobs_size(),
      [&](size_t i) { return SlurmdbJobJson(reply.jobs(static_cast<int>(i)), context); },
      [&](std::string_view piece) { response.body.append(piece); }, kListStyle);
  return response;
}

HttpResponse Jobs(RestCall& call) {
  JobsQueryContext context;
  context.now = time(nullptr);
  context.midnight = LocalMidnight(context.now);
  context.uid_of = [](const std::string& name) { return UidOf(name); };
  context.gid_of = GidOf;
  absl::StatusOr<v1::GetAccountingRequest> request = JobsRequestOf(call.request.query, context);
  if (!request.ok()) return SlurmdbFailure(call, request.status(), "jobs");
  return AnswerJobs(call, *request, /*one_job=*/false, "");
}

HttpResponse Job(RestCall& call) {
  const std::string& job_id = call.args.at(0);
  absl::StatusOr<v1::GetAccountingRequest> request = JobRequestOf(job_id);
  if (!request.ok()) return SlurmdbFailure(call, request.status(), "jobs");
  return AnswerJobs(call, *request, /*one_job=*/true, job_id);
}

}  // namespace

void AddJobsPaths(Router& router) {
  router.Add("GET", "/slurmdb/{version}/jobs", Jobs);
  router.Add("GET", "/slurmdb/{version}/job/{job_id}", Job);
}

}  // namespace skiff::restd
