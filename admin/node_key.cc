#include "admin/node_key.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "admin/join_channel.h"
#include "proto/join.grpc.pb.h"

namespace skiff::cli {
namespace {

constexpr off_t kMaxNodeKeyFile = 16 * 1024;

}  // namespace

std::string FormatNodeKeyFile(const NodeKeyFile& file) {
  return absl::StrCat(
      "# Written by `skiff join`: this node's own key, and where it fetches the\n"
      "# cluster's munge key again after `skiff node remove` replaced it (`skiff key\n"
      "# fetch`; noded does so when ctld refuses its credential). Root's alone.\n",
      "controller=", file.controller, "\n", "pin=", file.pin, "\n", "node=", file.node_name, "\n",
      "node_key=", file.node_key, "\n", "munge_key=", file.munge_key, "\n",
      "munge_restart=", absl::StrJoin(file.munge_restart, " "), "\n");
}

absl::StatusOr<NodeKeyFile> ParseNodeKeyFile(absl::string_view text, const std::string& path) {
  NodeKeyFile out;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line[0] == '#') continue;
    const size_t eq = line.find('=');
    if (eq == absl::string_view::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, " line ", line_number, ": not KEY=VALUE"));
    }
    const absl::string_view key = line.substr(0, eq);
    const std::string value(line.substr(eq + 1));
    if (key == "controller") {
      out.controller = value;
    } else if (key == "pin") {
      out.pin = value;
    } else if (key == "node") {
      out.node_name = value;
    } else if (key == "node_key") {
      out.node_key = value;
    } else if (key == "munge_key") {
      out.munge_key = value;
    } else if (key == "munge_restart") {
      out.munge_restart = absl::StrSplit(value, ' ', absl::SkipEmpty());
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat(path, " line ", line_number, ": unknown key '", std::string(key), "'"));
    }
  }
  for (const auto& [key, value] :
       {std::pair<const char*, const std::string*>{"controller", &out.controller},
        {"pin", &out.pin},
        {"node", &out.node_name},
        {"node_key", &out.node_key},
        {"munge_key", &out.munge_key}}) {
    if (value->empty()) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": no ", key, "= (join again)"));
    }
  }
  return out;
}

absl::StatusOr<NodeKeyFile> ReadNodeKeyFile(const std::string& path) {
  // O_NOFOLLOW and O_NONBLOCK: a link is refused and a FIFO cannot hold the
  // open; what is checked is what was opened.
  const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot read the node key ", path, ": ",
                     errno == ELOOP ? "it is a symbolic link" : strerror(errno),
                     errno == ENOENT ? " (this node did not join with `skiff join`)" : ""));
  }
  std::string refused = SecretFileProblem(fd, kMaxNodeKeyFile);
  if (absl::StartsWith(refused, "may be read")) {
    absl::StrAppend(&refused, ": keep it root's, mode 0600");
  }
  std::string text;
  if (refused.empty()) {
    char buffer[4096];
    for (;;) {
      const ssize_t n = read(fd, buffer, sizeof(buffer));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) refused = strerror(errno);
      if (n <= 0) break;
      text.append(buffer, static_cast<size_t>(n));
    }
  }
  close(fd);
  if (!refused.empty()) {
    return absl::FailedPreconditionError(absl::StrCat("node key ", path, " ", refused));
  }
  return ParseNodeKeyFile(text, path);
}

absl::StatusOr<MungeKeyRenewal> RenewMungeKey(const NodeKeyFile& file, const CommandRunner& run,
                                              int timeout_seconds) {
  absl::StatusOr<HostPort> target = ParseHostPort(file.controller, kDefaultJoinPort);
  if (!target.ok()) return target.status();
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      OpenPinnedJoinChannel(*target, file.pin, timeout_seconds);
  if (!channel.ok()) return channel.status();
  std::unique_ptr<v1::Join::Stub> stub = v1::Join::NewStub(*channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(timeout_seconds));
  v1::FetchMungeKeyRequest request;
  request.set_node_name(file.node_name);
  request.set_node_key(file.node_key);
  v1::FetchMungeKeyReply reply;
  if (absl::Status s =
          JoinCallStatus(stub->FetchMungeKey(&context, request, &reply), file.controller);
      !s.ok()) {
    return s;
  }
  if (reply.munge_key().empty()) {
    return absl::InternalError("the controller answered without a munge key");
  }
  absl::StatusOr<std::string> installed = ReadWholeFile(file.munge_key);
  if (installed.ok() && *installed == reply.munge_key()) return MungeKeyRenewal::kUnchanged;
  // munged's own file: as it was (munge's, 0400), or as a join writes it.
  std::optional<std::pair<uid_t, gid_t>> owner = UserIds("munge");
  struct stat st;
  if (stat(file.munge_key.c_str(), &st) == 0) owner = std::make_pair(st.st_uid, st.st_gid);
  if (absl::Status s = WriteFileAtomic(file.munge_key, reply.munge_key(), 0400, owner); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat("installing the munge key: ", s.message()));
  }
  if (!file.munge_restart.empty()) {
    if (absl::Status s = run(file.munge_restart); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat("the new munge key is in ", file.munge_key,
                                                 " but munged was not restarted: ", s.message()));
    }
  }
  return MungeKeyRenewal::kReplaced;
}

}  // namespace skiff::cli
