#include "ctld/state/job_spec_parts.h"

#include "gtest/gtest.h"

namespace skiff::ctld {
namespace {

v1::JobSpec Whole() {
  v1::JobSpec spec;
  spec.set_name("train");
  spec.set_script("#!/bin/sh\necho hi\n");
  spec.add_argv("a");
  spec.add_argv("b");
  (*spec.mutable_environment())["HOME"] = "/home/ada";
  spec.add_gres("gpu:1");
  spec.set_work_dir("/home/ada");
  return spec;
}

TEST(JobSpecParts, TheLightPartHasNoScriptArgumentsOrEnvironment) {
  const SpecParts parts = SplitSpec(Whole());
  v1::JobSpec light;
  ASSERT_TRUE(light.ParseFromString(parts.light));
  EXPECT_EQ(light.name(), "train");
  EXPECT_EQ(light.gres_size(), 1);
  EXPECT_TRUE(light.script().empty());
  EXPECT_EQ(light.argv_size(), 0);
  EXPECT_TRUE(light.environment().empty());
  EXPECT_LT(parts.light.size(), parts.payload.size());
}

TEST(JobSpecParts, LightAndPayloadTogetherParseAsTheWholeSpec) {
  const SpecParts parts = SplitSpec(Whole());
  v1::JobSpec joined;
  ASSERT_TRUE(joined.ParseFromString(parts.light + parts.payload));
  EXPECT_EQ(joined.SerializeAsString(), Whole().SerializeAsString());
}

TEST(JobSpecParts, LightPartOfAStoredRowOrOfAnOlderWholeSpec) {
  const SpecParts parts = SplitSpec(Whole());
  EXPECT_EQ(LightPart(parts.light + parts.payload), parts.light);
  EXPECT_EQ(LightPart(Whole().SerializeAsString()), parts.light);
  EXPECT_EQ(LightPart(parts.light), parts.light);
}

TEST(JobSpecParts, JoinTakesOnlyThePayloadOfTheStoredRow) {
  const SpecParts parts = SplitSpec(Whole());
  // An array task's own light part (its name changed by scontrol update, say)
  // with the first task's stored row: repeated fields are not doubled.
  v1::JobSpec task;
  task.ParseFromString(parts.light);
  task.set_name("renamed");
  const v1::JobSpec joined = JoinSpec(task.SerializeAsString(), parts.light + parts.payload);
  EXPECT_EQ(joined.name(), "renamed");
  EXPECT_EQ(joined.gres_size(), 1);
  EXPECT_EQ(joined.script(), "#!/bin/sh\necho hi\n");
  EXPECT_EQ(joined.argv_size(), 2);
  EXPECT_EQ(joined.environment().at("HOME"), "/home/ada");
}

}  // namespace
}  // namespace skiff::ctld
