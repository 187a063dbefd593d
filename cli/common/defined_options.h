// The "defined options" block that Slurm's sbatch, salloc and srun print to
// stderr at -v (slurm_print_set_options, src/common/slurm_opt.c), which people
// and tools read to see what a command made of its options:
//
//   defined options
//   -------------------- --------------------
//   ntasks              : 3
//   verbose             : 1
//   -------------------- --------------------
//   end of defined options
//
// (each line after "<program>: "). It lists every option set on the command
// line, in #SBATCH directives or by an input environment variable, in the
// order of Slurm's option table, each value as Slurm shows it back: flags
// "set", times "1-02:00:00", memory "1G", --begin as a timestamp, --signal
// "B:USR1@90", --mail-type=ALL expanded. Options Slurm's table lacks (pyxis's
// --container-image, ...) are left out, as Slurm prints no SPANK option there.
//
// Pure; thread-safe.
#ifndef SKIFF_CLI_COMMON_DEFINED_OPTIONS_H_
#define SKIFF_CLI_COMMON_DEFINED_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace skiff::cli {

// One option a command took: its long name without "--" ("ntasks",
// "tasks-per-node"), and its value as given, or none for a flag. "verbose"
// and "quiet" carry their count.
struct GivenOption {
  std::string name;
  std::optional<std::string> value;
};

// What the block's values need beyond the options: `now` (unix seconds) for
// --begin and --deadline, `cwd` for a relative --chdir.
struct GivenContext {
  int64_t now = 0;
  std::string cwd;
};

// The block's lines, without the program's prefix. A name given twice keeps
// its last value.
std::vector<std::string> DefinedOptionsBlock(const std::vector<GivenOption>& given,
                                             const GivenContext& context);

// The long names of Slurm 22.05's common_options[] (src/common/slurm_opt.c),
// in its order: the block's, and the order getopt_long lists an ambiguous
// abbreviation's candidates in. "(null)" is the allocation's node list srun
// reads from SLURM_JOB_NODELIST, an entry without a name, which Slurm's
// printf shows so.
const std::vector<std::string>& SlurmOptionOrder();

// Slurm's mbytes_to_str: megabytes in the largest 1024-power unit that divides
// them, the default unit bare: 100 -> "100", 1024 -> "1G", 1536 -> "1536".
// Zero prints "0?", as Slurm's does (its loop runs past the last unit).
std::string SlurmMegabytesText(uint64_t megabytes);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_COMMON_DEFINED_OPTIONS_H_
