// /slurm/{version}/nodes, node/{node_name} (GET; POST: scontrol update
// nodename), partitions, partition/{partition_name}, reservations,
// reservation/{reservation_name} and shares: sinfo, scontrol show and update,
// and sshare over REST.
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/hostlist.h"
#include "common/users.h"
#include "nlohmann/json.hpp"
#include "restd/data_parser/cluster_json.h"
#include "restd/data_parser/values.h"
#include "restd/slurm/slurm_paths.h"

namespace skiff::restd {
namespace {

std::string Cluster(const RestCall& call) { return call.ctld.config().skiff.cluster_name; }

// `list` empty and no update time: what the path's schema requires of a
// failure too.
Json Nothing(const char* list) { return {{list, Json::Array()}, {"last_update", NoNumber()}}; }

HttpResponse NodesAnswer(RestCall& call, const v1::GetNodesRequest& request) {
  v1::GetNodesReply reply;
  if (absl::Status s = call.Call(&v1::Ctld::Stub::GetNodes, request, &reply); !s.ok()) {
    return Failure(call, s, Nothing("nodes"));
  }
  if (!request.names().empty() && reply.nodes().empty()) {
    return Failure(call, absl::NotFoundError("Invalid node name specified"), Nothing("nodes"));
  }
  Json nodes = Json::Array();
  const std::string cluster = Cluster(call);
  for (const v1::NodeInfo& node : reply.nodes()) {
    nodes.Push(NodeJson(node, cluster, [](uint32_t uid) { return UserName(uid); }));
  }
  return Answer(call, {{"nodes", std::move(nodes)}, {"last_update", Time(reply.now())}});
}

HttpResponse GetNodes(RestCall& call) { return NodesAnswer(call, v1::GetNodesRequest()); }

HttpResponse GetNode(RestCall& call) {
  v1::GetNodesRequest request;
  request.add_names(call.args[0]);
  return NodesAnswer(call, request);
}

// POST /node/{node_name} with an UPDATE_NODE_MSG: its state (DRAIN, DOWN,
// RESUME, IDLE, UNDRAIN) and reason, as `scontrol update nodename=... state=`;
// operators only (ctld decides). Fields Skiff does not update are warnings.
HttpResponse UpdateNode(RestCall& call) {
  const nlohmann::json body = nlohmann::json::parse(call.request.body, nullptr, false);
  if (!body.is_object()) {
    return Failure(call, absl::InvalidArgumentError("the body must be a JSON update_node_msg"));
  }
  v1::UpdateNodeRequest request;
  absl::StatusOr<std::vector<std::string>> names = ExpandHostlist(call.args[0]);
  if (!names.ok()) return Failure(call, names.status());
  for (const std::string& name : *names) request.add_names(name);
  std::vector<std::string> states;
  if (body.contains("state")) {
    const nlohmann::json& state = body["state"];
    if (state.is_string()) states.push_back(state.get<std::string>());
    if (state.is_array()) {
      for (const nlohmann::json& item : state) {
        if (!item.is_string()) {
          return Failure(call, absl::InvalidArgumentError("state: expected a list of strings"));
        }
        states.push_back(item.get<std::string>());
      }
    }
  }
  if (states.size() != 1) {
    return Failure(call, absl::InvalidArgumentError(
                             "state: give one of DRAIN, DOWN, RESUME, IDLE or UNDRAIN"));
  }
  const std::string state = absl::AsciiStrToUpper(states[0]);
  if (state != "DRAIN" && state != "DOWN" && state != "RESUME" && state != "IDLE" &&
      state != "UNDRAIN") {
    return Failure(call, absl::InvalidArgumentError(
                             absl::StrCat("state: ", states[0],
                                          " is not one Skiff sets (DRAIN, DOWN, RESUME, "
                                          "IDLE, UNDRAIN)")));
  }
  request.set_state(state);
  if (body.contains("reason")) {
    if (!body["reason"].is_string()) {
      return Failure(call, absl::InvalidArgumentError("reason: expected a string"));
    }
    request.set_reason(body["reason"].get<std::string>());
  }
  Json warnings = Json::Array();
  for (const auto& [name, value] : body.items()) {
    if (name != "state" && name != "reason" && name != "name" && !value.is_null()) {
      warnings.Push(
          {{"description", absl::StrCat("node.", name, ": not a field Skiff updates; ignored")},
           {"source", "node"}});
    }
  }
  v1::UpdateNodeReply reply;
  if (absl::Status s = call.Call(&v1::Ctld::Stub::UpdateNode, request, &reply); !s.ok()) {
    return Failure(call, s);
  }
  return Answer(call, {{"warnings", std::move(warnings)}});
}

HttpResponse PartitionsAnswer(RestCall& call, const v1::GetPartitionsRequest& request) {
  v1::GetPartitionsReply reply;
  if (absl::Status s = call.Call(&v1::Ctld::Stub::GetPartitions, request, &reply); !s.ok()) {
    return Failure(call, s, Nothing("partitions"));
  }
  if (!request.names().empty() && reply.partitions().empty()) {
    return Failure(call, absl::NotFoundError("Invalid partition name specified"),
                   Nothing("partitions"));
  }
  std::map<std::string, const v1::NodeInfo*> nodes;
  for (const v1::NodeInfo& node : reply.nodes()) nodes[node.name()] = &node;
  Json partitions = Json::Array();
  for (const v1::PartitionInfo& partition : reply.partitions()) {
    partitions.Push(PartitionJson(partition, nodes, Cluster(call)));
  }
  return Answer(call, {{"partitions", std::move(partitions)}, {"last_update", Time(reply.now())}});
}

HttpResponse GetPartitions(RestCall& call) {
  return PartitionsAnswer(call, v1::GetPartitionsRequest());
}

HttpResponse GetPartition(RestCall& call) {
  v1::GetPartitionsRequest request;
  request.add_names(call.args[0]);
  return PartitionsAnswer(call, request);
}

HttpResponse ReservationsAnswer(RestCall& call, const std::string& only) {
  v1::GetReservationsReply reply;
  if (absl::Status s =
          call.Call(&v1::Ctld::Stub::GetReservations, v1::GetReservationsRequest(), &reply);
      !s.ok()) {
    return Failure(call, s, Nothing("reservations"));
  }
  Json reservations = Json::Array();
  for (const v1::ReservationInfo& reservation : reply.reservations()) {
    if (!only.empty() && reservation.name() != only) continue;
    reservations.Push(ReservationJson(reservation));
  }
  if (!only.empty() && reservations.size() == 0) {
    return Failure(call, absl::NotFoundError("Reservation not found"), Nothing("reservations"));
  }
  return Answer(call,
                {{"reservations", std::move(reservations)}, {"last_update", Time(reply.now())}});
}

// DELETE /node/{node_name}: scontrol delete NodeName= (joined nodes, as
// slurmrestd deletes dynamic ones); operators only, ctld decides.
HttpResponse DeleteNode(RestCall& call) {
  absl::StatusOr<std::vector<std::string>> names = ExpandHostlist(call.args[0]);
  if (!names.ok()) return Failure(call, names.status());
  v1::DeleteNodesRequest request;
  for (const std::string& name : *names) request.add_names(name);
  v1::DeleteNodesReply reply;
  if (absl::Status s = call.Call(&v1::Ctld::Stub::DeleteNodes, request, &reply); !s.ok()) {
    return Failure(call, s);
  }
  return Answer(call, Json::Object());
}

HttpResponse GetReservations(RestCall& call) { return ReservationsAnswer(call, ""); }

HttpResponse GetReservation(RestCall& call) { return ReservationsAnswer(call, call.args[0]); }

// sshare -A/-u: ?accounts=a,b&users=u,v keep those accounts' lines and their
// users' lines, and those users' lines.
HttpResponse GetShares(RestCall& call) {
  v1::GetAccountsReply reply;
  if (absl::Status s = call.Call(&v1::Ctld::Stub::GetAccounts, v1::GetAccountsRequest(), &reply);
      !s.ok()) {
    return Failure(call, s, {{"shares", {{"shares", Json::Array()}, {"total_shares", 0}}}});
  }
  const std::vector<std::string> accounts =
      absl::StrSplit(call.Query("accounts"), ',', absl::SkipEmpty());
  const std::vector<std::string> users =
      absl::StrSplit(call.Query("users"), ',', absl::SkipEmpty());
  auto listed = [](const std::vector<std::string>& list, const std::string& name) {
    return std::find(list.begin(), list.end(), name) != list.end();
  };
  // An account's line and its users' lines go by the account; a user's line
  // by the user too.
  Json shares = SharesJson(reply, [&](const client::ShareRow& row) {
    if (!accounts.empty() && !listed(accounts, row.account)) return false;
    return users.empty() || row.user.empty() || listed(users, row.user);
  });
  return Answer(call, {{"shares", std::move(shares)}});
}

}  // namespace

void AddClusterPaths(Router& router) {
  router.Add("GET", "/slurm/{version}/nodes", GetNodes);
  router.Add("GET", "/slurm/{version}/node/{node_name}", GetNode);
  router.Add("POST", "/slurm/{version}/node/{node_name}", UpdateNode);
  router.Add("DELETE", "/slurm/{version}/node/{node_name}", DeleteNode);
  router.Add("GET", "/slurm/{version}/partitions", GetPartitions);
  router.Add("GET", "/slurm/{version}/partition/{partition_name}", GetPartition);
  router.Add("GET", "/slurm/{version}/reservations", GetReservations);
  router.Add("GET", "/slurm/{version}/reservation/{reservation_name}", GetReservation);
  router.Add("GET", "/slurm/{version}/shares", GetShares);
}

}  // namespace skiff::restd
