// pyxis-style image containers on a node (--container-image, --container-name;
// issue 35): the image fetched as the user, unpacked once into the node's
// shared cache, and given to each container as a writable root of its own.
//
//  1. As the job's user, skopeo reads the whole image (an OCI layout
//     directory, an OCI or docker-archive tar, or a registry reference through
//     the node's mirror) into the user's stage: the user can only use images
//     they can read, every blob of them, every time.
//  2. Root copies the user's stage into its own through descriptors (links,
//     FIFOs and devices refused; user_files.h), checking every blob's digest
//     and size and the layers' total against ContainerImageCacheSize before a
//     byte of them is copied. The config blob's sha256 (the image id) is the
//     cache key. A cache hit needs this proof: the layers the user holds must
//     be ones already seen to unpack to the entry (its `layers` file); other
//     layers are unpacked again and umoci checks them against the config's
//     diff_ids. So a config blob alone, leaked or guessed, opens nothing.
//  3. On a miss, umoci unpacks root's copy as root into <cache>/<key>, stopped
//     once it holds more than the cache's size: owned by root, without set-id
//     bits, device files or group/other write. The cache and its entries are
//     root's alone (0700). Entries are evicted least recently used first to
//     keep the cache under its size; one a mounted container uses never is.
//  4. Each container gets <containers>/job<J>/<name>/ and a mount namespace
//     of its own (container_namespace.h), where the cached root is mounted
//     idmapped (root's files appear as the user's), read-only, nosuid and
//     nodev, under an overlay whose upper layer is the user's (0700, which
//     the overlay's root shows too). Those mounts are in no other namespace:
//     on the host, private/ (root's, 0700) and rootfs/ are empty directories.
//     The container may write anywhere in its root and the cache stays
//     untouched; config.json (image_bundle.h) beside it. Each of its tasks
//     enters the namespace as root, then runs the bundle like any other as
//     the user. private/in-use names the entry the container uses: eviction
//     passes it by (the cache is the node's own).
//  5. Releasing a container removes what the user wrote as the user, through
//     descriptors; root then removes its own directories the same way and
//     never follows a link (user_files.h). Failures are reported on standard
//     error, never retried by path.
//
// A --container-name container lives until the job ends on the node and is
// shared by the job's steps there; an unnamed one is released after its step.
//
// I/O: runs skopeo and umoci, mounts, writes the cache; the caller must be
// root. Thread-safe: a file lock serialises cache changes and each job's
// containers between noded's threads and the shepherds.
#ifndef SKIFF_NODED_CONTAINER_IMAGE_CONTAINER_H_
#define SKIFF_NODED_CONTAINER_IMAGE_CONTAINER_H_

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace skiff::noded {

// The node's side, from skiff.conf.
struct ImageNode {
  std::string node_name;
  std::string containers_dir;  // <SlurmdSpoolDir>/containers
  std::string cache_dir;       // ContainerImageCache
  uint64_t cache_bytes = 0;    // ContainerImageCacheSize
  std::string mirror;          // ContainerRegistryMirror
  std::string user_helper;     // skiff-container-user on the host ("" none)
};

// The job's side: pyxis's options and who runs them.
struct ImageRequest {
  std::string image;                   // --container-image ("" with a name only)
  std::vector<std::string> mounts;     // --container-mounts entries, as written
  std::string workdir;                 // --container-workdir
  std::vector<std::string> env_names;  // --container-env
  std::string name;                    // --container-name NAME[:FLAG]
  bool remap_root = false;
  bool mount_home = true;
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;
  std::string home;  // the user's home directory ("" none)
  std::string cwd;   // the job's working directory
  uint64_t job_id = 0;
  uint32_t step_id = 0;
  uint64_t memory_bytes = 0;  // the job's memory on this node (0 unknown): /dev/shm's size
  std::vector<std::string> driver_files;  // NVIDIA's, for a job with GPUs (image_bundle.h)
};

struct PreparedContainer {
  std::string bundle;  // the container's directory: config.json, rootfs
  // Its mount namespace, which each task enters before it drops privileges.
  std::string mount_namespace;
  std::vector<std::string> entry;  // the runner's --entry: commands go through these
  bool named = false;              // kept for the job's next steps on this node
  double unpack_seconds = -1;      // this call unpacked the image: how long it took
};

// The container's directory: <containers>/job<J>/name-<NAME> for a named one,
// else step-<S> (batch for the batch script).
std::string ImageContainerDir(const std::string& containers_dir, uint64_t job_id, uint32_t step_id,
                              const std::string& name);

// Makes (or, for a name already there, reuses) the container. Errors read as
// job reasons ("container: ..."): an image that cannot be read or does not
// exist, a mount source the user cannot read, an image too big for the cache,
// a link, FIFO or device where the user's stage should hold a file.
absl::StatusOr<PreparedContainer> PrepareImageContainer(const ImageNode& node,
                                                        const ImageRequest& request);

// Unmounts and removes one container (a step's, unnamed), or every container
// of a job on the node (at its end). Best effort; never fails the job: what
// cannot be removed is reported on standard error and left in place.
void ReleaseImageContainer(const std::string& bundle);
void ReleaseJobImageContainers(const std::string& containers_dir, uint64_t job_id);

}  // namespace skiff::noded

#endif  // SKIFF_NODED_CONTAINER_IMAGE_CONTAINER_H_
