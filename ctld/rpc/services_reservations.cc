// CtldService's RPCs for what is set aside for jobs: advance reservations
// (scontrol show/update reservation), burst buffers (scontrol show burstbuffer)
// and licenses (scontrol show licenses).
#include <grp.h>
#include <pwd.h>

#include <algorithm>
#include <ctime>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/rpc/auth_metadata.h"
#include "common/rpc/status.h"
#include "common/users.h"
#include "ctld/core/reservations/reservation.h"
#include "ctld/local_calendar.h"
#include "ctld/rpc/private_data.h"
#include "ctld/rpc/resv_convert.h"
#include "ctld/rpc/services.h"

namespace skiff::ctld {
namespace {

// The users of `group` (Slurm's get_groups_members): its listed members and
// the users whose primary group it is; nullopt when there is no such group.
// NSS lookups: call without ctld's lock.
std::optional<std::vector<std::string>> GroupMembers(const std::string& group) {
  struct group gr;
  struct group* found = nullptr;
  std::vector<char> buf(65536);
  if (getgrnam_r(group.c_str(), &gr, buf.data(), buf.size(), &found) != 0 || found == nullptr) {
    return std::nullopt;
  }
  std::vector<std::string> members;
  for (char** member = gr.gr_mem; member != nullptr && *member != nullptr; ++member) {
    members.emplace_back(*member);
  }
  const gid_t gid = gr.gr_gid;
  // setpwent/getpwent_r walk one process-wide cursor: one walk at a time.
  static std::mutex* const walk = new std::mutex();
  std::lock_guard<std::mutex> hold(*walk);
  struct passwd pw;
  struct passwd* next = nullptr;
  std::vector<char> pw_buf(16384);
  setpwent();
  while (getpwent_r(&pw, pw_buf.data(), pw_buf.size(), &next) == 0 && next != nullptr) {
    const std::string name = pw.pw_name;
    if (pw.pw_gid == gid && std::find(members.begin(), members.end(), name) == members.end()) {
      members.push_back(name);
    }
  }
  endpwent();
  return members;
}

}  // namespace

grpc::Status CtldService::GetReservations(grpc::ServerContext* context,
                                          const v1::GetReservationsRequest*,
                                          v1::GetReservationsReply* reply) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  const int64_t now = time(nullptr);
  std::map<std::string, const Node*> by_name;
  const std::vector<Node> nodes = controller_.SnapshotNodes({});
  for (const Node& node : nodes) by_name[node.config.name] = &node;
  // PrivateData=reservations: a user sees those they may use (by name, group
  // or an account of theirs); operators see all.
  const bool own_only =
      controller_.config()->private_data.reservations && !controller_.IsPrivileged(caller->uid);
  std::string viewer;
  std::set<std::string> viewer_accounts;
  if (own_only) {
    viewer = LookUpUserName(caller->uid).value_or("");
    for (const Association& assoc : controller_.SnapshotAccounts().assocs) {
      if (!viewer.empty() && assoc.user == viewer) viewer_accounts.insert(assoc.account);
    }
  }
  for (const AdvanceReservation& resv : controller_.SnapshotReservations()) {
    if (own_only && !ReservationVisibleTo(resv, viewer, viewer_accounts)) continue;
    v1::ReservationInfo* info = reply->add_reservations();
    *info = ResvToProto(resv);
    // The occurrence in force, or the next one, as Slurm shows a repeating
    // reservation (it moves its times on at each end).
    const ResvWindow window = WindowAt(resv, now, LocalCalendar());
    info->set_start_time(window.start);
    info->set_end_time(window.end);
    info->set_active(window.Contains(now));
    info->set_flags_text(ResvFlagsString(resv.flags));
    int64_t cpus = 0;
    if (resv.WholeNodes()) {
      for (const std::string& name : resv.nodes) {
        if (auto it = by_name.find(name); it != by_name.end()) cpus += it->second->config.cpus;
      }
      info->set_tres(absl::StrCat("cpu=", cpus));
    } else {
      info->set_tres(absl::StrCat("gres/gpu=", resv.Gpus()));
    }
    info->set_core_cnt(cpus);
  }
  reply->set_now(now);
  return grpc::Status::OK;
}

grpc::Status CtldService::UpdateReservation(grpc::ServerContext* context,
                                            const v1::UpdateReservationRequest* request,
                                            v1::UpdateReservationReply* reply) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  // User and group names resolved here, at the edge: NSS lookups never run
  // under ctld's lock.
  ResvLookups lookups;
  if (request->has_users()) {
    for (const std::string& name : request->users().items()) {
      if (UidOf(name)) lookups.known_users.insert(name);
    }
  }
  std::set<std::string> groups;
  if (request->has_groups())
    groups.insert(request->groups().items().begin(), request->groups().items().end());
  // An update that adds no users checks the ones it keeps: they were known.
  // Groups+= and Groups-= resolve the groups it keeps again.
  for (const AdvanceReservation& resv : controller_.SnapshotReservations()) {
    if (resv.name != request->name()) continue;
    for (const std::string& user : resv.users) lookups.known_users.insert(user);
    if (request->has_groups()) groups.insert(resv.groups.begin(), resv.groups.end());
  }
  for (const std::string& group : groups) {
    if (std::optional<std::vector<std::string>> members = GroupMembers(group)) {
      lookups.group_members[group] = std::move(*members);
    }
  }
  absl::StatusOr<std::string> name = controller_.UpdateReservation(
      Caller{caller->uid, caller->gid}, UserNames().Name(caller->uid),
      ResvOpFromProto(request->op()), ResvRequestFromProto(*request), lookups);
  if (!name.ok()) return ToGrpcStatus(name.status());
  reply->set_name(*name);
  return grpc::Status::OK;
}

grpc::Status CtldService::GetLicenses(grpc::ServerContext* context, const v1::GetLicensesRequest*,
                                      v1::GetLicensesReply* reply) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  for (const Lifecycle::LicenseUsage& usage : controller_.SnapshotLicenses()) {
    v1::LicenseInfo* info = reply->add_licenses();
    info->set_name(usage.name);
    info->set_total(usage.total);
    info->set_used(usage.used);
  }
  return grpc::Status::OK;
}

grpc::Status CtldService::GetBurstBuffers(grpc::ServerContext* context,
                                          const v1::GetBurstBuffersRequest*,
                                          v1::GetBurstBuffersReply* reply) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  const Controller::BurstBufferSnapshot snapshot = controller_.SnapshotBurstBuffers();
  reply->set_enabled(snapshot.enabled);
  if (!snapshot.enabled) return grpc::Status::OK;
  for (const BbPool& pool : snapshot.pools) {
    v1::BbPoolInfo* info = reply->add_pools();
    info->set_name(pool.name);
    info->set_granularity(pool.granularity);
    info->set_total_bytes(pool.total);
    info->set_used_bytes(pool.Used());
  }
  const bool private_data = snapshot.config.HasFlag("PrivateData");
  for (size_t i = 0; i < snapshot.allocations.size(); ++i) {
    const BbAllocation& a = snapshot.allocations[i];
    // Flags=PrivateData: users see only their own buffers.
    if (private_data && a.user_id != caller->uid && !controller_.IsPrivileged(caller->uid)) {
      continue;
    }
    v1::BbAllocationInfo* info = reply->add_allocations();
    info->set_job_id(a.job_id);
    info->set_create_time(a.create_time);
    info->set_pool(a.pool);
    info->set_size_bytes(a.size);
    info->set_state("allocated");  // what Slurm shows for every buffer in the list
    info->set_user_id(a.user_id);
    info->set_user_name(snapshot.user_names[i]);
  }
  reply->set_flags(absl::StrJoin(snapshot.config.flags, ","));
  reply->set_stage_in_timeout(snapshot.config.stage_in_timeout);
  reply->set_stage_out_timeout(snapshot.config.stage_out_timeout);
  reply->set_validate_timeout(snapshot.config.validate_timeout);
  reply->set_other_timeout(snapshot.config.other_timeout);
  for (const std::string& u : snapshot.config.allow_users) reply->add_allow_users(u);
  for (const std::string& u : snapshot.config.deny_users) reply->add_deny_users(u);
  reply->set_default_pool(snapshot.config.default_pool);
  return grpc::Status::OK;
}

grpc::Status CtldService::GetBbStatus(grpc::ServerContext* context,
                                      const v1::GetBbStatusRequest* request,
                                      v1::GetBbStatusReply* reply) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  absl::StatusOr<std::string> output = controller_.BbStatus(
      Caller{caller->uid, caller->gid}, {request->args().begin(), request->args().end()});
  if (!output.ok()) return ToGrpcStatus(output.status());
  reply->set_output(*output);
  return grpc::Status::OK;
}

}  // namespace skiff::ctld
