// sreport: usage reports from ctld's job records (cluster Utilization,
// AccountUtilizationByUser, UserUtilizationByAccount, user TopUsage), as
// Slurm's sreport prints them. Without a command it reads commands from
// standard input, as Slurm's does.
#include <pwd.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstring>
#include <ctime>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "cli/command.h"
#include "cli/common/getopt_args.h"
#include "cli/sreport/sreport_help.h"
#include "cli/sreport/sreport_report.h"
#include "client/ctld_client.h"

namespace {

constexpr char kProgram[] = "sreport";

// Slurm's "Proper Name": the GECOS field up to its first comma.
std::string ProperName(const std::string& user) {
  struct passwd pw;
  struct passwd* found = nullptr;
  std::vector<char> buf(16384);
  if (getpwnam_r(user.c_str(), &pw, buf.data(), buf.size(), &found) != 0 || !found) return "";
  std::string gecos = found->pw_gecos ? found->pw_gecos : "";
  return gecos.substr(0, gecos.find(','));
}

// The report's "now" (where End= is capped and rounded): SKIFF_SREPORT_NOW,
// unix seconds, reproduces a report as it would have been made then (and lets
// tests cover jobs of the current hour, which Slurm's rounding leaves out
// before half past).
int64_t Now() {
  if (const char* env = getenv("SKIFF_SREPORT_NOW"); env && *env) {
    char* end = nullptr;
    const long long value = strtoll(env, &end, 10);
    if (*end == '\0' && value > 0) return value;
  }
  return time(nullptr);
}

// Words of an interactive line, quotes kept inside a word as Slurm's
// _get_command keeps them (conditions strip them).
std::vector<std::string> SplitLine(const std::string& line) {
  std::vector<std::string> words;
  std::string word;
  bool in_double = false, in_single = false, in_word = false;
  for (char c : line) {
    if (c == '"' && !in_single) in_double = !in_double;
    if (c == '\'' && !in_double) in_single = !in_single;
    if (!in_double && !in_single && std::isspace(static_cast<unsigned char>(c))) {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
      continue;
    }
    word += c;
    in_word = true;
  }
  if (in_word) words.push_back(word);
  return words;
}

class Sreport {
 public:
  Sreport(skiff::cli::ReportStyle style, std::string tres_text)
      : style_(std::move(style)), tres_text_(std::move(tres_text)) {}

  int exit_code() const { return exit_code_; }
  bool done() const { return done_; }

  // One command, as Slurm's _process_command.
  void Run(const std::vector<std::string>& words) {
    if (words.empty()) return;
    const std::string keyword = absl::AsciiStrToLower(words[0]);
    auto is = [&](const char* name, size_t min) {
      return keyword.size() >= min && std::string(name).compare(0, keyword.size(), keyword) == 0;
    };
    if (is("exit", 1) || keyword == "\\q" || is("quit", 4)) {
      done_ = true;
    } else if (is("help", 2)) {
      std::cout << skiff::cli::SreportHelp();
    } else if (is("nonparsable", 4)) {
      style_.layout.parsable = style_.layout.parsable2 = false;
    } else if (keyword == "parsable") {
      style_.layout.parsable = true;
      style_.layout.parsable2 = false;
    } else if (keyword == "parsable2") {
      style_.layout.parsable2 = true;
      style_.layout.parsable = false;
    } else if (is("noheader", 1) && !is("nonparsable", 4)) {
      style_.layout.no_header = true;
    } else if (is("quiet", 4) || is("verbose", 4)) {
      // Skiff's sreport prints no messages besides errors either way.
    } else if (is("version", 4)) {
      std::cout << skiff::cli::VersionLine();
    } else if (is("time", 1)) {
      if (words.size() < 2) {
        Fail("too few arguments for keyword:" + words[0] + "\n");
        return;
      }
      absl::StatusOr<skiff::cli::ReportTimeFormat> format =
          skiff::cli::ParseReportTimeFormat(words[1]);
      if (!format.ok()) {
        Fail(std::string(format.status().message()) + "\n");
        return;
      }
      style_.time_format = *format;
    } else {
      Report(words);
    }
  }

 private:
  void Fail(const std::string& text) {
    std::cerr << text;
    exit_code_ = 1;
  }

  void Report(const std::vector<std::string>& words) {
    const int64_t now = Now();
    skiff::cli::ReportOutput parsed;
    absl::StatusOr<skiff::cli::ReportRequest> request =
        skiff::cli::ParseReportCommand(words, now, &parsed);
    std::cerr << parsed.err;
    if (parsed.exit_code != 0) exit_code_ = parsed.exit_code;
    if (!request.ok()) return;

    if (!client_) {
      absl::StatusOr<std::unique_ptr<skiff::client::CtldClient>> client =
          skiff::client::CtldClient::Connect("");
      if (!client.ok()) {
        exit_code_ = skiff::client::ReportError(kProgram, client.status());
        return;
      }
      client_ = std::move(*client);
    }
    skiff::cli::UsageData data;
    data.window = skiff::cli::RoundReportWindow(request->start, request->end, now);
    skiff::v1::GetUsageReportRequest usage_request;
    usage_request.set_start(data.window.start);
    usage_request.set_end(data.window.end);
    skiff::v1::GetUsageReportReply usage;
    if (absl::Status s =
            client_->Call(&skiff::v1::Ctld::Stub::GetUsageReport, usage_request, &usage);
        !s.ok()) {
      exit_code_ = skiff::client::ReportError(kProgram, s);
      return;
    }
    data.cluster = usage.cluster();
    data.total_cpus = usage.total_cpus();
    data.waiting = {usage.waiting_tres_seconds().begin(), usage.waiting_tres_seconds().end()};
    data.reserved = {usage.reserved_tres_seconds().begin(), usage.reserved_tres_seconds().end()};
    data.maint = {usage.maint_tres_seconds().begin(), usage.maint_tres_seconds().end()};
    data.in_reservation = {usage.in_reservation_tres_seconds().begin(),
                           usage.in_reservation_tres_seconds().end()};
    for (const skiff::v1::UsageRow& row : usage.rows()) {
      data.usage.push_back({row.account(),
                            row.user(),
                            row.cpu_seconds(),
                            {row.tres_seconds().begin(), row.tres_seconds().end()}});
    }
    std::vector<std::string> cluster_tres;
    for (const skiff::v1::ClusterTres& tres : usage.tres()) {
      data.cluster_tres.emplace_back(tres.name(), tres.count());
      cluster_tres.push_back(tres.name());
    }
    if (cluster_tres.empty()) cluster_tres.push_back("cpu");  // a ctld that sums CPUs only
    // Slurm resolves -T against its database's TRES once, at start-up, and
    // stops there (fatal) when none is known.
    absl::StatusOr<std::vector<std::string>> tres =
        skiff::cli::SelectReportTres(tres_text_, cluster_tres, style_.time_format);
    if (!tres.ok()) {
      std::cerr << kProgram << ": fatal: " << tres.status().message() << "\n";
      exit_code_ = 1;
      done_ = true;
      return;
    }
    style_.tres = *tres;
    if (request->kind == skiff::cli::ReportKind::kAccountUtilizationByUser) {
      skiff::v1::GetAccountsReply accounts;
      if (absl::Status s = client_->Call(&skiff::v1::Ctld::Stub::GetAccounts,
                                         skiff::v1::GetAccountsRequest(), &accounts);
          !s.ok()) {
        exit_code_ = skiff::client::ReportError(kProgram, s);
        return;
      }
      for (const skiff::v1::AssocInfo& assoc : accounts.assocs()) {
        data.tree.push_back({assoc.account(), assoc.user(), assoc.parent_account()});
      }
    }
    skiff::cli::ReportOutput output = skiff::cli::RenderReport(*request, data, style_);
    std::cerr << output.err;
    std::cout << output.out << std::flush;
    if (output.exit_code != 0) exit_code_ = output.exit_code;
  }

  skiff::cli::ReportStyle style_;
  std::string tres_text_;  // -T (or SREPORT_TRES) as given; "" = cpu
  std::unique_ptr<skiff::client::CtldClient> client_;
  int exit_code_ = 0;
  bool done_ = false;
};

}  // namespace

int skiff::cli::SreportMain(int argc, char** argv) {
  CLI::App app{"sreport"};
  app.set_help_flag();
  bool all_clusters = false, federation = false, help = false, immediate = false, local = false;
  bool no_header = false, parsable = false, parsable2 = false, quiet = false, verbose = false;
  bool version = false;
  std::string cluster, sort, time_format, tres;
  // Slurm's table order (src/sreport/sreport.c), for abbreviations.
  app.add_flag("-a,--all_clusters", all_clusters);
  app.add_option("-M,--cluster", cluster);
  app.add_flag("--federation", federation);
  app.add_flag("-h,--help", help);
  app.add_flag("--immediate", immediate);
  app.add_flag("--local", local);
  app.add_flag("-n,--noheader", no_header);
  app.add_flag("-p,--parsable", parsable);
  app.add_flag("-P,--parsable2", parsable2);
  app.add_flag("-Q,--quiet", quiet);
  app.add_option("-s,--sort", sort);
  app.add_option("-t", time_format);
  app.add_option("-T,--tres", tres);
  app.add_flag("--usage", help);
  app.add_flag("-v,--verbose", verbose);
  app.add_flag("-V,--version", version);
  std::vector<std::string> operands;
  if (int rc = skiff::cli::ParseGetoptCommandLine(app, kProgram, argc, argv, &operands); rc >= 0) {
    return rc;
  }
  if (help) {
    std::cout << skiff::cli::SreportHelp();
    return 0;
  }
  if (version) {
    std::cout << skiff::cli::VersionLine();
    return 0;
  }
  if ((all_clusters ? 1 : 0) + (cluster.empty() ? 0 : 1) + (local ? 1 : 0) > 1) {
    std::cerr << "Only one cluster option can be used (--all_clusters OR --cluster OR --local)\n";
    return 1;
  }
  skiff::cli::ReportStyle style;
  style.layout.no_header = no_header;
  style.layout.parsable = parsable && !parsable2;
  style.layout.parsable2 = parsable2;
  style.proper_name = ProperName;
  if (!time_format.empty()) {
    absl::StatusOr<skiff::cli::ReportTimeFormat> format =
        skiff::cli::ParseReportTimeFormat(time_format);
    if (!format.ok()) {
      std::cerr << format.status().message() << "\n";
      return 1;
    }
    style.time_format = *format;
  }
  if (!sort.empty()) {
    const std::string lower = absl::AsciiStrToLower(sort);
    if (std::string("name").rfind(lower, 0) == 0) {
      style.sort_by_name = true;
    } else if (lower.size() >= 4 && std::string("time").rfind(lower, 0) == 0) {
      style.sort_by_name = false;
    } else {
      std::cerr << "unknown timesort format " << sort << "\n";
      return 1;
    }
  }
  if (const char* env = getenv("SREPORT_TRES"); tres.empty() && env) tres = env;
  style.tres_named = !tres.empty();

  Sreport sreport(style, tres);
  if (!operands.empty()) {
    sreport.Run(operands);
    return sreport.exit_code();
  }
  const bool tty = isatty(STDIN_FILENO);
  std::string line, last;
  while (!sreport.done()) {
    if (tty) std::cout << "sreport: " << std::flush;
    if (!std::getline(std::cin, line)) {
      if (tty) std::cout << "\n";
      break;
    }
    if (line.rfind('#', 0) == 0) continue;
    if (line == "!!") line = last;
    last = line;
    sreport.Run(SplitLine(line));
  }
  return sreport.exit_code();
}
