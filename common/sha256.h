// SHA-256 as lowercase hex (OpenSSL's): join tokens' stored secrets, the join
// port's certificate pin, and image ids in the nodes' image caches.
// Pure; thread-safe.
#ifndef SKIFF_COMMON_SHA256_H_
#define SKIFF_COMMON_SHA256_H_

#include <string>

#include "absl/strings/string_view.h"

namespace skiff {

std::string Sha256Hex(absl::string_view data);

}  // namespace skiff

#endif  // SKIFF_COMMON_SHA256_H_
