#include "admin/admin_files.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/daemon.h"
#include "common/join/join_token.h"

extern char** environ;

namespace skiff::cli {

std::optional<std::pair<uid_t, gid_t>> UserIds(const std::string& name) {
  struct passwd* pw = getpwnam(name.c_str());
  if (pw == nullptr) return std::nullopt;
  return std::make_pair(pw->pw_uid, pw->pw_gid);
}

absl::Status WriteFileAtomic(const std::string& path, const std::string& text, mode_t mode,
                             std::optional<std::pair<uid_t, gid_t>> owner) {
  const size_t slash = path.rfind('/');
  if (slash != std::string::npos && slash > 0) {
    if (absl::Status s = MakeDirs(path.substr(0, slash), 0755); !s.ok()) {
      return absl::FailedPreconditionError(absl::StrCat(path, ": ", s.message()));
    }
  }
  const std::string tmp = absl::StrCat(path, ".skiff-new");
  unlink(tmp.c_str());
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return absl::FailedPreconditionError(absl::StrCat(tmp, ": ", strerror(errno)));
  auto fail = [&](const std::string& where) {
    const std::string why = strerror(errno);
    close(fd);
    unlink(tmp.c_str());
    return absl::FailedPreconditionError(absl::StrCat(where, ": ", why));
  };
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail(tmp);
    done += static_cast<size_t>(n);
  }
  if (owner && fchown(fd, owner->first, owner->second) != 0) return fail(tmp);
  if (fchmod(fd, mode) != 0 || fsync(fd) != 0) return fail(tmp);
  if (close(fd) != 0) {
    unlink(tmp.c_str());
    return absl::FailedPreconditionError(absl::StrCat(tmp, ": ", strerror(errno)));
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = strerror(errno);
    unlink(tmp.c_str());
    return absl::FailedPreconditionError(absl::StrCat(path, ": ", why));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (errno == ENOENT) return absl::NotFoundError(absl::StrCat(path, ": no such file"));
    return absl::FailedPreconditionError(absl::StrCat(path, ": ", strerror(errno)));
  }
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string SecretFileProblem(int fd, off_t max_bytes) {
  struct stat st;
  if (fstat(fd, &st) != 0) return strerror(errno);
  if (!S_ISREG(st.st_mode)) return "is not a regular file";
  if (st.st_size > max_bytes) return absl::StrCat("is ", st.st_size, " bytes long");
  if (st.st_uid == geteuid() && (st.st_mode & 077) == 0) return "";
  char mode[8];
  snprintf(mode, sizeof(mode), "%04o", static_cast<unsigned>(st.st_mode & 07777));
  return absl::StrCat("may be read or replaced by other users (owner uid ", st.st_uid, ", mode ",
                      mode, ")");
}

std::string Under(const std::string& root, const std::string& path) {
  return root.empty() ? path : absl::StrCat(root, path);
}

absl::StatusOr<std::string> NewMungeKey() {
  constexpr size_t kMungeKeyBytes = 1024;
  std::string bytes(kMungeKeyBytes, '\0');
  if (!SystemRandomBytes()(reinterpret_cast<unsigned char*>(&bytes[0]), bytes.size())) {
    return absl::InternalError("no random bytes for the munge key");
  }
  return bytes;
}

bool PathExists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

std::string ShortHostname() {
  char buf[256] = {};
  gethostname(buf, sizeof(buf) - 1);
  std::string name(buf);
  return name.substr(0, name.find('.'));
}

CommandRunner SystemCommandRunner() {
  return [](const std::vector<std::string>& argv) -> absl::Status {
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = 0;
    const std::string command = absl::StrJoin(argv, " ");
    if (int rc = posix_spawnp(&pid, args[0], nullptr, nullptr, args.data(), environ); rc != 0) {
      return absl::InternalError(absl::StrCat(command, " failed: ", strerror(rc)));
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return absl::OkStatus();
    return absl::InternalError(absl::StrCat(command, " failed (",
                                            WIFEXITED(status)
                                                ? absl::StrCat("exit ", WEXITSTATUS(status))
                                                : absl::StrCat("signal ", WTERMSIG(status)),
                                            ")"));
  };
}

}  // namespace skiff::cli
