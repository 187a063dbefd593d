#include "ctld/clients/node_client.h"

#include <gtest/gtest.h>

namespace skiff::ctld {
namespace {

TEST(ToLaunchJobRequest, CarriesTheJobsContainer) {
  BatchLaunch launch;
  launch.job_id = 7;
  launch.container.image = "ubuntu:22.04";
  launch.container.mounts = {"/data:/data:ro"};
  launch.container.env = {"HOME"};
  launch.container.no_mount_home = true;
  const v1::LaunchJobRequest request = ToLaunchJobRequest(launch);
  EXPECT_EQ(request.job_id(), 7u);
  ASSERT_TRUE(request.has_container());
  EXPECT_EQ(request.container().image(), "ubuntu:22.04");
  ASSERT_EQ(request.container().mounts_size(), 1);
  EXPECT_EQ(request.container().mounts(0), "/data:/data:ro");
  EXPECT_EQ(request.container().env(0), "HOME");
  EXPECT_TRUE(request.container().no_mount_home());
  EXPECT_FALSE(request.container().remap_root());
}

TEST(ToLaunchJobRequest, NoContainerSendsNone) {
  EXPECT_FALSE(ToLaunchJobRequest(BatchLaunch{}).has_container());
}

}  // namespace
}  // namespace skiff::ctld
