// The OCI bundle's config.json for a pyxis-style image container
// (--container-image, issue 35): made from the image's own configuration (its
// Env and WorkingDir) and the job's request, before the runner
// (oci_runner.h) rewrites it for each task as it does any bundle.
//
// The container, as the runtimes Debian ships run it rootless:
//  - a user namespace mapping the job's user to root inside, with pid, ipc,
//    uts and mount namespaces of its own and the host's network (MPI and NCCL
//    need it); without --container-remap-root the command goes through the
//    user helper (container_user.cc), which enters a nested user namespace
//    where the user is their own uid again, as pyxis leaves them;
//  - the image's Env, less the names --container-env hands to the host's
//    values (the runner adds the task's environment under it);
//  - /dev/shm a tmpfs sized to the job (Docker's --ipc=host, within the job's
//    memory, since tmpfs pages count in its cgroup);
//  - for a job with GPUs, the host's NVIDIA user-space driver, as enroot's
//    hook binds it (the GPU device files themselves are the runner's);
//  - bind mounts: the job's working directory, the user's home (unless
//    --no-container-mount-home) and --container-mounts, each where it is on the
//    host unless a target is given.
//
// Pure; thread-safe.
#ifndef SKIFF_NODED_CONTAINER_IMAGE_BUNDLE_H_
#define SKIFF_NODED_CONTAINER_IMAGE_BUNDLE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace skiff::noded {

// Where the user helper is bound inside every image container (read-only).
inline constexpr char kContainerUserHelper[] = "/.skiff/container-user";
inline constexpr char kContainerDriverLibDir[] = "/usr/local/nvidia/lib64";
inline constexpr char kContainerDriverBinDir[] = "/usr/local/nvidia/bin";

// One --container-mounts entry, SRC[:DST[:FLAGS]], as enroot's mount takes it.
struct ContainerMount {
  std::string source;  // a host path, or "tmpfs"
  std::string target;  // inside the container
  std::vector<std::string> options;
  bool tmpfs() const { return source == "tmpfs"; }
};

// Parses `entry`; a relative source or target is made absolute against `cwd`
// (the job's working directory), as enroot does. Flags enroot alone knows
// (x-create=..., x-detach, fstab's auto/nofail/user...) are dropped; the rest
// go to the runtime. InvalidArgument names the entry ("--container-mounts: ...").
absl::StatusOr<ContainerMount> ParseContainerMount(const std::string& entry,
                                                   const std::string& cwd);

struct ImageBundleOptions {
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::string hostname;  // the node's name
  std::string rootfs;    // absolute: the container's writable root
  std::string cwd;       // the process's working directory inside
  std::vector<ContainerMount> mounts;
  std::vector<std::string> host_env_names;  // --container-env
  bool remap_root = false;
  uint64_t shm_bytes = 0;   // 0: 64 MiB, runc's default
  std::string user_helper;  // the helper on the host, bound at kContainerUserHelper
  // The host's NVIDIA driver files (a GPU job's): libraries bound read-only
  // at /usr/local/nvidia/lib64, programs at /usr/local/nvidia/bin, where
  // NVIDIA's CUDA images look (their LD_LIBRARY_PATH and PATH).
  std::vector<std::string> driver_files;
};

// config.json for an image whose configuration (the OCI image config blob,
// JSON) is `image_config`. InvalidArgument when it is not a JSON object.
absl::StatusOr<std::string> ImageBundleConfig(const std::string& image_config,
                                              const ImageBundleOptions& options);

// The image's WorkingDir ("" when it has none, or the config is not JSON).
std::string ImageWorkingDir(const std::string& image_config);

// The arguments a command goes through inside the container: the helper with
// the user's ids, unless the user is to be root there.
std::vector<std::string> ContainerEntry(const ImageBundleOptions& options);

}  // namespace skiff::noded

#endif  // SKIFF_NODED_CONTAINER_IMAGE_BUNDLE_H_
