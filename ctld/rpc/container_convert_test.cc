#include "ctld/rpc/container_convert.h"

#include <gtest/gtest.h>

namespace skiff::ctld {
namespace {

TEST(ContainerConvert, EveryFieldSurvivesTheRoundTrip) {
  ContainerSpec spec;
  spec.image = "nvcr.io#nvidia/pytorch:24.01-py3";
  spec.mounts = {"/data:/data:ro+rprivate", "./out:/out"};
  spec.workdir = "/workspace";
  spec.env = {"NCCL_DEBUG", "HOME"};
  spec.name = "torch:exec";
  spec.remap_root = true;
  spec.no_mount_home = true;
  v1::ContainerRequest request;
  ContainerToProto(spec, &request);
  EXPECT_EQ(request.image(), spec.image);
  EXPECT_EQ(request.mounts_size(), 2);
  EXPECT_EQ(ContainerFromProto(request), spec);
  ContainerSpec bundle;
  bundle.bundle = "/srv/oci/alpine";
  ContainerToProto(bundle, &request);  // cleared first
  EXPECT_EQ(request.bundle(), "/srv/oci/alpine");
  EXPECT_EQ(request.mounts_size(), 0);
  EXPECT_EQ(ContainerFromProto(request), bundle);
}

TEST(ContainerConvert, NoneIsEmptyBothWays) {
  v1::ContainerRequest request;
  ContainerToProto(ContainerSpec{}, &request);
  EXPECT_EQ(request.ByteSizeLong(), 0u);
  EXPECT_TRUE(ContainerFromProto(request).IsEmpty());
  EXPECT_FALSE(ContainerFromProto(request) != ContainerSpec{});
}

}  // namespace
}  // namespace skiff::ctld
