// restd: Skiff's REST daemon, slurmrestd's API (issue 36). A client of ctld
// like the commands: every request goes to ctld as its user (rest_service.h).
//
//   restd [-f skiff.conf] [--allow-origin ORIGIN]... [--max-connections N]
//         [--max-connections-per-peer N] [LISTEN...]
//     LISTEN: HOST:PORT (IPv4) or unix:/path; default 127.0.0.1:6820, as
//     slurmrestd's port. Runs until SIGINT or SIGTERM.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "client/ctld_client.h"
#include "common/mutex_mode.h"
#include "common/version.h"
#include "restd/http/cross_site.h"
#include "restd/http/http_server.h"
#include "restd/rest_auth.h"
#include "restd/rest_service.h"

namespace {

constexpr char kUsage[] =
    "Usage: restd [-f skiff.conf] [--allow-origin ORIGIN]... [--max-connections N]\n"
    "             [--max-connections-per-peer N] [--metrics-token-file FILE]\n"
    "             [HOST:PORT | unix:/path ...]\n"
    "Serve Slurm's REST API (slurmrestd's, data_parser v0.0.42 to v0.0.44) over Skiff's "
    "controller.\n"
    "\n"
    "  HOST:PORT       listen on an IPv4 address (default 127.0.0.1:6820)\n"
    "  unix:/path      listen on a Unix socket; its peers act as their own user\n"
    "  -f FILE         skiff.conf (default: $SKIFF_CONF, else /etc/skiff/skiff.conf)\n"
    "  --allow-origin ORIGIN\n"
    "                  let pages of ORIGIN (https://portal.example.org) submit and cancel\n"
    "                  jobs; other sites' pages may only read (repeatable)\n"
    "  --max-connections N           connections open at once, in all (default 512)\n"
    "  --max-connections-per-peer N  the same per user or remote address (default 32)\n"
    "  --metrics-token-file FILE\n"
    "                  a scrape credential: \"Authorization: Bearer <FILE's secret>\" reads\n"
    "                  /metrics and /metrics/* (only), never expiring (chmod 600 or 640)\n"
    "  -h, --help      show this help and exit\n"
    "  -V, --version   show the version and exit\n"
    "\n"
    "Requests act as the user of their X-SLURM-USER-TOKEN (scontrol token), or on the\n"
    "Unix socket as the connecting user; ctld decides what each may see and do.\n";

int Usage() {
  fputs(kUsage, stderr);
  return 1;
}

// A positive count from `text`, for the option `name`; else an error and nullopt.
std::optional<int> PositiveCount(const std::string& name, const char* text) {
  int value = 0;
  if (!absl::SimpleAtoi(text, &value) || value <= 0) {
    fprintf(stderr, "restd: error: %s takes a positive number, not '%s'\n", name.c_str(), text);
    return std::nullopt;
  }
  return value;
}

// The scrape credential's secret from `path` (rest_auth.h), or an error.
absl::StatusOr<std::string> ReadMetricsToken(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    return absl::NotFoundError(absl::StrCat("--metrics-token-file ", path, ": ", strerror(errno)));
  }
  struct stat st {};
  std::string text;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= 4096) {
    char buf[4097];
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n > 0) text.assign(buf, static_cast<size_t>(n));
  }
  close(fd);
  if (absl::Status s =
          skiff::restd::CheckMetricsTokenFile(path, S_ISREG(st.st_mode), st.st_mode, text);
      !s.ok()) {
    return s;
  }
  return std::string(absl::StripAsciiWhitespace(text));
}

// restd's command line, as parsed.
struct RestdFlags {
  std::string conf;
  std::vector<std::string> allowed_origins;
  std::string metrics_token;  // --metrics-token-file's secret
  skiff::restd::HttpServer::Options options;
};

// Reads the command line into `flags`: nullopt to go on, else the exit status
// (after --help, --version, or an error already printed).
std::optional<int> ParseFlags(int argc, char** argv, RestdFlags* flags) {
  bool any = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      fputs(kUsage, stdout);
      return 0;
    }
    if (arg == "-V" || arg == "--version") {
      printf("restd %s\n", skiff::kSkiffVersion);
      return 0;
    }
    if (arg == "-f" && i + 1 < argc) {
      flags->conf = argv[++i];
    } else if (arg == "--allow-origin" && i + 1 < argc) {
      const std::string origin = argv[++i];
      if (!skiff::restd::NormalizedOrigin(origin)) {
        fprintf(stderr,
                "restd: error: --allow-origin: '%s' is not an origin (https://host[:port])\n",
                origin.c_str());
        return 1;
      }
      flags->allowed_origins.push_back(origin);
    } else if (arg == "--metrics-token-file" && i + 1 < argc) {
      absl::StatusOr<std::string> secret = ReadMetricsToken(argv[++i]);
      if (!secret.ok()) {
        fprintf(stderr, "restd: error: %s\n", std::string(secret.status().message()).c_str());
        return 1;
      }
      flags->metrics_token = *std::move(secret);
    } else if ((arg == "--max-connections" || arg == "--max-connections-per-peer") &&
               i + 1 < argc) {
      std::optional<int> count = PositiveCount(arg, argv[++i]);
      if (!count) return 1;
      (arg == "--max-connections" ? flags->options.max_connections
                                  : flags->options.max_connections_per_peer) = *count;
    } else if (absl::StartsWith(arg, "unix:")) {
      flags->options.unix_path = arg.substr(5);
      any = true;
    } else if (const size_t colon = arg.rfind(':'); colon != std::string::npos) {
      flags->options.tcp_host = arg.substr(0, colon);
      if (!absl::SimpleAtoi(arg.substr(colon + 1), &flags->options.tcp_port) ||
          flags->options.tcp_port < 0 || flags->options.tcp_port > 65535) {
        fprintf(stderr, "restd: error: bad port in %s\n", arg.c_str());
        return 1;
      }
      any = true;
    } else {
      return Usage();
    }
  }
  if (!any) flags->options.tcp_port = 6820;
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  skiff::TurnOffMutexDeadlockDetection();  // mutex_mode.h
  RestdFlags flags;
  if (std::optional<int> exit_status = ParseFlags(argc, argv, &flags)) return *exit_status;
  absl::StatusOr<std::unique_ptr<skiff::client::CtldClient>> client =
      skiff::client::CtldClient::Connect(flags.conf, skiff::client::CtldCalls::kChannel);
  if (!client.ok()) {
    fprintf(stderr, "restd: error: %s\n", std::string(client.status().message()).c_str());
    return 1;
  }
  skiff::restd::RestService service(**client, flags.allowed_origins, flags.metrics_token);
  // Signals are waited for here, not handled: blocked before any thread starts.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  absl::StatusOr<std::unique_ptr<skiff::restd::HttpServer>> server =
      skiff::restd::HttpServer::Start(
          flags.options,
          [&service](const skiff::restd::HttpRequest& request, const skiff::restd::HttpPeer& peer) {
            return service.Handle(request, peer);
          },
          [&service](const skiff::restd::HttpRequest& head, const skiff::restd::HttpPeer& peer) {
            return service.CheckHead(head, peer);
          });
  if (!server.ok()) {
    fprintf(stderr, "restd: error: %s\n", std::string(server.status().message()).c_str());
    return 1;
  }
  if ((*server)->tcp_port() >= 0) {
    printf("restd: listening on %s:%d\n", flags.options.tcp_host.c_str(), (*server)->tcp_port());
  }
  if (!flags.options.unix_path.empty())
    printf("restd: listening on unix:%s\n", flags.options.unix_path.c_str());
  fflush(stdout);
  int signal_number = 0;
  sigwait(&stop, &signal_number);
  (*server)->Stop();
  return 0;
}
