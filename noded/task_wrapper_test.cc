#include "noded/task_wrapper.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace skiff::noded {
namespace {

class WrappedTaskTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/task_prolog_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    shepherd_ =
        std::string(getenv("TEST_SRCDIR")) + "/" + getenv("TEST_WORKSPACE") + "/noded/shepherd";
  }
  std::string Script(const std::string& name, const std::string& body) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << "#!/bin/sh\n" << body;
    chmod(path.c_str(), 0755);
    return path;
  }
  // Runs the wrapper; its stdout in *out; returns its wait status.
  int Run(const std::string& args, std::string* out) {
    const std::string command = shepherd_ + " --task-wrap " + args + " > " + dir_ + "/out";
    const int status = system(command.c_str());
    std::ifstream in(dir_ + "/out");
    std::stringstream text;
    text << in.rdbuf();
    *out = text.str();
    return status;
  }
  std::string dir_;
  std::string shepherd_;
};

TEST_F(WrappedTaskTest, PrologSetsTheTasksEnvironmentAndPrints) {
  const std::string prolog =
      Script("prolog", "echo \"export SEEN=$SLURM_TASK_PID\"\necho 'print from prolog'\n");
  std::string out;
  const int status =
      Run("--prolog=" + prolog + " -- /bin/sh -c 'echo \"$SEEN\" = \"$$\"; exit 3'", &out);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3);
  // The prolog saw the task's own pid.
  const std::string second = out.substr(out.find('\n') + 1);
  EXPECT_EQ(out.substr(0, out.find('\n')), "from prolog");
  const size_t eq = second.find(" = ");
  ASSERT_NE(eq, std::string::npos) << out;
  EXPECT_EQ(second.substr(0, eq) + "\n", second.substr(eq + 3)) << out;
}

TEST_F(WrappedTaskTest, EpilogRunsAfterTheTaskWhichEndsAsTheTaskDid) {
  const std::string epilog = Script("epilog", "echo epilog ran > " + dir_ + "/epilog.out\n");
  std::string out;
  int status = Run("--epilog=" + epilog + " -- /bin/sh -c 'echo task; kill -TERM $$'", &out);
  // system() runs it under sh, which reports a signalled child as 128+N.
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGTERM);
  EXPECT_EQ(out, "task\n");
  std::ifstream ran(dir_ + "/epilog.out");
  std::string line;
  std::getline(ran, line);
  EXPECT_EQ(line, "epilog ran");

  const std::string slow = Script("slow", "sleep 30\n");
  status = Run("--epilog=" + slow + " -- /bin/sh -c 'exit 4'", &out);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 4);  // after the epilog was killed (5 s)
}

}  // namespace
}  // namespace skiff::noded
