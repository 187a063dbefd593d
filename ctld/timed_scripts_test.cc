#include "ctld/timed_scripts.h"

#include "gtest/gtest.h"

namespace skiff::ctld {
namespace {

// Answers at once; remembers what it was asked.
class FakeScripts : public ScriptdPort {
 public:
  absl::StatusOr<ScriptEnd> RunScript(const ScriptCall& call) override {
    last = call.request_id;
    if (call.request_id == "down") return absl::UnavailableError("scriptd is gone");
    return ScriptEnd{};
  }
  void KillScript(const std::string& request_id) override { last = "kill " + request_id; }
  absl::StatusOr<LuaEnd> RunLua(const LuaCall& call) override {
    last = call.function;
    return LuaEnd{};
  }
  std::string last;
};

ScriptCall Script(const std::string& request_id) {
  ScriptCall call;
  call.request_id = request_id;
  return call;
}

TEST(TimedScriptsTest, NamesScriptsByTheirRequestsKind) {
  EXPECT_EQ(ScriptStatName(Script("prolog-42-0")), "PrologSlurmctld");
  EXPECT_EQ(ScriptStatName(Script("epilog-42-1")), "EpilogSlurmctld");
  EXPECT_EQ(ScriptStatName(Script("mail-42-0-END")), "MailProg");
  EXPECT_EQ(ScriptStatName(Script("trigger-3-9")), "strigger program");
  EXPECT_EQ(ScriptStatName(Script("something")), "other");
}

TEST(TimedScriptsTest, EveryCallIsPassedOnAndCountedByNameFailuresIncluded) {
  FakeScripts fake;
  DiagStats stats(1000);
  TimedScripts timed(fake, stats);
  ASSERT_TRUE(timed.RunScript(Script("prolog-1-0")).ok());
  EXPECT_EQ(fake.last, "prolog-1-0");
  EXPECT_FALSE(timed.RunScript(Script("down")).ok());
  LuaCall lua;
  lua.function = "slurm_bb_setup";
  ASSERT_TRUE(timed.RunLua(lua).ok());
  EXPECT_EQ(fake.last, "slurm_bb_setup");
  timed.KillScript("prolog-1-0");
  EXPECT_EQ(fake.last, "kill prolog-1-0");
  const DiagStats::Snapshot s = stats.Get(1001);
  ASSERT_EQ(s.scripts.size(), 3u);
  EXPECT_EQ(s.scripts[0].name, "PrologSlurmctld");
  EXPECT_EQ(s.scripts[1].name, "other");
  EXPECT_EQ(s.scripts[2].name, "slurm_bb_setup");
  for (const DiagStats::CallTimes& call : s.scripts) EXPECT_EQ(call.count, 1u) << call.name;
}

}  // namespace
}  // namespace skiff::ctld
