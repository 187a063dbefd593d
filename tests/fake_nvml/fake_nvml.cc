// A stand-in for NVIDIA's libnvidia-ml.so.1 with two "A100" GPUs, minors 0
// and 3, for noded's AutoDetect=nvml tests on machines without a GPU.
#include <cstring>

extern "C" {

static bool initialised = false;

int nvmlInit_v2() {
  initialised = true;
  return 0;
}
int nvmlShutdown() {
  initialised = false;
  return 0;
}
int nvmlDeviceGetCount_v2(unsigned* count) {
  if (!initialised) return 1;  // NVML_ERROR_UNINITIALIZED
  *count = 2;
  return 0;
}
int nvmlDeviceGetHandleByIndex_v2(unsigned index, void** device) {
  if (index >= 2) return 2;  // NVML_ERROR_INVALID_ARGUMENT
  *device = reinterpret_cast<void*>(static_cast<unsigned long>(index + 1));
  return 0;
}
int nvmlDeviceGetMinorNumber(void* device, unsigned* minor) {
  *minor = reinterpret_cast<unsigned long>(device) == 1 ? 0 : 3;
  return 0;
}
int nvmlDeviceGetName(void*, char* name, unsigned length) {
  std::strncpy(name, "NVIDIA A100-SXM4-40GB", length);
  return 0;
}
const char* nvmlErrorString(int rc) { return rc == 0 ? "Success" : "Uninitialized"; }
}
