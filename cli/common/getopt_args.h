// The command lines of Slurm's commands are read by glibc's getopt_long; Skiff's
// are declared with CLI11. This bridges the two so that a Skiff command accepts
// exactly what the Slurm command accepts and refuses the rest in glibc's words:
//
//   - a long option may be abbreviated to any unique prefix ("--part" is
//     "--partition"); an ambiguous prefix is refused, naming the candidates;
//   - an option that takes a value takes the next argument even when it starts
//     with '-' ("-o -x" gives -o the value "-x"), "--opt=" gives it the empty
//     value, and "-ovalue" attaches it;
//   - short flags group ("-lN" is "-l -N");
//   - unknown options, missing values and values given to flags are refused with
//     glibc's messages ("unrecognized option '--foo'", "invalid option -- 'z'",
//     "option requires an argument -- 'o'", "option '--long' doesn't allow an
//     argument").
//
// Pure; thread-safe.
#ifndef SKIFF_CLI_COMMON_GETOPT_ARGS_H_
#define SKIFF_CLI_COMMON_GETOPT_ARGS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

// CLI11 by reference only: the header costs each file that includes it seconds
// to compile, so only the files that build or read a parser include it.
namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace skiff::cli {

enum class GetoptOrder {
  // GNU's default: options may follow operands ("squeue -u a -l" and
  // "scontrol show job 5 -d" both work); "--" ends the options.
  kPermute,
  // Options end at the first operand (sbatch: the script and its arguments).
  kStopAtOperand,
};

// `args` without argv[0], rewritten so that CLI11 (parsing `app`) reads them as
// getopt_long reads Slurm's: every option is spelled "--longname" (or its only
// name), a value always follows as "--name=value" or as "--name" "" when empty.
// Operands keep their order after all options; with kStopAtOperand everything
// from the first operand on is returned as it was, behind "--".
// The table getopt_long searches is `app`'s options in declaration order, the
// order an ambiguous abbreviation's candidates are listed in; `table_order`,
// when given, lists long names (without "--") in the Slurm command's table
// order instead, for a command whose declarations follow another order (names
// it lacks keep their declaration order, after it).
// Error: InvalidArgument with glibc's message (without the program name).
absl::StatusOr<std::vector<std::string>> NormalizeGetoptArgs(
    const std::vector<std::string>& args, const CLI::App& app, GetoptOrder order,
    const std::vector<std::string>& table_order = {});

// A command's option as getopt_long's table declares it, for a command that
// reads its command line without CLI11: building CLI11's parser for sbatch's
// ~150 options was most of sbatch's start-up.
enum class GetoptArgument {
  kNone,      // a flag
  kRequired,  // "--name=value", "--name value", "-xvalue", "-x value"
  kOptional,  // only "--name=value" (or "-xvalue") gives one
};
struct GetoptOption {
  std::string names;  // "-J,--job-name", "--mem", "--ntasks-per-node,--tasks-per-node"
  GetoptArgument argument = GetoptArgument::kNone;
};
// An option found on the command line: its index in the table, and its value
// (none for a flag, or for an optional value that was not given).
struct GetoptFound {
  size_t option = 0;
  std::optional<std::string> value;
};
struct GetoptParsed {
  std::vector<GetoptFound> found;     // in command-line order: the last one wins
  std::vector<std::string> operands;  // in their order ("--" itself dropped)
};

// Reads `args` (without argv[0]) as getopt_long reads them with `options` as
// its table, with the rules and messages of NormalizeGetoptArgs above
// (`table_order` as there).
absl::StatusOr<GetoptParsed> ParseGetopt(const std::vector<std::string>& args,
                                         const std::vector<GetoptOption>& options,
                                         GetoptOrder order,
                                         const std::vector<std::string>& table_order = {});

// What a Slurm command prints for a command line it cannot parse (exiting 1,
// or 255 for sbatch, salloc and srun):
//   <program>: <message>
//   Try "<program> --help" for more information
std::string GetoptErrorText(const std::string& program, const std::string& message);

// Parses argv with `app` as getopt_long would. Returns -1 when the caller should
// go on, or the exit code to return from main: 0 after printing --help,
// `error_exit` after printing the error text above to stderr: 1, or 255 for
// srun and salloc, whose '?' case exits -1. Operands (arguments that are not
// options, in their order) go to `operands` when it is given, else to `app`'s
// positional options.
int ParseGetoptCommandLine(CLI::App& app, const std::string& program, int argc,
                           const char* const* argv, std::vector<std::string>* operands = nullptr,
                           GetoptOrder order = GetoptOrder::kPermute, int error_exit = 1);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_COMMON_GETOPT_ARGS_H_
