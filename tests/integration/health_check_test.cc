// HealthCheckProgram through the real daemons: a failing check drains the node
// with the program's output as the reason; a passing one lifts that drain, and
// never an admin's.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

TEST(HealthCheckTest, AFailingCheckDrainsAndAPassingOneUndrainsOnlyItsOwnDrain) {
  LocalCluster::Options options;
  options.nodes = 1;
  options.gpu_nodes = 0;
  options.extra_config =
      "HealthCheckProgram=@DIR@/etc/health.sh\nHealthCheckInterval=1\nHealthCheckNodeState=ANY\n";
  options.files["etc/health.sh"] =
      "#!/bin/sh\necho run >> @DIR@/runs\n"
      "if [ -e @DIR@/bad ]; then echo 'scratch full'; echo detail >&2; exit 1; fi\n";
  auto started = LocalCluster::Start(options);
  ASSERT_TRUE(started.ok()) << started.status();
  LocalCluster& cluster = **started;
  const std::string bad = cluster.dir() + "/bad";
  auto node = [&] { return cluster.Run("scontrol show node n1").out; };
  // Waits until the check has started twice more: the run before the second
  // one has been dealt with (one thread runs them in turn).
  auto two_more_checks = [&] {
    auto runs = [&] {
      const std::string text = ReadFile(cluster.dir() + "/runs");
      return std::count(text.begin(), text.end(), '\n');
    };
    const auto before = runs();
    return Eventually(60, [&] { return runs() >= before + 2; });
  };
  auto drained_for = [&](const std::string& reason) {
    const std::string shown = node();
    return shown.find("DRAIN") != std::string::npos &&
           shown.find("Reason=" + reason) != std::string::npos;
  };

  ASSERT_TRUE(Eventually(20, [&] { return node().find("State=IDLE") != std::string::npos; }))
      << node();
  ASSERT_TRUE(two_more_checks());
  EXPECT_EQ(node().find("DRAIN"), std::string::npos) << "a passing check drains nothing\n"
                                                     << node();

  std::ofstream(bad) << "";
  EXPECT_TRUE(Eventually(20, [&] { return drained_for("scratch full"); })) << node();
  unlink(bad.c_str());
  EXPECT_TRUE(Eventually(20, [&] { return node().find("DRAIN") == std::string::npos; }))
      << "the check's own drain is lifted once it passes\n"
      << node();

  ASSERT_EQ(cluster.Run("scontrol update NodeName=n1 State=DRAIN Reason=maintenance").exit_code, 0);
  ASSERT_TRUE(two_more_checks());
  EXPECT_TRUE(drained_for("maintenance")) << "an admin's drain stays\n" << node();
  std::ofstream(bad) << "";
  ASSERT_TRUE(two_more_checks());
  EXPECT_TRUE(drained_for("maintenance")) << "and keeps its reason\n" << node();
  EXPECT_NE(cluster.Log("noded-n1.log").find("HealthCheckProgram"), std::string::npos);
}

}  // namespace
}  // namespace skiff::testing
