#include "ctld/malloc_tuning.h"

#include <sys/prctl.h>
#include <unistd.h>

#include <cstdlib>

namespace skiff::ctld {
namespace {

constexpr char kNoThreadCaches[] = "glibc.malloc.tcache_count=0";
// Set for the re-executed ctld: GLIBC_TUNABLES as it was before ("-" when it
// was unset), so that it can be put back.
constexpr char kTunablesBefore[] = "SKIFF_CTLD_GLIBC_TUNABLES_BEFORE";
// The process name (comm) before the re-execution. Executing /proc/self/exe
// names the process "exe"; `pgrep ctld`, `killall ctld` and `ps -C ctld` look
// for the name it was started as.
constexpr char kNameBefore[] = "SKIFF_CTLD_NAME_BEFORE";

}  // namespace

std::optional<std::string> TunablesWithoutThreadCaches(const char* current) {
  const std::string tunables = current != nullptr ? current : "";
  if (tunables.find("glibc.malloc.tcache_count=") != std::string::npos) return std::nullopt;
  return tunables.empty() ? std::string(kNoThreadCaches) : tunables + ":" + kNoThreadCaches;
}

namespace {

// Puts GLIBC_TUNABLES back as kTunablesBefore recorded it, and drops the record.
void RestoreTunables(const std::string& was) {
  if (was == "-") {
    unsetenv("GLIBC_TUNABLES");
  } else {
    setenv("GLIBC_TUNABLES", was.c_str(), 1);
  }
  unsetenv(kTunablesBefore);
}

}  // namespace

void TuneAllocator(char** argv) {
  if (const char* before = getenv(kTunablesBefore); before != nullptr) {
    RestoreTunables(before);
    if (const char* name = getenv(kNameBefore); name != nullptr) {
      prctl(PR_SET_NAME, name, 0, 0, 0);
      unsetenv(kNameBefore);
    }
    return;
  }
  const char* current = getenv("GLIBC_TUNABLES");
  const std::optional<std::string> tuned = TunablesWithoutThreadCaches(current);
  if (!tuned) return;
  const std::string was = current != nullptr ? current : "-";
  setenv(kTunablesBefore, was.c_str(), 1);
  char name[17] = {};  // the kernel's 16 bytes, NUL-terminated
  if (prctl(PR_GET_NAME, name, 0, 0, 0) == 0) setenv(kNameBefore, name, 1);
  setenv("GLIBC_TUNABLES", tuned->c_str(), 1);
  execv("/proc/self/exe", argv);
  RestoreTunables(was);  // not re-executed: go on as started
  unsetenv(kNameBefore);
}

}  // namespace skiff::ctld
