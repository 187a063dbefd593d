#include "noded/container/image_container.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/sha256.h"
#include "nlohmann/json.hpp"
#include "noded/container/container_namespace.h"
#include "noded/container/file_lock.h"
#include "noded/container/image_bundle.h"
#include "noded/container/image_ref.h"
#include "noded/container/oci_task.h"
#include "noded/container/user_files.h"
#include "noded/file_io.h"
#include "noded/run_captured.h"

namespace skiff::noded {
namespace {

constexpr auto kToolTimeout = std::chrono::minutes(30);  // a pull of a large image
constexpr char kImageConfigFile[] = "image-config.json";
constexpr char kBytesFile[] = "bytes";
constexpr char kReadyFile[] = "ready";    // a container whose root is mounted
constexpr char kInUseFile[] = "in-use";   // in private/: the cache entry a container uses
constexpr char kLayersFile[] = "layers";  // the layer sets proven to unpack to an entry

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

RunSetup AsUser(const ImageRequest& request, const std::string& work_dir) {
  RunSetup setup;
  setup.environment = {"PATH=/usr/local/bin:/usr/bin:/bin", absl::StrCat("TMPDIR=", work_dir),
                       absl::StrCat("HOME=", work_dir)};
  setup.work_dir = work_dir;
  setup.as = RunIdentity{request.uid, request.gid, request.groups};
  return setup;
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

// A mirror written http://HOST[:PORT] speaks plain HTTP (a lab's own).
bool PlainHttpMirror(const ImageNode& node) { return absl::StartsWith(node.mirror, "http://"); }

// skopeo's name for `image` (a path made absolute against the job's cwd).
absl::StatusOr<std::vector<std::string>> SkopeoSources(const ImageNode& node,
                                                       const ImageRequest& request) {
  absl::StatusOr<ImageRef> ref = ParseImageRef(request.image);
  if (!ref.ok()) return Failure(std::string(ref.status().message()));
  if (!ref->is_path) {
    absl::string_view mirror = node.mirror;
    if (!absl::ConsumePrefix(&mirror, "https://")) absl::ConsumePrefix(&mirror, "http://");
    return std::vector<std::string>{SkopeoSource(*ref, std::string(mirror))};
  }
  std::string path = ref->path;
  if (path[0] != '/') path = absl::StrCat(request.cwd, "/", path);
  // A directory is an OCI layout; a file is one of the two archives (the
  // user's skopeo tells which: root does not look at the user's file).
  return std::vector<std::string>{absl::StrCat("oci:", path), absl::StrCat("docker-archive:", path),
                                  absl::StrCat("oci-archive:", path)};
}

// As the user: the source that reads the image (its config blob is written
// to `config_path`; root keeps none of what the user's tools print).
absl::StatusOr<std::string> InspectAsUser(const ImageNode& node, const ImageRequest& request,
                                          const std::string& stage,
                                          const std::string& config_path) {
  absl::StatusOr<std::vector<std::string>> sources = SkopeoSources(node, request);
  if (!sources.ok()) return sources.status();
  const std::string skopeo = FindTool("skopeo");
  if (skopeo.empty()) return Failure("skopeo is not installed on this node");
  std::string error;
  for (const std::string& source : *sources) {
    const std::string tls = PlainHttpMirror(node) ? " --tls-verify=false" : "";
    const std::vector<std::string> argv = {
        "/bin/sh",
        "-c",
        absl::StrCat("exec \"$0\" inspect", tls, " --config --raw \"$1\" > \"$2\""),
        skopeo,
        source,
        config_path};
    const CapturedRun run = RunCaptured(argv, kToolTimeout, "skopeo", AsUser(request, stage));
    if (run.ok) return source;
    if (error.empty()) error = LastLine(run.output);
  }
  return Failure(absl::StrCat("cannot read image ", request.image, ": ", error));
}

// ------------------------------------------------------------------ the cache

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

// An image as root copied it out of the user's stage: every blob checked
// against its digest, so that holding it proves the user could read the whole
// image (a cache hit needs this proof, not only the config blob, issue 47).
struct VerifiedImage {
  std::string key;           // the config blob's sha256 (the image id)
  std::string config;        // the config blob
  std::string layers;        // the manifest's layer digests, comma-separated
  uint64_t layer_bytes = 0;  // their sizes as the manifest declares them
};

constexpr uint64_t kMaxMetadataBytes = 4 << 20;  // an index, a manifest or a config blob
constexpr char kOciManifest[] = "application/vnd.oci.image.manifest.v1+json";
constexpr char kRefName[] = "org.opencontainers.image.ref.name";

// "sha256:<64 hex>" -> the hex; "" for anything else (no other algorithm is
// accepted, and the hex becomes a file name).
std::string Sha256Of(const nlohmann::json& digest) {
  if (!digest.is_string()) return "";
  absl::string_view text = digest.get_ref<const std::string&>();
  if (!absl::ConsumePrefix(&text, "sha256:") || text.size() != 64 ||
      text.find_first_not_of("0123456789abcdef") != absl::string_view::npos) {
    return "";
  }
  return std::string(text);
}

// The user's OCI layout `<user_stage>/layout` (tag "image", written by their
// skopeo) copied by root into `root_stage` (root's, empty) through
// descriptors: links, FIFOs and devices refused, each blob's sha256 and size
// checked, and no more than `budget` bytes of layers, checked against the
// manifest before a byte of them is copied (ContainerImageCacheSize). Root's
// index names only this image.
absl::StatusOr<VerifiedImage> CopyUserLayout(const std::string& user_stage,
                                             const std::string& root_stage, uint64_t budget) {
  using Json = nlohmann::json;
  const int stage = open(user_stage.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (stage < 0) return ErrnoFailure("cannot open", user_stage);
  const int root = open(root_stage.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  std::vector<int> fds = {stage, root};
  auto cleanup = [&] {
    for (int fd : fds) {
      if (fd >= 0) close(fd);
    }
  };
  auto fail = [&](const std::string& what) {
    cleanup();
    return Failure(absl::StrCat("the image's copy in ", user_stage, "/layout: ", what));
  };
  if (root < 0) return fail(absl::StrCat("cannot open ", root_stage, ": ", strerror(errno)));
  auto open_dir = [&](int at, const std::string& name) -> int {
    absl::StatusOr<int> fd = OpenDirectoryAt(at, name);
    if (!fd.ok()) return -1;
    fds.push_back(*fd);
    return *fd;
  };
  const int layout = open_dir(stage, "layout");
  const int blobs = layout < 0 ? -1 : open_dir(layout, "blobs");
  const int from = blobs < 0 ? -1 : open_dir(blobs, "sha256");
  if (from < 0) return fail("no blobs/sha256 directory");
  if (mkdirat(root, "blobs", 0700) != 0) return fail(strerror(errno));
  const int root_blobs = open_dir(root, "blobs");
  if (root_blobs < 0 || mkdirat(root_blobs, "sha256", 0700) != 0) return fail(strerror(errno));
  const int to = open_dir(root_blobs, "sha256");
  if (to < 0) return fail(strerror(errno));

  absl::StatusOr<std::string> index_text =
      ReadRegularFileAt(layout, "index.json", kMaxMetadataBytes, "index.json");
  if (!index_text.ok()) return fail(std::string(index_text.status().message()));
  const Json index = Json::parse(*index_text, nullptr, /*allow_exceptions=*/false);
  Json descriptor;
  if (index.is_object() && index.contains("manifests") && index["manifests"].is_array()) {
    for (const Json& m : index["manifests"]) {
      if (m.is_object() && m.contains("annotations") && m["annotations"].is_object() &&
          m["annotations"].value(kRefName, "") == "image") {
        descriptor = m;
      }
    }
  }
  const std::string manifest_hex =
      descriptor.is_object() && descriptor.contains("digest") ? Sha256Of(descriptor["digest"]) : "";
  if (manifest_hex.empty() || descriptor.value("mediaType", "") != kOciManifest) {
    return fail("index.json names no OCI manifest tagged image");
  }
  // The blob at `hex`, copied and checked; at most `*left` bytes.
  auto copy_blob = [&](const std::string& hex, uint64_t* left) -> absl::Status {
    if (faccessat(to, hex.c_str(), F_OK, AT_SYMLINK_NOFOLLOW) == 0) return absl::OkStatus();
    absl::StatusOr<std::string> got =
        CopyRegularFileAt(from, hex, to, left, absl::StrCat("blobs/sha256/", hex));
    if (!got.ok()) return got.status();
    if (*got != hex) {
      return absl::FailedPreconditionError(
          absl::StrCat("blobs/sha256/", hex, " does not match its digest"));
    }
    return absl::OkStatus();
  };
  uint64_t metadata_left = kMaxMetadataBytes;
  if (absl::Status s = copy_blob(manifest_hex, &metadata_left); !s.ok()) {
    return fail(std::string(s.message()));
  }
  absl::StatusOr<std::string> manifest_text =
      ReadRegularFileAt(to, manifest_hex, kMaxMetadataBytes, "the manifest");
  if (!manifest_text.ok()) return fail(std::string(manifest_text.status().message()));
  const Json manifest = Json::parse(*manifest_text, nullptr, /*allow_exceptions=*/false);
  if (!manifest.is_object() || !manifest.contains("config") || !manifest["config"].is_object() ||
      !manifest.contains("layers") || !manifest["layers"].is_array()) {
    return fail("the manifest is not an OCI image manifest");
  }
  VerifiedImage image;
  image.key = Sha256Of(manifest["config"].value("digest", Json()));
  if (image.key.empty()) return fail("the manifest's config has no sha256 digest");
  std::vector<std::pair<std::string, uint64_t>> layers;
  for (const Json& layer : manifest["layers"]) {
    const std::string hex = layer.is_object() ? Sha256Of(layer.value("digest", Json())) : "";
    if (hex.empty() || !layer.contains("size") || !layer["size"].is_number_unsigned()) {
      return fail("a layer without a sha256 digest and size");
    }
    layers.emplace_back(hex, layer["size"].get<uint64_t>());
    image.layer_bytes += layers.back().second;
    if (!image.layers.empty()) image.layers += ",";
    image.layers += hex;
  }
  // Before a byte of them is copied or unpacked: what the manifest declares.
  if (image.layer_bytes > budget) {
    cleanup();
    return Failure(absl::StrCat("image ", image.key.substr(0, 12), " has ", image.layer_bytes,
                                " bytes of layers, more than ContainerImageCacheSize=", budget));
  }
  metadata_left = kMaxMetadataBytes;
  if (absl::Status s = copy_blob(image.key, &metadata_left); !s.ok()) {
    return fail(std::string(s.message()));
  }
  absl::StatusOr<std::string> config =
      ReadRegularFileAt(to, image.key, kMaxMetadataBytes, "the config");
  if (!config.ok()) return fail(std::string(config.status().message()));
  image.config = *config;
  // umoci checks each layer against the config's diff_id at its place; the
  // count is checked here, so that a prefix of an image's layers (a config
  // blob with only public layers beside it) is no proof of the whole.
  const Json config_json = Json::parse(image.config, nullptr, /*allow_exceptions=*/false);
  if (!config_json.is_object() || !config_json.contains("rootfs") ||
      !config_json["rootfs"].is_object() || !config_json["rootfs"].contains("diff_ids") ||
      !config_json["rootfs"]["diff_ids"].is_array() ||
      config_json["rootfs"]["diff_ids"].size() != layers.size()) {
    return fail(absl::StrCat("the manifest's ", layers.size(),
                             " layers are not the config's rootfs.diff_ids"));
  }
  for (const auto& [hex, size] : layers) {
    // Each layer exactly its declared size: the budget is the manifest's total.
    uint64_t left = size;
    if (absl::Status s = copy_blob(hex, &left); !s.ok()) return fail(std::string(s.message()));
  }
  Json root_index = {{"schemaVersion", 2},
                     {"manifests", Json::array({{{"mediaType", kOciManifest},
                                                 {"digest", descriptor["digest"]},
                                                 {"size", manifest_text->size()},
                                                 {"annotations", {{kRefName, "image"}}}}})}};
  cleanup();
  if (!WriteFileAtomically(absl::StrCat(root_stage, "/oci-layout"),
                           "{\"imageLayoutVersion\":\"1.0.0\"}", 0600)
           .ok() ||
      !WriteFileAtomically(absl::StrCat(root_stage, "/index.json"), root_index.dump(), 0600).ok()) {
    return ErrnoFailure("cannot write into", root_stage);
  }
  return image;
}

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

// -------------------------------------------------------------- the mounts

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
