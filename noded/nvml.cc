#include "noded/nvml.h"

#include <dlfcn.h>

#include <cctype>

#include "absl/strings/str_cat.h"

namespace skiff::noded {
namespace {

// NVML's C interface (nvml.h), as much as Skiff uses; nvmlReturn_t is an int
// enum with NVML_SUCCESS = 0, nvmlDevice_t an opaque pointer.
using NvmlReturn = int;
using NvmlDevice = void*;
using InitFn = NvmlReturn (*)();
using ShutdownFn = NvmlReturn (*)();
using CountFn = NvmlReturn (*)(unsigned*);
using HandleFn = NvmlReturn (*)(unsigned, NvmlDevice*);
using MinorFn = NvmlReturn (*)(NvmlDevice, unsigned*);
using NameFn = NvmlReturn (*)(NvmlDevice, char*, unsigned);
using ErrorStringFn = const char* (*)(NvmlReturn);

template <typename Fn>
bool Load(void* handle, const char* symbol, Fn* out) {
  *out = reinterpret_cast<Fn>(dlsym(handle, symbol));
  return *out != nullptr;
}

}  // namespace

absl::StatusOr<std::vector<DetectedGpu>> DetectNvmlGpus(const std::string& library) {
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return absl::UnavailableError(
        absl::StrCat("cannot load ", library, ": ", why != nullptr ? why : "unknown error"));
  }
  InitFn init;
  ShutdownFn shutdown;
  CountFn count;
  HandleFn get_handle;
  MinorFn minor;
  NameFn name;
  ErrorStringFn error_string;
  if (!Load(handle, "nvmlInit_v2", &init) || !Load(handle, "nvmlShutdown", &shutdown) ||
      !Load(handle, "nvmlDeviceGetCount_v2", &count) ||
      !Load(handle, "nvmlDeviceGetHandleByIndex_v2", &get_handle) ||
      !Load(handle, "nvmlDeviceGetMinorNumber", &minor) ||
      !Load(handle, "nvmlDeviceGetName", &name) ||
      !Load(handle, "nvmlErrorString", &error_string)) {
    dlclose(handle);
    return absl::UnavailableError(absl::StrCat(library, " lacks an NVML function Skiff uses"));
  }
  auto failed = [&](const char* call, NvmlReturn rc) {
    return absl::InternalError(absl::StrCat(call, ": ", error_string(rc)));
  };
  if (NvmlReturn rc = init(); rc != 0) {
    absl::Status status = failed("nvmlInit", rc);
    dlclose(handle);
    return status;
  }
  absl::Status status;
  std::vector<DetectedGpu> gpus;
  unsigned n = 0;
  if (NvmlReturn rc = count(&n); rc != 0) {
    status = failed("nvmlDeviceGetCount", rc);
  }
  for (unsigned i = 0; i < n && status.ok(); ++i) {
    NvmlDevice device = nullptr;
    DetectedGpu gpu;
    char text[96] = {0};
    if (NvmlReturn rc = get_handle(i, &device); rc != 0) {
      status = failed("nvmlDeviceGetHandleByIndex", rc);
    } else if (NvmlReturn rc = minor(device, &gpu.minor); rc != 0) {
      status = failed("nvmlDeviceGetMinorNumber", rc);
    } else if (NvmlReturn rc = name(device, text, sizeof text - 1); rc != 0) {
      status = failed("nvmlDeviceGetName", rc);
    } else {
      gpu.name = text;
      gpus.push_back(std::move(gpu));
    }
  }
  shutdown();
  dlclose(handle);
  if (!status.ok()) return status;
  return gpus;
}

std::string NvmlGpuType(const std::string& name) {
  std::string out;
  for (char c : name) {
    out += std::isspace(static_cast<unsigned char>(c))
               ? '_'
               : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

}  // namespace skiff::noded
