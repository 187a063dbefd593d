// The node's cache of unpacked images: which entries containers use, the
// unpacking (as root, bounded by the cache's size) and the entry put in place
// under the cache's lock, evicting least recently used entries.
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "noded/container/file_lock.h"
#include "noded/container/image_container_internal.h"
#include "noded/container/image_ref.h"
#include "noded/file_io.h"

namespace skiff::noded::image_container_internal {
namespace {

// The entries that this node's containers use: each container's in-use
// file names its entry from before its root is mounted until it is released
// (the mounts themselves are in the containers' own namespaces).
std::set<std::string> EntriesInUse(const std::string& containers_dir) {
  std::set<std::string> keys;
  auto names_in = [](const std::string& path) {
    std::vector<std::string> names;
    if (DIR* dir = opendir(path.c_str())) {
      while (struct dirent* entry = readdir(dir)) {
        if (entry->d_name[0] != '.') names.push_back(entry->d_name);
      }
      closedir(dir);
    }
    return names;
  };
  for (const std::string& job : names_in(containers_dir)) {
    if (!absl::StartsWith(job, "job")) continue;
    const std::string job_dir = absl::StrCat(containers_dir, "/", job);
    for (const std::string& container : names_in(job_dir)) {
      absl::StatusOr<std::string> key =
          ReadFile(absl::StrCat(job_dir, "/", container, "/private/", kInUseFile));
      if (key.ok()) keys.insert(*key);
    }
  }
  return keys;
}

std::vector<CachedImage> CacheEntries(const std::string& cache_dir,
                                      const std::set<std::string>& in_use) {
  std::vector<CachedImage> entries;
  DIR* dir = opendir(cache_dir.c_str());
  if (dir == nullptr) return entries;
  while (struct dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (name.size() != 64 || name.find_first_not_of("0123456789abcdef") != std::string::npos) {
      continue;
    }
    CachedImage image;
    image.key = name;
    struct stat st {};
    const std::string path = absl::StrCat(cache_dir, "/", name);
    if (stat(path.c_str(), &st) == 0) image.last_used = st.st_mtime;
    if (absl::StatusOr<std::string> bytes = ReadFile(absl::StrCat(path, "/", kBytesFile));
        bytes.ok()) {
      image.bytes = strtoull(bytes->c_str(), nullptr, 10);
    }
    image.in_use = in_use.count(name) > 0;
    entries.push_back(image);
  }
  closedir(dir);
  return entries;
}

// Makes the unpacked tree safe to share: root's, no set-id bits, no device
// files, no group or other write. Returns its size on disk.
uint64_t SanitizeTree(const std::string& root) {
  static thread_local uint64_t bytes;
  bytes = 0;
  nftw(
      root.c_str(),
      [](const char* path, const struct stat* st, int, struct FTW*) {
        if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode)) {
          unlink(path);
          return 0;
        }
        (void)lchown(path, 0, 0);
        if (!S_ISLNK(st->st_mode)) {
          chmod(path, st->st_mode & 0755 & ~static_cast<mode_t>(S_ISUID | S_ISGID));
        }
        bytes += static_cast<uint64_t>(st->st_blocks) * 512;
        return 0;
      },
      32, FTW_PHYS | FTW_MOUNT);
  return bytes;
}

// Bytes on disk under `root` (blocks, as SanitizeTree counts them).
uint64_t DiskBytes(const std::string& root) {
  static thread_local uint64_t bytes;
  bytes = 0;
  nftw(
      root.c_str(),
      [](const char*, const struct stat* st, int, struct FTW*) {
        bytes += static_cast<uint64_t>(st->st_blocks) * 512;
        return 0;
      },
      32, FTW_PHYS | FTW_MOUNT);
  return bytes;
}

// Runs the unpacking tool `argv` as root, writing into `unpacked`, and stops
// it once `unpacked` holds more than the cache's size: a small download of a
// large (or sparse, or highly compressed) layer must not fill the spool's
// file system before it is measured. No single file may be bigger than the
// cache either (RLIMIT_FSIZE), which bounds what one write adds between checks.
absl::Status UnpackBounded(const std::vector<std::string>& argv, const std::string& unpacked,
                           const ImageNode& node) {
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return ErrnoFailure("cannot unpack into", unpacked);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  char path_env[] = "PATH=/usr/bin:/bin";
  char* envp[] = {path_env, nullptr};
  const struct rlimit fsize = {node.cache_bytes, node.cache_bytes};
  const pid_t child = fork();
  if (child == 0) {
    setpgid(0, 0);
    dup2(out[1], STDOUT_FILENO);
    dup2(out[1], STDERR_FILENO);
    const int null = open("/dev/null", O_RDONLY);
    if (null >= 0) dup2(null, STDIN_FILENO);
    setrlimit(RLIMIT_FSIZE, &fsize);
    signal(SIGXFSZ, SIG_IGN);  // an over-size write fails with EFBIG instead
    execve(args[0], args.data(), envp);
    _exit(127);
  }
  close(out[1]);
  if (child < 0) {
    close(out[0]);
    return ErrnoFailure("cannot start umoci for", unpacked);
  }
  setpgid(child, child);
  fcntl(out[0], F_SETFL, O_NONBLOCK);
  std::string output;
  const auto deadline = std::chrono::steady_clock::now() + kToolTimeout;
  int status = 0;
  bool over = false;
  bool timed_out = false;
  for (;;) {
    pollfd pfd{out[0], POLLIN, 0};
    poll(&pfd, 1, 200);
    char buf[4096];
    ssize_t n;
    while ((n = read(out[0], buf, sizeof(buf))) > 0) {
      if (output.size() < (64 << 10)) output.append(buf, static_cast<size_t>(n));
    }
    const pid_t done = waitpid(child, &status, WNOHANG);
    if (done == child) break;
    if (DiskBytes(unpacked) > node.cache_bytes) {
      over = true;
    } else if (std::chrono::steady_clock::now() > deadline) {
      timed_out = true;
    }
    if (over || timed_out) {
      kill(-child, SIGKILL);
      while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
  }
  close(out[0]);
  if (over) {
    return Failure(absl::StrCat("the image unpacks to more than ContainerImageCacheSize=",
                                node.cache_bytes, " bytes; stopped unpacking it"));
  }
  if (timed_out) return Failure("unpacking the image took too long");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    if ((WIFSIGNALED(status) && WTERMSIG(status) == SIGXFSZ) ||
        absl::StrContains(output, "file too large")) {
      return Failure(absl::StrCat("the image holds a file bigger than ContainerImageCacheSize=",
                                  node.cache_bytes, " bytes; stopped unpacking it"));
    }
    return Failure(absl::StrCat("cannot unpack the image: ", LastLine(output)));
  }
  return absl::OkStatus();
}

}  // namespace

// Whether the cache entry `entry` was unpacked from these layers (its
// `layers` file lists each set of layer digests seen to unpack to it).
bool EntryHasLayers(const std::string& entry, const std::string& layers) {
  absl::StatusOr<std::string> known = ReadFile(absl::StrCat(entry, "/", kLayersFile));
  if (!known.ok()) return false;
  for (absl::string_view line : absl::StrSplit(*known, '\n', absl::SkipEmpty())) {
    if (line == layers) return true;
  }
  return false;
}

// Root's checked copy `root_stage` (an OCI layout, tag "image") unpacked into
// the cache as image.key: umoci checks each layer against the config's
// diff_ids, so layers that are not the image's fail here. An entry already
// there (unpacked from another copy of the image, a docker archive's
// uncompressed layers say) learns these layers instead. Unpacked as root,
// stopped once it holds more than the cache's size, made safe, then put in
// place after evicting what must go. Returns the seconds it took.
absl::StatusOr<double> UnpackIntoCache(const ImageNode& node, const VerifiedImage& image,
                                       const std::string& root_stage) {
  const auto start = std::chrono::steady_clock::now();
  const std::string& key = image.key;
  const std::string umoci = FindTool("umoci");
  if (umoci.empty()) return Failure("umoci is not installed on this node");
  const std::string unpacked = absl::StrCat(node.cache_dir, "/.unpack-", key, "-", getpid(), "-",
                                            static_cast<uint64_t>(gettid()));
  RemoveTree(unpacked);
  // --rootless: no device files made, no owners taken from the image.
  absl::Status unpack = UnpackBounded(
      {umoci, "unpack", "--rootless", "--image", absl::StrCat(root_stage, ":image"), unpacked},
      unpacked, node);
  if (!unpack.ok()) {
    RemoveTree(unpacked);
    return unpack;
  }
  // Only the root file system stays, with the image's configuration.
  for (const char* extra : {"config.json", "umoci.json"}) {
    unlink(absl::StrCat(unpacked, "/", extra).c_str());
  }
  if (DIR* dir = opendir(unpacked.c_str())) {
    while (struct dirent* entry = readdir(dir)) {
      if (absl::EndsWith(entry->d_name, ".mtree")) {
        unlinkat(dirfd(dir), entry->d_name, 0);
      }
    }
    closedir(dir);
  }
  const uint64_t bytes = SanitizeTree(absl::StrCat(unpacked, "/rootfs"));
  // Root's alone: a user reaches an image only through a container's mount,
  // made after the proof above.
  chmod(unpacked.c_str(), 0700);
  if (!WriteFileAtomically(absl::StrCat(unpacked, "/", kImageConfigFile), image.config, 0600)
           .ok() ||
      !WriteFileAtomically(absl::StrCat(unpacked, "/", kBytesFile), absl::StrCat(bytes, "\n"), 0600)
           .ok() ||
      !WriteFileAtomically(absl::StrCat(unpacked, "/", kLayersFile),
                           absl::StrCat(image.layers, "\n"), 0600)
           .ok()) {
    RemoveTree(unpacked);
    return ErrnoFailure("cannot write into", unpacked);
  }
  {
    FileLock lock(absl::StrCat(node.cache_dir, "/.lock"));
    const std::string entry = absl::StrCat(node.cache_dir, "/", key);
    if (access(entry.c_str(), F_OK) == 0) {
      // The same image from other layers (or another job unpacked it
      // meanwhile): these layers are now known to give it.
      RemoveTree(unpacked);
      if (!EntryHasLayers(entry, image.layers)) {
        absl::StatusOr<std::string> known = ReadFile(absl::StrCat(entry, "/", kLayersFile));
        WriteFileAtomically(absl::StrCat(entry, "/", kLayersFile),
                            absl::StrCat(known.ok() ? *known : "", image.layers, "\n"), 0600)
            .IgnoreError();
      }
    } else {
      const EvictionPlan plan = PlanEviction(
          CacheEntries(node.cache_dir, EntriesInUse(node.containers_dir)), bytes, node.cache_bytes);
      if (!plan.fits) {
        RemoveTree(unpacked);
        return Failure(absl::StrCat("image ", key.substr(0, 12), " needs ", bytes,
                                    " bytes and does not fit in ContainerImageCacheSize=",
                                    node.cache_bytes, " beside the images in use"));
      }
      for (const std::string& evicted : plan.evict) {
        RemoveTree(absl::StrCat(node.cache_dir, "/", evicted));
      }
      if (rename(unpacked.c_str(), entry.c_str()) != 0) {
        RemoveTree(unpacked);
        return ErrnoFailure("cannot add to the cache", entry);
      }
    }
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace skiff::noded::image_container_internal
