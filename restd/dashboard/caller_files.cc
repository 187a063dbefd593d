#include "restd/dashboard/caller_files.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <optional>

#include "absl/strings/str_cat.h"
#include "common/users.h"

namespace skiff::restd {
namespace {

// setfsuid/setfsgid answer the previous id whether or not they succeeded;
// asking with -1 (never valid) changes nothing and answers the current one.
uid_t CurrentFsUid() { return static_cast<uid_t>(syscall(SYS_setfsuid, -1)); }
gid_t CurrentFsGid() { return static_cast<gid_t>(syscall(SYS_setfsgid, -1)); }

// This thread's filesystem identity switched for the guard's lifetime.
class ThreadFsIdentity {
 public:
  // Switches; an error leaves the thread as it was.
  static absl::Status Switch(const FileIdentity& who, std::optional<ThreadFsIdentity>& guard) {
    ThreadFsIdentity saved;
    saved.uid_ = CurrentFsUid();
    saved.gid_ = CurrentFsGid();
    const int count = static_cast<int>(syscall(SYS_getgroups, 0, nullptr));
    if (count < 0) return absl::InternalError(absl::StrCat("getgroups: ", strerror(errno)));
    saved.groups_.resize(count);
    if (count > 0 && syscall(SYS_getgroups, count, saved.groups_.data()) != count) {
      return absl::InternalError(absl::StrCat("getgroups: ", strerror(errno)));
    }
    // Groups first: while the fsuid is still root's, nothing is readable
    // that the groups would not allow anyway.
    if (syscall(SYS_setgroups, who.groups.size(), who.groups.data()) != 0) {
      return absl::InternalError(
          absl::StrCat("cannot take uid ", who.uid, "'s groups: ", strerror(errno)));
    }
    guard.emplace(std::move(saved));
    guard->restore_ = true;  // from here on, leaving the scope switches back
    syscall(SYS_setfsgid, who.gid);
    syscall(SYS_setfsuid, who.uid);
    if (CurrentFsGid() != who.gid || CurrentFsUid() != who.uid) {
      guard.reset();  // restores
      return absl::InternalError(absl::StrCat("cannot read files as uid ", who.uid,
                                              " (restd needs to run as root for that)"));
    }
    return absl::OkStatus();
  }

  ThreadFsIdentity(ThreadFsIdentity&& other) noexcept
      : uid_(other.uid_),
        gid_(other.gid_),
        groups_(std::move(other.groups_)),
        restore_(other.restore_) {
    other.restore_ = false;
  }
  ThreadFsIdentity(const ThreadFsIdentity&) = delete;
  ThreadFsIdentity& operator=(const ThreadFsIdentity&) = delete;

  // A connection thread left with a user's identity would serve the next
  // request as that user: if the switch back fails, stop restd rather than
  // go on.
  ~ThreadFsIdentity() {
    if (!restore_) return;
    syscall(SYS_setfsuid, uid_);
    syscall(SYS_setfsgid, gid_);
    const bool groups_back = syscall(SYS_setgroups, groups_.size(), groups_.data()) == 0;
    if (CurrentFsUid() != uid_ || CurrentFsGid() != gid_ || !groups_back) {
      static constexpr char kWhy[] = "restd: cannot restore a thread's file identity\n";
      (void)!write(STDERR_FILENO, kWhy, sizeof(kWhy) - 1);
      abort();
    }
  }

 private:
  ThreadFsIdentity() = default;

  uid_t uid_ = 0;
  gid_t gid_ = 0;
  std::vector<gid_t> groups_;
  bool restore_ = false;  // set once the thread's identity has been changed
};

}  // namespace

absl::StatusOr<FileIdentity> IdentityOf(uid_t uid, gid_t gid) {
  const std::optional<std::string> name = LookUpUserName(uid);
  if (!name) return absl::NotFoundError(absl::StrCat("uid ", uid, " has no user name"));
  FileIdentity who;
  who.uid = uid;
  who.gid = gid;
  int count = 32;
  for (;;) {
    who.groups.resize(count);
    int found = count;
    if (getgrouplist(name->c_str(), gid, who.groups.data(), &found) >= 0) {
      who.groups.resize(found);
      return who;
    }
    if (found <= count) found = count * 2;  // a libc that does not say how many
    count = found;
  }
}

absl::StatusOr<int> OpenAs(const FileIdentity& who, const std::string& path) {
  int fd = -1;
  int open_errno = 0;
  {
    std::optional<ThreadFsIdentity> as_user;
    if (absl::Status s = ThreadFsIdentity::Switch(who, as_user); !s.ok()) return s;
    // O_NONBLOCK: a FIFO put in place of the output must not hang the thread.
    fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    open_errno = errno;
  }
  if (fd < 0) {
    if (open_errno == ENOENT || open_errno == ENOTDIR) {
      return absl::NotFoundError(absl::StrCat(path, " does not exist (yet)"));
    }
    if (open_errno == EACCES || open_errno == EPERM) {
      return absl::PermissionDeniedError(absl::StrCat("uid ", who.uid, " may not read ", path));
    }
    return absl::InternalError(absl::StrCat("cannot open ", path, ": ", strerror(open_errno)));
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return absl::FailedPreconditionError(absl::StrCat(path, " is not a regular file"));
  }
  return fd;
}

}  // namespace skiff::restd
