// sacctmgr: view and change QOS (add, modify, delete, show), as Slurm's sacctmgr.
#include <poll.h>
#include <unistd.h>

#include <iostream>
#include <string>
#include <vector>

#include "cli/common/ctld_client.h"
#include "cli/common/getopt_args.h"
#include "cli/common/version.h"
#include "cli/sacctmgr/sacctmgr_qos.h"

namespace {

constexpr char kProgram[] = "sacctmgr";

// Slurm's _usage (src/sacctmgr/sacctmgr.c), which -h, --help, --usage and
// "help" print: its layout, with the options, commands and entities Skiff's
// sacctmgr has.
constexpr char kUsage[] =
    "sacctmgr [<OPTION>] [<COMMAND>]\n"
    "    Valid <OPTION> values are:\n"
    "     -h or --help: equivalent to \"help\" command\n"
    "     -i or --immediate: commit changes immediately\n"
    "     -n or --noheader: no header will be added to the beginning of output\n"
    "     -p or --parsable: output will be '|' delimited with a '|' at the end\n"
    "     -P or --parsable2: output will be '|' delimited without a '|' at the end\n"
    "     -Q or --quiet: equivalent to \"quiet\" command\n"
    "     -r or --readonly: equivalent to \"readonly\" command\n"
    "     -V or --version: equivalent to \"version\" command\n"
    "\n"
    "  Valid <COMMAND> values are:\n"
    "     add <ENTITY> <SPECS>     add entity\n"
    "     delete <ENTITY> <SPECS>  delete the specified entity(s)\n"
    "     help                     print this description of use.\n"
    "     list <ENTITY> [<SPECS>]  display info of identified entity, default\n"
    "                              is display all.\n"
    "     modify <ENTITY> <SPECS>  modify entity\n"
    "     show                     same as list\n"
    "     version                  display tool version number.\n"
    "\n"
    "  <ENTITY> may be \"qos\"\n"
    "\n"
    "  <SPECS> are different for each command entity pair.\n"
    "       list qos           - Format=, Names=\n"
    "       add qos            - Description=, GraceTime=, MaxJobsPerUser=,\n"
    "                            MaxSubmitJobsPerUser=, MaxTRESPerJob=,\n"
    "                            MaxTRESPerUser=, MaxWall=, Names=, Preempt=,\n"
    "                            PreemptMode=, Priority=, and UsageFactor=\n"
    "       modify qos         - (set options) Description=, GraceTime=,\n"
    "                            MaxJobsPerUser=, MaxSubmitJobsPerUser=,\n"
    "                            MaxTRESPerJob=, MaxTRESPerUser=, MaxWall=,\n"
    "                            Preempt=, PreemptMode=, Priority=, and\n"
    "                            UsageFactor=\n"
    "                            (where options) Names=\n"
    "       delete qos         - Names=\n"
    "\n"
    "  All commands entitys, and options are case-insensitive.\n\n";

int Fail(const absl::Status& status) { return skiff::ReportError(kProgram, status); }

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
    std::optional<bool> answer = skiff::CommitAnswer(line);
    if (answer) return *answer;
    std::cout << "Y or N please\n(N/y): " << std::flush;
  }
}

absl::StatusOr<skiff::v1::GetQosReply> GetQos(skiff::CtldClient& client,
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

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (absl::Status s = skiff::ParseSacctmgrOptions(args).status(); !s.ok()) {
    std::cerr << skiff::GetoptErrorText(kProgram, std::string(s.message()));
    return 1;
  }
  absl::StatusOr<skiff::SacctmgrCommand> parsed = skiff::ParseSacctmgrCommandLine(args);
  if (!parsed.ok()) return Fail(parsed.status());
  const skiff::SacctmgrCommand& command = *parsed;
  if (command.version) {
    std::cout << "skiff " << skiff::kSkiffVersion << "\n";
    return 0;
  }
  if (command.help) {
    std::cout << kUsage;
    return 0;
  }
  const skiff::SacctmgrOptions& options = command.options;
  if (options.readonly && command.verb != skiff::SacctmgrVerb::kShow) {
    std::cerr << "Can't run this command in readonly mode.\n";
    return 1;
  }
  const bool ask = !options.immediate && isatty(STDIN_FILENO);

  absl::StatusOr<std::unique_ptr<skiff::CtldClient>> connected = skiff::CtldClient::Connect("");
  if (!connected.ok()) return Fail(connected.status());
  skiff::CtldClient& client = **connected;

  if (command.verb == skiff::SacctmgrVerb::kShow) {
    absl::StatusOr<skiff::v1::GetQosReply> reply = GetQos(client, command.names);
    if (!reply.ok()) return Fail(reply.status());
    absl::StatusOr<std::string> table = skiff::FormatQosTable(*reply, command.format, options);
    if (!table.ok()) return Fail(table.status());
    std::cout << *table;
    return 0;
  }

  // add, modify, delete: see what exists first, so that only real changes are
  // shown, asked about and sent.
  absl::StatusOr<skiff::v1::GetQosReply> all = GetQos(client, {});
  if (!all.ok()) return Fail(all.status());
  std::vector<std::string> targets;
  if (command.verb == skiff::SacctmgrVerb::kAdd) {
    targets = skiff::MissingQos(*all, command.names);
  } else {
    if (command.names.empty() && ask && !Confirm(skiff::kNoConditionsQuestion)) {
      std::cout << "Aborted\n";
      return 0;
    }
    targets = skiff::ExistingQos(*all, command.names);
  }
  if (targets.empty()) {
    std::cout << skiff::NothingChangedMessage(command.verb);
    return 1;
  }
  if (command.verb == skiff::SacctmgrVerb::kAdd && !options.quiet) {
    std::cout << skiff::AddQosMessage(targets, command.changes);
  } else if (ask && !options.quiet) {
    std::cout << skiff::ChangedQosMessage(command.verb, targets);
  }
  if (ask && !Confirm(skiff::kCommitQuestion)) {
    std::cout << " Changes Discarded\n";
    return 0;
  }
  skiff::v1::UpdateQosReply reply;
  absl::Status status = client.Call(&skiff::v1::Ctld::Stub::UpdateQos,
                                    skiff::BuildUpdateQosRequest(command, targets), &reply);
  if (!status.ok()) {
    std::cout << std::flush;
    std::cerr << skiff::UpdateQosErrorText(status, command.verb);
    return 1;
  }
  if (command.verb != skiff::SacctmgrVerb::kAdd && !ask && !options.quiet) {
    std::vector<std::string> affected(reply.affected().begin(), reply.affected().end());
    std::cout << skiff::ChangedQosMessage(command.verb, affected.empty() ? targets : affected);
  }
  return 0;
}
