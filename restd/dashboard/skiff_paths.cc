#include "restd/dashboard/skiff_paths.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "client/job_text.h"
#include "client/status_report.h"
#include "nlohmann/json.hpp"
#include "restd/dashboard/caller_files.h"
#include "restd/dashboard/gpu_usage_json.h"
#include "restd/dashboard/output_tail.h"

namespace skiff::restd {
namespace {

// A value nlohmann read as client::Json, keys in nlohmann's (sorted) order.
Json Written(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::boolean:
      return value.get<bool>();
    case nlohmann::json::value_t::number_integer:
      return value.get<int64_t>();
    case nlohmann::json::value_t::number_unsigned:
      return value.get<uint64_t>();
    case nlohmann::json::value_t::number_float:
      return value.get<double>();
    case nlohmann::json::value_t::string:
      return value.get<std::string>();
    case nlohmann::json::value_t::array: {
      Json array = Json::Array();
      for (const nlohmann::json& element : value) array.Push(Written(element));
      return array;
    }
    case nlohmann::json::value_t::object: {
      Json object = Json::Object();
      for (const auto& [key, member] : value.items()) object.Add(key, Written(member));
      return object;
    }
    default:
      return nullptr;
  }
}

HttpResponse GetStatus(RestCall& call) {
  client::SstatusInput input;
  input.cluster_name = call.ctld.config().skiff.cluster_name;
  input.user = call.Query("user").empty() ? call.user_name : call.Query("user");
  if (absl::Status s = call.Call(&v1::Ctld::Stub::GetNodes, v1::GetNodesRequest(), &input.nodes);
      !s.ok()) {
    return Failure(call, s);
  }
  v1::GetJobsRequest jobs;
  jobs.add_users(input.user);
  for (v1::JobState state : client::ActiveJobStates()) jobs.add_states(state);
  if (absl::Status s = call.Call(&v1::Ctld::Stub::GetJobs, jobs, &input.jobs); !s.ok()) {
    return Failure(call, s);
  }
  if (absl::Status s = call.Call(&v1::Ctld::Stub::GetQos, v1::GetQosRequest(), &input.qos);
      !s.ok()) {
    return Failure(call, s);
  }
  if (absl::Status s =
          call.Call(&v1::Ctld::Stub::GetAccounts, v1::GetAccountsRequest(), &input.accounts);
      !s.ok()) {
    return Failure(call, s);
  }
  // The same values as `sstatus --json`, inside slurmrestd's envelope: its
  // text read back (client/status_report.h gives the report as text only).
  const nlohmann::json report = nlohmann::json::parse(
      client::FormatSstatusJson(client::BuildSstatusReport(input)), nullptr, false);
  if (!report.is_object()) {
    return Failure(call, absl::InternalError("sstatus's report is not a JSON object"));
  }
  return Answer(call, Written(report));
}

// The job's output file's last lines, read as the caller.
HttpResponse GetOutput(RestCall& call) {
  uint64_t job_id = 0;
  if (!absl::SimpleAtoi(call.args[0], &job_id) || job_id == 0) {
    return Failure(
        call, absl::InvalidArgumentError(absl::StrCat("Invalid job id specified: ", call.args[0])));
  }
  absl::StatusOr<int> lines = ParseTailLines(call.Query("lines"));
  if (!lines.ok()) return Failure(call, lines.status());

  // Who the caller is, as ctld decoded their credential: restd trusts no
  // claim of its own.
  v1::PingReply ping;
  if (absl::Status s = call.Call(&v1::Ctld::Stub::Ping, v1::PingRequest(), &ping); !s.ok()) {
    return Failure(call, s);
  }
  // ctld sends a job's script only to its owner and to operators, so a script
  // in the answer is ctld saying the caller may see the job's private parts.
  v1::GetJobsRequest request;
  request.add_job_ids(job_id);
  request.set_with_script(true);
  v1::GetJobsReply reply;
  if (absl::Status s = call.Call(&v1::Ctld::Stub::GetJobs, request, &reply); !s.ok()) {
    return Failure(call, s);
  }
  const v1::JobInfo* job = nullptr;
  for (const v1::JobInfo& candidate : reply.jobs()) {
    if (candidate.job_id() == job_id) job = &candidate;
  }
  if (job == nullptr) return Failure(call, absl::NotFoundError("Invalid job id specified"));
  const bool owner = job->user_id() == ping.caller_uid();
  const bool operator_or_root = ping.caller_uid() == 0 || !job->spec().script().empty();
  if (!owner && !operator_or_root) {
    return Failure(call, absl::PermissionDeniedError(absl::StrCat(
                             "Job ", job_id, "'s output is only for its owner and operators")));
  }
  const std::string path = job->stdout_path();
  if (path.empty()) {
    return Failure(call, absl::NotFoundError(absl::StrCat("Job ", job_id, " has no output file")));
  }

  absl::StatusOr<FileIdentity> caller = IdentityOf(ping.caller_uid(), ping.caller_gid());
  if (!caller.ok()) return Failure(call, caller.status());
  absl::StatusOr<int> fd = OpenAs(*caller, path);
  if (!fd.ok()) return Failure(call, fd.status());
  struct stat st;
  std::string window;
  int64_t offset = 0;
  absl::Status read_status;
  if (fstat(*fd, &st) == 0) {
    offset = TailReadOffset(st.st_size);
    window.resize(st.st_size - offset);
    size_t done = 0;
    while (done < window.size()) {
      const ssize_t n = pread(*fd, window.data() + done, window.size() - done, offset + done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        read_status =
            absl::InternalError(absl::StrCat("cannot read ", path, ": ", strerror(errno)));
        break;
      }
      if (n == 0) break;  // the file shrank under us: show what there is
      done += n;
    }
    window.resize(done);
  } else {
    read_status = absl::InternalError(absl::StrCat("cannot stat ", path, ": ", strerror(errno)));
  }
  close(*fd);
  if (!read_status.ok()) return Failure(call, read_status);
  OutputTail tail = TailOf(window, offset, *lines);
  return Answer(call, {{"job_id", job_id},
                       {"path", path},
                       {"size", static_cast<int64_t>(st.st_size)},
                       {"lines", *lines},
                       {"truncated", tail.truncated},
                       {"output", std::move(tail.text)}});
}

// The running jobs' GPU figures the caller may see (ctld sends them for the
// caller's own jobs, and every job's to operators).
HttpResponse GetGpuUsage(RestCall& call) {
  v1::GetJobsRequest request;
  request.add_states(v1::RUNNING);
  v1::GetJobsReply reply;
  if (absl::Status s = call.Call(&v1::Ctld::Stub::GetJobs, request, &reply); !s.ok()) {
    return Failure(call, s);
  }
  return Answer(call, GpuUsageJson(reply));
}

}  // namespace

void AddSkiffPaths(Router& router) {
  router.Add("GET", "/skiff/v1/status", GetStatus);
  router.Add("GET", "/skiff/v1/job/{job_id}/output", GetOutput);
  router.Add("GET", "/skiff/v1/gpu_usage", GetGpuUsage);
}

}  // namespace skiff::restd
