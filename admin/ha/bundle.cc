#include "admin/ha/bundle.h"

#include <cstdio>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace skiff::cli::ha {
namespace {

constexpr char kMagic[] = "skiff-bundle 1";
constexpr size_t kMaxFileBytes = 1 << 20;

// Where a bundle may put files.
bool AllowedPath(absl::string_view path) {
  if (absl::StrContains(path, "/../") || absl::EndsWith(path, "/..") ||
      absl::StrContains(path, "//")) {
    return false;
  }
  for (absl::string_view dir :
       {"/etc/skiff/", "/var/lib/skiff/", "/etc/munge/", "/etc/systemd/system/etcd.service.d/"}) {
    if (absl::StartsWith(path, dir) && path.size() > dir.size()) return true;
  }
  return false;
}

absl::Status Invalid(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("the bundle is not valid: ", what));
}

// The next line of `rest` (without its newline), which is consumed.
bool NextLine(absl::string_view& rest, absl::string_view& line) {
  const size_t end = rest.find('\n');
  if (end == absl::string_view::npos) return false;
  line = rest.substr(0, end);
  rest.remove_prefix(end + 1);
  return true;
}

}  // namespace

std::string EncodeBundle(const Bundle& bundle) {
  std::string out = absl::StrCat(kMagic, "\nhost ", bundle.host, "\nrole ",
                                 bundle.controller ? "controller" : "vote", "\n");
  for (const BundleFile& f : bundle.files) {
    char mode[8];
    snprintf(mode, sizeof(mode), "%04o", static_cast<unsigned>(f.mode));
    absl::StrAppend(&out, "file ", f.path, " ", mode, " ", f.owner, " ", f.content.size(), "\n",
                    f.content, "\n");
  }
  return out;
}

absl::StatusOr<Bundle> DecodeBundle(absl::string_view text) {
  absl::string_view rest = text;
  absl::string_view line;
  if (!NextLine(rest, line) || line != kMagic) {
    return absl::InvalidArgumentError(
        "not a Skiff bundle (it should start with \"skiff-bundle 1\": `skiff init --standby` or "
        "`--vote` on the head node writes them)");
  }
  Bundle bundle;
  if (!NextLine(rest, line) || !absl::StartsWith(line, "host ") || line.size() == 5) {
    return Invalid("its second line is not \"host NAME\"");
  }
  bundle.host = std::string(line.substr(5));
  if (!NextLine(rest, line) || (line != "role controller" && line != "role vote")) {
    return Invalid("its third line is not \"role controller\" or \"role vote\"");
  }
  bundle.controller = line == "role controller";
  while (!rest.empty()) {
    if (!NextLine(rest, line)) return Invalid("it ends inside a line");
    const std::vector<absl::string_view> fields = absl::StrSplit(line, ' ');
    size_t bytes = 0;
    unsigned long mode = 0;
    if (fields.size() != 5 || fields[0] != "file" || !absl::SimpleAtoi(fields[4], &bytes) ||
        fields[2].size() != 4) {
      return Invalid(absl::StrCat("\"", line, "\" is not \"file PATH MODE OWNER BYTES\""));
    }
    const std::string mode_text(fields[2]);
    char* end = nullptr;
    mode = strtoul(mode_text.c_str(), &end, 8);
    if (*end != '\0' || (mode & ~0755UL) != 0) {
      return Invalid(absl::StrCat(fields[1], ": mode ", fields[2], " (at most 0755)"));
    }
    if (!AllowedPath(fields[1])) {
      return Invalid(absl::StrCat(fields[1],
                                  ": a bundle writes only under /etc/skiff, "
                                  "/var/lib/skiff, /etc/munge and etcd's drop-in "
                                  "directory"));
    }
    if (fields[3].empty() || bytes > kMaxFileBytes || rest.size() < bytes + 1 ||
        rest[bytes] != '\n') {
      return Invalid(absl::StrCat(fields[1], ": its ", fields[4], " bytes are not all there"));
    }
    bundle.files.push_back({std::string(fields[1]), static_cast<mode_t>(mode),
                            std::string(fields[3]), std::string(rest.substr(0, bytes))});
    rest.remove_prefix(bytes + 1);
  }
  return bundle;
}

}  // namespace skiff::cli::ha
