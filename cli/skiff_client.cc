// skiff-client: every Skiff command in one program. Each command name on PATH
// (sbatch, squeue, ...) is a link to it, and it runs the command it was called
// as; `skiff-client COMMAND ARGS...` does the same. One program instead of 18
// that each carried the same ~12 MB of gRPC, protobuf and abseil.
#include <malloc.h>

#include <cstdio>
#include <string>

#include "cli/command.h"
#include "cli/command_table.h"
#include "client/ctld_client.h"
#include "common/mutex_mode.h"

namespace {

constexpr char kUsage[] =
    "Usage: skiff-client COMMAND [ARGS...]\n"
    "   or: COMMAND [ARGS...]    (a link to skiff-client named COMMAND)\n";

void PrintHelp() {
  std::string text = kUsage;
  text += "\nSkiff's commands, Slurm's names and options; each is a link to skiff-client:\n";
  for (const skiff::cli::Command& command : skiff::cli::Commands()) {
    text += "  ";
    text += command.name;
    text.append(command.name.size() < 10 ? 10 - command.name.size() : 1, ' ');
    text += command.summary;
    text += "\n";
  }
  text +=
      "\n"
      "  -h, --help     this text\n"
      "  -V, --version  Skiff's version\n"
      "      --commands each command's name and summary, a tab between them\n";
  std::fputs(text.c_str(), stdout);
}

}  // namespace

int main(int argc, char** argv) {
  using Kind = skiff::cli::Dispatch::Kind;
  const skiff::cli::Dispatch dispatch = skiff::cli::DispatchFor(argc, argv);
  switch (dispatch.kind) {
    case Kind::kRun:
      // A command ends as soon as it has written its output, without
      // destructors. gRPC is started by the first channel a command makes, if
      // any (common/rpc/channel.h: a call to ctld goes direct), and held to
      // the end. A command restores what it changed (a terminal's mode)
      // before it returns.
      skiff::TurnOffMutexDeadlockDetection();  // before gRPC starts a thread (mutex_mode.h)
      // One malloc arena for the run: a command's work is one thread's, and
      // each of gRPC's six threads would otherwise map a heap of its own and
      // fault its first pages in (issue 48: about 0.8 ms of a 13 ms sbatch).
      mallopt(M_ARENA_MAX, 1);
      skiff::client::ExitNow(
          dispatch.command->main(argc - dispatch.first_arg, argv + dispatch.first_arg));
    case Kind::kHelp:
      PrintHelp();
      return 0;
    case Kind::kVersion:
      std::fputs(skiff::cli::VersionLine().c_str(), stdout);
      return 0;
    case Kind::kCommands:
      for (const skiff::cli::Command& command : skiff::cli::Commands()) {
        std::printf("%.*s\t%.*s\n", static_cast<int>(command.name.size()), command.name.data(),
                    static_cast<int>(command.summary.size()), command.summary.data());
      }
      return 0;
    case Kind::kUnknown:
      std::fprintf(
          stderr, "skiff-client: error: no command named '%.*s' (skiff-client --help lists them)\n",
          static_cast<int>(dispatch.unknown.size()), dispatch.unknown.data());
      return 1;
    case Kind::kUsage:
      break;
  }
  std::fputs(kUsage, stderr);
  return 1;
}
