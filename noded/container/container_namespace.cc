#include "noded/container/container_namespace.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "noded/container/file_lock.h"

namespace skiff::noded {
namespace {

absl::Status Failure(const std::string& what) {
  return absl::FailedPreconditionError(absl::StrCat("container: ", what));
}

absl::Status ErrnoFailure(const std::string& what, const std::string& path, int err) {
  return Failure(absl::StrCat(what, " ", path, ": ", strerror(err)));
}

// <containers>/job<J>/<dir> -> <containers>; "" when `bundle` is not so.
std::string ContainersDirOf(const std::string& bundle) {
  const size_t dir_slash = bundle.rfind('/');
  if (dir_slash == std::string::npos || dir_slash == 0) return "";
  const size_t job_slash = bundle.rfind('/', dir_slash - 1);
  if (job_slash == std::string::npos) return "";
  return bundle.substr(0, job_slash);
}

std::string NamespacesDir(const std::string& containers_dir) {
  return absl::StrCat(containers_dir, "/namespaces");
}

std::string NamespacesLock(const std::string& containers_dir) {
  return absl::StrCat(containers_dir, "/.namespaces.lock");
}

void UnmountAll(const std::string& path) {
  while (umount2(path.c_str(), MNT_DETACH | UMOUNT_NOFOLLOW) == 0) {
  }
}

// `dir` made a private mount of its own (a bind of itself), where the kernel
// allows a namespace's file to be bound. Under the namespaces lock.
absl::Status MakePrivateMount(const std::string& dir) {
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return ErrnoFailure("cannot create", dir, errno);
  }
  struct stat st {};
  if (lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != 0) {
    return Failure(absl::StrCat(dir, " is not root's directory"));
  }
  if (mount(nullptr, dir.c_str(), nullptr, MS_PRIVATE, nullptr) == 0) return absl::OkStatus();
  // EINVAL: not a mount yet.
  if (errno != EINVAL || mount(dir.c_str(), dir.c_str(), nullptr, MS_BIND, nullptr) != 0 ||
      mount(nullptr, dir.c_str(), nullptr, MS_PRIVATE, nullptr) != 0) {
    return ErrnoFailure("cannot make a private mount of", dir, errno);
  }
  return absl::OkStatus();
}

// A forked child that waits for its parent, released by closing our end of
// its pipe (and by our exit), then reaped.
class WaitingChild {
 public:
  WaitingChild() = default;
  ~WaitingChild() {
    if (release_ >= 0) close(release_);
    if (ready_ >= 0) close(ready_);
    if (pid_ > 0) {
      while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
  }
  WaitingChild(const WaitingChild&) = delete;
  WaitingChild& operator=(const WaitingChild&) = delete;

  // Forks a child that runs `body` (async-signal-safe calls only: the caller
  // may be multi-threaded), reports what it returns and waits. Returns -1
  // with errno when it cannot fork.
  template <typename Body>
  int Start(Body body) {
    int ready[2];
    int release[2];
    if (pipe2(ready, O_CLOEXEC) != 0) return -1;
    if (pipe2(release, O_CLOEXEC) != 0) {
      const int err = errno;
      close(ready[0]);
      close(ready[1]);
      errno = err;
      return -1;
    }
    pid_ = fork();
    if (pid_ == 0) {
      close(release[1]);  // so that the parent's close is our end of file
      close(ready[0]);
      const Report report = body();
      ssize_t ignored = write(ready[1], &report, sizeof(report));
      char byte;
      ignored = read(release[0], &byte, 1);
      (void)ignored;
      _exit(0);
    }
    const int err = errno;
    close(ready[1]);
    close(release[0]);
    ready_ = ready[0];
    release_ = release[1];
    errno = err;
    return pid_ < 0 ? -1 : 0;
  }

  // What the child reported: the stage it failed at (0: none) and errno.
  struct Report {
    int stage = -1;
    int err = 0;
  };
  Report Wait() {
    Report report;
    ssize_t n;
    do {
      n = read(ready_, &report, sizeof(report));
    } while (n < 0 && errno == EINTR);
    if (n != static_cast<ssize_t>(sizeof(report))) report = {-1, EIO};
    return report;
  }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int ready_ = -1;
  int release_ = -1;
};

// A user namespace mapping uid:gid to its root, held by a waiting child:
// the idmapped mount shows the cache's root-owned files as the user's.
// Returns its descriptor (-1: the error is in `status`).
int UserNamespaceFor(uid_t uid, gid_t gid, WaitingChild* holder, absl::Status* status) {
  if (holder->Start([] {
        return WaitingChild::Report{unshare(CLONE_NEWUSER) == 0 ? 0 : 1, errno};
      }) != 0) {
    *status = ErrnoFailure("cannot fork for", "a user namespace", errno);
    return -1;
  }
  if (holder->Wait().stage != 0) {
    *status = Failure("this node cannot make user namespaces");
    return -1;
  }
  const std::string proc = absl::StrCat("/proc/", holder->pid());
  for (const auto& [file, line] :
       {std::pair<std::string, std::string>{"/uid_map", absl::StrCat("0 ", uid, " 1\n")},
        {"/gid_map", absl::StrCat("0 ", gid, " 1\n")}}) {
    const int fd = open(absl::StrCat(proc, file).c_str(), O_WRONLY | O_CLOEXEC);
    const bool written =
        fd >= 0 && write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
    const int err = errno;
    if (fd >= 0) close(fd);
    if (!written) {
      *status = ErrnoFailure("cannot map the user into", "a user namespace", err);
      return -1;
    }
  }
  const int userns = open(absl::StrCat(proc, "/ns/user").c_str(), O_RDONLY | O_CLOEXEC);
  if (userns < 0) *status = ErrnoFailure("cannot open", "a user namespace", errno);
  return userns;
}

// Where the mount child stopped.
enum MountStage : int {
  kMounted = 0,
  kUnshare,
  kSlave,
  kClone,
  kMap,
  kMoveMap,
  kOverlay,
};

}  // namespace

std::string ContainerNamespaceFile(const std::string& bundle) {
  const std::string containers = ContainersDirOf(bundle);
  if (containers.empty()) return absl::StrCat(bundle, ".namespace");
  std::string name = bundle.substr(containers.size() + 1);  // job<J>/<dir>
  name[name.find('/')] = '.';
  return absl::StrCat(NamespacesDir(containers), "/", name);
}

absl::Status MakeContainerNamespace(const std::string& bundle, const ContainerRootMounts& mounts) {
  const std::string containers = ContainersDirOf(bundle);
  if (containers.empty()) return Failure(absl::StrCat(bundle, " is not a container's directory"));
  const std::string pin = ContainerNamespaceFile(bundle);
  FileLock lock(NamespacesLock(containers));
  if (absl::Status s = MakePrivateMount(NamespacesDir(containers)); !s.ok()) return s;
  UnmountAll(pin);  // a pin left by a noded that died
  unlink(pin.c_str());
  const int pin_fd = open(pin.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (pin_fd < 0) return ErrnoFailure("cannot create", pin, errno);
  close(pin_fd);

  WaitingChild user_holder;
  absl::Status status;
  const int userns = UserNamespaceFor(mounts.uid, mounts.gid, &user_holder, &status);
  if (userns < 0) {
    unlink(pin.c_str());
    return status;
  }
  // Everything the child uses is made here: after fork it may only make
  // system calls.
  const std::string overlay =
      absl::StrCat("lowerdir=", mounts.lower, ",upperdir=", mounts.upper, ",workdir=", mounts.work);
  const char* image_root = mounts.image_root.c_str();
  const char* lower = mounts.lower.c_str();
  const char* rootfs = mounts.rootfs.c_str();
  const char* overlay_options = overlay.c_str();
  WaitingChild mounter;
  const int started = mounter.Start([&]() -> WaitingChild::Report {
    if (unshare(CLONE_NEWNS) != 0) return {kUnshare, errno};
    if (mount(nullptr, "/", nullptr, MS_REC | MS_SLAVE, nullptr) != 0) return {kSlave, errno};
    const int tree = static_cast<int>(
        syscall(SYS_open_tree, AT_FDCWD, image_root, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC));
    if (tree < 0) return {kClone, errno};
    struct mount_attr attr {};
    // Read-only: through this mapping the cache's root-owned files are the
    // user's, so a writable one would let them change what every later
    // container of the image runs, or plant set-uid files in the cache.
    attr.attr_set = MOUNT_ATTR_IDMAP | MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
    attr.userns_fd = static_cast<uint64_t>(userns);
    if (syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH, &attr, sizeof(attr)) != 0) {
      return {kMap, errno};
    }
    if (syscall(SYS_move_mount, tree, "", AT_FDCWD, lower, MOVE_MOUNT_F_EMPTY_PATH) != 0) {
      return {kMoveMap, errno};
    }
    if (mount("overlay", rootfs, "overlay", MS_NOSUID | MS_NODEV, overlay_options) != 0) {
      return {kOverlay, errno};
    }
    return {kMounted, 0};
  });
  close(userns);
  const WaitingChild::Report report =
      started == 0 ? mounter.Wait() : WaitingChild::Report{kUnshare, errno};
  switch (report.stage) {
    case kMounted:
      if (mount(absl::StrCat("/proc/", mounter.pid(), "/ns/mnt").c_str(), pin.c_str(), nullptr,
                MS_BIND, nullptr) != 0) {
        status = ErrnoFailure("cannot pin the container's mount namespace at", pin, errno);
      }
      break;
    case kUnshare:
    case kSlave:
      status =
          Failure(absl::StrCat("this node cannot make mount namespaces: ", strerror(report.err)));
      break;
    case kClone:
      status = ErrnoFailure("cannot clone", mounts.image_root, report.err);
      break;
    case kMap:
      status = Failure(absl::StrCat("this node's kernel cannot map ", mounts.image_root,
                                    " to the user (idmapped mounts): ", strerror(report.err)));
      break;
    case kMoveMap:
      status = ErrnoFailure("cannot mount at", mounts.lower, report.err);
      break;
    default:
      status = ErrnoFailure("cannot mount the container's root at", mounts.rootfs, report.err);
  }
  if (!status.ok()) unlink(pin.c_str());
  return status;
}

absl::Status ReleaseContainerNamespace(const std::string& bundle) {
  const std::string containers = ContainersDirOf(bundle);
  if (containers.empty()) return absl::OkStatus();
  const std::string pin = ContainerNamespaceFile(bundle);
  const std::string dir = NamespacesDir(containers);
  if (access(dir.c_str(), F_OK) != 0) return absl::OkStatus();
  FileLock lock(NamespacesLock(containers));
  UnmountAll(pin);
  if (unlink(pin.c_str()) != 0 && errno != ENOENT) {
    return ErrnoFailure("cannot remove", pin, errno);
  }
  // The last container gone: `namespaces` is no mount of its own any more.
  DIR* entries = opendir(dir.c_str());
  if (entries == nullptr) return absl::OkStatus();
  bool empty = true;
  while (struct dirent* entry = readdir(entries)) {
    if (strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0) empty = false;
  }
  closedir(entries);
  if (empty) {
    UnmountAll(dir);
    rmdir(dir.c_str());
  }
  return absl::OkStatus();
}

}  // namespace skiff::noded
