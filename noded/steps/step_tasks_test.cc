// Forks real processes (as the current user).
#include "noded/steps/step_tasks.h"

#include <unistd.h>

#include <map>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace skiff {
namespace {

using ::testing::HasSubstr;

struct Collected {
  std::map<int, std::string> out;
  std::map<int, std::string> err;
  std::map<int, TaskEnd> ends;
  std::vector<int> end_order;
};

Collected RunAll(StepTasks& tasks) {
  Collected c;
  while (tasks.Pump(
      100,
      [&](int task, bool is_stderr, const std::string& data) {
        (is_stderr ? c.err : c.out)[task] += data;
      },
      [&](const TaskEnd& end) {
        c.ends[end.task_id] = end;
        c.end_order.push_back(end.task_id);
      })) {
  }
  return c;
}

StepTasksSpec Spec(std::vector<TaskSpawn> tasks) {
  StepTasksSpec spec;
  spec.uid = getuid();
  spec.gid = getgid();
  spec.work_dir = "/";
  spec.tasks = std::move(tasks);
  return spec;
}

const std::vector<std::string> kEnv = {"PATH=/usr/bin:/bin", "X=1"};

TEST(StepTasks, OutputExitCodesAndEnvironment) {
  std::unique_ptr<StepTasks> tasks = StepTasks::Start(Spec({
      {0, {"sh", "-c", "echo out$X; echo err >&2; exit 4"}, kEnv, false},
      {1, {"sh", "-c", "pwd"}, kEnv, false},
  }));
  Collected c = RunAll(*tasks);
  EXPECT_EQ(c.out[0], "out1\n");
  EXPECT_EQ(c.err[0], "err\n");
  EXPECT_EQ(c.ends[0].exit_code, 4);
  EXPECT_EQ(c.out[1], "/\n");
  EXPECT_EQ(c.ends[1].exit_code, 0);
}

TEST(StepTasks, AMissingCommandEndsWithSlurmsExecveText) {
  std::unique_ptr<StepTasks> tasks = StepTasks::Start(Spec({{0, {"nosuch"}, kEnv, false}}));
  Collected c = RunAll(*tasks);
  EXPECT_EQ(c.ends[0].exit_code, 2);
  EXPECT_EQ(c.ends[0].failure, "execve(): nosuch: No such file or directory");
}

TEST(StepTasks, StdinReachesTheTaskAndSignalsEndIt) {
  std::unique_ptr<StepTasks> tasks =
      StepTasks::Start(Spec({{0, {"cat"}, kEnv, true}, {1, {"sleep", "30"}, kEnv, false}}));
  tasks->WriteStdin(0, "hello\n");
  tasks->CloseStdin();
  tasks->Signal(SIGTERM);
  Collected c = RunAll(*tasks);
  EXPECT_EQ(c.ends[1].signal, SIGTERM);
  EXPECT_TRUE(c.out[0] == "hello\n" || c.ends[0].signal == SIGTERM);
}

TEST(StepTasks, AnUnusableWorkDirFallsBackToTmpWithSlurmsLine) {
  StepTasksSpec spec = Spec({{0, {"pwd"}, kEnv, false}});
  spec.work_dir = "/nonexistent/dir";
  std::unique_ptr<StepTasks> tasks = StepTasks::Start(spec);
  Collected c = RunAll(*tasks);
  EXPECT_EQ(c.out[0], "/tmp\n");
  EXPECT_THAT(c.err[0],
              HasSubstr("couldn't chdir to `/nonexistent/dir': No such file or directory: "
                        "going to /tmp instead"));
}

TEST(ResolveCommand, SearchesPath) {
  EXPECT_EQ(ResolveCommand("sh", "/nonexistent:/bin"), "/bin/sh");
  EXPECT_EQ(ResolveCommand("./x", "/bin"), "./x");
  EXPECT_EQ(ResolveCommand("nosuch", "/bin"), "nosuch");
}

}  // namespace
}  // namespace skiff
