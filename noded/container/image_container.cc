#include "noded/container/image_container.h"

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/sha256.h"
#include "noded/container/container_namespace.h"
#include "noded/container/file_lock.h"
#include "noded/container/image_bundle.h"
#include "noded/container/image_container_internal.h"
#include "noded/container/oci_task.h"
#include "noded/container/user_files.h"
#include "noded/file_io.h"
#include "noded/run_captured.h"

namespace skiff::noded {
namespace image_container_internal {

absl::Status Failure(const std::string& what) {
  return absl::FailedPreconditionError(absl::StrCat("container: ", what));
}

absl::Status ErrnoFailure(const std::string& what, const std::string& path) {
  return Failure(absl::StrCat(what, " ", path, ": ", strerror(errno)));
}

std::string FindTool(const std::string& name) {
  for (const char* dir : {"/usr/bin", "/usr/local/bin", "/bin", "/usr/sbin", "/sbin"}) {
    const std::string path = absl::StrCat(dir, "/", name);
    if (access(path.c_str(), X_OK) == 0) return path;
  }
  return "";
}

// The last line of a tool's output: its error.
std::string LastLine(const std::string& output) {
  std::string text(absl::StripTrailingAsciiWhitespace(output));
  const size_t newline = text.rfind('\n');
  return newline == std::string::npos ? text : text.substr(newline + 1);
}

// Removal that fails is reported on standard error (noded's noded-<node>.out;
// this library is also linked into the static shepherd, which has no logger),
// never fails the job, and is not redone by path: what is left stays in place
// for an administrator (user_files.h).
void Report(const absl::Status& status) {
  if (status.ok()) return;
  const std::string line = absl::StrCat("container: cleanup: ", status.message(), "\n");
  ssize_t ignored = write(STDERR_FILENO, line.data(), line.size());
  (void)ignored;
}

// A tree of root's (a container's directory, a root stage, a cache entry),
// removed through descriptors: links inside it, which a user may have made,
// are removed, never followed.
void RemoveTree(const std::string& path) { Report(RemoveTreePath(path)); }

}  // namespace image_container_internal

using image_container_internal::AsUser;
using image_container_internal::CopyUserLayout;
using image_container_internal::EntryHasLayers;
using image_container_internal::ErrnoFailure;
using image_container_internal::Failure;
using image_container_internal::FindTool;
using image_container_internal::InspectAsUser;
using image_container_internal::kImageConfigFile;
using image_container_internal::kInUseFile;
using image_container_internal::kReadyFile;
using image_container_internal::kToolTimeout;
using image_container_internal::LastLine;
using image_container_internal::PlainHttpMirror;
using image_container_internal::RemoveTree;
using image_container_internal::Report;
using image_container_internal::UnpackIntoCache;
using image_container_internal::VerifiedImage;

namespace {

// A directory made (or found) with this owner and mode.
absl::Status MakeDir(const std::string& path, uid_t uid, gid_t gid, mode_t mode) {
  if (mkdir(path.c_str(), mode) != 0 && errno != EEXIST) {
    return ErrnoFailure("cannot create", path);
  }
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return Failure(absl::StrCat(path, " is not a directory"));
  }
  if (chown(path.c_str(), uid, gid) != 0 || chmod(path.c_str(), mode) != 0) {
    return ErrnoFailure("cannot set the owner of", path);
  }
  return absl::OkStatus();
}

// As the user: each path must be readable (and a directory searchable), or
// the job fails naming it.
absl::Status CheckUserCanRead(const ImageRequest& request,
                              const std::vector<std::pair<std::string, std::string>>& paths) {
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) return ErrnoFailure("cannot check", "mounts");
  const pid_t child = fork();
  if (child == 0) {
    close(pipe_fds[0]);
    if (setgroups(request.groups.size(), request.groups.data()) != 0 || setgid(request.gid) != 0 ||
        setuid(request.uid) != 0) {
      _exit(255);
    }
    for (size_t i = 0; i < paths.size(); ++i) {
      struct stat st {};
      const char* path = paths[i].first.c_str();
      int mode = R_OK;
      if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) mode |= X_OK;
      if (access(path, mode) != 0) {
        const int error = errno;
        const int report[2] = {static_cast<int>(i), error};
        ssize_t ignored = write(pipe_fds[1], report, sizeof(report));
        (void)ignored;
        _exit(1);
      }
    }
    _exit(0);
  }
  close(pipe_fds[1]);
  if (child < 0) {
    close(pipe_fds[0]);
    return ErrnoFailure("cannot fork to check", "mounts");
  }
  int report[2] = {-1, 0};
  const ssize_t got = read(pipe_fds[0], report, sizeof(report));
  close(pipe_fds[0]);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (got == sizeof(report) && report[0] >= 0 && static_cast<size_t>(report[0]) < paths.size()) {
    const auto& [path, what] = paths[report[0]];
    return Failure(absl::StrCat(what, ": cannot read ", path, ": ", strerror(report[1])));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return Failure("cannot check the mounts as the job's user");
  }
  return absl::OkStatus();
}

// What containers made before their mounts had a namespace of their own
// left in the host's.
void Unmount(const std::string& path) {
  while (umount2(path.c_str(), MNT_DETACH | UMOUNT_NOFOLLOW) == 0) {
  }
}

// A tree the user owns (their stage, their container's upper layer) emptied
// as the user, through descriptors (user_files.h); a failure is reported.
void RemoveUserTree(const std::string& path) { Report(RemoveTreeAsOwner(path)); }

// The name without its flag, made safe as a file name; and the flag.
std::pair<std::string, std::string> SplitName(const std::string& name) {
  const size_t colon = name.find(':');
  std::string base = name.substr(0, colon);
  std::string flag = colon == std::string::npos ? "auto" : name.substr(colon + 1);
  if (flag.empty()) flag = "auto";
  for (char& c : base) {
    if (!isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
  }
  return {base, flag};
}

}  // namespace

std::string ImageContainerDir(const std::string& containers_dir, uint64_t job_id, uint32_t step_id,
                              const std::string& name) {
  const std::string job = absl::StrCat(containers_dir, "/job", job_id);
  if (!name.empty()) return absl::StrCat(job, "/name-", SplitName(name).first);
  if (step_id == kBatchStepId) return absl::StrCat(job, "/batch");
  return absl::StrCat(job, "/step-", step_id);
}

absl::StatusOr<PreparedContainer> PrepareImageContainer(const ImageNode& node,
                                                        const ImageRequest& request) {
  PreparedContainer prepared;
  prepared.named = !request.name.empty();
  const std::string flag = prepared.named ? SplitName(request.name).second : "";
  prepared.bundle =
      ImageContainerDir(node.containers_dir, request.job_id, request.step_id, request.name);
  prepared.mount_namespace = ContainerNamespaceFile(prepared.bundle);
  const std::string job_dir = prepared.bundle.substr(0, prepared.bundle.rfind('/'));
  ImageBundleOptions options;
  options.uid = request.uid;
  options.gid = request.gid;
  options.remap_root = request.remap_root;
  options.user_helper = node.user_helper;
  prepared.entry = ContainerEntry(options);

  if (absl::Status s = MakeDir(node.containers_dir, 0, 0, 0711); !s.ok()) return s;
  if (absl::Status s = MakeDir(job_dir, 0, 0, 0711); !s.ok()) return s;
  // One container of the job made at a time: steps naming the same container
  // wait for the first to make it.
  FileLock job_lock(absl::StrCat(job_dir, "/.lock"));
  const std::string ready = absl::StrCat(prepared.bundle, "/", kReadyFile);
  const bool exists = access(ready.c_str(), F_OK) == 0;
  if (prepared.named && exists && flag != "create") return prepared;
  if (prepared.named && !exists && flag == "exec") {
    return Failure(absl::StrCat("--container-name: no container named ",
                                SplitName(request.name).first, " in this job on this node"));
  }
  if (request.image.empty()) {
    return Failure(absl::StrCat("--container-name: no container named ",
                                SplitName(request.name).first,
                                " in this job on this node, and no --container-image to make it"));
  }
  if (exists) ReleaseImageContainer(prepared.bundle);

  // The mounts, each checked as the user.
  std::vector<ContainerMount> mounts;
  std::vector<std::pair<std::string, std::string>> readable;
  auto add_bind = [&](const std::string& path, const char* what) {
    if (path.empty()) return;
    for (const ContainerMount& m : mounts) {
      if (m.target == path) return;
    }
    mounts.push_back({path, path, {}});
    readable.emplace_back(path, what);
  };
  add_bind(request.cwd, "the job's working directory");
  // A home that does not exist on this node (a user without one) is no error.
  if (request.mount_home && request.home != "/" && !request.home.empty() &&
      access(request.home.c_str(), F_OK) == 0) {
    add_bind(request.home, "the user's home");
  }
  for (const std::string& entry : request.mounts) {
    absl::StatusOr<ContainerMount> mount = ParseContainerMount(entry, request.cwd);
    if (!mount.ok()) return Failure(std::string(mount.status().message()));
    if (!mount->tmpfs()) readable.emplace_back(mount->source, "--container-mounts");
    mounts.push_back(*mount);
  }
  if (absl::Status s = CheckUserCanRead(request, readable); !s.ok()) return s;

  // The image, as the user: their skopeo reads all of it, every time, and
  // root checks what they read (CopyUserLayout). Only a user who could read
  // the whole image gets it from the cache.
  if (absl::Status s = MakeDir(node.cache_dir, 0, 0, 0700); !s.ok()) return s;
  const std::string suffix = absl::StrCat(request.step_id);
  const std::string user_stage = absl::StrCat(job_dir, "/stage-", suffix);
  const std::string root_stage = absl::StrCat(job_dir, "/rootstage-", suffix);
  RemoveUserTree(user_stage);
  RemoveTree(root_stage);
  if (absl::Status s = MakeDir(user_stage, request.uid, request.gid, 0700); !s.ok()) return s;
  // Both stages go whatever happens below.
  struct Stages {
    std::string user, root;
    ~Stages() {
      RemoveTree(root);
      RemoveUserTree(user);
    }
  } stages{user_stage, root_stage};
  // The user's skopeo finds which source reads (for a path: a layout or one
  // of the archives). What it prints of the config is not kept: root reads
  // nothing the user wrote except through CopyUserLayout's descriptors.
  absl::StatusOr<std::string> source = InspectAsUser(node, request, user_stage, "/dev/null");
  if (!source.ok()) return source.status();
  {
    std::vector<std::string> argv = {FindTool("skopeo"), "copy", "--quiet"};
    if (PlainHttpMirror(node) && absl::StartsWith(*source, "docker://")) {
      argv.push_back("--src-tls-verify=false");
    }
    argv.push_back(*source);
    argv.push_back(absl::StrCat("oci:", user_stage, "/layout:image"));
    const CapturedRun copy = RunCaptured(argv, kToolTimeout, "skopeo", AsUser(request, user_stage));
    if (!copy.ok) {
      return Failure(
          absl::StrCat("cannot read image ", request.image, ": ", LastLine(copy.output)));
    }
  }
  if (absl::Status s = MakeDir(root_stage, 0, 0, 0700); !s.ok()) return s;
  absl::StatusOr<VerifiedImage> image = CopyUserLayout(user_stage, root_stage, node.cache_bytes);
  if (!image.ok()) return image.status();
  const std::string key = image->key;
  const std::string entry = absl::StrCat(node.cache_dir, "/", key);
  bool proven = false;
  {
    FileLock cache_lock(absl::StrCat(node.cache_dir, "/.lock"));
    proven = access(entry.c_str(), F_OK) == 0 && EntryHasLayers(entry, image->layers);
  }
  if (!proven) {
    absl::StatusOr<double> seconds = UnpackIntoCache(node, *image, root_stage);
    if (!seconds.ok()) return seconds.status();
    prepared.unpack_seconds = *seconds;
  }

  // The container: the cached root, idmapped read-only, under the user's
  // overlay, mounted in the container's own mount namespace
  // (container_namespace.h). The host's paths lead to empty directories:
  // `private` (root's, 0700) and `rootfs`; in the namespace, the overlay's
  // root takes the mode and owner of `upper` (the user's, 0700), so no other
  // user reads the container's files there either.
  ReleaseImageContainer(prepared.bundle);
  const std::string private_dir = absl::StrCat(prepared.bundle, "/private");
  ContainerRootMounts root;
  root.image_root = absl::StrCat(entry, "/rootfs");
  root.lower = absl::StrCat(private_dir, "/lower");
  root.work = absl::StrCat(private_dir, "/work");
  root.upper = absl::StrCat(prepared.bundle, "/upper");
  root.rootfs = absl::StrCat(prepared.bundle, "/rootfs");
  root.uid = request.uid;
  root.gid = request.gid;
  for (const auto& [path, owner, mode] :
       {std::tuple<std::string, uid_t, mode_t>{prepared.bundle, 0, 0711},
        {private_dir, 0, 0700},
        {root.lower, 0, 0700},
        {root.work, 0, 0700},
        {root.upper, request.uid, 0700},
        {root.rootfs, 0, 0700}}) {
    if (absl::Status s = MakeDir(path, owner, owner == 0 ? 0 : request.gid, mode); !s.ok()) {
      return s;
    }
  }
  std::string image_config;
  {
    FileLock cache_lock(absl::StrCat(node.cache_dir, "/.lock"));
    absl::StatusOr<std::string> cached = ReadFile(absl::StrCat(entry, "/", kImageConfigFile));
    if (cached.ok()) image_config = *std::move(cached);
    if (!cached.ok()) {
      return Failure(absl::StrCat("image ", key.substr(0, 12), " left the cache; try again"));
    }
    utimensat(AT_FDCWD, entry.c_str(), nullptr, 0);  // used now
    // In use from here until released: eviction passes the entry by.
    if (!WriteFileAtomically(absl::StrCat(private_dir, "/", kInUseFile), key, 0600).ok()) {
      return ErrnoFailure("cannot write into", private_dir);
    }
    if (absl::Status s = MakeContainerNamespace(prepared.bundle, root); !s.ok()) {
      ReleaseImageContainer(prepared.bundle);
      return s;
    }
  }

  options.hostname = node.node_name;
  options.rootfs = root.rootfs;
  options.mounts = std::move(mounts);
  options.host_env_names = request.env_names;
  options.shm_bytes = request.memory_bytes;
  options.driver_files = request.driver_files;
  options.cwd = !request.workdir.empty() ? request.workdir
                : !request.cwd.empty()   ? request.cwd
                                         : ImageWorkingDir(image_config);
  absl::StatusOr<std::string> bundle_config = ImageBundleConfig(image_config, options);
  if (!bundle_config.ok()) {
    ReleaseImageContainer(prepared.bundle);
    return Failure(std::string(bundle_config.status().message()));
  }
  // The user's runtime reads config.json; no one else may (it holds the
  // image's environment and the job's mounts).
  const std::string config_json = absl::StrCat(prepared.bundle, "/config.json");
  if (!WriteFileAtomically(config_json, *bundle_config, 0600).ok() ||
      chown(config_json.c_str(), request.uid, request.gid) != 0 ||
      !WriteFileAtomically(ready, key, 0600).ok()) {
    const absl::Status failure = ErrnoFailure("cannot write into", prepared.bundle);
    ReleaseImageContainer(prepared.bundle);
    return failure;
  }
  return prepared;
}

void ReleaseImageContainer(const std::string& bundle) {
  Report(ReleaseContainerNamespace(bundle));
  Unmount(absl::StrCat(bundle, "/rootfs"));
  Unmount(absl::StrCat(bundle, "/private/lower"));
  Unmount(absl::StrCat(bundle, "/lower"));
  RemoveUserTree(absl::StrCat(bundle, "/upper"));
  RemoveTree(bundle);
}

void ReleaseJobImageContainers(const std::string& containers_dir, uint64_t job_id) {
  const std::string job_dir = absl::StrCat(containers_dir, "/job", job_id);
  DIR* dir = opendir(job_dir.c_str());
  if (dir == nullptr) return;
  std::vector<std::string> names;
  while (struct dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  closedir(dir);
  for (const std::string& name : names) {
    const std::string path = absl::StrCat(job_dir, "/", name);
    if (absl::StartsWith(name, "stage-")) {
      RemoveUserTree(path);
    } else {
      ReleaseImageContainer(path);
    }
  }
  RemoveTree(job_dir);
}

}  // namespace skiff::noded
