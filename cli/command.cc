#include "cli/command.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "common/version.h"

namespace skiff::cli {

std::string VersionLine() { return absl::StrCat("skiff ", kSkiffVersion, "\n"); }

bool PrintAskedInfo(const AskedInfo& asked, std::string (*help)(), std::string (*usage)()) {
  std::string text;
  if (asked.version) {
    text = VersionLine();
  } else if (asked.help && help != nullptr) {
    text = help();
  } else if (asked.usage && usage != nullptr) {
    text = usage();
  } else {
    return false;
  }
  fwrite(text.data(), 1, text.size(), stdout);
  return true;
}

}  // namespace skiff::cli
