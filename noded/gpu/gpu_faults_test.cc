#include "noded/gpu/gpu_faults.h"

#include <gtest/gtest.h>

namespace skiff::noded {
namespace {

GpuReading Good(unsigned minor, uint64_t ecc = 0, std::vector<uint64_t> xids = {}) {
  GpuReading r;
  r.minor = minor;
  r.uncorrected_ecc = ecc;
  r.xids = std::move(xids);
  return r;
}

GpuReading Lost() {
  GpuReading r;
  r.error = "nvmlDeviceGetMinorNumber: GPU is lost";
  r.lost = true;
  return r;
}

TEST(GpuFaults, FaultXidsAndNewEccErrorsButNotAProgramsOwnXids) {
  GpuFaultWatch watch;
  EXPECT_TRUE(watch.Check({Good(0, 3), Good(1)}, {0, 1}).empty());  // 3: the baseline
  EXPECT_EQ(watch.Check({Good(0, 3, {13, 31, 43}), Good(1, 0, {79})}, {0, 1}),
            (std::vector<GpuFault>{{1, "Xid 79 (GPU has fallen off the bus)"}}));
  EXPECT_EQ(watch.Check({Good(0, 5), Good(1)}, {0, 1}),
            (std::vector<GpuFault>{{0, "2 uncorrected ECC errors"}}));
  EXPECT_TRUE(watch.Check({Good(0, 5), Good(1)}, {0, 1}).empty());
  EXPECT_EQ(GpuFaultReason({1, "Xid 79 (GPU has fallen off the bus)"}),
            "GPU /dev/nvidia1: Xid 79 (GPU has fallen off the bus)");
  EXPECT_TRUE(IsGpuFaultXid(48));
  EXPECT_FALSE(IsGpuFaultXid(13));
}

TEST(GpuFaults, ALostGpuIsReportedOnceUntilItReadsWellAgain) {
  GpuFaultWatch watch;
  EXPECT_TRUE(watch.Check({Good(0), Good(3)}, {0, 3}).empty());
  EXPECT_EQ(watch.Check({Good(0), Lost()}, {0, 3}),
            (std::vector<GpuFault>{{3, "GPU is lost (NVML)"}}));
  EXPECT_TRUE(watch.Check({Good(0), Lost()}, {0, 3}).empty());
  EXPECT_TRUE(watch.Check({Good(0), Good(3)}, {0, 3}).empty());  // reset: well again
  // Gone from NVML's list altogether.
  EXPECT_EQ(watch.Check({Good(0)}, {0, 3}),
            (std::vector<GpuFault>{{3, "GPU is lost (NVML does not list it)"}}));
  EXPECT_TRUE(watch.Check({Good(0)}, {0, 3}).empty());
}

}  // namespace
}  // namespace skiff::noded
