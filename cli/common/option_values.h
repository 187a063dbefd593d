// The option values Slurm's salloc and srun refuse as they read their command
// lines (src/common/slurm_opt.c, before any allocation or step is asked for),
// with Slurm's messages and exit codes. Pure; thread-safe.
//
// Slurm's exit code is set by where the value is refused: slurm_process_option
// exits -1 (255) for "Invalid --mem specification", `"x" is not a valid node
// count`, "Invalid --time specification", ...; its parse_int exits 1 for
// counts (`Invalid numeric value "x" for --cpus-per-task.`). Values Slurm
// takes here and refuses later (a GPU count, a node list) are not checked.
#ifndef SKIFF_CLI_COMMON_OPTION_VALUES_H_
#define SKIFF_CLI_COMMON_OPTION_VALUES_H_

#include <map>
#include <optional>
#include <string>

// CLI11 by reference only: the header costs each file that includes it seconds
// to compile, so only the files that build or read a parser include it.
namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace skiff::cli {

// A refused value: the message (printed after "<program>: error: ") and the
// exit code the command ends with.
struct OptionValueError {
  std::string message;
  int exit_code = 255;
};

// The check of option `name` (its long name without "--": "cpus-per-task")
// given `value`; nullopt when Slurm takes it as it reads it. Checked: the
// counts -c, -n, --ntasks-per-node, --mincpus, --cpus-per-gpu, -T,
// --sockets-per-node, --cores-per-socket, --threads-per-core (above zero),
// -W, -K, -I (zero or more), and -B's parts, all exit 1; --mem,
// --mem-per-cpu, --mem-per-gpu, -N, -t, --begin, --exclusive, --gpu-bind,
// -m (task_distribution.h), --signal, --gres-flags, all exit 255; and
// --wait-all-nodes (a count, then at most 1: 255).
std::optional<OptionValueError> CheckOptionValue(const std::string& name, const std::string& value);

// CheckOptionValue over the options `app` has just parsed, in the command
// line's order, as getopt hands them to Slurm's option parser: the first
// refusal. `values` gives each checked option's value by long name (the last
// one given, getopt's); an option missing from it, unset, or given without its
// optional value (-I, -K, --exclusive) is not checked.
std::optional<OptionValueError> CheckParsedOptionValues(
    const CLI::App& app, const std::map<std::string, const std::optional<std::string>*>& values);

// -B/--extra-node-info and --sockets-per-node, --cores-per-socket,
// --threads-per-core as a CLI11 command line gives them (salloc, srun).
struct TopologyOptionValues {
  std::optional<std::string> extra_node_info;
  std::optional<std::string> sockets_per_node;
  std::optional<std::string> cores_per_socket;
  std::optional<std::string> threads_per_core;
};

// The floors those options leave, applied in the command line's order as
// Slurm applies them: -B sets all three (ExtraNodeInfoFloors, "*" for a part
// not asked), each other option its own. Values are checked first, by
// CheckParsedOptionValues ("extra-node-info", "sockets-per-node", ...: exit 1).
void ApplyTopologyOptions(const CLI::App& app, const TopologyOptionValues& given,
                          std::optional<std::string>* sockets_per_node,
                          std::optional<std::string>* cores_per_socket,
                          std::optional<std::string>* threads_per_core);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_COMMON_OPTION_VALUES_H_
