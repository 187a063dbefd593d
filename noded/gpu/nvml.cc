#include "noded/gpu/nvml.h"

#include <dlfcn.h>

#include <cctype>

#include "absl/strings/str_cat.h"
#include "noded/gpu/mig.h"

namespace skiff::noded {
namespace {

// NVML's C interface (nvml.h), as much as Skiff uses; nvmlReturn_t is an int
// enum, nvmlDevice_t an opaque pointer.
using NvmlReturn = int;
using NvmlDevice = void*;
constexpr NvmlReturn kSuccess = 0;
constexpr NvmlReturn kInsufficientSize = 7;
constexpr NvmlReturn kGpuIsLost = 15;
constexpr unsigned long long kEventTypeXidCriticalError = 0x8;
constexpr int kMemoryErrorUncorrected = 1;
constexpr int kVolatileEcc = 0;
// nvmlProcessInfo_t's usedGpuMemory when the driver cannot tell.
constexpr unsigned long long kValueNotAvailable = ~0ull;

struct NvmlUtilization {
  unsigned gpu, memory;
};
struct NvmlMemory {
  unsigned long long total, free, used;
};
// nvmlProcessInfo_v2_t (the _v2 and _v3 calls) and nvmlProcessInfo_v1_t.
struct NvmlProcessInfoV2 {
  unsigned pid;
  unsigned long long used_gpu_memory;
  unsigned gpu_instance_id, compute_instance_id;
};
struct NvmlProcessInfoV1 {
  unsigned pid;
  unsigned long long used_gpu_memory;
};
// nvmlDeviceAttributes_t (nvml.h), what nvmlDeviceGetAttributes_v2 fills.
struct NvmlDeviceAttributes {
  unsigned multiprocessor_count, shared_copy_engine_count, shared_decoder_count,
      shared_encoder_count, shared_jpeg_count, shared_ofa_count, gpu_instance_slice_count,
      compute_instance_slice_count;
  unsigned long long memory_size_mb;
};
constexpr unsigned kMigEnabled = 1;
constexpr unsigned kUuidBufferSize = 96;  // NVML_DEVICE_UUID_V2_BUFFER_SIZE
struct NvmlEventData {
  NvmlDevice device;
  unsigned long long event_type;
  unsigned long long event_data;  // the Xid
  unsigned gpu_instance_id, compute_instance_id;
};

template <typename Fn>
bool Load(void* handle, const char* symbol, Fn* out) {
  *out = reinterpret_cast<Fn>(dlsym(handle, symbol));
  return *out != nullptr;
}

}  // namespace

struct Nvml::Functions {
  NvmlReturn (*init)() = nullptr;
  NvmlReturn (*shutdown)() = nullptr;
  NvmlReturn (*count)(unsigned*) = nullptr;
  NvmlReturn (*handle)(unsigned, NvmlDevice*) = nullptr;
  NvmlReturn (*minor)(NvmlDevice, unsigned*) = nullptr;
  NvmlReturn (*name)(NvmlDevice, char*, unsigned) = nullptr;
  const char* (*error_string)(NvmlReturn) = nullptr;
  // Sampling: optional, a library without one leaves its figure absent.
  NvmlReturn (*utilization)(NvmlDevice, NvmlUtilization*) = nullptr;
  NvmlReturn (*memory)(NvmlDevice, NvmlMemory*) = nullptr;
  NvmlReturn (*energy)(NvmlDevice, unsigned long long*) = nullptr;
  // The newest process call the driver has: _v3/_v2 fill v2 records, the
  // unversioned one v1 records.
  NvmlReturn (*processes_v2)(NvmlDevice, unsigned*, NvmlProcessInfoV2*) = nullptr;
  NvmlReturn (*processes_v1)(NvmlDevice, unsigned*, NvmlProcessInfoV1*) = nullptr;
  NvmlReturn (*ecc)(NvmlDevice, int, int, unsigned long long*) = nullptr;
  // MIG, and the names CUDA knows devices by: optional, a library without
  // them has no GPU in MIG mode.
  NvmlReturn (*uuid)(NvmlDevice, char*, unsigned) = nullptr;
  NvmlReturn (*driver_version)(char*, unsigned) = nullptr;
  NvmlReturn (*mig_mode)(NvmlDevice, unsigned*, unsigned*) = nullptr;
  NvmlReturn (*max_mig_count)(NvmlDevice, unsigned*) = nullptr;
  NvmlReturn (*mig_handle)(NvmlDevice, unsigned, NvmlDevice*) = nullptr;
  NvmlReturn (*gpu_instance_id)(NvmlDevice, unsigned*) = nullptr;
  NvmlReturn (*compute_instance_id)(NvmlDevice, unsigned*) = nullptr;
  NvmlReturn (*attributes)(NvmlDevice, NvmlDeviceAttributes*) = nullptr;
  // Xid events: all four, or none used.
  NvmlReturn (*event_set_create)(void**) = nullptr;
  NvmlReturn (*register_events)(NvmlDevice, unsigned long long, void*) = nullptr;
  NvmlReturn (*event_wait)(void*, NvmlEventData*, unsigned) = nullptr;
  NvmlReturn (*event_set_free)(void*) = nullptr;
};

absl::StatusOr<std::unique_ptr<Nvml>> Nvml::Open(const std::string& library) {
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return absl::UnavailableError(
        absl::StrCat("cannot load ", library, ": ", why != nullptr ? why : "unknown error"));
  }
  auto fn = std::make_unique<Functions>();
  if (!Load(handle, "nvmlInit_v2", &fn->init) || !Load(handle, "nvmlShutdown", &fn->shutdown) ||
      !Load(handle, "nvmlDeviceGetCount_v2", &fn->count) ||
      !Load(handle, "nvmlDeviceGetHandleByIndex_v2", &fn->handle) ||
      !Load(handle, "nvmlDeviceGetMinorNumber", &fn->minor) ||
      !Load(handle, "nvmlDeviceGetName", &fn->name) ||
      !Load(handle, "nvmlErrorString", &fn->error_string)) {
    dlclose(handle);
    return absl::UnavailableError(absl::StrCat(library, " lacks an NVML function Skiff uses"));
  }
  Load(handle, "nvmlDeviceGetUtilizationRates", &fn->utilization);
  Load(handle, "nvmlDeviceGetMemoryInfo", &fn->memory);
  Load(handle, "nvmlDeviceGetTotalEnergyConsumption", &fn->energy);
  if (!Load(handle, "nvmlDeviceGetComputeRunningProcesses_v3", &fn->processes_v2) &&
      !Load(handle, "nvmlDeviceGetComputeRunningProcesses_v2", &fn->processes_v2)) {
    Load(handle, "nvmlDeviceGetComputeRunningProcesses", &fn->processes_v1);
  }
  Load(handle, "nvmlDeviceGetTotalEccErrors", &fn->ecc);
  Load(handle, "nvmlDeviceGetUUID", &fn->uuid);
  Load(handle, "nvmlSystemGetDriverVersion", &fn->driver_version);
  if (!Load(handle, "nvmlDeviceGetMigMode", &fn->mig_mode) ||
      !Load(handle, "nvmlDeviceGetMaxMigDeviceCount", &fn->max_mig_count) ||
      !Load(handle, "nvmlDeviceGetMigDeviceHandleByIndex", &fn->mig_handle) ||
      !Load(handle, "nvmlDeviceGetGpuInstanceId", &fn->gpu_instance_id) ||
      !Load(handle, "nvmlDeviceGetComputeInstanceId", &fn->compute_instance_id) ||
      !(Load(handle, "nvmlDeviceGetAttributes_v2", &fn->attributes) ||
        Load(handle, "nvmlDeviceGetAttributes", &fn->attributes))) {
    fn->mig_mode = nullptr;
  }
  const bool events = Load(handle, "nvmlEventSetCreate", &fn->event_set_create) &&
                      Load(handle, "nvmlDeviceRegisterEvents", &fn->register_events) &&
                      Load(handle, "nvmlEventSetWait_v2", &fn->event_wait) &&
                      Load(handle, "nvmlEventSetFree", &fn->event_set_free);
  if (NvmlReturn rc = fn->init(); rc != kSuccess) {
    absl::Status status = absl::InternalError(absl::StrCat("nvmlInit: ", fn->error_string(rc)));
    dlclose(handle);
    return status;
  }
  std::unique_ptr<Nvml> nvml(new Nvml(handle, std::move(fn)));
  // Xid errors of every GPU into one event set (a GPU that cannot report them
  // is left out; its other faults are still read).
  if (void* set = nullptr; events && nvml->fn_->event_set_create(&set) == kSuccess) {
    nvml->events_ = set;
    unsigned n = 0;
    if (nvml->fn_->count(&n) == kSuccess) {
      for (unsigned i = 0; i < n; ++i) {
        NvmlDevice device = nullptr;
        if (nvml->fn_->handle(i, &device) == kSuccess) {
          (void)nvml->fn_->register_events(device, kEventTypeXidCriticalError, set);
        }
      }
    }
  }
  return nvml;
}

Nvml::Nvml(void* handle, std::unique_ptr<Functions> functions)
    : handle_(handle), fn_(std::move(functions)) {}

Nvml::~Nvml() {
  if (events_ != nullptr) fn_->event_set_free(events_);
  fn_->shutdown();
  dlclose(handle_);
}

absl::StatusOr<std::vector<DetectedGpu>> Nvml::Gpus() {
  auto failed = [&](const char* call, NvmlReturn rc) {
    return absl::InternalError(absl::StrCat(call, ": ", fn_->error_string(rc)));
  };
  unsigned n = 0;
  if (NvmlReturn rc = fn_->count(&n); rc != kSuccess) return failed("nvmlDeviceGetCount", rc);
  std::vector<DetectedGpu> gpus;
  for (unsigned i = 0; i < n; ++i) {
    NvmlDevice device = nullptr;
    DetectedGpu gpu;
    char text[96] = {0};
    if (NvmlReturn rc = fn_->handle(i, &device); rc != kSuccess) {
      return failed("nvmlDeviceGetHandleByIndex", rc);
    }
    if (NvmlReturn rc = fn_->minor(device, &gpu.minor); rc != kSuccess) {
      return failed("nvmlDeviceGetMinorNumber", rc);
    }
    if (NvmlReturn rc = fn_->name(device, text, sizeof text - 1); rc != kSuccess) {
      return failed("nvmlDeviceGetName", rc);
    }
    gpu.name = text;
    if (char uuid[kUuidBufferSize] = {0};
        fn_->uuid && fn_->uuid(device, uuid, sizeof uuid - 1) == kSuccess) {
      gpu.uuid = uuid;
    }
    if (absl::Status s = ReadMigs(device, &gpu); !s.ok()) return s;
    gpus.push_back(std::move(gpu));
  }
  return gpus;
}

// A GPU in MIG mode: its MIG devices, in NVML's order (Slurm's gpu/nvml
// plugin's reading). A GPU that is not MIG-capable answers NOT_SUPPORTED.
absl::Status Nvml::ReadMigs(void* device, DetectedGpu* gpu) {
  unsigned current = 0, pending = 0;
  if (fn_->mig_mode == nullptr || fn_->mig_mode(device, &current, &pending) != kSuccess ||
      current != kMigEnabled) {
    return absl::OkStatus();
  }
  auto failed = [&](const char* call, NvmlReturn rc) {
    return absl::InternalError(absl::StrCat("GPU /dev/nvidia", gpu->minor, " in MIG mode: ", call,
                                            ": ", fn_->error_string(rc)));
  };
  char driver[96] = {0};
  const bool by_uuid = fn_->driver_version != nullptr &&
                       fn_->driver_version(driver, sizeof driver - 1) == kSuccess &&
                       DriverNamesMigByUuid(driver);
  unsigned most = 0;
  if (NvmlReturn rc = fn_->max_mig_count(device, &most); rc != kSuccess) {
    return failed("nvmlDeviceGetMaxMigDeviceCount", rc);
  }
  // MIG devices are numbered from 0 without gaps; the first index without one ends them.
  for (unsigned k = 0; k < most; ++k) {
    NvmlDevice mig_device = nullptr;
    if (fn_->mig_handle(device, k, &mig_device) != kSuccess) break;
    DetectedMig mig;
    if (NvmlReturn rc = fn_->gpu_instance_id(mig_device, &mig.gpu_instance); rc != kSuccess) {
      return failed("nvmlDeviceGetGpuInstanceId", rc);
    }
    if (NvmlReturn rc = fn_->compute_instance_id(mig_device, &mig.compute_instance);
        rc != kSuccess) {
      return failed("nvmlDeviceGetComputeInstanceId", rc);
    }
    NvmlDeviceAttributes attributes{};
    if (NvmlReturn rc = fn_->attributes(mig_device, &attributes); rc != kSuccess) {
      return failed("nvmlDeviceGetAttributes", rc);
    }
    mig.slices = attributes.gpu_instance_slice_count;
    mig.memory_mb = attributes.memory_size_mb;
    char uuid[kUuidBufferSize] = {0};
    if (by_uuid && fn_->uuid && fn_->uuid(mig_device, uuid, sizeof uuid - 1) == kSuccess) {
      mig.cuda_name = uuid;
    } else {
      mig.cuda_name =
          absl::StrCat("MIG-", gpu->uuid, "/", mig.gpu_instance, "/", mig.compute_instance);
    }
    gpu->migs.push_back(std::move(mig));
  }
  if (gpu->migs.empty()) {
    return absl::InternalError(absl::StrCat(
        "GPU /dev/nvidia", gpu->minor,
        " is in MIG mode but has no MIG devices: create MIG instances (nvidia-smi mig -cgi ... "
        "-C), or disable MIG mode (nvidia-smi -i N -mig 0)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<GpuReading>> Nvml::Read() {
  unsigned n = 0;
  if (NvmlReturn rc = fn_->count(&n); rc != kSuccess) {
    return absl::InternalError(absl::StrCat("nvmlDeviceGetCount: ", fn_->error_string(rc)));
  }
  std::vector<GpuReading> readings(n);
  std::vector<NvmlDevice> devices(n, nullptr);
  for (unsigned i = 0; i < n; ++i) {
    GpuReading& r = readings[i];
    NvmlDevice device = nullptr;
    if (NvmlReturn rc = fn_->handle(i, &device); rc != kSuccess) {
      r.error = absl::StrCat("nvmlDeviceGetHandleByIndex: ", fn_->error_string(rc));
      r.lost = rc == kGpuIsLost;
      continue;
    }
    devices[i] = device;
    if (NvmlReturn rc = fn_->minor(device, &r.minor); rc != kSuccess) {
      r.error = absl::StrCat("nvmlDeviceGetMinorNumber: ", fn_->error_string(rc));
      r.lost = rc == kGpuIsLost;
      continue;
    }
    if (unsigned long long count = 0;
        fn_->ecc && fn_->ecc(device, kMemoryErrorUncorrected, kVolatileEcc, &count) == kSuccess) {
      r.uncorrected_ecc = count;
    }
    if (NvmlUtilization u{}; fn_->utilization && fn_->utilization(device, &u) == kSuccess) {
      r.util_percent = u.gpu;
    }
    if (NvmlMemory m{}; fn_->memory && fn_->memory(device, &m) == kSuccess) {
      r.memory_used_bytes = m.used;
      r.memory_total_bytes = m.total;
    }
    if (unsigned long long mj = 0; fn_->energy && fn_->energy(device, &mj) == kSuccess) {
      r.energy_mj = mj;
    }
    // Asked with room for none first: the count, then the records. A process
    // that starts in between makes the second call short; it is counted next
    // time.
    auto list = [&](auto call, auto record) -> std::optional<std::vector<GpuProcess>> {
      using Record = decltype(record);
      unsigned count = 0;
      NvmlReturn rc = call(device, &count, nullptr);
      if (rc == kSuccess) return std::vector<GpuProcess>{};
      if (rc != kInsufficientSize) return std::nullopt;
      std::vector<Record> records(count + 4);
      count = static_cast<unsigned>(records.size());
      if (call(device, &count, records.data()) != kSuccess) return std::nullopt;
      std::vector<GpuProcess> out;
      for (unsigned k = 0; k < count && k < records.size(); ++k) {
        GpuProcess p;
        p.pid = static_cast<pid_t>(records[k].pid);
        if (records[k].used_gpu_memory != kValueNotAvailable) {
          p.used_bytes = records[k].used_gpu_memory;
        }
        out.push_back(p);
      }
      return out;
    };
    if (fn_->processes_v2) {
      r.processes = list(fn_->processes_v2, NvmlProcessInfoV2{});
    } else if (fn_->processes_v1) {
      r.processes = list(fn_->processes_v1, NvmlProcessInfoV1{});
    }
  }
  // The Xid errors waiting in the event set, each to its GPU.
  for (NvmlEventData event{}; events_ != nullptr && fn_->event_wait(events_, &event, 0) == kSuccess;
       event = NvmlEventData{}) {
    for (unsigned i = 0; i < n; ++i) {
      if (devices[i] == event.device && event.device != nullptr) {
        readings[i].xids.push_back(event.event_data);
      }
    }
  }
  return readings;
}

absl::StatusOr<std::vector<DetectedGpu>> DetectNvmlGpus(const std::string& library) {
  absl::StatusOr<std::unique_ptr<Nvml>> nvml = Nvml::Open(library);
  if (!nvml.ok()) return nvml.status();
  return (*nvml)->Gpus();
}

std::optional<uint64_t> NvmlGpuMemory(unsigned minor, const std::string& library) {
  absl::StatusOr<std::unique_ptr<Nvml>> nvml = Nvml::Open(library);
  if (!nvml.ok()) return std::nullopt;
  absl::StatusOr<std::vector<GpuReading>> readings = (*nvml)->Read();
  if (!readings.ok()) return std::nullopt;
  for (const GpuReading& reading : *readings) {
    if (reading.minor == minor) return reading.memory_total_bytes;
  }
  return std::nullopt;
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
