// What image_container.cc (image_container.h), image_stage.cc and
// image_cache.cc share: the names of the files in a cache entry and a
// container, error and cleanup helpers, and each file's steps the others call.
#ifndef SKIFF_NODED_CONTAINER_IMAGE_CONTAINER_INTERNAL_H_
#define SKIFF_NODED_CONTAINER_IMAGE_CONTAINER_INTERNAL_H_

#include <chrono>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "noded/container/image_container.h"
#include "noded/run_captured.h"

namespace skiff::noded::image_container_internal {

inline constexpr auto kToolTimeout = std::chrono::minutes(30);  // a pull of a large image
inline constexpr char kImageConfigFile[] = "image-config.json";
inline constexpr char kBytesFile[] = "bytes";
inline constexpr char kReadyFile[] = "ready";    // a container whose root is mounted
inline constexpr char kInUseFile[] = "in-use";   // in private/: the cache entry a container uses
inline constexpr char kLayersFile[] = "layers";  // the layer sets proven to unpack to an entry

// image_container.cc: errors read as job reasons ("container: ..."); a tool
// found in the usual directories ("" if none); the last line of a tool's
// output; removals reported, never failing the job.
absl::Status Failure(const std::string& what);
absl::Status ErrnoFailure(const std::string& what, const std::string& path);
std::string FindTool(const std::string& name);
std::string LastLine(const std::string& output);
void Report(const absl::Status& status);
void RemoveTree(const std::string& path);

// image_stage.cc: the image read as the user, then copied by root.

// An image as root copied it out of the user's stage: every blob checked
// against its digest, so that holding it proves the user could read the whole
// image (a cache hit needs this proof, not only the config blob, issue 47).
struct VerifiedImage {
  std::string key;           // the config blob's sha256 (the image id)
  std::string config;        // the config blob
  std::string layers;        // the manifest's layer digests, comma-separated
  uint64_t layer_bytes = 0;  // their sizes as the manifest declares them
};

RunSetup AsUser(const ImageRequest& request, const std::string& work_dir);
bool PlainHttpMirror(const ImageNode& node);
absl::StatusOr<std::string> InspectAsUser(const ImageNode& node, const ImageRequest& request,
                                          const std::string& stage, const std::string& config_path);
absl::StatusOr<VerifiedImage> CopyUserLayout(const std::string& user_stage,
                                             const std::string& root_stage, uint64_t budget);

// image_cache.cc: the node's cache of unpacked images.
bool EntryHasLayers(const std::string& entry, const std::string& layers);
absl::StatusOr<double> UnpackIntoCache(const ImageNode& node, const VerifiedImage& image,
                                       const std::string& root_stage);

}  // namespace skiff::noded::image_container_internal

#endif  // SKIFF_NODED_CONTAINER_IMAGE_CONTAINER_INTERNAL_H_
