// The mount namespace of one image container (issue 47): the container's
// root, the cached image mapped to the user read-only under the user's
// overlay, is mounted there and nowhere else. No process outside the
// container sees those mounts, and no path on the host leads to them.
//
//  - The namespace is a slave of the host's: mounts the host makes later (a
//    home's automount) appear in it; its own never leave it.
//  - A child of the caller makes it and mounts the root in it; the caller
//    pins it by binding the child's nsfs file at
//    <containers>/namespaces/job<J>.<dir>. The kernel binds such a file only
//    on a mount that is not shared, so `namespaces` is a private mount of
//    its own while any container is pinned there, and unmounted when the
//    last one goes. A pin survives noded's restarts.
//  - Every task of the container enters it (setns, as root, before dropping
//    privileges): the runner, and the runtime the runner starts, find the
//    root at <bundle>/rootfs; every other path is the host's.
//  - Releasing unpins it. The mounts end with the last process in it: at
//    once, since the job's processes are gone by then.
//
// I/O: forks, mounts; the caller must be root. The namespaces directory is
// changed under a file lock, so noded's threads and the shepherds may call
// these at once.
#ifndef SKIFF_NODED_CONTAINER_CONTAINER_NAMESPACE_H_
#define SKIFF_NODED_CONTAINER_CONTAINER_NAMESPACE_H_

#include <sys/types.h>

#include <string>

#include "absl/status/status.h"

namespace skiff::noded {

// What the container's root is made of; every path is in its bundle except
// the image's.
struct ContainerRootMounts {
  std::string image_root;  // the cache entry's rootfs (root's)
  std::string lower;       // where it is mapped to uid:gid: read-only, nosuid, nodev
  std::string upper;       // the overlay's upper layer (the user's)
  std::string work;        // and its work directory (root's)
  std::string rootfs;      // the overlay: the container's root
  uid_t uid = 0;
  gid_t gid = 0;
};

// Where the namespace of the container whose directory is `bundle`
// (<containers>/job<J>/<dir>) is pinned.
std::string ContainerNamespaceFile(const std::string& bundle);

// Makes the namespace of the container at `bundle` with its root mounted in
// it, and pins it. Errors read as job reasons ("container: ...").
absl::Status MakeContainerNamespace(const std::string& bundle, const ContainerRootMounts& mounts);

// Unpins the namespace of the container at `bundle` (none pinned: OK).
absl::Status ReleaseContainerNamespace(const std::string& bundle);

}  // namespace skiff::noded

#endif  // SKIFF_NODED_CONTAINER_CONTAINER_NAMESPACE_H_
