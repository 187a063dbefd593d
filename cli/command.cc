#include "cli/command.h"

#include "absl/strings/str_cat.h"
#include "common/version.h"

namespace skiff::cli {

std::string VersionLine() { return absl::StrCat("skiff ", kSkiffVersion, "\n"); }

}  // namespace skiff::cli
