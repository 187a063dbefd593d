// sinfo: view partitions and nodes, as Slurm's sinfo. Reads the command line
// (sinfo_options), asks ctld, prints (sinfo_format, sinfo_json).
#include <time.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <deque>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/common/getopt_args.h"
#include "cli/sinfo/sinfo_format.h"
#include "cli/sinfo/sinfo_options.h"
#include "client/ctld_client.h"
#include "client/nodes_json.h"
#include "common/users.h"

int skiff::cli::SinfoMain(int argc, char** argv) {
  CLI::App app{"sinfo"};
  app.set_help_flag();
  // One string per value-taking option; CLI11 keeps every occurrence's value.
  std::deque<std::string> values;
  for (const skiff::cli::SinfoOptionSpec& spec : skiff::cli::SinfoOptionSpecs()) {
    if (std::string(spec.long_name) == "clusters") continue;  // a second name of -M
    std::string names = spec.short_name != 0 ? std::string("-") + spec.short_name + "," : "";
    names += std::string("--") + spec.long_name;
    if (std::string(spec.long_name) == "cluster") names += ",--clusters";
    if (spec.takes_value) {
      values.emplace_back();
      app.add_option(names, values.back());
    } else {
      app.add_flag(names);
    }
  }
  std::vector<std::string> operands;  // Slurm's sinfo ignores operands
  const int parsed = skiff::cli::ParseGetoptCommandLine(app, "sinfo", argc, argv, &operands);
  if (parsed >= 0) return parsed;

  std::vector<skiff::cli::SinfoArg> args;
  std::map<const CLI::Option*, size_t> seen;
  for (const CLI::Option* option : app.parse_order()) {
    const std::string name = option->get_lnames().front();
    std::string value;
    if (option->get_expected_max() > 0 && !option->results().empty()) {
      const size_t i = std::min(seen[option]++, option->results().size() - 1);
      value = option->results()[i];
    }
    args.emplace_back(name, value);
  }
  std::map<std::string, std::string> env;
  for (const char* key : {"SINFO_ALL", "SINFO_PARTITION", "SINFO_SORT", "SINFO_FORMAT"}) {
    if (const char* value = getenv(key)) env[key] = value;
  }

  skiff::cli::SinfoCommand cmd = skiff::cli::ResolveSinfoCommand(args, env);
  std::cout << cmd.out << std::flush;
  std::cerr << cmd.err << std::flush;
  if (cmd.exit_code >= 0) return cmd.exit_code;
  cmd.view.user_name = skiff::LookUpUserName;

  absl::StatusOr<std::unique_ptr<skiff::client::CtldClient>> client =
      skiff::client::CtldClient::Connect("");
  if (!client.ok()) return skiff::client::ReportError("sinfo", client.status());

  if (cmd.json) {
    skiff::v1::GetNodesReply nodes;
    skiff::v1::GetPartitionsReply partitions;
    absl::Status status =
        (*client)->Call(&skiff::v1::Ctld::Stub::GetNodes, skiff::v1::GetNodesRequest(), &nodes);
    if (status.ok()) {
      status = (*client)->Call(&skiff::v1::Ctld::Stub::GetPartitions,
                               skiff::v1::GetPartitionsRequest(), &partitions);
    }
    if (!status.ok()) return skiff::client::ReportError("sinfo", status);
    std::cout << skiff::client::SinfoJson(nodes, partitions, skiff::LookUpUserName).Dump();
    return 0;
  }

  int rc = 0;
  while (true) {
    if (cmd.print_date) std::cout << skiff::cli::SinfoDateLine(time(nullptr));
    if (cmd.reservations) {
      skiff::v1::GetReservationsReply reply;
      absl::Status status = (*client)->Call(&skiff::v1::Ctld::Stub::GetReservations,
                                            skiff::v1::GetReservationsRequest(), &reply);
      if (!status.ok()) return skiff::client::ReportError("sinfo", status);
      std::cout << skiff::cli::FormatSinfoReservations(reply, cmd.view.no_header);
    } else {
      skiff::v1::GetPartitionsReply reply;
      absl::Status status = (*client)->Call(&skiff::v1::Ctld::Stub::GetPartitions,
                                            skiff::v1::GetPartitionsRequest(), &reply);
      bool known = true;
      if (status.ok() && cmd.single_node.has_value()) {
        skiff::v1::GetNodesRequest request;
        request.add_names(*cmd.single_node);
        skiff::v1::GetNodesReply nodes;
        status = (*client)->Call(&skiff::v1::Ctld::Stub::GetNodes, request, &nodes);
        known = status.ok() && nodes.nodes_size() > 0;
      }
      if (!status.ok()) {
        rc = skiff::client::ReportError("sinfo", status);
      } else if (!known) {
        std::cerr << "slurm_load_node: Invalid node name specified\n";
        rc = 1;
      } else {
        std::cout << skiff::cli::PrintSinfoRecords(skiff::cli::BuildSinfoRecords(reply, cmd.view),
                                                   cmd.view);
      }
    }
    if (cmd.iterate <= 0) break;
    std::cout << "\n" << std::flush;
    // Ctrl-C ends sinfo here as in Slurm (default SIGINT action).
    struct timespec delay = {cmd.iterate, 0};
    while (nanosleep(&delay, &delay) != 0) {
    }
  }
  std::cout << std::flush;
  skiff::client::ExitNow(rc);  // without tearing gRPC down: monitoring polls sinfo
}
