// The fake NVML's MIG devices and UUIDs, called as NVML's users call them
// (dlopen, the C signatures and structure layouts of NVIDIA's nvml.h), so
// that code written against the real library (Slurm's gpu/nvml plugin reads
// the same) can be tested with it.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <string>

namespace {

struct Attributes {  // nvmlDeviceAttributes_t
  unsigned multiprocessorCount, sharedCopyEngineCount, sharedDecoderCount, sharedEncoderCount,
      sharedJpegCount, sharedOfaCount, gpuInstanceSliceCount, computeInstanceSliceCount;
  unsigned long long memorySizeMB;
};

class FakeNvmlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* dir = getenv("TEST_SRCDIR");
    const char* workspace = getenv("TEST_WORKSPACE");
    state_ = std::string(getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp") + "/nvml.state";
    std::ofstream(state_) << "gpu minor=0 mig=none\n"
                             "gpu minor=1 uuid=GPU-11111111-2222-3333-4444-555555555555 mig=1\n"
                             "mig gpu=1 gi=1 ci=0 slices=3 memory=20096\n"
                             "mig gpu=1 gi=2 ci=0 slices=3 memory=20096 uuid=MIG-given\n"
                             "gpu minor=2 mig=0\n";
    setenv("SKIFF_FAKE_NVML_STATE", state_.c_str(), 1);
    library_ = dlopen((std::string(dir ? dir : ".") + "/" + (workspace ? workspace : "skiff") +
                       "/tests/fake_nvml/libnvidia-ml.so.1")
                          .c_str(),
                      RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(library_, nullptr) << dlerror();
    ASSERT_EQ(Call<int (*)()>("nvmlInit_v2")(), 0);
  }
  void TearDown() override {
    if (library_ != nullptr) dlclose(library_);
    unsetenv("SKIFF_FAKE_NVML_STATE");
  }
  template <typename F>
  F Call(const char* name) {
    F f = reinterpret_cast<F>(dlsym(library_, name));
    EXPECT_NE(f, nullptr) << name;
    return f;
  }
  void* Gpu(unsigned index) {
    void* device = nullptr;
    EXPECT_EQ(Call<int (*)(unsigned, void**)>("nvmlDeviceGetHandleByIndex_v2")(index, &device), 0);
    return device;
  }
  std::string Text(const char* function, void* device) {
    char text[96] = "";
    const int rc = Call<int (*)(void*, char*, unsigned)>(function)(device, text, sizeof text);
    return rc == 0 ? text : "error " + std::to_string(rc);
  }

  std::string state_;
  void* library_ = nullptr;
};

TEST_F(FakeNvmlTest, MigModeItsDevicesAndTheirIdentities) {
  auto mig_mode = Call<int (*)(void*, unsigned*, unsigned*)>("nvmlDeviceGetMigMode");
  auto max_count = Call<int (*)(void*, unsigned*)>("nvmlDeviceGetMaxMigDeviceCount");
  auto by_index = Call<int (*)(void*, unsigned, void**)>("nvmlDeviceGetMigDeviceHandleByIndex");
  unsigned current = 9, pending = 9, count = 0;
  EXPECT_EQ(mig_mode(Gpu(0), &current, &pending), 3) << "not MIG-capable: NOT_SUPPORTED";
  ASSERT_EQ(mig_mode(Gpu(2), &current, &pending), 0);
  EXPECT_EQ(current, 0u);
  ASSERT_EQ(mig_mode(Gpu(1), &current, &pending), 0);
  EXPECT_EQ(current, 1u);
  EXPECT_EQ(pending, 1u);
  ASSERT_EQ(max_count(Gpu(1), &count), 0);
  EXPECT_EQ(count, 7u);

  void* first = nullptr;
  void* second = nullptr;
  void* none = nullptr;
  ASSERT_EQ(by_index(Gpu(1), 0, &first), 0);
  ASSERT_EQ(by_index(Gpu(1), 1, &second), 0);
  EXPECT_EQ(by_index(Gpu(1), 2, &none), 6) << "no third device: NOT_FOUND";
  unsigned gi = 0, ci = 9;
  ASSERT_EQ(Call<int (*)(void*, unsigned*)>("nvmlDeviceGetGpuInstanceId")(second, &gi), 0);
  ASSERT_EQ(Call<int (*)(void*, unsigned*)>("nvmlDeviceGetComputeInstanceId")(second, &ci), 0);
  EXPECT_EQ(gi, 2u);
  EXPECT_EQ(ci, 0u);
  Attributes attributes{};
  ASSERT_EQ(Call<int (*)(void*, Attributes*)>("nvmlDeviceGetAttributes_v2")(first, &attributes), 0);
  EXPECT_EQ(attributes.gpuInstanceSliceCount, 3u);
  EXPECT_EQ(attributes.memorySizeMB, 20096u);

  EXPECT_EQ(Text("nvmlDeviceGetUUID", Gpu(1)), "GPU-11111111-2222-3333-4444-555555555555");
  EXPECT_EQ(Text("nvmlDeviceGetUUID", first), "MIG-11111111-2222-3333-4444-555555555555-0001-0000");
  EXPECT_EQ(Text("nvmlDeviceGetUUID", second), "MIG-given");
  EXPECT_EQ(Text("nvmlDeviceGetUUID", Gpu(0)), "GPU-00000000-0000-0000-0000-000000000000");
  EXPECT_EQ(Text("nvmlDeviceGetName", first), "NVIDIA A100-SXM4-40GB MIG 3g.20gb");
  // A MIG device has no utilisation of its own, as on a real GPU.
  unsigned rates[2];
  EXPECT_EQ(Call<int (*)(void*, unsigned*)>("nvmlDeviceGetUtilizationRates")(first, rates), 3);
  char driver[32];
  ASSERT_EQ(Call<int (*)(char*, unsigned)>("nvmlSystemGetDriverVersion")(driver, sizeof driver), 0);
  EXPECT_STREQ(driver, "535.104.05");
}

}  // namespace
