// Forks real processes (as the current user).
#include "noded/steps/step_tasks.h"

#include <unistd.h>

#include <map>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace skiff::noded {
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

TEST(StepTasks, APtyTaskRunsOnATerminalWithItsSizeAndInput) {
  TaskSpawn spawn{0,
                  {"sh", "-c",
                   "read line; test -t 0 && echo tty=yes; stty size; "
                   "echo got=$line; exit 3"},
                  kEnv,
                  true};
  spawn.pty = true;
  std::unique_ptr<StepTasks> tasks = StepTasks::Start(Spec({spawn}));
  tasks->Resize(24, 100);
  tasks->WriteStdin(0, "hello\n");
  Collected c = RunAll(*tasks);
  EXPECT_THAT(c.out[0], HasSubstr("tty=yes"));
  EXPECT_THAT(c.out[0], HasSubstr("24 100"));
  EXPECT_THAT(c.out[0], HasSubstr("got=hello"));
  EXPECT_EQ(c.err[0], "");  // a terminal has one stream
  EXPECT_EQ(c.ends[0].exit_code, 3);
}

TEST(StepTasks, APtyTaskReadsEndOfFileWhenInputEnds) {
  TaskSpawn spawn{0, {"sh", "-c", "cat; echo after-eof"}, kEnv, true};
  spawn.pty = true;
  std::unique_ptr<StepTasks> tasks = StepTasks::Start(Spec({spawn}));
  tasks->WriteStdin(0, "line\n");
  tasks->CloseStdin();
  Collected c = RunAll(*tasks);
  EXPECT_THAT(c.out[0], HasSubstr("after-eof"));
  EXPECT_EQ(c.ends[0].exit_code, 0);
}

TEST(StepTasks, OutputAndInputFilesReplaceTheStreams) {
  const std::string dir = ::testing::TempDir();
  const std::string shared = dir + "/step_tasks_shared.out";
  {
    FILE* old = fopen(shared.c_str(), "w");
    fputs("old content\n", old);  // truncated by the first task
    fclose(old);
    FILE* in = fopen((dir + "/step_tasks.in").c_str(), "w");
    fputs("from-file\n", in);
    fclose(in);
  }
  TaskSpawn first{0, {"sh", "-c", "echo zero; echo zero-err >&2"}, kEnv, false};
  first.stdout_path = shared;
  TaskSpawn second{1, {"sh", "-c", "sleep 0.2; cat"}, kEnv, false};
  second.stdout_path = shared;
  second.stdin_path = dir + "/step_tasks.in";
  TaskSpawn bad{2, {"true"}, kEnv, false};
  bad.stdout_path = dir + "/no/such/dir/out";
  std::unique_ptr<StepTasks> tasks = StepTasks::Start(Spec({first, second, bad}));
  Collected c = RunAll(*tasks);
  EXPECT_EQ(c.out[0], "");
  EXPECT_EQ(c.err[0], "");
  EXPECT_EQ(c.ends[0].exit_code, 0);
  std::string text;
  FILE* f = fopen(shared.c_str(), "r");
  ASSERT_NE(f, nullptr);
  char buf[256];
  while (fgets(buf, sizeof(buf), f) != nullptr) text += buf;
  fclose(f);
  EXPECT_EQ(text, "zero\nzero-err\nfrom-file\n");
  EXPECT_EQ(c.ends[2].exit_code, 2);
  EXPECT_THAT(c.ends[2].failure, HasSubstr("Could not open stdout file " + dir +
                                           "/no/such/dir/out: No such file or directory"));
}

// srun -e all (or -e N) with -o FILE: stdout to the file, stderr streamed.
TEST(StepTasks, AStreamedStderrBesideAnOutputFile) {
  const std::string out = ::testing::TempDir() + "/step_tasks_streamed.out";
  TaskSpawn task{0, {"sh", "-c", "echo to-file; echo to-srun >&2"}, kEnv, false};
  task.stdout_path = out;
  task.stderr_streamed = true;
  TaskSpawn quiet{1, {"sh", "-c", "echo gone; echo gone-too >&2"}, kEnv, false};
  quiet.stdout_path = "/dev/null";  // srun -o 0: task 1's stdout, and its stderr with it
  std::unique_ptr<StepTasks> tasks = StepTasks::Start(Spec({task, quiet}));
  Collected c = RunAll(*tasks);
  EXPECT_EQ(c.out[0], "");
  EXPECT_EQ(c.err[0], "to-srun\n");
  EXPECT_EQ(c.out[1] + c.err[1], "");
  FILE* f = fopen(out.c_str(), "r");
  ASSERT_NE(f, nullptr);
  char buf[64] = {};
  EXPECT_NE(fgets(buf, sizeof(buf), f), nullptr);
  fclose(f);
  EXPECT_STREQ(buf, "to-file\n");
}

// srun --slurmd-debug=2: slurmstepd's verbose lines about the tasks as the
// first task's stderr, each task's end before that task's end is reported.
TEST(StepTasks, SlurmdDebugLinesComeAsTheFirstTasksStderr) {
  StepTasksSpec spec = Spec(
      {{3, {"sh", "-c", "exit 5"}, kEnv, false}, {4, {"sh", "-c", "kill -9 $$"}, kEnv, false}});
  spec.debug = 2;
  spec.log_level = "debug";
  std::unique_ptr<StepTasks> tasks = StepTasks::Start(spec);
  Collected c = RunAll(*tasks);
  EXPECT_EQ(c.err[4], "");
  const std::string& lines = c.err[3];
  EXPECT_THAT(lines, ::testing::StartsWith(
                         "slurmstepd: debug levels are stderr='verbose', logfile='debug', "
                         "syslog='quiet'\nslurmstepd: starting 2 tasks\nslurmstepd: task 3 ("));
  EXPECT_THAT(lines, ::testing::ContainsRegex(
                         "slurmstepd: task 4 \\([0-9]+\\) started [0-9]{4}-[0-9]{2}-[0-9]{2}T"));
  EXPECT_THAT(lines, ::testing::ContainsRegex(
                         "slurmstepd: task 3 \\([0-9]+\\) exited with exit code 5\\.\n"));
  EXPECT_THAT(lines, ::testing::ContainsRegex(
                         "slurmstepd: task 4 \\([0-9]+\\) exited\\. Killed by signal 9\\.\n"));
  EXPECT_EQ(c.ends[3].exit_code, 5);
  // Below 2 (verbose), nothing.
  spec.debug = 1;
  tasks = StepTasks::Start(spec);
  c = RunAll(*tasks);
  EXPECT_EQ(c.err[3] + c.err[4], "");
}

// A container task whose namespace is gone (a container released under it)
// fails to launch with the reason; the step's other tasks run.
TEST(StepTasksTest, ATaskWhoseMountNamespaceIsGoneFailsWithTheReason) {
  TaskSpawn lost{0, {"true"}, kEnv, false};
  lost.mount_namespace = "/nonexistent/namespaces/job1.batch";
  TaskSpawn fine{1, {"sh", "-c", "echo ran"}, kEnv, false};
  std::unique_ptr<StepTasks> tasks = StepTasks::Start(Spec({lost, fine}));
  Collected c = RunAll(*tasks);
  EXPECT_EQ(c.ends[0].exit_code, 1);
  EXPECT_EQ(c.ends[0].failure,
            "container: cannot enter the container's mount namespace "
            "/nonexistent/namespaces/job1.batch: No such file or directory");
  EXPECT_EQ(c.out[1], "ran\n");
  EXPECT_EQ(c.ends[1].exit_code, 0);
}

}  // namespace
}  // namespace skiff::noded
