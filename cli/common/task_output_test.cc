#include "cli/common/task_output.h"

#include <gtest/gtest.h>

#include <vector>

namespace skiff::cli {
namespace {

TEST(TaskLabel, PadsToTheWidestTaskId) {
  EXPECT_EQ(TaskLabel(3, 4), "3: ");
  EXPECT_EQ(TaskLabel(3, 12), " 3: ");
  EXPECT_EQ(TaskLabel(11, 12), "11: ");
}

struct Written {
  int fd;
  std::string bytes;
  bool operator==(const Written& o) const { return fd == o.fd && bytes == o.bytes; }
};

TEST(LabeledOutput, WithoutLabelsBytesPassThroughAsTheyCome) {
  std::vector<Written> got;
  LabeledOutput out(false, 2, [&](int fd, const std::string& b) { got.push_back({fd, b}); });
  out.Add(0, false, "par");
  out.Add(1, true, "err\n");
  EXPECT_EQ(got, (std::vector<Written>{{1, "par"}, {2, "err\n"}}));
}

TEST(LabeledOutput, LabelsWholeLinesAndKeepsAPartialLineUntilItsRestOrTheTaskEnd) {
  std::vector<Written> got;
  LabeledOutput out(true, 12, [&](int fd, const std::string& b) { got.push_back({fd, b}); });
  out.Add(3, false, "a\nb");
  out.Add(10, false, "x\n");
  out.Add(3, false, "c\nd");
  out.Flush(3);
  EXPECT_EQ(
      got, (std::vector<Written>{{1, " 3: a\n"}, {1, "10: x\n"}, {1, " 3: bc\n"}, {1, " 3: d\n"}}));
}

}  // namespace
}  // namespace skiff::cli
