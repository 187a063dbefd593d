#include "common/config/config_loader.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace skiff {
namespace {

// `name_path` is false where the caller's message already names the file.
absl::Status ErrnoStatus(int error, const std::string& path, bool name_path) {
  std::string message = name_path ? absl::StrCat("cannot read ", path, ": ", std::strerror(error))
                                  : std::string(std::strerror(error));
  switch (error) {
    case ENOENT:
    case ENOTDIR:
      return absl::NotFoundError(message);
    case EACCES:
    case EPERM:
      return absl::PermissionDeniedError(message);
    default:
      return absl::FailedPreconditionError(message);
  }
}

// The file's path made absolute, so that messages and Include resolution do not
// depend on the working directory.
std::string Absolute(const std::string& path) {
  std::error_code error;
  std::filesystem::path absolute = std::filesystem::absolute(path, error);
  if (error) return path;
  return absolute.lexically_normal().string();
}

std::string DirectoryOf(const std::string& path) {
  return std::filesystem::path(path).parent_path().string();
}

absl::StatusOr<std::string> ReadFile(const std::string& path, bool name_path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, path, name_path);
  std::string contents;
  char buffer[1 << 16];
  while (true) {
    ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int error = errno;
      ::close(fd);
      return ErrnoStatus(error, path, name_path);  // e.g. EISDIR for a directory
    }
    if (n == 0) break;
    contents.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return contents;
}

// Reads one file; `name_path` as ReadFile's. Disk, or the files in memory.
using FileSource =
    std::function<absl::StatusOr<std::string>(const std::string& path, bool name_path)>;

// Reads through `source` and records what it read in `loaded.files_read`.
class RecordingReader {
 public:
  RecordingReader(const FileSource& source, LoadedConfig& loaded)
      : source_(source), loaded_(loaded) {}

  absl::StatusOr<std::string> Read(const std::string& path, bool name_path) {
    absl::StatusOr<std::string> text = source_(path, name_path);
    if (text.ok()) loaded_.files_read.emplace_back(path, *text);
    return text;
  }
  // The parsers word include failures as "<file>:<line>: Include: cannot read 'PATH': ...".
  IncludeReader Includes() {
    return [this](const std::string& path) { return Read(path, false); };
  }
  // An optional file in the config directory: nullopt when it does not exist.
  absl::StatusOr<std::optional<std::string>> ReadOptional(const std::string& path) {
    absl::StatusOr<std::string> text = Read(path, true);
    if (absl::IsNotFound(text.status())) return std::optional<std::string>();
    if (!text.ok()) return text.status();
    return std::optional<std::string>(*std::move(text));
  }

 private:
  const FileSource& source_;
  LoadedConfig& loaded_;
};

absl::StatusOr<LoadedConfig> LoadConfigVia(const std::string& conf_path, const FileSource& source);

}  // namespace

std::string ResolveConfPath(const std::string& explicit_path) {
  if (!explicit_path.empty()) return explicit_path;
  const char* from_env = std::getenv("SKIFF_CONF");
  if (from_env != nullptr && from_env[0] != '\0') return from_env;
  return kDefaultConfPath;
}

absl::StatusOr<std::string> ReadFileToString(const std::string& path) {
  return ReadFile(path, true);
}

absl::StatusOr<LoadedConfig> LoadConfig(const std::string& conf_path) {
  return LoadConfigVia(
      conf_path, [](const std::string& path, bool name_path) { return ReadFile(path, name_path); });
}

absl::StatusOr<LoadedConfig> LoadConfigFromMemory(
    const std::string& dir, const std::vector<std::pair<std::string, std::string>>& files) {
  std::map<std::string, std::string> by_path(files.begin(), files.end());
  return LoadConfigVia(
      absl::StrCat(dir, "/skiff.conf"),
      [&by_path](const std::string& path, bool name_path) -> absl::StatusOr<std::string> {
        auto it = by_path.find(std::filesystem::path(path).lexically_normal().string());
        if (it == by_path.end()) return ErrnoStatus(ENOENT, path, name_path);
        return it->second;
      });
}

namespace {

absl::StatusOr<LoadedConfig> LoadConfigVia(const std::string& conf_path, const FileSource& source) {
  LoadedConfig loaded;
  loaded.conf_path = Absolute(conf_path);
  loaded.conf_dir = DirectoryOf(loaded.conf_path);
  RecordingReader reader(source, loaded);
  const IncludeReader read_include = reader.Includes();

  absl::StatusOr<std::string> text = reader.Read(loaded.conf_path, true);
  if (!text.ok()) return text.status();
  absl::StatusOr<SkiffConfig> skiff = ParseSkiffConfig(*text, loaded.conf_path, read_include);
  if (!skiff.ok()) return skiff.status();
  loaded.skiff = *std::move(skiff);

  std::string gres_path = absl::StrCat(loaded.conf_dir, "/gres.conf");
  absl::StatusOr<std::optional<std::string>> gres_text = reader.ReadOptional(gres_path);
  if (!gres_text.ok()) return gres_text.status();
  if (gres_text->has_value()) {
    absl::StatusOr<GresConfig> gres = ParseGresConfig(**gres_text, gres_path, read_include);
    if (!gres.ok()) return gres.status();
    loaded.gres = *std::move(gres);
  }
  if (absl::Status status = CheckGresAgainstSkiff(loaded.skiff, loaded.gres); !status.ok()) {
    return status;
  }
  if (absl::Status status = ApplyGresSharing(loaded.gres, loaded.skiff); !status.ok()) {
    return status;
  }

  std::string bb_path = absl::StrCat(loaded.conf_dir, "/burst_buffer.conf");
  absl::StatusOr<std::optional<std::string>> bb_text = reader.ReadOptional(bb_path);
  if (!bb_text.ok()) return bb_text.status();
  if (bb_text->has_value()) {
    absl::StatusOr<BurstBufferConfig> bb = ParseBurstBufferConfig(**bb_text, bb_path, read_include);
    if (!bb.ok()) return bb.status();
    loaded.burst_buffer = *std::move(bb);
  }

  std::string cgroup_path = absl::StrCat(loaded.conf_dir, "/cgroup.conf");
  absl::StatusOr<std::optional<std::string>> cgroup_text = reader.ReadOptional(cgroup_path);
  if (!cgroup_text.ok()) return cgroup_text.status();
  if (cgroup_text->has_value()) {
    absl::StatusOr<CgroupConfig> cgroup =
        ParseCgroupConfig(**cgroup_text, cgroup_path, read_include);
    if (!cgroup.ok()) return cgroup.status();
    loaded.cgroup = *std::move(cgroup);
  }

  std::string oci_path = absl::StrCat(loaded.conf_dir, "/oci.conf");
  absl::StatusOr<std::optional<std::string>> oci_text = reader.ReadOptional(oci_path);
  if (!oci_text.ok()) return oci_text.status();
  if (oci_text->has_value()) {
    absl::StatusOr<OciConfig> oci = ParseOciConfig(**oci_text, oci_path, read_include);
    if (!oci.ok()) return oci.status();
    loaded.oci = *std::move(oci);
  }

  for (const std::vector<std::string>* warnings :
       {&loaded.skiff.warnings, &loaded.gres.warnings,
        loaded.burst_buffer ? &loaded.burst_buffer->warnings : nullptr,
        loaded.cgroup ? &loaded.cgroup->warnings : nullptr,
        loaded.oci ? &loaded.oci->warnings : nullptr}) {
    if (warnings == nullptr) continue;
    loaded.warnings.insert(loaded.warnings.end(), warnings->begin(), warnings->end());
  }
  return loaded;
}

}  // namespace
}  // namespace skiff
