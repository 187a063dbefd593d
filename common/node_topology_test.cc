#include "common/node_topology.h"

#include <gtest/gtest.h>

namespace skiff {
namespace {

TEST(NodeLayout, CoresPerSocketFollowsCpusWhenNotGiven) {
  EXPECT_EQ(NodeLayout(16, 2, 0, 2), (NodeTopology{2, 4, 2}));
  EXPECT_EQ(NodeLayout(16, 2, 8, 1), (NodeTopology{2, 8, 1}));
  // Never below one, whatever the line says.
  EXPECT_EQ(NodeLayout(1, 4, 0, 2), (NodeTopology{4, 1, 2}));
  EXPECT_EQ(NodeLayout(4, 0, 0, 0), (NodeTopology{1, 4, 1}));
}

TEST(TopologyHolds, EachAskedFieldIsAFloor) {
  const NodeTopology node{2, 8, 2};
  EXPECT_TRUE(TopologyHolds(node, {}));
  EXPECT_TRUE(TopologyHolds(node, {2, 0, 0}));
  EXPECT_TRUE(TopologyHolds(node, {1, 8, 2}));
  EXPECT_FALSE(TopologyHolds(node, {4, 0, 0}));
  EXPECT_FALSE(TopologyHolds(node, {0, 16, 0}));
  EXPECT_FALSE(TopologyHolds(node, {0, 0, 4}));
}

TEST(FormatSocketsCoresThreads, StarsWhatIsNotAsked) {
  EXPECT_EQ(FormatSocketsCoresThreads({}), "*:*:*");
  EXPECT_EQ(FormatSocketsCoresThreads({2, 0, 1}), "2:*:1");
  EXPECT_FALSE(NodeTopology{}.asked());
  EXPECT_TRUE((NodeTopology{0, 0, 1}).asked());
}

}  // namespace
}  // namespace skiff
