#include "tests/harness/fencing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {

std::string ShowJob(const LocalCluster& cluster, uint64_t id) {
  return cluster.Run(absl::StrCat("scontrol show job ", id)).out;
}

std::vector<Mark> ReadMarks(const std::string& path) {
  std::vector<Mark> marks;
  std::istringstream in(ReadFile(path));
  Mark mark;
  while (in >> mark.what >> mark.copy >> mark.node >> mark.at) marks.push_back(mark);
  return marks;
}

uint64_t SubmitTickingJob(LocalCluster& cluster, const std::string& marks,
                          const std::string& sbatch_options) {
  const std::string me = "${SLURM_RESTART_COUNT:-0} $SLURMD_NODENAME $(date +%s.%N) >> " + marks;
  CommandResult submit = cluster.Run(
      absl::StrCat("sbatch --requeue -o /dev/null ", sbatch_options, " --wrap='echo start ", me,
                   "; while true; do echo tick ", me, "; sleep 0.2; done'"));
  const std::vector<uint64_t> ids = SubmittedJobIds(submit.out);
  EXPECT_EQ(ids.size(), 1u) << submit.out << submit.err;
  return ids.empty() ? 0 : ids[0];
}

namespace {

// The first copy's last mark and the second copy's start (0 while none).
std::pair<double, double> LastOfFirstAndStartOfSecond(const std::string& marks) {
  double second_start = 0, first_last = 0;
  for (const Mark& mark : ReadMarks(marks)) {
    if (mark.copy == 0) first_last = std::max(first_last, mark.at);
    if (mark.what == "start" && mark.copy == 1) second_start = mark.at;
  }
  return {first_last, second_start};
}

}  // namespace

void ExpectTheCopiesNeverOverlapped(LocalCluster& cluster, uint64_t id, const std::string& marks) {
  ASSERT_TRUE(Eventually(60, [&] { return LastOfFirstAndStartOfSecond(marks).second != 0; }))
      << ShowJob(cluster, id) << ReadFile(marks);
  EXPECT_TRUE(CopyTicked(marks, 1, 10)) << ReadFile(marks);
  const auto [first_last, second_start] = LastOfFirstAndStartOfSecond(marks);
  std::cout << "fencing: the first copy's last sign of life came " << second_start - first_last
            << " s before the requeued copy started\n";
  EXPECT_LT(first_last, second_start)
      << "the copies overlapped by " << first_last - second_start << " s\n"
      << ReadFile(marks);
  EXPECT_NE(ShowJob(cluster, id).find("Restarts=1 "), std::string::npos) << ShowJob(cluster, id);
}

bool CopyTicked(const std::string& marks, int copy, int ticks) {
  auto count = [&] {
    const std::vector<Mark> all = ReadMarks(marks);
    return std::count_if(all.begin(), all.end(), [&](const Mark& m) { return m.copy == copy; });
  };
  const auto before = count();
  return Eventually(60, [&] { return count() >= before + ticks; });
}

bool TheFirstCopyStayedDead(const std::string& marks) {
  const auto [first_last, second_start] = LastOfFirstAndStartOfSecond(marks);
  return second_start != 0 && first_last < second_start;
}

}  // namespace skiff::testing
