#include "noded/container/image_bundle.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"

namespace skiff::noded {
namespace {

using Json = nlohmann::json;

// Mount flags the runtime (runc, crun) understands; enroot's own and fstab's
// (x-create=, auto, nofail, user...) mean nothing to it.
constexpr const char* kRuntimeMountFlags[] = {
    "async",    "atime",       "bind",          "dev",    "diratime",    "dirsync",  "exec",
    "iversion", "mand",        "noatime",       "nodev",  "nodiratime",  "noexec",   "noiversion",
    "nomand",   "norelatime",  "nostrictatime", "nosuid", "private",     "rbind",    "relatime",
    "ro",       "rprivate",    "rshared",       "rslave", "runbindable", "rw",       "shared",
    "slave",    "strictatime", "suid",          "sync",   "unbindable",  "lazytime", "nolazytime",
};

// Docker's default capabilities: root's inside the user namespace only.
constexpr const char* kCapabilities[] = {
    "CAP_CHOWN",   "CAP_DAC_OVERRIDE", "CAP_FSETID",           "CAP_FOWNER",
    "CAP_MKNOD",   "CAP_NET_RAW",      "CAP_SETGID",           "CAP_SETUID",
    "CAP_SETFCAP", "CAP_SETPCAP",      "CAP_NET_BIND_SERVICE", "CAP_SYS_CHROOT",
    "CAP_KILL",    "CAP_AUDIT_WRITE",
};

bool IsAbsoluteOrRelative(const std::string& path) {
  return !path.empty() && (path[0] == '/' || path[0] == '.');
}

std::string Absolute(const std::string& path, const std::string& cwd) {
  if (path.empty() || path[0] == '/') return path;
  std::string relative = path;
  if (relative == ".") return cwd;
  while (relative.size() > 2 && relative.compare(0, 2, "./") == 0) relative.erase(0, 2);
  return cwd.empty() || cwd.back() == '/' ? cwd + relative : cwd + "/" + relative;
}

Json Mount(const std::string& destination, const std::string& type, const std::string& source,
           const std::vector<std::string>& options) {
  return Json{
      {"destination", destination}, {"type", type}, {"source", source}, {"options", options}};
}

Json BindMount(const std::string& source, const std::string& destination,
               std::vector<std::string> extra) {
  std::vector<std::string> options = {"rbind", "nosuid", "nodev"};
  for (std::string& flag : extra) {
    if (std::find(options.begin(), options.end(), flag) == options.end()) {
      options.push_back(std::move(flag));
    }
  }
  return Mount(destination, "bind", source, options);
}

Json IdMapping(uint32_t host_id) {
  return Json::array({Json{{"containerID", 0}, {"hostID", host_id}, {"size", 1}}});
}

}  // namespace

absl::StatusOr<ContainerMount> ParseContainerMount(const std::string& entry,
                                                   const std::string& cwd) {
  const std::vector<std::string> parts = absl::StrSplit(entry, absl::MaxSplits(':', 2));
  ContainerMount mount;
  mount.source = parts[0];
  mount.target = parts.size() > 1 ? parts[1] : parts[0];
  const bool source_ok = mount.tmpfs() || IsAbsoluteOrRelative(mount.source);
  if (!source_ok || !IsAbsoluteOrRelative(mount.target)) {
    return absl::InvalidArgumentError(absl::StrCat("--container-mounts: invalid entry ", entry));
  }
  if (!mount.tmpfs()) mount.source = Absolute(mount.source, cwd);
  mount.target = Absolute(mount.target, cwd);
  if (parts.size() == 3 && !parts[2].empty()) {
    for (const std::string& flag : std::vector<std::string>(absl::StrSplit(parts[2], '+'))) {
      if (std::find(std::begin(kRuntimeMountFlags), std::end(kRuntimeMountFlags), flag) !=
          std::end(kRuntimeMountFlags)) {
        mount.options.push_back(flag);
      }
    }
  }
  return mount;
}

std::string ImageWorkingDir(const std::string& image_config) {
  const Json json = Json::parse(image_config, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) return "";
  auto config = json.find("config");
  if (config == json.end() || !config->is_object()) return "";
  auto dir = config->find("WorkingDir");
  return dir != config->end() && dir->is_string() ? dir->get<std::string>() : "";
}

std::vector<std::string> ContainerEntry(const ImageBundleOptions& options) {
  if (options.remap_root) return {};
  return {kContainerUserHelper, absl::StrCat(options.uid), absl::StrCat(options.gid), "--"};
}

absl::StatusOr<std::string> ImageBundleConfig(const std::string& image_config,
                                              const ImageBundleOptions& options) {
  const Json image = Json::parse(image_config, nullptr, /*allow_exceptions=*/false);
  if (!image.is_object()) {
    return absl::InvalidArgumentError("the image's configuration is not a JSON object");
  }
  // The image's environment, less what --container-env takes from the host.
  const std::set<std::string> host_names(options.host_env_names.begin(),
                                         options.host_env_names.end());
  std::vector<std::string> env;
  if (auto config = image.find("config"); config != image.end() && config->is_object()) {
    if (auto image_env = config->find("Env"); image_env != config->end() && image_env->is_array()) {
      for (const Json& entry : *image_env) {
        if (!entry.is_string()) continue;
        const std::string text = entry.get<std::string>();
        if (host_names.count(text.substr(0, text.find('='))) == 0) env.push_back(text);
      }
    }
  }
  auto has = [&](const std::string& name) {
    return host_names.count(name) > 0 ||
           std::any_of(env.begin(), env.end(), [&](const std::string& e) {
             return e.compare(0, name.size() + 1, name + "=") == 0;
           });
  };
  if (!has("PATH")) {
    env.push_back("PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
  }
  // The host's LD_LIBRARY_PATH means nothing inside; the driver's does.
  if (!options.driver_files.empty() && !has("LD_LIBRARY_PATH")) {
    env.push_back(absl::StrCat("LD_LIBRARY_PATH=", kContainerDriverLibDir));
  }

  const std::vector<std::string> capabilities(std::begin(kCapabilities), std::end(kCapabilities));
  Json process = {
      {"terminal", false},
      {"user", {{"uid", 0}, {"gid", 0}}},
      {"args", Json::array({"/bin/sh"})},
      {"env", env},
      {"cwd", options.cwd.empty() ? "/" : options.cwd},
      {"capabilities",
       {{"bounding", capabilities}, {"effective", capabilities}, {"permitted", capabilities}}},
      {"noNewPrivileges", true},
  };
  const uint64_t shm = options.shm_bytes > 0 ? options.shm_bytes : uint64_t{64} << 20;
  Json mounts = Json::array({
      Mount("/proc", "proc", "proc", {}),
      Mount("/dev", "tmpfs", "tmpfs", {"nosuid", "strictatime", "mode=755", "size=65536k"}),
      Mount("/dev/pts", "devpts", "devpts",
            {"nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620"}),
      Mount("/dev/shm", "tmpfs", "shm",
            {"nosuid", "noexec", "nodev", "mode=1777", absl::StrCat("size=", shm)}),
      Mount("/dev/mqueue", "mqueue", "mqueue", {"nosuid", "noexec", "nodev"}),
      // Rootless: /sys can only be bound from the host, read-only.
      Mount("/sys", "none", "/sys", {"rbind", "nosuid", "noexec", "nodev", "ro"}),
  });
  if (!options.user_helper.empty()) {
    mounts.push_back(BindMount(options.user_helper, kContainerUserHelper, {"ro"}));
  }
  for (const std::string& file : options.driver_files) {
    const std::string base = file.substr(file.rfind('/') + 1);
    const bool library = base.find(".so") != std::string::npos;
    mounts.push_back(BindMount(
        file, absl::StrCat(library ? kContainerDriverLibDir : kContainerDriverBinDir, "/", base),
        {"ro"}));
  }
  for (const ContainerMount& mount : options.mounts) {
    if (mount.tmpfs()) {
      std::vector<std::string> flags = {"nosuid", "nodev"};
      flags.insert(flags.end(), mount.options.begin(), mount.options.end());
      mounts.push_back(Mount(mount.target, "tmpfs", "tmpfs", flags));
    } else {
      mounts.push_back(BindMount(mount.source, mount.target, mount.options));
    }
  }

  Json config = {
      {"ociVersion", "1.0.2"},
      {"process", process},
      {"root", {{"path", options.rootfs}, {"readonly", false}}},
      {"hostname", options.hostname},
      {"mounts", mounts},
      {"linux",
       {{"uidMappings", IdMapping(options.uid)},
        {"gidMappings", IdMapping(options.gid)},
        {"namespaces",
         Json::array({Json{{"type", "pid"}}, Json{{"type", "ipc"}}, Json{{"type", "uts"}},
                      Json{{"type", "mount"}}, Json{{"type", "user"}}})},
        {"maskedPaths",
         {"/proc/acpi", "/proc/asound", "/proc/kcore", "/proc/keys", "/proc/latency_stats",
          "/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/sys/firmware",
          "/proc/scsi"}},
        {"readonlyPaths",
         {"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"}}}},
  };
  return config.dump(2, ' ', false, Json::error_handler_t::replace);
}

}  // namespace skiff::noded
