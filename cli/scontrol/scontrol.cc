// scontrol: view and change jobs, nodes, partitions and the configuration, as
// Slurm's scontrol (the subset Skiff supports).

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cli/command.h"
#include "cli/common/getopt_args.h"
#include "cli/scontrol/assoc_mgr_format.h"
#include "cli/scontrol/scontrol_commands.h"
#include "cli/scontrol/scontrol_delete.h"
#include "cli/scontrol/scontrol_format.h"
#include "cli/scontrol/scontrol_help.h"
#include "cli/scontrol/scontrol_reservation.h"
#include "client/ctld_client.h"
#include "client/job_text.h"
#include "client/jobs_json.h"
#include "client/nodes_json.h"
#include "common/hostlist.h"
#include "common/users.h"

namespace {

constexpr char kProgram[] = "scontrol";
using skiff::v1::Ctld;

int Fail(const absl::Status& status) { return skiff::client::ReportError(kProgram, status); }

int ShowJobs(skiff::client::CtldClient& client, const std::vector<std::string>& args,
             const skiff::cli::ShowOptions& options) {
  skiff::v1::GetJobsRequest request;
  if (!args.empty()) {
    absl::StatusOr<skiff::v1::GetJobsRequest> parsed = skiff::cli::ShowJobRequest(args[0]);
    if (!parsed.ok()) {
      std::cerr << "scontrol_print_job error: " << parsed.status().message() << "\n";
      return 1;
    }
    request = *parsed;
  }
  request.set_with_details(options.details > 0);
  skiff::v1::GetJobsReply reply;
  absl::Status status = client.Call(&Ctld::Stub::GetJobs, request, &reply);
  if ((status.code() == absl::StatusCode::kNotFound && !args.empty()) ||
      (status.ok() && !args.empty() && reply.jobs_size() == 0)) {
    // "J_T" of an array that exists without that task (one cancelled before
    // it started): Slurm's words for a task missing from its array.
    if (request.refs_size() == 1 && request.refs(0).has_array_task_id()) {
      skiff::v1::GetJobsRequest array;
      array.add_job_ids(request.refs(0).job_id());
      skiff::v1::GetJobsReply found;
      if (client.Call(&Ctld::Stub::GetJobs, array, &found).ok() && found.jobs_size() > 0) {
        std::cout << "Job " << request.refs(0).job_id() << "_" << request.refs(0).array_task_id()
                  << " not found\n";
        return 1;
      }
    }
    std::cerr << "slurm_load_jobs error: Invalid job id specified\n";
    return 1;
  }
  if (!status.ok()) return Fail(status);
  if (options.json) {
    std::vector<const skiff::v1::JobInfo*> jobs;
    for (const skiff::v1::JobInfo& job : reply.jobs()) jobs.push_back(&job);
    skiff::client::WriteSqueueJson(
        jobs, client.config().skiff.cluster_name, [](std::string_view piece) {
          std::cout.write(piece.data(), static_cast<std::streamsize>(piece.size()));
        });
    return 0;
  }
  skiff::cli::ShowOptions o = options;
  o.now = reply.now() != 0 ? reply.now() : time(nullptr);
  std::cout << skiff::cli::FormatJobRecords(reply, o);
  return 0;
}

// show step [JOB[_TASK][.STEP]]: the running steps, as Slurm prints them.
int ShowSteps(skiff::client::CtldClient& client, const std::vector<std::string>& args,
              const skiff::cli::ShowOptions& options) {
  skiff::v1::GetStepsRequest request;
  std::string job_text, step_text;
  int64_t array_task = -1;
  if (!args.empty()) {
    const std::string& id = args[0];
    const size_t dot = id.find('.');
    job_text = id.substr(0, dot);
    if (dot != std::string::npos) step_text = id.substr(dot + 1);
    const size_t under = job_text.find('_');
    uint64_t job_id = std::strtoull(job_text.c_str(), nullptr, 10);
    if (under != std::string::npos) {
      array_task = std::strtol(job_text.c_str() + under + 1, nullptr, 10);
    }
    request.add_job_ids(job_id);
  }
  skiff::v1::GetStepsReply reply;
  if (absl::Status status = client.Call(&Ctld::Stub::GetSteps, request, &reply); !status.ok()) {
    std::cerr << "slurm_get_job_steps error: " << status.message() << "\n";
    return 1;
  }
  int printed = 0;
  for (const skiff::v1::StepInfo& step : reply.steps()) {
    if (array_task >= 0 && step.array_task_id() != array_task) continue;
    if (!step_text.empty() && step.step().step_id() != step_text) continue;
    std::cout << skiff::cli::FormatStepRecord(step, options);
    ++printed;
  }
  if (printed > 0) return 0;
  if (args.empty()) {
    std::cout << "No job steps in the system\n";
    return 0;
  }
  std::cout << "Job step " << job_text << "." << step_text << " not found\n";
  return 1;
}

// write batch_script JOBID [FILE|-]: the script as stored by ctld, which sends
// it only to the job's owner and operators (Slurm's rule).
int WriteBatchScript(skiff::client::CtldClient& client, const std::vector<std::string>& args) {
  if (args.empty() || args.size() > 2) {
    std::cerr << (args.empty() ? "too few" : "too many") << " arguments for keyword:write\n";
    return 1;
  }
  absl::StatusOr<uint64_t> id = skiff::client::ParseJobId(args[0]);
  if (!id.ok()) return Fail(id.status());
  skiff::v1::GetJobsRequest request;
  request.add_job_ids(*id);
  request.set_with_script(true);
  skiff::v1::GetJobsReply reply;
  absl::Status status = client.Call(&Ctld::Stub::GetJobs, request, &reply);
  std::string why;
  if (status.code() == absl::StatusCode::kNotFound || (status.ok() && reply.jobs_size() == 0)) {
    why = "Invalid job id specified";
  } else if (!status.ok()) {
    return Fail(status);
  } else if (reply.jobs(0).spec().script().empty()) {
    why = "Access/permission denied";
  }
  if (!why.empty()) {
    std::cerr << "job script retrieval failed: " << why << "\n";
    return 1;
  }
  const std::string& script = reply.jobs(0).spec().script();
  const std::string file = args.size() > 1 ? args[1] : absl::StrCat("slurm-", *id, ".sh");
  if (file == "-") {
    std::cout << script;
    return 0;
  }
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << script;
  out.close();
  if (!out) {
    std::cerr << "failed to open file `" << file << "`: " << strerror(errno) << "\n";
    return 1;
  }
  std::cout << "batch script for job " << *id << " written to " << file << "\n";
  return 0;
}

// show hostnames [LIST] / hostlist LIST / hostlistsorted LIST (LIST "-" or a
// path starting with '/': names read from that file, one per line or commas).
int ShowHosts(const std::string& entity, const std::vector<std::string>& args) {
  std::string list;
  if (!args.empty()) {
    list = args[0];
  } else if (entity == "hostnames") {
    const char* env = getenv("SLURM_NODELIST");
    if (env != nullptr) list = env;
  } else {
    std::cerr << "invalid encode argument\n";
    return 1;
  }
  if (entity != "hostnames" && (list == "-" || (!list.empty() && list[0] == '/'))) {
    std::ifstream in(list == "-" ? "/dev/stdin" : list);
    if (!in) {
      std::cerr << "Can not open " << list << "\n";
      return 1;
    }
    std::stringstream text;
    text << in.rdbuf();
    list = std::string(absl::StripTrailingAsciiWhitespace(text.str()));
  }
  absl::StatusOr<std::string> out =
      entity == "hostnames" ? skiff::cli::ShowHostnames(list)
                            : skiff::cli::EncodeHostlist(list, entity == "hostlistsorted");
  if (!out.ok()) {
    if (entity == "hostnames" && list.empty()) {
      std::cerr << "scontrol: error: " << out.status().message() << "\n";
    } else {
      std::cerr << out.status().message() << "\n";
    }
    return 1;
  }
  std::cout << *out;
  return 0;
}

int ShowNodes(skiff::client::CtldClient& client, const std::vector<std::string>& args,
              const skiff::cli::ShowOptions& options) {
  skiff::v1::GetNodesRequest request;
  if (!args.empty()) {
    absl::StatusOr<std::vector<std::string>> names = skiff::ExpandHostlist(args[0]);
    if (!names.ok()) return Fail(names.status());
    for (const std::string& n : *names) request.add_names(n);
  }
  skiff::v1::GetNodesReply reply;
  absl::Status status = client.Call(&Ctld::Stub::GetNodes, request, &reply);
  if ((status.code() == absl::StatusCode::kNotFound || (status.ok() && reply.nodes_size() == 0)) &&
      !args.empty()) {
    std::cout << "Node " << args[0] << " not found\n";
    return 1;
  }
  if (!status.ok()) return Fail(status);
  if (options.json) {
    std::cout << skiff::client::NodesJson(reply, skiff::LookUpUserName).Dump();
    return 0;
  }
  for (const skiff::v1::NodeInfo& node : reply.nodes()) {
    std::cout << skiff::cli::FormatNodeRecord(node, options, client.config().skiff.slurmd_port);
  }
  return 0;
}

int ShowPartitions(skiff::client::CtldClient& client, const std::vector<std::string>& args,
                   const skiff::cli::ShowOptions& options) {
  skiff::v1::GetPartitionsRequest request;
  if (!args.empty()) request.add_names(args[0]);
  skiff::v1::GetPartitionsReply reply;
  absl::Status status = client.Call(&Ctld::Stub::GetPartitions, request, &reply);
  if ((status.code() == absl::StatusCode::kNotFound ||
       (status.ok() && reply.partitions_size() == 0)) &&
      !args.empty()) {
    std::cout << "Partition " << args[0] << " not found\n";
    return 1;
  }
  if (!status.ok()) return Fail(status);
  if (options.json) {
    skiff::v1::GetNodesReply nodes;
    status = client.Call(&Ctld::Stub::GetNodes, skiff::v1::GetNodesRequest(), &nodes);
    if (!status.ok()) return Fail(status);
    std::cout << skiff::client::PartitionsJson(reply, nodes).Dump();
    return 0;
  }
  // Slurm counts the burst-buffer pools in every partition's TRES.
  skiff::cli::ShowOptions o = options;
  skiff::v1::GetBurstBuffersReply bb;
  if (client.Call(&Ctld::Stub::GetBurstBuffers, skiff::v1::GetBurstBuffersRequest(), &bb).ok() &&
      bb.enabled()) {
    for (const skiff::v1::BbPoolInfo& pool : bb.pools()) o.bb_total_bytes += pool.total_bytes();
  }
  std::cout << skiff::cli::FormatPartitionRecords(reply, o);
  return 0;
}

// "show licenses [NAME]".
int ShowLicenses(skiff::client::CtldClient& client, const std::vector<std::string>& args,
                 const skiff::cli::ShowOptions& options) {
  skiff::v1::GetLicensesReply reply;
  absl::Status status =
      client.Call(&Ctld::Stub::GetLicenses, skiff::v1::GetLicensesRequest(), &reply);
  if (!status.ok()) {
    std::cerr << "slurm_load_license error: " << status.message() << "\n";
    return 1;
  }
  std::cout << skiff::cli::FormatLicenses(reply, args.empty() ? "" : args[0], options);
  return 0;
}

// "show burst": nothing at all when no burst-buffer plugin is configured.
int ShowBurstBuffers(skiff::client::CtldClient& client, const skiff::cli::ShowOptions& options) {
  skiff::v1::GetBurstBuffersReply reply;
  absl::Status status =
      client.Call(&Ctld::Stub::GetBurstBuffers, skiff::v1::GetBurstBuffersRequest(), &reply);
  if (!status.ok()) {
    std::cerr << "slurm_load_burst_buffer_info error: " << status.message() << "\n";
    return 1;
  }
  skiff::cli::ShowOptions o = options;
  o.now = time(nullptr);
  std::cout << skiff::cli::FormatBurstBuffers(reply, o);
  return 0;
}

// "show bbstat WORDS...": the Lua script's slurm_bb_get_status message.
int ShowBbStatus(skiff::client::CtldClient& client, const std::vector<std::string>& args) {
  skiff::v1::GetBbStatusRequest request;
  for (const std::string& arg : args) request.add_args(arg);
  skiff::v1::GetBbStatusReply reply;
  absl::Status status = client.Call(&Ctld::Stub::GetBbStatus, request, &reply);
  if (!status.ok()) {
    std::cerr << "slurm_load_burst_buffer_stat error: " << status.message() << "\n";
    return 1;
  }
  std::cout << skiff::cli::FormatBbStatus(reply);
  return 0;
}

bool Ping(skiff::client::CtldClient& client) {
  skiff::v1::PingReply reply;
  return client.Call(&Ctld::Stub::Ping, skiff::v1::PingRequest(), &reply).ok();
}

// notify JOBID MESSAGE...: to the batch job's error output.
int Notify(const std::vector<std::string>& args) {
  if (args.size() < 2) {
    std::cerr << "too few arguments for keyword:notify\n";
    return 1;
  }
  absl::StatusOr<std::vector<skiff::v1::JobRef>> ids = skiff::cli::ParseJobIdArgs({args[0]});
  if (!ids.ok() || ids->size() != 1 || (*ids)[0].has_array_task_id()) {
    std::cerr << "Invalid job id " << args[0] << "\n";
    return 1;
  }
  std::string message;
  for (size_t i = 1; i < args.size(); ++i) message += (i > 1 ? " " : "") + args[i];
  absl::StatusOr<std::unique_ptr<skiff::client::CtldClient>> client =
      skiff::client::CtldClient::Connect("");
  if (!client.ok()) return Fail(client.status());
  skiff::v1::JobNotifyRequest request;
  request.set_job_id((*ids)[0].job_id());
  request.set_message(message);
  skiff::v1::JobNotifyReply reply;
  absl::Status status = (*client)->Call(&Ctld::Stub::NotifyJob, request, &reply);
  if (!status.ok()) {
    if (status.code() == absl::StatusCode::kUnavailable ||
        status.code() == absl::StatusCode::kDeadlineExceeded) {
      return Fail(status);
    }
    std::cerr << "notify message failure: " << status.message() << "\n";
    return 1;
  }
  return 0;
}

// show assoc_mgr: the accounts tree with what jobs hold, and the QOS.
int ShowAssocMgr(skiff::client::CtldClient& client, const skiff::cli::AssocMgrRequest& request,
                 const skiff::cli::ShowOptions& options) {
  skiff::v1::GetAccountsReply accounts;
  absl::Status status =
      client.Call(&Ctld::Stub::GetAccounts, skiff::v1::GetAccountsRequest(), &accounts);
  if (!status.ok()) return Fail(status);
  skiff::v1::GetQosReply qos;
  status = client.Call(&Ctld::Stub::GetQos, skiff::v1::GetQosRequest(), &qos);
  if (!status.ok()) return Fail(status);
  std::cout << skiff::cli::FormatAssocMgr(accounts, qos, request, options.one_liner,
                                          [](const std::string& user) -> int64_t {
                                            std::optional<uid_t> uid = skiff::UidOf(user);
                                            return uid ? static_cast<int64_t>(*uid) : -1;
                                          });
  return 0;
}

// scontrol token [lifespan=SECONDS|infinite] [username=USER]: Slurm's
// SLURM_JWT=... line (AuthAltTypes=auth/jwt), its texts on failure.
int FetchToken(const std::vector<std::string>& args) {
  skiff::v1::RequestTokenRequest request;
  for (const std::string& arg : args) {
    if (absl::StartsWithIgnoreCase(arg, "lifespan=")) {
      const std::string value = arg.substr(9);
      int64_t seconds = 0;
      if (absl::EqualsIgnoreCase(value, "infinite") || absl::EqualsIgnoreCase(value, "unlimited")) {
        seconds = std::numeric_limits<int>::max() - 1;
      } else if (!absl::SimpleAtoi(value, &seconds) || seconds < 0) {
        std::cerr << "scontrol: error: Invalid numeric value \"" << value << "\" for lifespan.\n";
        return 1;
      }
      request.set_lifespan(seconds);
    } else if (absl::StartsWithIgnoreCase(arg, "username=")) {
      request.set_username(arg.substr(9));
    } else {
      std::cerr << "Invalid option: `" << arg << "`\n";
      return 1;
    }
  }
  absl::StatusOr<std::unique_ptr<skiff::client::CtldClient>> connected =
      skiff::client::CtldClient::Connect("");
  if (!connected.ok()) return Fail(connected.status());
  skiff::v1::RequestTokenReply reply;
  if (absl::Status s = (*connected)->Call(&skiff::v1::Ctld::Stub::RequestToken, request, &reply);
      !s.ok()) {
    std::cerr << "scontrol: error: slurm_fetch_token: error with request: " << s.message() << "\n";
    return 1;
  }
  std::cout << "SLURM_JWT=" << reply.token() << "\n";
  return 0;
}

int ShowConfig(skiff::client::CtldClient& client) {
  skiff::v1::GetConfigReply reply;
  absl::Status status = client.Call(&Ctld::Stub::GetConfig, skiff::v1::GetConfigRequest(), &reply);
  if (!status.ok()) return Fail(status);
  std::cout << skiff::cli::FormatConfig(reply, time(nullptr), client.config().skiff.ctld_host,
                                        Ping(client));
  return 0;
}

// One UpdateJob call; prints Slurm's error lines on failure.
bool UpdateJob(skiff::client::CtldClient& client, const skiff::v1::UpdateJobRequest& request,
               const std::string& command) {
  skiff::v1::UpdateJobReply reply;
  absl::Status status = client.Call(&Ctld::Stub::UpdateJob, request, &reply);
  if (status.ok()) return true;
  if (status.code() == absl::StatusCode::kUnavailable ||
      status.code() == absl::StatusCode::kDeadlineExceeded ||
      status.code() == absl::StatusCode::kUnimplemented) {
    Fail(status);
  } else {
    skiff::v1::JobRef ref;
    ref.set_job_id(request.job_id());
    if (request.has_array_task_id()) ref.set_array_task_id(request.array_task_id());
    std::cerr << skiff::cli::DescribeUpdateError(skiff::client::JobRefText(ref), status, command);
  }
  return false;
}

// Slurm prints its own checks of a partition update as errors of scontrol,
// and the controller's refusals as "slurm_update error: <text>".
int UpdatePartition(skiff::client::CtldClient& client,
                    const skiff::v1::UpdatePartitionRequest& request) {
  skiff::v1::UpdatePartitionReply reply;
  absl::Status status = client.Call(&Ctld::Stub::UpdatePartition, request, &reply);
  if (status.ok()) return 0;
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
      for (absl::string_view line : absl::StrSplit(status.message(), '\n')) {
        std::cerr << "scontrol: error: " << line << "\n";
      }
      return 1;
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kPermissionDenied:
    case absl::StatusCode::kFailedPrecondition:
      std::cerr << "slurm_update error: " << status.message() << "\n";
      return 1;
    default:
      return Fail(status);
  }
}

// An admin call's failure as Slurm's scontrol prints it: ctld not reached
// as every command says it; refused as "<slurm_error>: <text>". Exit 1.
int AdminCallFailed(const absl::Status& status, const char* slurm_error) {
  if (status.code() == absl::StatusCode::kUnavailable ||
      status.code() == absl::StatusCode::kDeadlineExceeded) {
    return Fail(status);
  }
  std::cerr << slurm_error << ": " << status.message() << "\n";
  return 1;
}

// scontrol reconfigure: nothing on success (notes on stderr), Slurm's
// "slurm_reconfigure error: <text>" and exit 1 when refused.
int Reconfigure(skiff::client::CtldClient& client) {
  skiff::v1::ReconfigureReply reply;
  absl::Status status =
      client.Call(&Ctld::Stub::Reconfigure, skiff::v1::ReconfigureRequest(), &reply);
  if (!status.ok()) return AdminCallFailed(status, "slurm_reconfigure error");
  for (const std::string& note : reply.notes()) std::cerr << "scontrol: warning: " << note << "\n";
  return 0;
}

// scontrol takeover [INDEX] (issue 53): the serving controller hands over to
// a standby; Slurm's checks of INDEX and its "slurm_takeover error". Which
// standby serves next is etcd's election: the first to campaign.
int Takeover(skiff::client::CtldClient& client, const std::vector<std::string>& args) {
  const int count = static_cast<int>(client.controller_count());
  if (args.size() > 1) {
    std::cerr << "takeover: too many arguments\n";
    return 1;
  }
  if (args.size() == 1) {
    int index = 0;
    if (!absl::SimpleAtoi(args[0], &index) || index < 1 || index >= count) {
      std::cerr << "takeover: invalid backup controller index (" << atoi(args[0].c_str()) << ")\n";
      return 1;
    }
  }
  skiff::v1::TakeoverReply reply;
  absl::Status status = client.Call(&Ctld::Stub::Takeover, skiff::v1::TakeoverRequest(), &reply);
  return status.ok() ? 0 : AdminCallFailed(status, "slurm_takeover error");
}

// scontrol show reservation [NAME]: Slurm's records, or its words for none.
int ShowReservations(skiff::client::CtldClient& client, const std::vector<std::string>& args,
                     const skiff::cli::ShowOptions& options) {
  skiff::v1::GetReservationsReply reply;
  absl::Status status =
      client.Call(&Ctld::Stub::GetReservations, skiff::v1::GetReservationsRequest(), &reply);
  if (!status.ok()) {
    std::cerr << "slurm_load_reservations error: " << status.message() << "\n";
    return 1;
  }
  int printed = 0;
  for (const skiff::v1::ReservationInfo& resv : reply.reservations()) {
    if (!args.empty() && resv.name() != args[0]) continue;
    std::cout << skiff::cli::FormatReservation(resv, options.one_liner);
    ++printed;
  }
  if (printed > 0) return 0;
  if (!args.empty()) {
    std::cout << "Reservation " << args[0] << " not found\n";
    return 1;
  }
  std::cout << "No reservations in the system\n";
  return 0;
}

// scontrol create reservation / update ReservationName=: Slurm's own checks
// as "scontrol: error: ..." lines, ctld's refusals after Slurm's prefix.
int CreateOrUpdateReservation(skiff::client::CtldClient& client,
                              const skiff::v1::UpdateReservationRequest& request) {
  const bool create = request.op() == skiff::v1::UpdateReservationRequest::CREATE;
  skiff::v1::UpdateReservationReply reply;
  absl::Status status = client.Call(&Ctld::Stub::UpdateReservation, request, &reply);
  if (status.code() == absl::StatusCode::kUnavailable ||
      status.code() == absl::StatusCode::kDeadlineExceeded) {
    return Fail(status);
  }
  if (!status.ok()) {
    std::cerr << (create ? "Error creating the reservation: " : "Error updating the reservation: ")
              << status.message() << "\n";
    // scontrol's update then reports the same error once more, as Slurm's does.
    if (!create) std::cerr << "slurm_update error: " << status.message() << "\n";
    if (create && status.message() == "Requested nodes are busy") {
      std::cout << "Note, unless nodes are directly requested a reservation must exist in a "
                   "single partition.\nIf no partition is requested the default partition is "
                   "assumed.\n";
    }
    return 1;
  }
  if (create) {
    std::cout << "Reservation created: " << reply.name() << "\n";
  } else {
    std::cout << "Reservation updated.\n";
  }
  return 0;
}

int Update(skiff::client::CtldClient& client, const skiff::cli::UpdateCommand& command) {
  if (command.is_partition) return UpdatePartition(client, command.partition);
  if (command.is_node) {
    skiff::v1::UpdateNodeReply reply;
    absl::Status status = client.Call(&Ctld::Stub::UpdateNode, command.node, &reply);
    if (status.ok()) return 0;
    std::string text(status.message());
    if (status.code() == absl::StatusCode::kNotFound) text = "Invalid node name specified";
    if (status.code() == absl::StatusCode::kPermissionDenied) text = "Access/permission denied";
    std::cerr << "slurm_update error: " << text << "\n";
    return 1;
  }
  int rc = 0;
  for (const skiff::v1::UpdateJobRequest& request : command.jobs) {
    if (!UpdateJob(client, request, "update")) rc = 1;
  }
  return rc;
}

}  // namespace

int skiff::cli::ScontrolMain(int argc, char** argv) {
  CLI::App app{"scontrol"};
  app.set_help_flag();  // --help is Slurm's text (scontrol_help.h)
  skiff::cli::ShowOptions options;
  bool help = false, version = false, quiet = false, all = false, future = false, hide = false,
       local = false, sibling = false, federation = false;
  int details = 0, verbose = 0;
  std::string clusters, uid;
  app.add_flag("-h,--help,--usage", help);
  app.add_flag("-a,--all", all, "accepted for Slurm compatibility (Skiff hides nothing)");
  app.add_flag("-d,--details", details, "more detail (-dd: even more)");
  app.add_flag("-F,--future", future, "accepted for Slurm compatibility");
  app.add_flag("--hide", hide, "accepted for Slurm compatibility");
  app.add_flag("--local", local, "accepted for Slurm compatibility");
  app.add_flag("--sibling", sibling, "accepted for Slurm compatibility");
  app.add_flag("--federation", federation, "accepted for Slurm compatibility");
  app.add_option("-M,--clusters,--cluster", clusters, "clusters (Skiff manages one)");
  app.add_flag("-o,--oneliner", options.one_liner, "one line per record");
  app.add_flag("--json", options.json,
               "show job|node|partition as Slurm 22.05's JSON (OpenAPI v0.0.38)");
  app.add_flag("-Q,--quiet", quiet, "print no warnings");
  app.add_option("-u,--uid", uid, "act as this user (root only)");
  app.add_flag("-v,--verbose", verbose, "more messages");
  app.add_flag("-V,--version", version, "print the version and exit");
  // Options may come before or after the command ("scontrol show job -d 5"),
  // as getopt permutes Slurm's command lines.
  std::vector<std::string> words;
  if (int rc = skiff::cli::ParseGetoptCommandLine(app, kProgram, argc, argv, &words); rc >= 0) {
    return rc;
  }
  options.details = details;
  if (skiff::cli::PrintAskedInfo({version, help, false}, &skiff::cli::ScontrolHelp, nullptr)) {
    return 0;
  }
  if (!clusters.empty()) {
    return Fail(
        absl::InvalidArgumentError("Skiff manages one cluster; -M/--clusters is not supported"));
  }
  if (!uid.empty()) {
    return Fail(absl::InvalidArgumentError("-u/--uid is not supported; run scontrol as that user"));
  }
  if (words.empty()) {
    return Fail(absl::InvalidArgumentError("no command given (try scontrol --help)"));
  }
  absl::StatusOr<std::string> command = skiff::cli::MatchKeyword(
      words[0], {"show",         "update",        "hold",   "uhold",   "release", "requeue",
                 "requeuehold",  "suspend",       "resume", "top",     "write",   "ping",
                 "version",      "reconfigure",   "create", "delete",  "notify",  "reboot",
                 "reboot_nodes", "cancel_reboot", "help",   "explain", "token",   "takeover"});
  if (!command.ok()) return Fail(command.status());
  std::vector<std::string> args(words.begin() + 1, words.end());
  if (*command == "token") return FetchToken(args);
  // Reservations: created, updated and deleted in ctld (stored there).
  const bool reservation_command =
      (*command == "create" || *command == "update") && skiff::cli::NamesReservation(args);
  if (reservation_command) {
    absl::StatusOr<skiff::v1::UpdateReservationRequest> request =
        skiff::cli::ParseReservationArgs(args, *command == "create", time(nullptr));
    if (!request.ok()) {
      std::cerr << "scontrol: error: " << request.status().message() << "\n";
      return 1;
    }
    absl::StatusOr<std::unique_ptr<skiff::client::CtldClient>> connected =
        skiff::client::CtldClient::Connect("");
    if (!connected.ok()) return Fail(connected.status());
    return CreateOrUpdateReservation(**connected, *request);
  }
  if (*command == "delete") return skiff::cli::RunDelete(args);
  // Partitions come from skiff.conf (and scontrol update); creating them at
  // run time is not supported.
  if (*command == "create") {
    std::cerr << "scontrol: error: create is not supported by Skiff: add the PartitionName line "
                 "in skiff.conf, then run scontrol reconfigure\n";
    return 1;
  }
  if (*command == "help") {
    std::cout << skiff::cli::ScontrolHelp();
    return 0;
  }
  if (*command == "version") {
    std::cout << skiff::cli::VersionLine();
    return 0;
  }
  if (*command == "notify") return Notify(args);
  if (*command == "explain") {
    // Skiff's: "explain job ID" (also "explain JobId=ID" and "explain ID"),
    // squeue --explain's paragraph.
    std::string id;
    if (args.size() == 2 &&
        (absl::EqualsIgnoreCase(args[0], "job") || absl::EqualsIgnoreCase(args[0], "jobid"))) {
      id = args[1];
    } else if (args.size() == 1 && absl::StartsWithIgnoreCase(args[0], "jobid=")) {
      id = args[0].substr(6);
    } else if (args.size() == 1) {
      id = args[0];
    } else {
      std::cerr << "scontrol: error: Proper format is 'explain job <JOBID>'\n";
      return 1;
    }
    absl::StatusOr<std::unique_ptr<skiff::client::CtldClient>> connected =
        skiff::client::CtldClient::Connect("");
    if (!connected.ok()) return Fail(connected.status());
    return skiff::client::PrintJobExplanation(**connected, "scontrol", id);
  }
  // Skiff has no RebootProgram: a node is rebooted by its admin, around a drain.
  if (*command == "reboot" || *command == "reboot_nodes" || *command == "cancel_reboot") {
    std::cerr << "scontrol: error: " << *command
              << " is not supported by Skiff (it runs no RebootProgram): drain the node with "
                 "scontrol update NodeName=NODE State=DRAIN Reason=reboot, reboot it, then "
                 "scontrol update NodeName=NODE State=RESUME\n";
    return 1;
  }
  std::string entity;
  if (*command == "write") {
    absl::StatusOr<std::string> matched =
        args.empty() ? absl::InvalidArgumentError("too few arguments for keyword:write")
                     : skiff::cli::MatchKeyword(args[0], {"batch_script"});
    if (!matched.ok()) return Fail(matched.status());
    args.erase(args.begin());
  }
  if (*command == "show") {
    if (args.empty()) {
      return Fail(absl::InvalidArgumentError(
          "show what? job, node, partition, config, burstbuffer, bbstat, hostnames, hostlist "
          "or hostlistsorted"));
    }
    // "jobid" is Slurm's synonym for "job" (kept out of the list so that "j" is
    // not ambiguous).
    absl::StatusOr<std::string> matched =
        absl::AsciiStrToLower(args[0]) == "jobid"
            ? absl::StatusOr<std::string>("job")
            : skiff::cli::MatchKeyword(
                  args[0],
                  {"job", "node", "partition", "config", "burstbuffer", "bbstat", "hostnames",
                   "hostlist", "hostlistsorted", "reservation", "steps", "assoc_mgr", "licenses"});
    if (!matched.ok()) return Fail(matched.status());
    entity = *matched;
    args.erase(args.begin());
    // Host lists need no ctld.
    if (entity == "hostnames" || entity == "hostlist" || entity == "hostlistsorted") {
      return ShowHosts(entity, args);
    }
  }
  // Check the arguments before contacting ctld.
  absl::StatusOr<skiff::cli::AssocMgrRequest> assoc_mgr;
  if (entity == "assoc_mgr") {
    assoc_mgr = skiff::cli::ParseAssocMgrArgs(args);
    if (!assoc_mgr.ok()) {
      std::cerr << assoc_mgr.status().message() << "\n";
      return 1;
    }
  }
  absl::StatusOr<skiff::cli::UpdateCommand> update;
  absl::StatusOr<std::vector<skiff::v1::JobRef>> ids;
  if (*command == "update") {
    update = skiff::cli::ParseUpdate(args);
    if (!update.ok()) return Fail(update.status());
  } else if (*command != "show" && *command != "ping" && *command != "write" &&
             *command != "reconfigure" && *command != "takeover") {
    if (*command == "top" && args.size() != 1) {
      std::cerr << "too " << (args.empty() ? "few" : "many") << " arguments for keyword:top\n";
      return 1;
    }
    ids = skiff::cli::ParseJobIdArgs(args);
    if (!ids.ok()) return Fail(ids.status());
  }

  absl::StatusOr<std::unique_ptr<skiff::client::CtldClient>> connected =
      skiff::client::CtldClient::Connect("");
  if (!connected.ok()) return Fail(connected.status());
  skiff::client::CtldClient& client = **connected;

  if (*command == "ping") {
    const std::vector<skiff::ControllerHost>& hosts = client.config().skiff.ctld_hosts;
    if (hosts.size() <= 1) {
      bool up = Ping(client);
      std::cout << skiff::cli::FormatPing(client.config().skiff.ctld_host, up);
      return up ? 0 : 1;
    }
    std::vector<skiff::cli::ControllerPing> pings;
    bool any_up = false;
    for (size_t i = 0; i < hosts.size(); ++i) {
      skiff::v1::PingReply reply;
      const bool up = client.PingController(i, &reply).ok();
      any_up = any_up || up;
      pings.push_back({hosts[i].name, up, up && !reply.standby()});
    }
    std::cout << skiff::cli::FormatPings(pings, getuid() == 0);
    return any_up ? 0 : 1;
  }
  if (*command == "show") {
    if (entity == "job") return ShowJobs(client, args, options);
    if (entity == "steps") return ShowSteps(client, args, options);
    if (entity == "node") return ShowNodes(client, args, options);
    if (entity == "partition") return ShowPartitions(client, args, options);
    if (entity == "burstbuffer") return ShowBurstBuffers(client, options);
    if (entity == "bbstat") return ShowBbStatus(client, args);
    if (entity == "assoc_mgr") return ShowAssocMgr(client, *assoc_mgr, options);
    if (entity == "reservation") return ShowReservations(client, args, options);
    if (entity == "licenses") return ShowLicenses(client, args, options);
    return ShowConfig(client);
  }
  if (*command == "update") return Update(client, *update);
  if (*command == "reconfigure") return Reconfigure(client);
  if (*command == "takeover") return Takeover(client, args);
  if (*command == "write") return WriteBatchScript(client, args);

  if (*command == "top") {
    // One argument: a comma-separated, ordered list of plain job ids.
    skiff::v1::UpdateJobRequest request;
    request.set_top(true);
    for (const skiff::v1::JobRef& ref : *ids) {
      if (ref.has_array_task_id()) {
        return Fail(absl::InvalidArgumentError("Invalid job id specified: top takes job ids"));
      }
      if (request.job_id() == 0) {
        request.set_job_id(ref.job_id());
      } else {
        request.add_more_top_jobs(ref.job_id());
      }
    }
    return UpdateJob(client, request, *command) ? 0 : 1;
  }
  // hold, uhold, release, requeue, requeuehold, suspend, resume.
  int rc = 0;
  for (const skiff::v1::JobRef& ref : *ids) {
    if (!UpdateJob(client, skiff::cli::JobCommandRequest(ref, *command), *command)) rc = 1;
  }
  return rc;
}
