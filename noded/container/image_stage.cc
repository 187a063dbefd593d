// An image's way into the cache, before unpacking: the user's skopeo reads it
// into the user's stage, and root copies that stage into its own through
// checked descriptors (CopyUserLayout), every blob against its digest.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "nlohmann/json.hpp"
#include "noded/container/image_container_internal.h"
#include "noded/container/image_ref.h"
#include "noded/container/user_files.h"
#include "noded/file_io.h"

namespace skiff::noded::image_container_internal {
namespace {

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

}  // namespace

RunSetup AsUser(const ImageRequest& request, const std::string& work_dir) {
  RunSetup setup;
  setup.environment = {"PATH=/usr/local/bin:/usr/bin:/bin", absl::StrCat("TMPDIR=", work_dir),
                       absl::StrCat("HOME=", work_dir)};
  setup.work_dir = work_dir;
  setup.as = RunIdentity{request.uid, request.gid, request.groups};
  return setup;
}

// A mirror written http://HOST[:PORT] speaks plain HTTP (a lab's own).
bool PlainHttpMirror(const ImageNode& node) { return absl::StartsWith(node.mirror, "http://"); }

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

}  // namespace skiff::noded::image_container_internal
