#include "client/node_state.h"

#include <gtest/gtest.h>

namespace skiff::client {
namespace {

v1::NodeInfo Node(const std::string& state, bool drain = false, bool no_respond = false,
                  int alloc = 0) {
  v1::NodeInfo node;
  node.set_state(state);
  node.set_drain(drain);
  node.set_not_responding(no_respond);
  node.set_cpus(2);
  node.set_alloc_cpus(alloc);
  return node;
}

TEST(NodeStateWord, PartlyAllocatedNodeIsMixedAndDrainingOneIsAllocated) {
  EXPECT_EQ(NodeStateWord(Node("MIXED", false, false, 1)), kStateMixed);
  EXPECT_EQ(NodeStateWord(Node("MIXED", true, false, 1)), kStateAllocated | kFlagDrain);
  EXPECT_EQ(NodeStateWord(Node("IDLE", true, true)), kStateIdle | kFlagDrain | kFlagNoRespond);
}

TEST(NodeStateWord, AdvanceReservationsShowAsResvAndMaint) {
  v1::NodeInfo reserved = Node("IDLE");
  reserved.set_reserved(true);
  EXPECT_EQ(NodeStateStringCompact(NodeStateWord(reserved)), "RESV");
  v1::NodeInfo maint = reserved;
  maint.set_maint(true);
  EXPECT_EQ(NodeStateStringCompact(NodeStateWord(maint)), "MAINT");
  EXPECT_EQ(NodeStateString(NodeStateWord(maint)), "MAINT");
  v1::NodeInfo busy = Node("MIXED", false, false, 1);
  busy.set_maint(true);
  busy.set_reserved(true);
  EXPECT_EQ(NodeStateStringCompact(NodeStateWord(busy)), "MIX$");  // real Slurm: mix$
}

TEST(NodeStateString, NamesStatesAsSlurmDoes) {
  EXPECT_EQ(NodeStateString(kStateIdle), "IDLE");
  EXPECT_EQ(NodeStateString(kStateIdle | kFlagDrain), "DRAINED");
  EXPECT_EQ(NodeStateString(kStateAllocated | kFlagDrain), "DRAINING");
  EXPECT_EQ(NodeStateString(kStateDown | kFlagNoRespond), "DOWN*");
  EXPECT_EQ(NodeStateString(kStateUnknown | kFlagNoRespond), "UNKNOWN*");
  EXPECT_EQ(NodeStateString(kStateError), "?");
  EXPECT_EQ(NodeStateString(kStateIdle | kFlagFail), "FAIL");
  EXPECT_EQ(NodeStateString(kStateAllocated | kFlagFail), "FAILING");
  EXPECT_EQ(NodeStateStringCompact(kStateAllocated | kFlagFail), "FAILG");
  EXPECT_EQ(NodeStateStringCompact(kStateAllocated | kFlagDrain | kFlagNoRespond), "DRNG*");
  EXPECT_EQ(NodeStateStringCompact(kStateIdle | kFlagDrain), "DRAIN");
  EXPECT_EQ(NodeStateStringCompact(kStateMixed), "MIX");
  EXPECT_EQ(NodeStateStringCompact(kStateUnknown | kFlagNoRespond), "UNK*");
  EXPECT_EQ(NodeStateStringComplete(kStateIdle | kFlagDrain | kFlagNoRespond),
            "IDLE+DRAIN+NOT_RESPONDING");
}

TEST(ParseStateFilter, AcceptsPrefixesOfAnyCaseAndRejectsUnknownNames) {
  absl::StatusOr<StateFilter> f = ParseStateFilter("I,drain,DRNG,mix");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->states, (std::vector<uint32_t>{kStateIdle, kFlagDrain, kFlagDrain | kStateAllocated,
                                              kStateMixed}));
  EXPECT_FALSE(f->all_of);
  EXPECT_TRUE(ParseStateFilter("idle&drain")->all_of);
  EXPECT_EQ(ParseStateFilter("BOGUS").status().message(), "Bad state string: \"BOGUS\"");
  EXPECT_EQ(ParseStateFilter("ALL")->states.size(), 9u);
}

TEST(ValidStatesList, IsSlurmsList) {
  EXPECT_EQ(ValidStatesList(),
            "unknown,down,idle,allocated,?,mixed,future,drain,drained,draining,no_respond,"
            "reserved,perfctrs,cloud,completing,powering_down,powered_down,power_down,"
            "powering_up,fail,maint,reboot,reboot^,unknown");
}

TEST(MatchesStateFilter, IdleMatchesDrainedIdleNodesAndAllocMatchesMixed) {
  const StateFilter idle = *ParseStateFilter("idle");
  EXPECT_TRUE(MatchesStateFilter(idle, kStateIdle | kFlagDrain, 0));
  EXPECT_FALSE(MatchesStateFilter(idle, kStateMixed, 1));
  const StateFilter alloc = *ParseStateFilter("alloc");
  EXPECT_TRUE(MatchesStateFilter(alloc, kStateMixed, 1));
  const StateFilter drained = *ParseStateFilter("drained");
  EXPECT_TRUE(MatchesStateFilter(drained, kStateIdle | kFlagDrain, 0));
  EXPECT_FALSE(MatchesStateFilter(drained, kStateAllocated | kFlagDrain, 2));
  const StateFilter both = *ParseStateFilter("idle&drain");
  EXPECT_FALSE(MatchesStateFilter(both, kStateIdle, 0));
  EXPECT_TRUE(MatchesStateFilter(both, kStateIdle | kFlagDrain, 0));
  EXPECT_TRUE(MatchesStateFilter(*ParseStateFilter("no_respond"), kStateDown | kFlagNoRespond, 0));
}

}  // namespace
}  // namespace skiff::client
