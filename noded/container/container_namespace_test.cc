#include "noded/container/container_namespace.h"

#include "gtest/gtest.h"

namespace skiff::noded {
namespace {

// One pin per container, beside the job directories (so a job's directory
// can go while its container's namespace is still being released).
TEST(ContainerNamespaceFileTest, NamesTheJobAndTheContainer) {
  EXPECT_EQ(ContainerNamespaceFile("/var/spool/skiff/containers/job12/batch"),
            "/var/spool/skiff/containers/namespaces/job12.batch");
  EXPECT_EQ(ContainerNamespaceFile("/var/spool/skiff/containers/job12/name-dev_1"),
            "/var/spool/skiff/containers/namespaces/job12.name-dev_1");
  EXPECT_EQ(ContainerNamespaceFile("/s/containers/job7/step-3"),
            "/s/containers/namespaces/job7.step-3");
}

TEST(ContainerNamespaceFileTest, APathThatIsNoContainersStaysApart) {
  EXPECT_EQ(ContainerNamespaceFile("/bundle"), "/bundle.namespace");
}

}  // namespace
}  // namespace skiff::noded
