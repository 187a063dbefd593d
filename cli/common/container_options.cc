#include "cli/common/container_options.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/stubs/common.h"

namespace skiff::cli {
namespace {

// The options enroot's mount takes (bin/enroot-mount.c), which pyxis passes a
// mount's FLAGS to after its own "x-create=auto,rbind": anything else would
// reach the kernel as filesystem data, which a bind mount refuses.
constexpr const char* kMountFlags[] = {
    "async",        "atime",         "bind",          "dev",     "diratime",
    "dirsync",      "exec",          "iversion",      "loud",    "mand",
    "noatime",      "nodev",         "nodiratime",    "noexec",  "noiversion",
    "nomand",       "norelatime",    "nostrictatime", "nosuid",  "private",
    "rbind",        "relatime",      "remount",       "ro",      "rprivate",
    "rshared",      "rslave",        "runbindable",   "rw",      "shared",
    "silent",       "slave",         "strictatime",   "suid",    "sync",
    "unbindable",   "lazytime",      "nolazytime",    "auto",    "defaults",
    "group",        "noauto",        "nofail",        "nogroup", "noowner",
    "nouser",       "nousers",       "owner",         "user",    "users",
    "x-create=dir", "x-create=file", "x-create=auto", "x-move",  "x-detach",
};

// pyxis's --container-name flags (args.c); none means auto.
constexpr const char* kNameFlags[] = {"auto", "create", "exec", "no_exec"};

absl::Status Invalid(const std::string& option, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(option, ": ", what));
}

bool IsUtf8(const std::string& text) {
  return google::protobuf::internal::IsStructurallyValidUTF8(text.data(),
                                                             static_cast<int>(text.size()));
}

// pyxis's test for a path: it starts with '.' or '/' (relative or absolute).
bool IsPath(const std::string& text) { return !text.empty() && (text[0] == '.' || text[0] == '/'); }

std::string Absolute(const std::string& path, const std::string& cwd) {
  if (path[0] == '/') return path;
  if (path == ".") return cwd;
  std::string relative = path;
  while (relative.size() > 2 && relative.compare(0, 2, "./") == 0) relative.erase(0, 2);
  return cwd.empty() || cwd.back() == '/' ? cwd + relative : cwd + "/" + relative;
}

// One --container-mounts entry, SRC[:DST[:FLAGS]], checked as pyxis's
// parse_mount_option and add_mount check it.
absl::Status CheckMount(const std::string& entry) {
  constexpr char kOption[] = "--container-mounts";
  const std::vector<std::string> parts = absl::StrSplit(entry, absl::MaxSplits(':', 2));
  if (parts[0].empty() || (parts.size() > 1 && parts[1].empty())) {
    return Invalid(kOption, absl::StrCat("invalid format: ", entry));
  }
  const std::string& source = parts[0];
  const std::string& target = parts.size() > 1 ? parts[1] : parts[0];
  if (!IsPath(source) && source != "tmpfs" && source != "umount") {
    return Invalid(kOption, absl::StrCat("mount source must be a relative path, an absolute path, "
                                         "\"tmpfs\" or \"umount\": ",
                                         entry));
  }
  if (!IsPath(target)) {
    return Invalid(
        kOption, absl::StrCat("mount target must be a relative path or an absolute path: ", entry));
  }
  if (parts.size() < 3 || parts[2].empty()) return absl::OkStatus();
  for (const std::string& flag : std::vector<std::string>(absl::StrSplit(parts[2], '+'))) {
    if (std::find(std::begin(kMountFlags), std::end(kMountFlags), flag) == std::end(kMountFlags)) {
      return Invalid(kOption, absl::StrCat("unknown mount flag \"", flag, "\" in ", entry,
                                           " (flags are separated by \"+\")"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckName(const std::string& value) {
  constexpr char kOption[] = "--container-name";
  const size_t colon = value.find(':');
  if (colon == 0) return Invalid(kOption, "empty name");
  if (colon == std::string::npos || colon + 1 == value.size()) return absl::OkStatus();
  const std::string flag = value.substr(colon + 1);
  if (std::find(std::begin(kNameFlags), std::end(kNameFlags), flag) == std::end(kNameFlags)) {
    return Invalid(kOption, "flag must be \"auto\", \"create\", \"exec\" or \"no_exec\"");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ContainerBuild> BuildContainerRequest(const ContainerOptions& options,
                                                     const std::string& cwd) {
  // Slurm's OCI bundle or pyxis's image (or a named container): a task runs
  // in one of them, never both.
  if (options.bundle && options.image) {
    return absl::FailedPreconditionError(
        "--container and --container-image options are mutually exclusive");
  }
  if (options.bundle && options.name) {
    return absl::FailedPreconditionError(
        "--container and --container-name options are mutually exclusive");
  }
  ContainerBuild out;
  v1::ContainerRequest& request = out.request;
  if (options.bundle) {
    if (options.bundle->empty()) {
      return absl::InvalidArgumentError(
          "Invalid --container specification: the path of an OCI bundle is required");
    }
    request.set_bundle(Absolute(*options.bundle, cwd));
  }
  // pyxis refuses an empty value for each of its options with a value.
  const std::pair<const char*, const std::optional<std::string>*> valued[] = {
      {"--container-image", &options.image},
      {"--container-mounts", &options.mounts},
      {"--container-workdir", &options.workdir},
      {"--container-env", &options.env},
      {"--container-name", &options.name}};
  for (const auto& [option, value] : valued) {
    if (*value && (*value)->empty()) return Invalid(option, "argument required");
  }
  if (options.image) {
    if (!IsUtf8(*options.image)) return Invalid("--container-image", "not valid UTF-8");
    request.set_image(*options.image);
  }
  if (options.mounts) {
    for (const std::string& entry :
         std::vector<std::string>(absl::StrSplit(*options.mounts, ','))) {
      if (entry.empty()) {
        return Invalid("--container-mounts", absl::StrCat("empty entry in ", *options.mounts));
      }
      if (absl::Status s = CheckMount(entry); !s.ok()) return s;
      request.add_mounts(entry);
    }
  }
  if (options.workdir) request.set_workdir(*options.workdir);
  if (options.env) {
    for (const std::string& name : std::vector<std::string>(absl::StrSplit(*options.env, ','))) {
      if (name.empty()) {
        return Invalid("--container-env", absl::StrCat("invalid format: ", *options.env));
      }
      // A name only: the value is the job's own (a common slip is NAME=VALUE).
      if (name.find('=') != std::string::npos || !IsUtf8(name)) {
        return Invalid("--container-env", absl::StrCat("invalid variable name: ", name));
      }
      request.add_env(name);
    }
  }
  if (options.name) {
    if (absl::Status s = CheckName(*options.name); !s.ok()) return s;
    if (!IsUtf8(*options.name)) return Invalid("--container-name", "not valid UTF-8");
    request.set_name(*options.name);
  }
  request.set_remap_root(options.remap_root.value_or(false));
  request.set_no_mount_home(options.mount_home.has_value() && !*options.mount_home);

  // Without an image or a name pyxis does nothing, and says which of its
  // options it ignores; Skiff drops them likewise, so that what travels is
  // either nothing, a bundle, or an image (or name) with its options.
  if (request.image().empty() && request.name().empty()) {
    const auto ignoring = [&](const std::string& option) {
      out.warnings.push_back(absl::StrCat(
          "ignoring ", option, " because neither --container-image nor --container-name is set"));
    };
    if (request.mounts_size() > 0) ignoring("--container-mounts");
    if (!request.workdir().empty()) ignoring("--container-workdir");
    if (request.env_size() > 0) ignoring("--container-env");
    if (options.mount_home) ignoring("--[no-]container-mount-home");
    if (options.remap_root) ignoring("--[no-]container-remap-root");
    request.clear_mounts();
    request.clear_workdir();
    request.clear_env();
    request.clear_remap_root();
    request.clear_no_mount_home();
  }
  return out;
}

bool HasContainer(const v1::ContainerRequest& request) {
  return !request.bundle().empty() || !request.image().empty() || !request.name().empty();
}

void AddContainerOptions(CLI::App& app, ContainerOptions* options, ContainerFlags* flags) {
  app.add_option("--container", options->bundle);
  app.add_option("--container-image", options->image);
  app.add_option("--container-mounts", options->mounts);
  app.add_option("--container-workdir", options->workdir);
  app.add_option("--container-env", options->env);
  app.add_option("--container-name", options->name);
  flags->remap_root = app.add_flag("--container-remap-root");
  flags->no_remap_root = app.add_flag("--no-container-remap-root");
  flags->mount_home = app.add_flag("--container-mount-home");
  flags->no_mount_home = app.add_flag("--no-container-mount-home");
}

void ApplyContainerFlags(const CLI::App& app, const ContainerFlags& flags,
                         ContainerOptions* options) {
  for (const CLI::Option* given : app.parse_order()) {
    if (given == flags.remap_root) options->remap_root = true;
    if (given == flags.no_remap_root) options->remap_root = false;
    if (given == flags.mount_home) options->mount_home = true;
    if (given == flags.no_mount_home) options->mount_home = false;
  }
}

}  // namespace skiff::cli
