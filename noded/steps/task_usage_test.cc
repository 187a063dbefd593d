#include "noded/steps/task_usage.h"

#include <unistd.h>

#include "gtest/gtest.h"

namespace skiff::noded {
namespace {

TEST(TaskUsageTest, ParsesStatWithAnOddCommandName) {
  const std::string text =
      "4242 (my (odd) cmd) S 4200 4242 4242 0 -1 4194304 120 0 3 0 250 50 7 8 20 0 1 0 "
      "1000 123456789 300 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n";
  std::optional<ProcStat> stat = ParseProcStat(text);
  ASSERT_TRUE(stat.has_value());
  EXPECT_EQ(stat->pid, 4242);
  EXPECT_EQ(stat->ppid, 4200);
  EXPECT_EQ(stat->majflt, 3u);
  EXPECT_EQ(stat->utime, 250u);
  EXPECT_EQ(stat->stime, 50u);
  EXPECT_EQ(stat->cutime, 7u);
  EXPECT_EQ(stat->cstime, 8u);
  EXPECT_EQ(stat->rss_pages, 300u);
  EXPECT_FALSE(ParseProcStat("garbage").has_value());
}

TEST(TaskUsageTest, ParsesStatusAndIo) {
  const ProcMemory m =
      ParseProcStatus("Name:\tx\nVmPeak:\t  2000 kB\nVmSize:\t 1500 kB\nVmHWM:\t 800 kB\n");
  EXPECT_EQ(m.peak_kb, 2000u);
  EXPECT_EQ(m.size_kb, 1500u);
  EXPECT_EQ(m.hwm_kb, 800u);
  uint64_t r = 0, w = 0;
  ParseProcIo("rchar: 1\nwchar: 2\nread_bytes: 4096\nwrite_bytes: 8192\n", &r, &w);
  EXPECT_EQ(r, 4096u);
  EXPECT_EQ(w, 8192u);
}

TEST(TaskUsageTest, SumsTheTreeOfTheTaskOnly) {
  std::vector<ProcStat> stats(4);
  stats[0] = {10, 1, 100, 50, 20, 30, 1, 10};  // the task; its reaped children used 50 ticks
  stats[1] = {11, 10, 100, 0, 0, 0, 2, 20};    // its child
  stats[2] = {12, 11, 0, 100, 0, 0, 0, 5};     // a grandchild
  stats[3] = {13, 1, 999, 999, 0, 0, 9, 99};   // someone else
  std::vector<ProcMemory> memory = {{100, 400, 300}, {200, 500, 400}, {0, 0, 0}, {1, 1, 1}};
  std::vector<std::pair<uint64_t, uint64_t>> io = {{1, 2}, {3, 4}, {0, 0}, {100, 100}};
  const TaskUsage u = SumTaskTree(10, stats, memory, io, 100, 4096);
  EXPECT_DOUBLE_EQ(u.cpu_seconds, 4.0);  // (150 + 100 + 100 + 50) / 100
  EXPECT_EQ(u.rss_bytes, 35u * 4096);
  EXPECT_EQ(u.max_rss_bytes, 300u * 1024);  // the high-water marks
  EXPECT_EQ(u.vmsize_bytes, 700u * 1024);
  EXPECT_EQ(u.max_vmsize_bytes, 900u * 1024);
  EXPECT_EQ(u.pages, 3u);
  EXPECT_EQ(u.read_bytes, 4u);
  EXPECT_EQ(u.write_bytes, 6u);
  EXPECT_EQ(u.pids, (std::vector<pid_t>{10, 11, 12}));
  EXPECT_EQ(SumTaskTree(99, stats, memory, io, 100, 4096).pids.size(), 0u);
}

TEST(TaskUsageTest, SamplesThisProcess) {
  const TaskUsage u = SampleTaskUsage(getpid());
  ASSERT_FALSE(u.pids.empty());
  EXPECT_EQ(u.pids[0], getpid());
  EXPECT_GT(u.rss_bytes, 0u);
}

}  // namespace
}  // namespace skiff::noded
