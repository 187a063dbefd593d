// gpu_busy SECONDS [MIB]: keeps the first GPU CUDA shows it busy for SECONDS
// while holding MIB MiB of its memory (default 1024), through the CUDA driver
// API loaded at run time (libcuda.so.1, which NVIDIA's driver installs), so
// that real_gpu_check.sh needs no CUDA toolkit or compiler on the GPU
// machine. Prints what it did; exit 0 when the GPU did the work, 1 otherwise.
#include <dlfcn.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace {

// The driver API's types and calls as cuda.h declares them (CUDA 3.2+ ABI).
using CUresult = int;
using CUdevice = int;
using CUcontext = void*;
using CUdeviceptr = unsigned long long;

template <typename F>
F Symbol(void* library, const char* name) {
  F f = reinterpret_cast<F>(dlsym(library, name));
  if (f == nullptr) {
    std::fprintf(stderr, "gpu_busy: libcuda.so.1 has no %s\n", name);
    std::exit(1);
  }
  return f;
}

void Check(CUresult rc, const char* what) {
  if (rc == 0) return;
  std::fprintf(stderr, "gpu_busy: %s failed: CUDA error %d\n", what, rc);
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: gpu_busy SECONDS [MIB]\n");
    return 2;
  }
  const double seconds = std::atof(argv[1]);
  const unsigned long long mib = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1024;
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (cuda == nullptr) {
    std::fprintf(stderr, "gpu_busy: %s\n", dlerror());
    return 1;
  }
  auto cuInit = Symbol<CUresult (*)(unsigned)>(cuda, "cuInit");
  auto cuDeviceGet = Symbol<CUresult (*)(CUdevice*, int)>(cuda, "cuDeviceGet");
  auto cuCtxCreate = Symbol<CUresult (*)(CUcontext*, unsigned, CUdevice)>(cuda, "cuCtxCreate_v2");
  auto cuMemAlloc = Symbol<CUresult (*)(CUdeviceptr*, size_t)>(cuda, "cuMemAlloc_v2");
  auto cuMemsetD32 = Symbol<CUresult (*)(CUdeviceptr, unsigned, size_t)>(cuda, "cuMemsetD32_v2");
  auto cuCtxSynchronize = Symbol<CUresult (*)()>(cuda, "cuCtxSynchronize");
  auto cuMemFree = Symbol<CUresult (*)(CUdeviceptr)>(cuda, "cuMemFree_v2");
  auto cuCtxDestroy = Symbol<CUresult (*)(CUcontext)>(cuda, "cuCtxDestroy_v2");

  Check(cuInit(0), "cuInit");
  CUdevice device = 0;
  Check(cuDeviceGet(&device, 0), "cuDeviceGet");
  CUcontext context = nullptr;
  Check(cuCtxCreate(&context, 0, device), "cuCtxCreate");
  CUdeviceptr memory = 0;
  const size_t bytes = static_cast<size_t>(mib) << 20;
  Check(cuMemAlloc(&memory, bytes), "cuMemAlloc");
  // Fill the buffer again and again: each fill is a kernel, so the GPU's
  // utilisation (the share of time a kernel runs) stays near 100%.
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  unsigned long long fills = 0;
  while (std::chrono::steady_clock::now() < end) {
    for (int i = 0; i < 16; ++i) {
      Check(cuMemsetD32(memory, static_cast<unsigned>(fills + i), bytes / 4), "cuMemsetD32");
    }
    Check(cuCtxSynchronize(), "cuCtxSynchronize");
    fills += 16;
  }
  Check(cuMemFree(memory), "cuMemFree");
  Check(cuCtxDestroy(context), "cuCtxDestroy");
  std::printf("gpu_busy: %llu fills of %llu MiB in %.0f s\n", fills, mib, seconds);
  return 0;
}
