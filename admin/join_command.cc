#include "admin/join_command.h"

#include <fcntl.h>
#include <grpcpp/grpcpp.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "admin/node_key.h"
#include "common/join/join_token.h"
#include "common/rpc/status.h"
#include "noded/gpu/nvml.h"
#include "noded/hardware.h"
#include "proto/join.grpc.pb.h"

namespace skiff::cli {

// The machine as noded will see it: what `skiff join` reports to ctld.
using noded::CollectNodeGres;
using noded::DetectedGpu;
using noded::DetectHardware;
using noded::DetectNvmlGpus;
using noded::Hardware;
using noded::NodeGres;

std::string NodedDefaultsText(const NodedDefaults& d) {
  std::vector<std::string> words = {"--conf-server", d.conf_server, "-N", d.node_name, "-Z"};
  if (d.port != 0) {
    words.push_back("--port");
    words.push_back(std::to_string(d.port));
  }
  if (!d.conf_cache.empty()) {
    words.push_back("--conf-cache");
    words.push_back(d.conf_cache);
  }
  if (!d.node_key.empty()) {
    words.push_back("--node-key");
    words.push_back(d.node_key);
  }
  return absl::StrCat(
      "# Written by `skiff join`: this node joined cluster ", d.cluster_name, " as ", d.node_name,
      ".\n"
      "# noded fetches its configuration from ctld (configless, --conf-server) and\n"
      "# registers as a dynamic node (-Z): skiff.conf has no NodeName line for it.\n"
      "NODED_OPTIONS=\"",
      absl::StrJoin(words, " "), "\"\n");
}

std::string NodedOptionsOf(const std::string& text) {
  const std::string key = "NODED_OPTIONS=\"";
  const size_t start = text.find(key);
  if (start == std::string::npos) return "";
  const size_t end = text.find('"', start + key.size());
  return text.substr(start + key.size(), end == std::string::npos ? end : end - start - key.size());
}

namespace {

// Where to give the token instead of the command line, for the errors below.
constexpr char kTokenWays[] =
    "give it on standard input (paste it when skiff join asks, or --token -), in a file "
    "(--token-file FILE, root's, mode 0600) or in SKIFF_JOIN_TOKEN";

// Up to kMaxJoinTokenText bytes from `fd`, stopping after a newline when
// `line` (a terminal, or a pipe that stays open), else at end of file.
absl::StatusOr<std::string> ReadTokenText(int fd, bool line, const std::string& what) {
  std::string text;
  char c = 0;
  for (;;) {
    const ssize_t n = read(fd, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot read the join token from ", what, ": ", strerror(errno)));
    }
    if (n == 0 || (line && c == '\n')) break;
    if (text.size() >= kMaxJoinTokenText) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the join token from ", what, " is longer than ", kMaxJoinTokenText, " bytes"));
    }
    text.push_back(c);
  }
  return text;
}

absl::StatusOr<std::string> TokenFromStdin(int fd) {
  if (!isatty(fd)) return ReadTokenText(fd, true, "standard input");
  // A terminal: ask, and keep the pasted token off the screen (and out of
  // whatever records it).
  fputs("Join token (printed by `skiff token create` on the head node; not shown): ", stderr);
  fflush(stderr);
  struct termios saved;
  const bool quiet = tcgetattr(fd, &saved) == 0;
  if (quiet) {
    struct termios silent = saved;
    silent.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    tcsetattr(fd, TCSAFLUSH, &silent);
  }
  absl::StatusOr<std::string> text = ReadTokenText(fd, true, "the terminal");
  if (quiet) tcsetattr(fd, TCSAFLUSH, &saved);
  fputs("\n", stderr);
  return text;
}

absl::StatusOr<std::string> TokenFromFile(const std::string& path) {
  // O_NOFOLLOW and O_NONBLOCK: a link is refused, and a FIFO cannot hold
  // the open; the type, size, owner and mode are those of what was opened.
  const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "--token-file ", path, ": ", errno == ELOOP ? "is a symbolic link" : strerror(errno)));
  }
  std::string refused = SecretFileProblem(fd, static_cast<off_t>(kMaxJoinTokenText));
  if (absl::StartsWith(refused, "is ") && absl::EndsWith(refused, " bytes long")) {
    absl::StrAppend(&refused, "; a token is 98");
  } else if (absl::StartsWith(refused, "may be read")) {
    absl::StrAppend(&refused,
                    ": whoever reads it can join first and get the munge key, and whoever writes "
                    "it can send this node to a controller of theirs. Keep it yours, mode 0600 "
                    "(umask 077 when writing it)");
  }
  if (!refused.empty()) {
    close(fd);
    return absl::FailedPreconditionError(absl::StrCat("--token-file ", path, " ", refused));
  }
  absl::StatusOr<std::string> text = ReadTokenText(fd, false, path);
  close(fd);
  return text;
}

std::string GresSummary(const v1::JoinRequest& request) {
  std::vector<std::string> parts;
  for (const v1::JoinGres& g : request.gres()) {
    parts.push_back(g.type().empty() ? absl::StrCat(g.name(), ":", g.count())
                                     : absl::StrCat(g.name(), ":", g.type(), ":", g.count()));
  }
  return parts.empty() ? "none" : absl::StrJoin(parts, ",");
}

}  // namespace

absl::StatusOr<std::string> ReadJoinToken(const JoinTokenSource& source, int stdin_fd) {
  if (source.arg.has_value() && *source.arg != "-") {
    return absl::InvalidArgumentError(absl::StrCat(
        "--token takes no token: on the command line every user of this machine can read it "
        "(/proc/PID/cmdline) and join first with it; ",
        kTokenWays,
        ". If you typed the token there, create a new one on the head node (skiff token "
        "create)"));
  }
  const bool stdin_flag = source.arg.has_value() || source.file == "-";
  if (stdin_flag && !source.file.empty() && source.file != "-") {
    return absl::InvalidArgumentError("give the join token one way: --token - or --token-file");
  }
  absl::StatusOr<std::string> text;
  if (stdin_flag) {
    text = TokenFromStdin(stdin_fd);
  } else if (!source.file.empty()) {
    text = TokenFromFile(source.file);
  } else if (source.env.has_value()) {
    text = *source.env;
  } else {
    text = TokenFromStdin(stdin_fd);
  }
  if (!text.ok()) return text.status();
  std::string token(absl::StripAsciiWhitespace(*text));
  if (token.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("no join token: ", kTokenWays));
  }
  return token;
}

absl::StatusOr<std::string> RunJoin(const JoinOptions& options, const CommandRunner& run) {
  absl::StatusOr<JoinToken> token = ParseJoinToken(options.token);
  if (!token.ok()) return token.status();
  absl::StatusOr<HostPort> target = ParseHostPort(options.target, kDefaultJoinPort);
  if (!target.ok()) return target.status();
  const std::string where = FormatHostPort(target->host, target->port);
  const std::string node_name = options.node_name.empty() ? ShortHostname() : options.node_name;
  if (absl::Status s = CheckJoinNodeName(node_name); !s.ok()) return s;

  // What this node has, as noded -Z will register it.
  const Hardware hw = DetectHardware();
  v1::JoinRequest request;
  request.set_token_id(token->id);
  request.set_token_secret(token->secret);
  request.set_node_name(node_name);
  request.set_cpus(hw.cpus);
  request.set_real_memory_mb(hw.real_memory_mb);
  request.set_addr(options.addr);
  request.set_port(options.port);
  // ctld compares it with SlurmUser's uid there before it spends the token.
  const std::optional<std::pair<uid_t, gid_t>> slurm_user = UserIds(options.slurm_user);
  if (!slurm_user.has_value()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "SlurmUser ", options.slurm_user,
        " does not exist here: install skiff-common (it creates it), or create it with the "
        "controller's uid, then join again (--slurm-user names another)"));
  }
  request.set_slurm_user_uid(slurm_user->first);
  absl::StatusOr<std::vector<DetectedGpu>> gpus = DetectNvmlGpus();
  if (gpus.ok() && !gpus->empty()) {
    NodeConfig none;
    none.name = node_name;
    absl::StatusOr<std::vector<NodeGres>> gres = CollectNodeGres(none, GresConfig{}, &*gpus);
    if (gres.ok()) {
      for (const NodeGres& g : *gres) {
        v1::JoinGres* out = request.add_gres();
        out->set_name(g.name);
        out->set_type(g.type);
        out->set_count(g.count);
      }
    }
  }

  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      OpenPinnedJoinChannel(*target, token->pin, options.timeout_seconds);
  if (!channel.ok()) return channel.status();
  std::unique_ptr<v1::Join::Stub> stub = v1::Join::NewStub(*channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(options.timeout_seconds));
  v1::JoinReply reply;
  if (absl::Status s = JoinCallStatus(stub->Join(&context, request, &reply), where); !s.ok()) {
    return s;
  }
  if (reply.munge_key().empty()) {
    return absl::InternalError("the controller answered without a munge key");
  }

  // The key: munge's own file, readable by munge alone.
  const std::string key_path =
      options.munge_key.empty() ? Under(options.root, "/etc/munge/munge.key") : options.munge_key;
  if (absl::Status s = WriteFileAtomic(key_path, reply.munge_key(), 0400, UserIds("munge"));
      !s.ok()) {
    return absl::Status(s.code(), absl::StrCat("installing the munge key: ", s.message()));
  }
  // The node's own key, root's alone: with it the node fetches the munge key
  // again once `skiff node remove` has replaced it.
  if (reply.node_key().empty()) {
    return absl::InternalError("the controller answered without a node key");
  }
  NodeKeyFile node_key;
  node_key.controller = where;
  node_key.pin = token->pin;
  node_key.node_name = node_name;
  node_key.node_key = reply.node_key();
  node_key.munge_key = key_path;
  // On a real machine munged is systemd's, whether or not this join starts
  // it; under a test's --root whoever started munged restarts it. An absolute
  // path: noded runs it without a PATH search.
  if (options.root.empty()) node_key.munge_restart = {"/usr/bin/systemctl", "restart", "munge"};
  const std::string node_key_path =
      options.node_key_file.empty() ? Under(options.root, kNodeKeyPath) : options.node_key_file;
  if (absl::Status s = WriteFileAtomic(node_key_path, FormatNodeKeyFile(node_key), 0600); !s.ok()) {
    return s;
  }
  NodedDefaults defaults;
  defaults.node_key = node_key_path;
  defaults.cluster_name = reply.cluster_name();
  defaults.node_name = node_name;
  defaults.conf_server = FormatHostPort(target->host, reply.ctld_port());
  defaults.port = options.port;
  defaults.conf_cache = !options.conf_cache.empty() ? options.conf_cache
                        : options.root.empty()      ? ""
                                                    : Under(options.root, kNodedConfCache);
  const std::string defaults_path = options.defaults_file.empty()
                                        ? Under(options.root, "/etc/default/skiff-noded")
                                        : options.defaults_file;
  if (absl::Status s = WriteFileAtomic(defaults_path, NodedDefaultsText(defaults), 0644); !s.ok()) {
    return s;
  }
  std::string out =
      absl::StrCat("Joined cluster ", reply.cluster_name(), " as node ", node_name,
                   " (CPUs=", hw.cpus, " RealMemory=", hw.real_memory_mb,
                   " Gres=", GresSummary(request), ", reached at ", reply.node_addr(), ").\n",
                   "Wrote ", key_path, ", ", node_key_path, " and ", defaults_path, ".\n");
  if (!options.start) {
    absl::StrAppend(&out,
                    "Not started (--no-start): run `systemctl restart munge` and "
                    "`systemctl enable --now skiff-noded`.\n");
    return out;
  }
  for (const std::vector<std::string>& command :
       std::vector<std::vector<std::string>>{{"systemctl", "restart", "munge"},
                                             {"systemctl", "enable", "skiff-noded"},
                                             {"systemctl", "restart", "skiff-noded"}}) {
    if (absl::Status s = run(command); !s.ok()) {
      return absl::Status(s.code(),
                          absl::StrCat(s.message(), " (the node joined; start it by hand)"));
    }
  }
  absl::StrAppend(&out, "Started munge and skiff-noded; `sinfo -N -n ", node_name,
                  "` on the head node shows it.\n");
  return out;
}

}  // namespace skiff::cli
