#include "ctld/malloc_tuning.h"

#include <unistd.h>

#include <cstdlib>

namespace skiff {
namespace {

constexpr char kNoThreadCaches[] = "glibc.malloc.tcache_count=0";
// Set for the re-executed ctld: GLIBC_TUNABLES as it was before ("-" when it
// was unset), so that it can be put back.
constexpr char kTunablesBefore[] = "SKIFF_CTLD_GLIBC_TUNABLES_BEFORE";

}  // namespace

std::optional<std::string> TunablesWithoutThreadCaches(const char* current) {
  const std::string tunables = current != nullptr ? current : "";
  if (tunables.find("glibc.malloc.tcache_count=") != std::string::npos) return std::nullopt;
  return tunables.empty() ? std::string(kNoThreadCaches) : tunables + ":" + kNoThreadCaches;
}

void TuneAllocator(char** argv) {
  if (const char* before = getenv(kTunablesBefore); before != nullptr) {
    const std::string was = before;
    if (was == "-") {
      unsetenv("GLIBC_TUNABLES");
    } else {
      setenv("GLIBC_TUNABLES", was.c_str(), 1);
    }
    unsetenv(kTunablesBefore);
    return;
  }
  const char* current = getenv("GLIBC_TUNABLES");
  const std::optional<std::string> tuned = TunablesWithoutThreadCaches(current);
  if (!tuned) return;
  setenv(kTunablesBefore, current != nullptr ? current : "-", 1);
  setenv("GLIBC_TUNABLES", tuned->c_str(), 1);
  execv("/proc/self/exe", argv);
  // Not re-executed: go on as started.
  if (current != nullptr) {
    setenv("GLIBC_TUNABLES", current, 1);
  } else {
    unsetenv("GLIBC_TUNABLES");
  }
  unsetenv(kTunablesBefore);
}

}  // namespace skiff
