#include "cli/common/task_distribution.h"

#include <gtest/gtest.h>

namespace skiff::cli {
namespace {

using Nodes = TaskDistribution::Nodes;

TEST(ParseTaskDistribution, TheLevelsSlurmTakesWithTheirNames) {
  struct Case {
    const char* text;
    Nodes nodes;
    const char* name;
  } cases[] = {
      {"block", Nodes::kBlock, "block"},
      {"Cyclic", Nodes::kCyclic, "cyclic"},
      {"cyclic:block", Nodes::kCyclic, "cyclic:block"},
      {"block:fcyclic:cyclic", Nodes::kBlock, "block:fcyclic:cyclic"},
      {"*", Nodes::kBlock, "block"},
      {"*:*:*", Nodes::kBlock, "block:cyclic:cyclic"},
      {"cyclic:*", Nodes::kCyclic, "cyclic:cyclic"},
      {"block:block:*", Nodes::kBlock, "block:block:block"},
      {"cyclic,Pack", Nodes::kCyclic, "cyclic,pack"},
      {"nopack", Nodes::kDefault, "nopack"},
      {"arbitrary", Nodes::kArbitrary, "arbitrary"},
      {"hostfile", Nodes::kArbitrary, "arbitrary"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<TaskDistribution> parsed = ParseTaskDistribution(c.text);
    ASSERT_TRUE(parsed.ok()) << c.text << ": " << parsed.status();
    EXPECT_EQ(parsed->nodes, c.nodes) << c.text;
    EXPECT_EQ(parsed->name, c.name) << c.text;
  }
}

TEST(ParseTaskDistribution, PlaneTakesItsSizeFromTheTextOrSlurmDistPlanesize) {
  absl::StatusOr<TaskDistribution> plane = ParseTaskDistribution("plane=4");
  ASSERT_TRUE(plane.ok()) << plane.status();
  EXPECT_EQ(plane->nodes, Nodes::kPlane);
  EXPECT_EQ(plane->plane_size, 4);
  EXPECT_EQ(plane->name, "plane");
  EXPECT_EQ(ParseTaskDistribution("plane", std::string("3"))->plane_size, 3);
  for (const char* bad : {"plane", "plane=0", "plane=-2", "plane=x", "plane=4,pack"}) {
    EXPECT_EQ(ParseTaskDistribution(bad).status().message(), "Invalid --distribution specification")
        << bad;
  }
}

TEST(ParseTaskDistribution, RefusesWhatSlurmRefuses) {
  for (const char* bad : {"", ",pack", "round", "block:round", "block:block:block:block",
                          "arbitrary:block", "cyclic,sideways", "cyclic,pack,nopack"}) {
    EXPECT_EQ(ParseTaskDistribution(bad).status().message(), "Invalid --distribution specification")
        << bad;
  }
}

}  // namespace
}  // namespace skiff::cli
