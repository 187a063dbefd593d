#include "noded/container/user_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/unique_fd.h"

namespace skiff::noded {
namespace {

constexpr int kMaxDepth = 512;  // deeper trees are refused rather than overflow the stack

absl::Status ErrnoStatus(const std::string& what, const std::string& shown, int error) {
  std::string message = absl::StrCat(what, " ", shown, ": ", strerror(error));
  if (error == ENOENT) return absl::NotFoundError(message);
  return absl::FailedPreconditionError(message);
}

// A regular file under `dir_fd`, opened without following a link or blocking
// on a FIFO, with its size. The descriptor is the caller's.
absl::StatusOr<int> OpenRegularAt(int dir_fd, const std::string& name, uint64_t max_bytes,
                                  const std::string& shown, uint64_t* size) {
  const int fd = openat(dir_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    if (error == ELOOP) {
      return absl::FailedPreconditionError(absl::StrCat(shown, " is a link, not a regular file"));
    }
    return ErrnoStatus("cannot open", shown, error);
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return absl::FailedPreconditionError(absl::StrCat(shown, " is not a regular file"));
  }
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    close(fd);
    return absl::FailedPreconditionError(
        absl::StrCat(shown, " has ", st.st_size, " bytes, more than the ", max_bytes, " allowed"));
  }
  // Reads block again: a regular file never blocks, and a short read of one
  // opened O_NONBLOCK would read as its end.
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  *size = static_cast<uint64_t>(st.st_size);
  return fd;
}

// The names in a directory (without . and ..), read from a duplicate of
// `dir_fd` so that `dir_fd` stays usable.
absl::StatusOr<std::vector<std::string>> NamesIn(int dir_fd, const std::string& shown) {
  const int copy = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (copy < 0) return ErrnoStatus("cannot read", shown, errno);
  DIR* dir = fdopendir(copy);
  if (dir == nullptr) {
    const int error = errno;
    close(copy);
    return ErrnoStatus("cannot read", shown, error);
  }
  std::vector<std::string> names;
  while (struct dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  closedir(dir);
  return names;
}

// Empties the directory `dir_fd` (on device `dev`); `shown` names it. Keeps
// going past errors and returns the first.
absl::Status RemoveContents(int dir_fd, dev_t dev, const std::string& shown, int depth) {
  if (depth > kMaxDepth) {
    return absl::FailedPreconditionError(absl::StrCat(shown, " is nested too deep to remove"));
  }
  absl::Status first;
  auto note = [&](absl::Status status) {
    if (first.ok() && !status.ok()) first = std::move(status);
  };
  // Twice at most: a name the owner adds while we walk is caught by the
  // second pass, and a tree still growing after it is reported.
  for (int pass = 0; pass < 2; ++pass) {
    absl::StatusOr<std::vector<std::string>> names = NamesIn(dir_fd, shown);
    if (!names.ok()) return names.status();
    if (names->empty()) break;
    for (const std::string& name : *names) {
      const std::string path = absl::StrCat(shown, "/", name);
      if (unlinkat(dir_fd, name.c_str(), 0) == 0 || errno == ENOENT) continue;
      if (errno != EISDIR && errno != EPERM) {
        note(ErrnoStatus("cannot remove", path, errno));
        continue;
      }
      // A directory (or what was one a moment ago): opened without following
      // a link swapped in for it, and only on our own file system.
      const int child =
          openat(dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (child < 0) {
        const int error = errno;
        if (error == ENOENT) continue;
        // Not a directory after all (swapped for a link or a file): the
        // name itself goes.
        if ((error == ELOOP || error == ENOTDIR) && unlinkat(dir_fd, name.c_str(), 0) == 0) {
          continue;
        }
        note(ErrnoStatus("cannot open", path, error));
        continue;
      }
      UniqueFd child_fd(child);
      struct stat st {};
      if (fstat(child, &st) != 0) {
        note(ErrnoStatus("cannot stat", path, errno));
        continue;
      }
      if (st.st_dev != dev) {
        note(absl::FailedPreconditionError(
            absl::StrCat(path, " is on another file system (a mount): left in place")));
        continue;
      }
      // An owner's 0555 directory: theirs to open up (root needs no bits).
      if (st.st_uid == geteuid() && (st.st_mode & S_IRWXU) != S_IRWXU) {
        fchmod(child, (st.st_mode & 07777) | S_IRWXU);
      }
      note(RemoveContents(child, dev, path, depth + 1));
      if (unlinkat(dir_fd, name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT) {
        note(ErrnoStatus("cannot remove", path, errno));
      }
    }
  }
  return first;
}

}  // namespace

absl::StatusOr<int> OpenDirectoryAt(int dir_fd, const std::string& name) {
  const int fd = openat(dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    if (error == ELOOP || error == ENOTDIR) {
      return absl::FailedPreconditionError(absl::StrCat(name, " is not a directory"));
    }
    return ErrnoStatus("cannot open", name, error);
  }
  return fd;
}

absl::StatusOr<std::string> ReadRegularFileAt(int dir_fd, const std::string& name,
                                              uint64_t max_bytes, const std::string& shown) {
  uint64_t size = 0;
  absl::StatusOr<int> fd = OpenRegularAt(dir_fd, name, max_bytes, shown, &size);
  if (!fd.ok()) return fd.status();
  UniqueFd file(*fd);
  std::string content;
  char buf[65536];
  for (;;) {
    const ssize_t n = read(file.get(), buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoStatus("cannot read", shown, errno);
    if (n == 0) break;
    content.append(buf, static_cast<size_t>(n));
    // The file may grow after fstat: the cap holds for what is read too.
    if (content.size() > max_bytes) {
      return absl::FailedPreconditionError(
          absl::StrCat(shown, " grew past the ", max_bytes, " bytes allowed"));
    }
  }
  return content;
}

absl::StatusOr<std::string> CopyRegularFileAt(int from_dir, const std::string& name, int to_dir,
                                              uint64_t* budget, const std::string& shown) {
  uint64_t size = 0;
  absl::StatusOr<int> in_fd = OpenRegularAt(from_dir, name, *budget, shown, &size);
  if (!in_fd.ok()) return in_fd.status();
  UniqueFd in(*in_fd);
  UniqueFd out(
      openat(to_dir, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (out.get() < 0) return ErrnoStatus("cannot create the copy of", shown, errno);
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> hash(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (hash == nullptr || EVP_DigestInit_ex(hash.get(), EVP_sha256(), nullptr) != 1) {
    return absl::InternalError("cannot start a sha256");
  }
  uint64_t copied = 0;
  std::vector<char> buf(1 << 20);
  for (;;) {
    const ssize_t n = read(in.get(), buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoStatus("cannot read", shown, errno);
    if (n == 0) break;
    copied += static_cast<uint64_t>(n);
    if (copied > *budget) {
      return absl::FailedPreconditionError(
          absl::StrCat(shown, " grew past the ", *budget, " bytes allowed"));
    }
    EVP_DigestUpdate(hash.get(), buf.data(), static_cast<size_t>(n));
    for (ssize_t done = 0; done < n;) {
      const ssize_t w = write(out.get(), buf.data() + done, static_cast<size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) return ErrnoStatus("cannot write the copy of", shown, errno);
      done += w;
    }
  }
  *budget -= copied;
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(hash.get(), digest, &length);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) {
    hex.push_back(kHex[digest[i] >> 4]);
    hex.push_back(kHex[digest[i] & 15]);
  }
  return hex;
}

absl::Status RemoveTreeAt(int dir_fd, const std::string& name) {
  if (unlinkat(dir_fd, name.c_str(), 0) == 0 || errno == ENOENT) return absl::OkStatus();
  absl::StatusOr<int> opened = OpenDirectoryAt(dir_fd, name);
  if (!opened.ok()) {
    // Swapped for a link or a file since the unlink: the name goes.
    if (unlinkat(dir_fd, name.c_str(), 0) == 0 || errno == ENOENT) return absl::OkStatus();
    return opened.status();
  }
  UniqueFd dir(*opened);
  struct stat st {};
  struct stat parent {};
  if (fstat(dir.get(), &st) != 0 || fstat(dir_fd, &parent) != 0) {
    return ErrnoStatus("cannot stat", name, errno);
  }
  if (st.st_dev != parent.st_dev) {
    return absl::FailedPreconditionError(
        absl::StrCat(name, " is on another file system (a mount): left in place"));
  }
  if (st.st_uid == geteuid() && (st.st_mode & S_IRWXU) != S_IRWXU) {
    fchmod(dir.get(), (st.st_mode & 07777) | S_IRWXU);
  }
  absl::Status status = RemoveContents(dir.get(), st.st_dev, name, 0);
  if (unlinkat(dir_fd, name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT && status.ok()) {
    status = ErrnoStatus("cannot remove", name, errno);
  }
  return status;
}

namespace {

// The parent of `path` opened (root's: its path is trusted) and the last name.
absl::StatusOr<std::pair<int, std::string>> OpenParent(const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string parent = slash == std::string::npos ? "."
                             : slash == 0               ? "/"
                                                        : path.substr(0, slash);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (name.empty() || name == "." || name == "..") {
    return absl::InvalidArgumentError(absl::StrCat("cannot remove ", path));
  }
  const int fd = open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("cannot open", parent, errno);
  return std::make_pair(fd, name);
}

}  // namespace

absl::Status RemoveTreePath(const std::string& path) {
  absl::StatusOr<std::pair<int, std::string>> parent = OpenParent(path);
  if (!parent.ok()) return absl::IsNotFound(parent.status()) ? absl::OkStatus() : parent.status();
  UniqueFd parent_fd(parent->first);
  absl::Status status = RemoveTreeAt(parent_fd.get(), parent->second);
  if (!status.ok()) {
    return absl::FailedPreconditionError(absl::StrCat("removing ", path, ": ", status.message()));
  }
  return status;
}

absl::Status RemoveTreeAsOwner(const std::string& path) {
  absl::StatusOr<std::pair<int, std::string>> parent = OpenParent(path);
  if (!parent.ok()) return absl::IsNotFound(parent.status()) ? absl::OkStatus() : parent.status();
  UniqueFd parent_fd(parent->first);
  const std::string& name = parent->second;
  struct stat st {};
  if (fstatat(parent_fd.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    return errno == ENOENT ? absl::OkStatus() : ErrnoStatus("cannot stat", path, errno);
  }
  absl::Status as_owner;
  if (S_ISDIR(st.st_mode) && st.st_uid != 0) {
    const int dir =
        openat(parent_fd.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dir >= 0) {
      UniqueFd dir_fd(dir);
      int report[2];
      if (pipe2(report, O_CLOEXEC) != 0) return ErrnoStatus("cannot remove", path, errno);
      const pid_t child = fork();
      if (child == 0) {
        close(report[0]);
        if (setgroups(0, nullptr) != 0 || setgid(st.st_gid) != 0 || setuid(st.st_uid) != 0) {
          _exit(2);
        }
        if ((st.st_mode & S_IRWXU) != S_IRWXU) fchmod(dir, (st.st_mode & 07777) | S_IRWXU);
        absl::Status removed = RemoveContents(dir, st.st_dev, path, 0);
        if (!removed.ok()) {
          const std::string text(removed.message());
          ssize_t ignored = write(report[1], text.data(), text.size());
          (void)ignored;
          _exit(1);
        }
        _exit(0);
      }
      close(report[1]);
      std::string text;
      char buf[4096];
      ssize_t n;
      while ((n = read(report[0], buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR)) {
        if (n > 0) text.append(buf, static_cast<size_t>(n));
      }
      close(report[0]);
      int status = 0;
      if (child > 0) {
        while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
        }
      }
      if (child < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        as_owner = absl::FailedPreconditionError(
            absl::StrCat("uid ", st.st_uid, " could not empty ", path,
                         text.empty() ? std::string() : absl::StrCat(": ", text)));
      }
    }
  }
  // What is left (nothing, unless the owner could not remove it): by root,
  // through descriptors only.
  absl::Status by_root = RemoveTreeAt(parent_fd.get(), name);
  if (!as_owner.ok()) return as_owner;
  if (!by_root.ok()) {
    return absl::FailedPreconditionError(absl::StrCat("removing ", path, ": ", by_root.message()));
  }
  return absl::OkStatus();
}

}  // namespace skiff::noded
