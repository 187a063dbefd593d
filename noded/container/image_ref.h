// pyxis's --container-image values, and the node's image cache's choice of
// what to evict: the pure rules behind running images (issue 35, item 2).
//
// IMAGE is, as pyxis and enroot take it, either a path on the node (an OCI
// image layout directory, an OCI archive, or a `docker save` archive; it
// starts with '/', './' or '../') or a registry reference
// [USER@][REGISTRY#]IMAGE[:TAG][@DIGEST] ("ubuntu", "nvcr.io#nvidia/pytorch:23.10-py3").
// A registry reference is fetched through the node's mirror (skopeo's
// docker:// transport), never from the internet directly.
//
// Pure; thread-safe.
#ifndef SKIFF_NODED_CONTAINER_IMAGE_REF_H_
#define SKIFF_NODED_CONTAINER_IMAGE_REF_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace skiff::noded {

struct ImageRef {
  bool is_path = false;
  std::string path;        // is_path: as given
  std::string user;        // USER@ (credentials are the node's, as enroot's)
  std::string registry;    // "" = Docker Hub (docker.io)
  std::string repository;  // "library/ubuntu", "nvidia/pytorch"
  std::string tag;         // "latest" when neither a tag nor a digest is given
  std::string digest;      // "sha256:..." when given
};

// InvalidArgument names what is wrong with `text` ("--container-image: ...").
absl::StatusOr<ImageRef> ParseImageRef(const std::string& text);

// skopeo's source for a registry reference through `mirror` (HOST[:PORT][/PATH],
// "" = the reference's own registry): "docker://mirror/nvidia/pytorch:23.10-py3".
std::string SkopeoSource(const ImageRef& ref, const std::string& mirror);

// One unpacked image in a node's cache.
struct CachedImage {
  std::string key;        // the image's manifest digest
  uint64_t bytes = 0;     // on disk
  int64_t last_used = 0;  // unix seconds
  bool in_use = false;    // a running container uses it
};

// Which entries to remove, least recently used first, so that the cache plus
// `incoming_bytes` fits in `limit_bytes`. Entries in use are never chosen; when
// even removing every other entry is not enough, all of those are chosen and
// the caller learns from `fits` that the image does not fit.
struct EvictionPlan {
  std::vector<std::string> evict;
  bool fits = true;
};
EvictionPlan PlanEviction(std::vector<CachedImage> cache, uint64_t incoming_bytes,
                          uint64_t limit_bytes);

}  // namespace skiff::noded

#endif  // SKIFF_NODED_CONTAINER_IMAGE_REF_H_
