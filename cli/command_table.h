// skiff-client's table of commands, and how it picks one from its command line.
// Pure: no I/O (cli/skiff_client.cc prints and runs).
#ifndef SKIFF_CLI_COMMAND_TABLE_H_
#define SKIFF_CLI_COMMAND_TABLE_H_

#include <optional>
#include <string_view>

#include "absl/types/span.h"

namespace skiff::cli {

struct Command {
  std::string_view name;     // as scripts call it: "sbatch"
  std::string_view summary;  // one line, for --help and the command's man page
  int (*main)(int argc, char** argv);
};

// Every command, by name.
absl::Span<const Command> Commands();

// The command `name` names, if any.
const Command* FindCommand(std::string_view name);

// What a command line asks skiff-client for.
struct Dispatch {
  enum class Kind {
    kRun,       // run `command` with argv from `first_arg` on (argv[first_arg] is its name)
    kHelp,      // skiff-client --help / -h: the commands, to stdout
    kVersion,   // skiff-client --version / -V
    kCommands,  // skiff-client --commands: "name<TAB>summary" lines, for packaging
    kUsage,     // nothing to run: the usage, to stderr, exit 1
    kUnknown,   // `skiff-client NAME` with NAME no command: an error naming it
  };
  Kind kind = Kind::kUsage;
  const Command* command = nullptr;
  int first_arg = 0;
  std::string_view unknown;  // kUnknown: the name
};

// Called as a command's name (a link: argv[0] "/usr/bin/sbatch"), the command
// itself with every argument its own; otherwise (as skiff-client) argv[1]
// names the command, or asks skiff-client for its help or version.
Dispatch DispatchFor(int argc, const char* const* argv);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_COMMAND_TABLE_H_
