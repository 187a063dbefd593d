// Skiff's version: what the commands print for --version and `scontrol
// version`, what ctld answers Ping with, what noded registers with, and the
// packages' upstream version (./skiff package reads it from here).
#ifndef SKIFF_COMMON_VERSION_H_
#define SKIFF_COMMON_VERSION_H_

namespace skiff {

inline constexpr char kSkiffVersion[] = "0.1.0";

}  // namespace skiff

#endif  // SKIFF_COMMON_VERSION_H_
