// The version the CLIs report (scontrol version / --version).
// ctld and noded each carry the same number in their own kVersion constant.
#ifndef SKIFF_CLI_COMMON_VERSION_H_
#define SKIFF_CLI_COMMON_VERSION_H_

namespace skiff {

inline constexpr char kSkiffVersion[] = "0.1.0";

}  // namespace skiff

#endif  // SKIFF_CLI_COMMON_VERSION_H_
