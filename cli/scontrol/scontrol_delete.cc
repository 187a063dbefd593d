#include "cli/scontrol/scontrol_delete.h"

#include <iostream>

#include "absl/strings/match.h"
#include "client/ctld_client.h"
#include "common/hostlist.h"

namespace skiff::cli {
namespace {

using v1::Ctld;

constexpr char kProgram[] = "scontrol";

// Slurm's entity match: at least three letters of the name, any case.
bool Names(const std::string& tag, const std::string& entity) {
  return tag.size() >= 3 && tag.size() <= entity.size() &&
         absl::EqualsIgnoreCase(tag, entity.substr(0, tag.size()));
}

// A refusal as slurm_perror words it: "delete_node NodeName=n9: <why>".
int Refused(const std::string& what, const std::string& word, const absl::Status& status) {
  if (status.code() == absl::StatusCode::kUnavailable ||
      status.code() == absl::StatusCode::kDeadlineExceeded) {
    return client::ReportError(kProgram, status);
  }
  std::cerr << what << " " << word << ": " << status.message() << "\n";
  return 1;
}

int DeleteReservation(client::CtldClient& client, const DeleteTarget& target) {
  v1::UpdateReservationRequest request;
  request.set_op(v1::UpdateReservationRequest::DELETE);
  request.set_name(target.id);
  v1::UpdateReservationReply reply;
  absl::Status status = client.Call(&Ctld::Stub::UpdateReservation, request, &reply);
  return status.ok() ? 0 : Refused("delete_reservation", target.word, status);
}

int DeleteNodes(client::CtldClient& client, const DeleteTarget& target) {
  absl::StatusOr<std::vector<std::string>> names = ExpandHostlist(target.id);
  if (!names.ok() || names->empty()) {
    return Refused("delete_node", target.word,
                   absl::InvalidArgumentError("Invalid node name specified"));
  }
  v1::DeleteNodesRequest request;
  for (const std::string& name : *names) request.add_names(name);
  v1::DeleteNodesReply reply;
  absl::Status status = client.Call(&Ctld::Stub::DeleteNodes, request, &reply);
  return status.ok() ? 0 : Refused("delete_node", target.word, status);
}

}  // namespace

DeleteTarget ParseDeleteTarget(const std::vector<std::string>& args) {
  DeleteTarget target;
  std::string tag;
  if (args.size() == 1 && args[0].find('=') != std::string::npos) {
    tag = args[0].substr(0, args[0].find('='));
    target.id = args[0].substr(args[0].find('=') + 1);
  } else if (args.size() == 2) {
    tag = args[0];
    target.id = args[1];
  } else {
    return target;
  }
  target.word = args[0];
  if (Names(tag, "NodeName")) {
    target.entity = "node";
  } else if (Names(tag, "PartitionName")) {
    target.entity = "partition";
  } else if (Names(tag, "ReservationName")) {
    target.entity = "reservation";
  } else {
    target.entity = "?";
  }
  return target;
}

int RunDelete(const std::vector<std::string>& args) {
  const DeleteTarget target = ParseDeleteTarget(args);
  if (target.entity.empty()) {
    std::cerr << "scontrol: error: Proper format is 'delete <ENTITY>=<ID>' or 'delete "
                 "<ENTITY> <ID>'\n";
    return 1;
  }
  if (target.entity == "?") {
    std::cerr << "Invalid deletion entity: " << target.word << "\n";
    return 1;
  }
  if (target.entity == "partition") {
    std::cerr << "scontrol: error: delete is not supported by Skiff for partitions: remove the "
                 "PartitionName line in skiff.conf, then run scontrol reconfigure\n";
    return 1;
  }
  absl::StatusOr<std::unique_ptr<client::CtldClient>> connected = client::CtldClient::Connect("");
  if (!connected.ok()) return client::ReportError(kProgram, connected.status());
  return target.entity == "node" ? DeleteNodes(**connected, target)
                                 : DeleteReservation(**connected, target);
}

}  // namespace skiff::cli
