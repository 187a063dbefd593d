#include "noded/container/container_support.h"

#include <dirent.h>
#include <dlfcn.h>
#include <link.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace skiff::noded {
namespace {

std::string ProgramOf(const std::string& pattern) {
  return pattern.substr(0, pattern.find_first_of(" \t"));
}

// The first word of a RunTime* pattern, found in PATH as /bin/sh would.
bool ProgramInstalled(const std::string& program) {
  if (program.empty()) return false;
  if (program.find('/') != std::string::npos) return access(program.c_str(), X_OK) == 0;
  const char* path = getenv("PATH");
  for (absl::string_view dir : absl::StrSplit(path != nullptr ? path : "/usr/bin:/bin", ':')) {
    if (access(absl::StrCat(dir, "/", program).c_str(), X_OK) == 0) return true;
  }
  return false;
}

// NVIDIA's user-space driver files, by name (enroot's hook binds the same).
constexpr const char* kDriverLibraryPrefixes[] = {"libcuda.so", "libnvidia-", "libnvcuvid.so",
                                                  "libcudadebugger.so"};
constexpr const char* kDriverPrograms[] = {"nvidia-smi", "nvidia-debugdump", "nvidia-persistenced"};

// The driver's libraries, where the dynamic loader finds NVML (its directory
// holds the rest, whatever the distribution calls it), and its programs.
std::vector<std::string> FindDriverFiles() {
  std::vector<std::string> files;
  if (void* nvml = dlopen("libnvidia-ml.so.1", RTLD_LAZY | RTLD_LOCAL)) {
    char origin[PATH_MAX] = "";
    if (dlinfo(nvml, RTLD_DI_ORIGIN, origin) == 0) {
      if (DIR* dir = opendir(origin)) {
        while (struct dirent* entry = readdir(dir)) {
          const std::string name = entry->d_name;
          for (const char* prefix : kDriverLibraryPrefixes) {
            if (name.rfind(prefix, 0) == 0) files.push_back(absl::StrCat(origin, "/", name));
          }
        }
        closedir(dir);
      }
    }
    dlclose(nvml);
  }
  std::sort(files.begin(), files.end());
  for (const char* program : kDriverPrograms) {
    for (const char* dir : {"/usr/bin", "/usr/local/bin"}) {
      const std::string path = absl::StrCat(dir, "/", program);
      if (access(path.c_str(), X_OK) == 0) {
        files.push_back(path);
        break;
      }
    }
  }
  return files;
}

}  // namespace

OciConfig HostDefaultOciConfig() {
  struct statfs fs {};
  const bool unified = statfs("/sys/fs/cgroup", &fs) == 0 && fs.f_type == CGROUP2_SUPER_MAGIC;
  const bool crun_fits = unified && ProgramInstalled("crun");
  if (!crun_fits && ProgramInstalled("runc")) return DefaultOciConfig(OciRuntime::kRunc);
  return DefaultOciConfig(OciRuntime::kCrun);
}

ContainerSupport CheckContainerSupport(const LoadedConfig& loaded,
                                       std::vector<std::vector<std::string>> gpu_files) {
  ContainerSupport out;
  out.gpu_files = std::move(gpu_files);
  for (const char* device :
       {"/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools", "/dev/nvidia-modeset"}) {
    if (access(device, F_OK) == 0) out.control_devices.push_back(device);
  }
  out.driver_files = FindDriverFiles();
  const OciConfig config = loaded.oci ? *loaded.oci : HostDefaultOciConfig();
  if (loaded.oci) {
    out.oci_conf = absl::StrCat(loaded.conf_dir, "/oci.conf");
    out.config_json = !loaded.oci->ignore_file_config_json;
  }
  const char* key = config.UsesRun() ? "RunTimeRun" : "RunTimeCreate";
  const std::string program =
      ProgramOf(config.UsesRun() ? config.run_time_run : config.run_time_create);
  if (ProgramInstalled(program)) return out;
  if (loaded.oci) {
    out.unavailable = absl::StrCat("oci.conf's ", key, " runs '", program,
                                   "', which is not installed on this node");
    out.drain_reason = out.unavailable;
  } else {
    out.unavailable = absl::StrCat("no oci.conf, and ", program,
                                   " (the default OCI runtime) is not installed on this node");
  }
  return out;
}

std::vector<std::string> ContainerDevices(const std::vector<std::vector<std::string>>& gpu_files,
                                          const std::vector<std::string>& control_devices,
                                          const std::vector<int32_t>& gpu_indices) {
  std::vector<std::string> devices;
  for (int32_t gpu : gpu_indices) {
    if (gpu < 0 || static_cast<size_t>(gpu) >= gpu_files.size()) continue;
    for (const std::string& file : gpu_files[static_cast<size_t>(gpu)]) {
      if (std::find(devices.begin(), devices.end(), file) == devices.end()) devices.push_back(file);
    }
  }
  if (!gpu_indices.empty()) {
    devices.insert(devices.end(), control_devices.begin(), control_devices.end());
  }
  return devices;
}

std::string ContainerUserHelperBeside(const std::string& shepherd_binary) {
  const size_t slash = shepherd_binary.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : shepherd_binary.substr(0, slash);
  return dir + "/skiff-container-user";
}

}  // namespace skiff::noded
