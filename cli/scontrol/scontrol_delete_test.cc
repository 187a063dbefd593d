// scontrol delete's two forms and Slurm's entity abbreviations.
#include "cli/scontrol/scontrol_delete.h"

#include <gtest/gtest.h>

namespace skiff::cli {
namespace {

TEST(ParseDeleteTarget, TakesBothFormsAndThreeLetterAbbreviations) {
  DeleteTarget node = ParseDeleteTarget({"NodeName=n[7-8]"});
  EXPECT_EQ(node.entity, "node");
  EXPECT_EQ(node.id, "n[7-8]");
  EXPECT_EQ(node.word, "NodeName=n[7-8]");
  DeleteTarget resv = ParseDeleteTarget({"res", "maint"});
  EXPECT_EQ(resv.entity, "reservation");
  EXPECT_EQ(resv.id, "maint");
  EXPECT_EQ(resv.word, "res");
  EXPECT_EQ(ParseDeleteTarget({"PARTITION=gpu"}).entity, "partition");
  EXPECT_EQ(ParseDeleteTarget({"no=n1"}).entity, "?") << "two letters name nothing";
  EXPECT_EQ(ParseDeleteTarget({"job=5"}).entity, "?");
  EXPECT_EQ(ParseDeleteTarget({"NodeName"}).entity, "") << "neither form";
  EXPECT_EQ(ParseDeleteTarget({"a", "b", "c"}).entity, "");
}

}  // namespace
}  // namespace skiff::cli
