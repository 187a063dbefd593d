// sinfo: view partitions and nodes, as Slurm's sinfo.
#include <CLI/CLI.hpp>
#include <ctime>
#include <iostream>
#include <string>

#include "absl/strings/str_split.h"
#include "cli/common/ctld_client.h"
#include "cli/sinfo/sinfo_format.h"

int main(int argc, char** argv) {
  CLI::App app{"sinfo: view information about Skiff nodes and partitions"};
  skiff::SinfoOptions options;
  std::string partitions;
  // -h is --noheader in Slurm's CLIs, so help is --help only.
  app.set_help_flag("--help", "print this help and exit");
  app.add_flag("-N,--Node", options.node_oriented, "one line per node");
  app.add_flag("-l,--long", options.long_format, "more columns");
  app.add_flag("-h,--noheader", options.no_header, "no header line");
  app.add_option("-p,--partition", partitions, "only these partitions (comma-separated)");
  CLI11_PARSE(app, argc, argv);

  absl::StatusOr<std::unique_ptr<skiff::CtldClient>> client = skiff::CtldClient::Connect("");
  if (!client.ok()) return skiff::ReportError("sinfo", client.status());

  skiff::v1::GetPartitionsRequest request;
  if (!partitions.empty()) {
    for (absl::string_view name : absl::StrSplit(partitions, ',', absl::SkipEmpty())) {
      request.add_names(std::string(name));
    }
  }
  skiff::v1::GetPartitionsReply reply;
  absl::Status status = (*client)->Call(&skiff::v1::Ctld::Stub::GetPartitions, request, &reply);
  if (!status.ok()) return skiff::ReportError("sinfo", status);
  options.now = reply.now() != 0 ? reply.now() : time(nullptr);
  std::cout << skiff::FormatSinfo(reply, options);
  return 0;
}
