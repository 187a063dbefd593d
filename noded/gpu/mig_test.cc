#include "noded/gpu/mig.h"

#include "gtest/gtest.h"

namespace skiff::noded {
namespace {

TEST(MigProfileTest, SlicesAndMemoryRoundedToWholeGigabytes) {
  EXPECT_EQ(MigProfile(3, 20096), "3g.20gb");
  EXPECT_EQ(MigProfile(1, 4864), "1g.5gb");
  EXPECT_EQ(MigProfile(7, 40192), "7g.39gb");
  EXPECT_EQ(MigProfile(1, 9728), "1g.10gb");
}

TEST(DriverNamesMigByUuidTest, From47042_01) {
  EXPECT_TRUE(DriverNamesMigByUuid("535.104.05"));
  EXPECT_TRUE(DriverNamesMigByUuid("470.42.01"));
  EXPECT_TRUE(DriverNamesMigByUuid("470.57"));
  EXPECT_FALSE(DriverNamesMigByUuid("470.42"));
  EXPECT_FALSE(DriverNamesMigByUuid("460.91.03"));
  EXPECT_FALSE(DriverNamesMigByUuid("470.41.99"));
  EXPECT_FALSE(DriverNamesMigByUuid(""));
  EXPECT_FALSE(DriverNamesMigByUuid("unknown"));
}

constexpr char kMinors[] =
    "config 1\n"
    "monitor 2\n"
    "gpu0/gi1/access 12\n"
    "gpu0/gi1/ci0/access 13\n"
    "gpu0/gi2/access 21\n"
    "gpu0/gi2/ci0/access 22\n"
    "gpu1/gi1/access 147\n"
    "gpu1/gi1/ci0/access 148\n";

TEST(FindMigCapMinorsTest, TheInstancesLines) {
  absl::StatusOr<MigCapMinors> caps = FindMigCapMinors(kMinors, 0, 2, 0);
  ASSERT_TRUE(caps.ok()) << caps.status();
  EXPECT_EQ(caps->gpu_instance, 21u);
  EXPECT_EQ(caps->compute_instance, 22u);
  caps = FindMigCapMinors(kMinors, 1, 1, 0);
  ASSERT_TRUE(caps.ok());
  EXPECT_EQ(caps->gpu_instance, 147u);
  EXPECT_EQ(MigDeviceFiles(1, *caps),
            (std::vector<std::string>{"/dev/nvidia1", "/dev/nvidia-caps/nvidia-cap147",
                                      "/dev/nvidia-caps/nvidia-cap148"}));
}

TEST(FindMigCapMinorsTest, AMissingLineIsNamed) {
  absl::StatusOr<MigCapMinors> caps = FindMigCapMinors(kMinors, 0, 3, 0);
  ASSERT_FALSE(caps.ok());
  EXPECT_EQ(caps.status().message(),
            "no gpu0/gi3/access line in /proc/driver/nvidia-caps/mig-minors");
  caps = FindMigCapMinors(kMinors, 0, 1, 1);
  ASSERT_FALSE(caps.ok());
  EXPECT_EQ(caps.status().message(),
            "no gpu0/gi1/ci1/access line in /proc/driver/nvidia-caps/mig-minors");
}

TEST(CudaDeviceListTest, MigDevicesByNameOthersByIndex) {
  EXPECT_EQ(CudaDeviceList({0, 2}, {}), "0,2");
  EXPECT_EQ(CudaDeviceList({2, 1}, {"", "MIG-a", "MIG-b"}), "MIG-b,MIG-a");
  EXPECT_EQ(CudaDeviceList({0, 1, 5}, {"", "MIG-a"}), "0,MIG-a,5");
  EXPECT_EQ(CudaDeviceList({}, {"MIG-a"}), "");
}

}  // namespace
}  // namespace skiff::noded
