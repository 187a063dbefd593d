// How integration tests start their clusters: the options of the usual small
// ones, a cluster started or the test failed (StartLocalCluster), test users
// made (EnsureUsers), and SharedClusterTest, the fixture of a suite whose tests
// share one LocalCluster.
//
// SharedClusterTest's cluster is started once before the suite's first test
// (SetUpTestSuite) and stopped after its last (TearDownTestSuite). A suite
// derives from it with its own name, which gives each suite a cluster of its
// own:
//
//   class PlacementTest : public SharedClusterTest<PlacementTest> {
//    protected:
//     static void SetUpTestSuite() { StartCluster(NodesWithoutGpus(4, 2)); }
//   };
//
// A suite whose tests run jobs as test users (which only root can create)
// starts its cluster only as root and calls SetUpAsRoot from its SetUp.
//
// Not thread-safe; for one test thread, like LocalCluster.
#ifndef SKIFF_TESTS_HARNESS_SHARED_CLUSTER_H_
#define SKIFF_TESTS_HARNESS_SHARED_CLUSTER_H_

#include <gtest/gtest.h>
#include <unistd.h>

#include <initializer_list>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "tests/harness/local_cluster.h"

namespace skiff::testing {

// Options for `nodes` nodes of 4 CPUs each, the last `gpu_nodes` of them with
// 2 fake GPUs.
inline LocalCluster::Options NodesWithGpus(int nodes, int gpu_nodes) {
  LocalCluster::Options options;
  options.nodes = nodes;
  options.gpu_nodes = gpu_nodes;
  return options;
}

// Options for `nodes` nodes of `cpus` CPUs each, none with GPUs.
inline LocalCluster::Options NodesWithoutGpus(int nodes, int cpus = 4) {
  LocalCluster::Options options = NodesWithGpus(nodes, 0);
  options.cpus = cpus;
  return options;
}

// Starts a cluster into `*cluster` (for a test that has one of its own); a
// fatal failure when it does not start, so a caller that goes on afterwards
// checks HasFatalFailure() first.
inline void StartLocalCluster(const LocalCluster::Options& options,
                              std::unique_ptr<LocalCluster>* cluster) {
  absl::StatusOr<std::unique_ptr<LocalCluster>> started = LocalCluster::Start(options);
  ASSERT_TRUE(started.ok()) << started.status();
  *cluster = std::move(*started);
}

// Makes `users` on the cluster where missing (LocalCluster::EnsureUser); a
// fatal failure when one cannot be made. REQUIRES: running as root.
inline void EnsureUsers(const LocalCluster& cluster, std::initializer_list<const char*> users) {
  for (const char* user : users) {
    const absl::StatusOr<uid_t> uid = cluster.EnsureUser(user);
    ASSERT_TRUE(uid.ok()) << user << ": " << uid.status();
  }
}

template <typename Suite>
class SharedClusterTest : public ::testing::Test {
 protected:
  // Starts the suite's cluster into cluster_; a fatal failure when it does not
  // start (each test then fails in SetUp), so a SetUpTestSuite that goes on
  // afterwards checks HasFatalFailure() first.
  static void StartCluster(const LocalCluster::Options& options) {
    std::unique_ptr<LocalCluster> cluster;
    StartLocalCluster(options, &cluster);
    cluster_ = cluster.release();
  }

  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }

  void SetUp() override { ASSERT_NE(cluster_, nullptr); }

  // SetUp for tests that run jobs as `users` (made when missing): skipped
  // unless running as root. A derived SetUp that goes on afterwards checks
  // IsSkipped() and HasFatalFailure() first.
  void SetUpAsRoot(std::initializer_list<const char*> users = {}) {
    if (getuid() != 0) GTEST_SKIP() << "needs root to create test users";
    ASSERT_NE(cluster_, nullptr);
    EnsureUsers(*cluster_, users);
  }

  // The suite's cluster; null before StartCluster and when it failed.
  static inline LocalCluster* cluster_ = nullptr;
};

}  // namespace skiff::testing

#endif  // SKIFF_TESTS_HARNESS_SHARED_CLUSTER_H_
