#include "ctld/rpc/resv_convert.h"

namespace skiff::ctld {
namespace {

std::optional<ListEdit> EditFromProto(bool present, const v1::ResvListEdit& edit) {
  if (!present) return std::nullopt;
  ListEdit out;
  switch (edit.op()) {
    case v1::ResvListEdit::ADD:
      out.op = ListOp::kAdd;
      break;
    case v1::ResvListEdit::REMOVE:
      out.op = ListOp::kRemove;
      break;
    default:
      out.op = ListOp::kSet;
      break;
  }
  out.items.assign(edit.items().begin(), edit.items().end());
  return out;
}

}  // namespace

v1::ReservationInfo ResvToProto(const AdvanceReservation& resv) {
  v1::ReservationInfo info;
  info.set_name(resv.name);
  info.set_start_time(resv.start);
  info.set_end_time(resv.end);
  for (const std::string& node : resv.nodes) info.add_nodes(node);
  for (int32_t gpus : resv.node_gpus) info.add_node_gpus(gpus);
  info.set_partition(resv.partition);
  for (const std::string& user : resv.users) info.add_users(user);
  for (const std::string& account : resv.accounts) info.add_accounts(account);
  for (const std::string& group : resv.groups) info.add_groups(group);
  for (const std::string& member : resv.group_members) info.add_group_members(member);
  info.set_flags(resv.flags);
  return info;
}

AdvanceReservation ResvFromProto(const v1::ReservationInfo& info) {
  AdvanceReservation resv;
  resv.name = info.name();
  resv.start = info.start_time();
  resv.end = info.end_time();
  resv.nodes.assign(info.nodes().begin(), info.nodes().end());
  resv.node_gpus.assign(info.node_gpus().begin(), info.node_gpus().end());
  resv.partition = info.partition();
  resv.users.assign(info.users().begin(), info.users().end());
  resv.accounts.assign(info.accounts().begin(), info.accounts().end());
  resv.groups.assign(info.groups().begin(), info.groups().end());
  resv.group_members.assign(info.group_members().begin(), info.group_members().end());
  resv.flags = info.flags();
  return resv;
}

ResvOp ResvOpFromProto(v1::UpdateReservationRequest::Op op) {
  switch (op) {
    case v1::UpdateReservationRequest::UPDATE:
      return ResvOp::kUpdate;
    case v1::UpdateReservationRequest::DELETE:
      return ResvOp::kDelete;
    default:
      return ResvOp::kCreate;
  }
}

ResvRequest ResvRequestFromProto(const v1::UpdateReservationRequest& request) {
  ResvRequest out;
  out.name = request.name();
  if (request.has_start_time()) out.start = request.start_time();
  if (request.has_end_time()) out.end = request.end_time();
  if (request.has_duration()) out.duration = request.duration();
  if (request.has_nodes()) out.nodes = request.nodes();
  if (request.has_node_cnt()) out.node_cnt = request.node_cnt();
  if (request.has_partition()) out.partition = request.partition();
  out.users = EditFromProto(request.has_users(), request.users());
  out.accounts = EditFromProto(request.has_accounts(), request.accounts());
  out.groups = EditFromProto(request.has_groups(), request.groups());
  out.flags = EditFromProto(request.has_flags(), request.flags());
  if (request.has_tres()) out.tres = request.tres();
  return out;
}

}  // namespace skiff::ctld
