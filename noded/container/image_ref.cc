#include "noded/container/image_ref.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace skiff::noded {
namespace {

absl::Status Bad(const std::string& text, const std::string& why) {
  return absl::InvalidArgumentError(
      absl::StrCat("--container-image: ", why, ": ", text.empty() ? "(empty)" : text));
}

// Docker's rules for a repository path: lowercase components of [a-z0-9._-],
// separated by '/', none empty.
bool ValidRepository(const std::string& repository) {
  if (repository.empty() || repository.front() == '/' || repository.back() == '/') return false;
  if (absl::StrContains(repository, "//")) return false;
  return std::all_of(repository.begin(), repository.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-' ||
           c == '/';
  });
}

bool ValidTag(const std::string& tag) {
  if (tag.empty() || tag.size() > 128 || tag.front() == '.' || tag.front() == '-') return false;
  return std::all_of(tag.begin(), tag.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
  });
}

}  // namespace

absl::StatusOr<ImageRef> ParseImageRef(const std::string& text) {
  ImageRef ref;
  if (text.empty()) return Bad(text, "empty image");
  if (text[0] == '/' || absl::StartsWith(text, "./") || absl::StartsWith(text, "../")) {
    ref.is_path = true;
    ref.path = text;
    return ref;
  }
  std::string rest = text;
  if (const size_t at = rest.find('@');
      at != std::string::npos && rest.find('#') != std::string::npos && at < rest.find('#')) {
    ref.user = rest.substr(0, at);
    rest = rest.substr(at + 1);
    if (ref.user.empty()) return Bad(text, "empty user before '@'");
  }
  if (const size_t hash = rest.find('#'); hash != std::string::npos) {
    ref.registry = rest.substr(0, hash);
    rest = rest.substr(hash + 1);
    if (ref.registry.empty()) return Bad(text, "empty registry before '#'");
  }
  if (const size_t at = rest.find('@'); at != std::string::npos) {
    ref.digest = rest.substr(at + 1);
    rest = rest.substr(0, at);
    if (!absl::StartsWith(ref.digest, "sha256:") || ref.digest.size() != 7 + 64) {
      return Bad(text, "a digest is sha256: and 64 hex digits");
    }
  }
  if (const size_t colon = rest.rfind(':');
      colon != std::string::npos && rest.find('/', colon) == std::string::npos) {
    ref.tag = rest.substr(colon + 1);
    rest = rest.substr(0, colon);
    if (!ValidTag(ref.tag)) return Bad(text, "invalid tag");
  }
  if (!ValidRepository(rest)) return Bad(text, "invalid image name");
  ref.repository = rest;
  // Docker Hub's official images live under library/.
  if ((ref.registry.empty() || ref.registry == "docker.io") &&
      ref.repository.find('/') == std::string::npos) {
    ref.repository = absl::StrCat("library/", ref.repository);
  }
  if (ref.tag.empty() && ref.digest.empty()) ref.tag = "latest";
  return ref;
}

std::string SkopeoSource(const ImageRef& ref, const std::string& mirror) {
  const std::string host =
      !mirror.empty() ? mirror : (ref.registry.empty() ? "docker.io" : ref.registry);
  std::string out = absl::StrCat("docker://", host, "/", ref.repository);
  if (!ref.tag.empty()) absl::StrAppend(&out, ":", ref.tag);
  if (!ref.digest.empty()) absl::StrAppend(&out, "@", ref.digest);
  return out;
}

EvictionPlan PlanEviction(std::vector<CachedImage> cache, uint64_t incoming_bytes,
                          uint64_t limit_bytes) {
  EvictionPlan plan;
  uint64_t total = incoming_bytes;
  for (const CachedImage& image : cache) total += image.bytes;
  std::stable_sort(cache.begin(), cache.end(), [](const CachedImage& a, const CachedImage& b) {
    return a.last_used < b.last_used;
  });
  for (const CachedImage& image : cache) {
    if (total <= limit_bytes) break;
    if (image.in_use) continue;
    plan.evict.push_back(image.key);
    total -= image.bytes;
  }
  plan.fits = total <= limit_bytes;
  return plan;
}

}  // namespace skiff::noded
