// sacctmgr: view and change QOS (add, modify, delete, show), as Slurm's sacctmgr.
#include <poll.h>
#include <unistd.h>

#include <cctype>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/common/getopt_args.h"
#include "cli/sacctmgr/sacctmgr_assoc.h"
#include "cli/sacctmgr/sacctmgr_help.h"
#include "cli/sacctmgr/sacctmgr_qos.h"
#include "client/ctld_client.h"

namespace {

constexpr char kProgram[] = "sacctmgr";

int Fail(const absl::Status& status) { return skiff::client::ReportError(kProgram, status); }

// Slurm's commit_check: asks on the terminal, 30 seconds to answer.
bool Confirm(const char* question) {
  std::cout << question << std::flush;
  while (true) {
    struct pollfd fd = {STDIN_FILENO, POLLIN, 0};
    if (poll(&fd, 1, 30 * 1000) <= 0) {
      std::cout << "timeout\n";
      return false;
    }
    std::string line;
    if (!std::getline(std::cin, line)) return false;
    std::optional<bool> answer = skiff::cli::CommitAnswer(line);
    if (answer) return *answer;
    std::cout << "Y or N please\n(N/y): " << std::flush;
  }
}

absl::StatusOr<skiff::v1::GetQosReply> GetQos(skiff::client::CtldClient& client,
                                              const std::vector<std::string>& names) {
  skiff::v1::GetQosRequest request;
  for (const std::string& name : names) request.add_names(name);
  skiff::v1::GetQosReply reply;
  absl::Status status = client.Call(&skiff::v1::Ctld::Stub::GetQos, request, &reply);
  // Unknown names select nothing; that is not an error for sacctmgr.
  if (status.code() == absl::StatusCode::kNotFound) return skiff::v1::GetQosReply();
  if (!status.ok()) return status;
  return reply;
}

std::optional<skiff::cli::SacctmgrVerb> VerbOf(const std::string& word) {
  std::string w = word;
  for (char& c : w) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (w == "add" || w == "create") return skiff::cli::SacctmgrVerb::kAdd;
  if (w == "modify" || w == "update") return skiff::cli::SacctmgrVerb::kModify;
  if (w == "delete" || w == "remove") return skiff::cli::SacctmgrVerb::kDelete;
  if (w == "show" || w == "list") return skiff::cli::SacctmgrVerb::kShow;
  return std::nullopt;
}

// sacctmgr add|modify|delete|show account|user|assoc|cluster.
int RunAssoc(skiff::cli::SacctmgrVerb verb, skiff::cli::AssocEntity entity,
             const std::vector<std::string>& words, const skiff::cli::SacctmgrOptions& options) {
  absl::StatusOr<skiff::cli::AssocCommand> command =
      skiff::cli::ParseAssocCommand(verb, entity, words);
  if (!command.ok()) {
    std::cerr << command.status().message() << "\n";
    return 1;
  }
  // -s/--associations is the WithAssoc word for the whole command line.
  if (options.with_assoc) command->with_assoc = true;
  if (options.readonly && verb != skiff::cli::SacctmgrVerb::kShow) {
    std::cerr << "Can't run this command in readonly mode.\n";
    return 1;
  }
  if (entity == skiff::cli::AssocEntity::kCluster && verb != skiff::cli::SacctmgrVerb::kShow) {
    std::cerr << " Skiff runs one cluster (its ClusterName); clusters are not added or removed "
                 "with sacctmgr.\n";
    return 1;
  }
  if (entity == skiff::cli::AssocEntity::kAssociation && verb != skiff::cli::SacctmgrVerb::kShow) {
    std::cerr << " Associations are changed through their account or user: sacctmgr modify "
                 "user|account ...\n";
    return 1;
  }
  absl::StatusOr<std::unique_ptr<skiff::client::CtldClient>> connected =
      skiff::client::CtldClient::Connect("");
  if (!connected.ok()) return Fail(connected.status());
  skiff::client::CtldClient& client = **connected;
  skiff::v1::GetAccountsReply accounts;
  absl::Status status =
      client.Call(&skiff::v1::Ctld::Stub::GetAccounts, skiff::v1::GetAccountsRequest(), &accounts);
  if (!status.ok()) return Fail(status);
  if (verb == skiff::cli::SacctmgrVerb::kShow) {
    absl::StatusOr<std::string> table = skiff::cli::FormatAssocTable(*command, accounts, options);
    if (!table.ok()) {
      std::cerr << "sacctmgr: error: " << table.status().message() << "\n";
      return 1;
    }
    std::cout << *table;
    return 0;
  }
  const bool ask = !options.immediate && isatty(STDIN_FILENO);
  if (ask && !Confirm(skiff::cli::kCommitQuestion)) {
    std::cout << " Changes Discarded\n";
    return 0;
  }
  skiff::v1::UpdateAccountsReply reply;
  status = client.Call(&skiff::v1::Ctld::Stub::UpdateAccounts, command->request, &reply);
  if (!status.ok()) {
    if (status.code() == absl::StatusCode::kPermissionDenied) {
      std::cerr << "sacctmgr: error: Your user doesn't have privilege to perform this action\n";
    }
    std::cerr << " Error with request: " << status.message() << "\n";
    return 1;
  }
  const std::string message = skiff::cli::AssocChangeMessage(*command, reply, accounts.cluster());
  if (!options.quiet) std::cout << message;
  return message.rfind(" Nothing", 0) == 0 ? 1 : 0;
}

}  // namespace

int skiff::cli::SacctmgrMain(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  absl::StatusOr<skiff::cli::SacctmgrCommandLine> line = skiff::cli::ParseSacctmgrOptions(args);
  if (!line.ok()) {
    std::cerr << skiff::cli::GetoptErrorText(kProgram, std::string(line.status().message()));
    return 1;
  }
  if (!line->help && !line->version && line->words.size() >= 2) {
    std::optional<skiff::cli::SacctmgrVerb> verb = VerbOf(line->words[0]);
    std::optional<skiff::cli::AssocEntity> entity = skiff::cli::ParseAssocEntity(line->words[1]);
    if (verb && entity) {
      return RunAssoc(*verb, *entity,
                      std::vector<std::string>(line->words.begin() + 2, line->words.end()),
                      line->options);
    }
  }
  absl::StatusOr<skiff::cli::SacctmgrCommand> parsed = skiff::cli::ParseSacctmgrCommandLine(args);
  if (!parsed.ok()) return Fail(parsed.status());
  const skiff::cli::SacctmgrCommand& command = *parsed;
  if (command.version) {
    std::cout << skiff::cli::VersionLine();
    return 0;
  }
  if (command.help) {
    std::cout << skiff::cli::SacctmgrHelp();
    return 0;
  }
  const skiff::cli::SacctmgrOptions& options = command.options;
  if (options.readonly && command.verb != skiff::cli::SacctmgrVerb::kShow) {
    std::cerr << "Can't run this command in readonly mode.\n";
    return 1;
  }
  const bool ask = !options.immediate && isatty(STDIN_FILENO);

  absl::StatusOr<std::unique_ptr<skiff::client::CtldClient>> connected =
      skiff::client::CtldClient::Connect("");
  if (!connected.ok()) return Fail(connected.status());
  skiff::client::CtldClient& client = **connected;

  if (command.verb == skiff::cli::SacctmgrVerb::kShow) {
    absl::StatusOr<skiff::v1::GetQosReply> reply = GetQos(client, command.names);
    if (!reply.ok()) return Fail(reply.status());
    absl::StatusOr<std::string> table = skiff::cli::FormatQosTable(*reply, command.format, options);
    if (!table.ok()) return Fail(table.status());
    std::cout << *table;
    return 0;
  }

  // add, modify, delete: see what exists first, so that only real changes are
  // shown, asked about and sent.
  absl::StatusOr<skiff::v1::GetQosReply> all = GetQos(client, {});
  if (!all.ok()) return Fail(all.status());
  std::vector<std::string> targets;
  if (command.verb == skiff::cli::SacctmgrVerb::kAdd) {
    targets = skiff::cli::MissingQos(*all, command.names);
  } else {
    if (command.names.empty() && ask && !Confirm(skiff::cli::kNoConditionsQuestion)) {
      std::cout << "Aborted\n";
      return 0;
    }
    targets = skiff::cli::ExistingQos(*all, command.names);
  }
  if (targets.empty()) {
    std::cout << skiff::cli::NothingChangedMessage(command.verb);
    return 1;
  }
  if (command.verb == skiff::cli::SacctmgrVerb::kAdd && !options.quiet) {
    std::cout << skiff::cli::AddQosMessage(targets, command.changes);
  } else if (ask && !options.quiet) {
    std::cout << skiff::cli::ChangedQosMessage(command.verb, targets);
  }
  if (ask && !Confirm(skiff::cli::kCommitQuestion)) {
    std::cout << " Changes Discarded\n";
    return 0;
  }
  skiff::v1::UpdateQosReply reply;
  absl::Status status = client.Call(&skiff::v1::Ctld::Stub::UpdateQos,
                                    skiff::cli::BuildUpdateQosRequest(command, targets), &reply);
  if (!status.ok()) {
    std::cout << std::flush;
    std::cerr << skiff::cli::UpdateQosErrorText(status, command.verb);
    return 1;
  }
  if (command.verb != skiff::cli::SacctmgrVerb::kAdd && !ask && !options.quiet) {
    std::vector<std::string> affected(reply.affected().begin(), reply.affected().end());
    std::cout << skiff::cli::ChangedQosMessage(command.verb, affected.empty() ? targets : affected);
  }
  return 0;
}
