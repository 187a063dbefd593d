// sdiag: ctld's scheduling and RPC statistics, as Slurm's sdiag prints them.
#include <CLI/CLI.hpp>
#include <iostream>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/common/getopt_args.h"
#include "cli/sdiag/sdiag_format.h"
#include "client/ctld_client.h"

namespace {

constexpr char kProgram[] = "sdiag";

// Slurm's _usage and _help (src/sdiag/opts.c), with --json as 23.02 lists it.
constexpr char kUsage[] = "Usage: sdiag [-M cluster] [-aritT]\n";

constexpr char kHelp[] =
    "Usage: sdiag [OPTIONS]\n"
    "  -a, --all           all statistics\n"
    "  -r, --reset         reset statistics\n"
    "  -M, --cluster       direct the request to a specific cluster\n"
    "  -i, --sort-by-id    sort RPCs by id\n"
    "  -t, --sort-by-time  sort RPCs by total run time\n"
    "  -T, --sort-by-time2 sort RPCs by average run time\n"
    "  -V, --version       display current version number\n"
    "  --json              Produce JSON output\n"
    "\nHelp options:\n"
    "  --help          show this help message\n"
    "  --usage         display brief usage message\n";

// Slurm's slurm_perror: "<call>: <message>" on stderr; sdiag then exits with
// SLURM_ERROR's -1, which the shell sees as 255.
int Perror(const char* call, const absl::Status& status) {
  std::cerr << call << ": " << status.message() << "\n";
  return 255;
}

}  // namespace

int skiff::cli::SdiagMain(int argc, char** argv) {
  CLI::App app{"sdiag"};
  app.set_help_flag();  // -h/--help is Slurm's text, above
  bool all = false, help = false, reset = false, by_id = false, by_time = false, by_time2 = false;
  bool usage = false, version = false, json = false;
  std::string cluster;
  // In the order of Slurm's option table (getopt_long lists the candidates of
  // an ambiguous abbreviation in it).
  app.add_flag("-a,--all", all);  // Slurm's default already: every statistic
  app.add_flag("-h,--help", help);
  app.add_flag("-r,--reset", reset);
  app.add_flag("-i,--sort-by-id", by_id);
  CLI::Option* cluster_option = app.add_option("-M,--cluster,--clusters", cluster);
  app.add_flag("-t,--sort-by-time", by_time);
  app.add_flag("-T,--sort-by-time2", by_time2);
  app.add_flag("--usage", usage);
  app.add_flag("-V,--version", version);
  app.add_flag("--json", json);
  std::vector<std::string> operands;  // ignored, as Slurm's sdiag ignores them
  if (int rc = skiff::cli::ParseGetoptCommandLine(app, kProgram, argc, argv, &operands); rc >= 0) {
    return rc;
  }
  if (help) {
    std::cout << kHelp;
    return 0;
  }
  if (skiff::cli::PrintAskedInfo({version, false, usage}, nullptr,
                                 [] { return std::string(kUsage); })) {
    return 0;
  }
  // getopt's last sort option wins in Slurm; CLI11 keeps no order across
  // flags, so the strongest named one wins here: -T, then -t, then -i.
  skiff::cli::SdiagSort sort = skiff::cli::SdiagSort::kCount;
  if (by_id) sort = skiff::cli::SdiagSort::kId;
  if (by_time) sort = skiff::cli::SdiagSort::kTime;
  if (by_time2) sort = skiff::cli::SdiagSort::kTime2;

  absl::StatusOr<std::unique_ptr<skiff::client::CtldClient>> client =
      skiff::client::CtldClient::Connect("");
  if (!client.ok()) return skiff::client::ReportError(kProgram, client.status());
  const std::string& local = (*client)->config().skiff.cluster_name;
  if (cluster_option->count() > 0 && cluster != local) {
    return skiff::client::ReportError(
        kProgram, absl::InvalidArgumentError(
                      "Skiff has no multi-cluster support: -M/--cluster takes only this cluster (" +
                      local + ")"));
  }

  skiff::v1::GetStatsRequest request;
  request.set_reset(reset);
  skiff::v1::GetStatsReply reply;
  absl::Status status = (*client)->Call(&skiff::v1::Ctld::Stub::GetStats, request, &reply);
  if (reset) {
    if (!status.ok()) return Perror("slurm_reset_statistics", status);
    std::cout << "Reset scheduling statistics\n";
    return 0;
  }
  if (!status.ok()) return Perror("slurm_get_statistics", status);
  skiff::cli::SortSdiagRpcs(&reply, sort);
  std::cout << (json ? skiff::cli::FormatSdiagJson(reply) : skiff::cli::FormatSdiag(reply));
  return 0;
}
