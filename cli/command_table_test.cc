#include "cli/command_table.h"

#include <set>
#include <string>

#include "gtest/gtest.h"

namespace skiff::cli {
namespace {

using Kind = Dispatch::Kind;

TEST(CommandTableTest, HoldsSlurmsNineteenCommandsOnceEach) {
  std::set<std::string> names;
  for (const Command& command : Commands()) {
    EXPECT_TRUE(names.insert(std::string(command.name)).second) << command.name;
    EXPECT_FALSE(command.summary.empty()) << command.name;
    EXPECT_NE(command.main, nullptr) << command.name;
  }
  EXPECT_EQ(names, (std::set<std::string>{"sacct", "sacctmgr", "salloc", "sattach", "sbatch",
                                          "sbcast", "scancel", "scontrol", "sdiag", "seff", "sinfo",
                                          "sprio", "squeue", "sreport", "srun", "sshare", "sstat",
                                          "sstatus", "strigger"}));
}

TEST(CommandTableTest, ALinkNamedAsACommandRunsItWithEveryArgument) {
  const char* argv[] = {"/usr/bin/sbatch", "--version"};
  Dispatch dispatch = DispatchFor(2, argv);
  ASSERT_EQ(dispatch.kind, Kind::kRun);
  EXPECT_EQ(dispatch.command->name, "sbatch");
  EXPECT_EQ(dispatch.first_arg, 0);

  // Its own --help is the command's, not skiff-client's.
  const char* squeue[] = {"squeue", "-h"};
  dispatch = DispatchFor(2, squeue);
  ASSERT_EQ(dispatch.kind, Kind::kRun);
  EXPECT_EQ(dispatch.command->name, "squeue");
}

TEST(CommandTableTest, SkiffClientTakesTheCommandFromItsFirstArgument) {
  const char* argv[] = {"/usr/bin/skiff-client", "srun", "-n2", "hostname"};
  Dispatch dispatch = DispatchFor(4, argv);
  ASSERT_EQ(dispatch.kind, Kind::kRun);
  EXPECT_EQ(dispatch.command->name, "srun");
  EXPECT_EQ(dispatch.first_arg, 1);
}

TEST(CommandTableTest, SkiffClientsOwnOptionsAndMistakes) {
  const char* help[] = {"skiff-client", "--help"};
  EXPECT_EQ(DispatchFor(2, help).kind, Kind::kHelp);
  const char* version[] = {"skiff-client", "-V"};
  EXPECT_EQ(DispatchFor(2, version).kind, Kind::kVersion);
  const char* commands[] = {"skiff-client", "--commands"};
  EXPECT_EQ(DispatchFor(2, commands).kind, Kind::kCommands);
  const char* bare[] = {"skiff-client"};
  EXPECT_EQ(DispatchFor(1, bare).kind, Kind::kUsage);
  const char* unknown[] = {"skiff-client", "sbtach", "job.sh"};
  Dispatch dispatch = DispatchFor(3, unknown);
  EXPECT_EQ(dispatch.kind, Kind::kUnknown);
  EXPECT_EQ(dispatch.unknown, "sbtach");
  // A link under another name (a typo'd install) is not a command either.
  const char* renamed[] = {"/usr/local/bin/squeue2", "-u", "me"};
  dispatch = DispatchFor(3, renamed);
  EXPECT_EQ(dispatch.kind, Kind::kUnknown);
  EXPECT_EQ(dispatch.unknown, "-u");
}

}  // namespace
}  // namespace skiff::cli
