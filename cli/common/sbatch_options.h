// sbatch as pure functions: the command line, the #SBATCH directives of the
// script, and SBATCH_* environment variables merged the way Slurm 22.05 merges
// them (directives < environment < command line), validated and turned into the
// JobSpec that SubmitJob takes. No I/O of its own: sbatch.cc reads the script and
// the environment and passes them in, with a file reader for the options that
// name files (--bbf, and -w/-x given as a file of node names).
//
// Error codes double as sbatch's exit status (see SbatchExitCode):
//   InvalidArgument   a bad option value or directive; Slurm exits 255 for these
//                     ("sbatch: error: Invalid --time specification", exit 255);
//   anything else     exit 1 (script problems, usage errors, unsupported features).
#ifndef SKIFF_CLI_COMMON_SBATCH_OPTIONS_H_
#define SKIFF_CLI_COMMON_SBATCH_OPTIONS_H_

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cli/common/container_options.h"
#include "cli/common/defined_options.h"
#include "proto/job.pb.h"

namespace skiff::cli {

// Every option as written, unset when not given at that level.
struct SbatchRawOptions {
  std::optional<std::string> job_name;       // -J, --job-name
  std::optional<std::string> partition;      // -p, --partition
  std::optional<std::string> nodes;          // -N, --nodes: N or MIN-MAX
  std::optional<std::string> ntasks;         // -n, --ntasks
  std::optional<std::string> cpus_per_task;  // -c, --cpus-per-task
  std::optional<std::string> mem;            // --mem
  std::optional<std::string> mem_per_cpu;    // --mem-per-cpu
  std::optional<std::string> mem_per_gpu;    // --mem-per-gpu
  std::optional<std::string> time;           // -t, --time
  std::optional<std::string> time_min;       // --time-min, in -t's forms
  std::optional<std::string> output;         // -o, --output
  std::optional<std::string> error;          // -e, --error
  std::optional<std::string> input;          // -i, --input
  std::optional<std::string> chdir;          // -D, --chdir
  std::optional<std::string> export_env;     // --export
  std::optional<std::string> export_file;    // --export-file: a file, or an fd >= 3
  std::optional<std::string> qos;            // -q, --qos
  std::optional<std::string> reservation;    // --reservation
  std::optional<std::string> account;        // -A, --account
  std::optional<std::string> gres;           // --gres, comma list
  std::optional<std::string> gpus;           // -G, --gpus: [type:]N for the whole job
  std::optional<std::string> gpus_per_node;  // --gpus-per-node: [type:]N
  // --gpu-bind: left in the job as SLURM_GPU_BIND, which its sruns read
  // (Slurm's set_env_from_opts).
  std::optional<std::string> gpu_bind;
  std::optional<std::string> gpus_per_task;        // --gpus-per-task: [type:]N
  std::optional<std::string> cpus_per_gpu;         // --cpus-per-gpu
  std::optional<std::string> begin;                // -b, --begin
  std::optional<std::string> deadline;             // --deadline
  std::optional<std::string> get_user_env;         // --get-user-env[=timeout][S|L]; bare: "0"
  std::optional<std::string> comment;              // --comment
  std::optional<std::string> dependency;           // -d, --dependency
  std::optional<std::string> kill_on_invalid_dep;  // --kill-on-invalid-dep: yes or no
  std::optional<std::string> burst_buffer;         // --bb
  std::optional<std::string> burst_buffer_file;    // --bbf: a file of burst-buffer directives
  std::optional<std::string> wrap;                 // --wrap (command line only)
  std::optional<std::string> array;                // -a, --array: "1-10%2", "0-15:4", "1,3"
  // --exclusive[=user|mcs|exclusive|oversubscribe]; a bare --exclusive reads
  // "exclusive", as Slurm treats the two the same. -s/--oversubscribe sets it
  // too, to "oversubscribe": the two are one setting in Slurm (opt->shared),
  // and the later given wins.
  std::optional<std::string> exclusive;
  // Which of the two set `exclusive`, at any level: -v shows each one given,
  // both with the value that won.
  bool exclusive_named = false;
  bool oversubscribe_named = false;
  // -k, --no-kill[=off]: "set" when bare (or SBATCH_NO_KILL is empty); "off"
  // or "no" undoes SBATCH_NO_KILL (ParseNoKillOption).
  std::optional<std::string> no_kill;
  std::optional<std::string> nodelist;    // -w, --nodelist: hostlist, or a file if it has a '/'
  std::optional<std::string> exclude;     // -x, --exclude: the same
  std::optional<std::string> constraint;  // -C, --constraint
  std::optional<std::string> prefer;      // --prefer, -C syntax
  // --gres-flags and --wait-all-nodes: checked as Slurm checks them; what they
  // ask is what Skiff does anyway (docs/compatibility.md).
  std::optional<std::string> gres_flags;
  std::optional<std::string> wait_all_nodes;
  std::optional<std::string> mail_type;        // --mail-type: comma list
  std::optional<std::string> mail_user;        // --mail-user
  std::optional<bool> hold;                    // -H, --hold
  std::optional<bool> parsable;                // --parsable
  std::optional<bool> requeue;                 // --requeue / --no-requeue
  std::optional<bool> wait;                    // -W, --wait
  std::optional<bool> test_only;               // --test-only
  std::optional<std::string> nice;             // --nice[=adjustment]
  std::optional<std::string> open_mode;        // --open-mode: append or truncate
  std::optional<std::string> signal;           // --signal=[{R|B}:]SIG[@TIME]
  std::optional<std::string> ntasks_per_node;  // --ntasks-per-node, --tasks-per-node
  std::optional<std::string> priority;         // --priority: N or TOP
  std::optional<std::string> mincpus;          // --mincpus: CPUs per node at least
  std::optional<std::string> tmp;              // --tmp: TmpDisk per node at least (MB, or K/M/G/T)
  std::optional<std::string> licenses;         // -L: NAME[:COUNT],... (common/licenses.h)
  std::optional<std::string> distribution;     // -m (task_distribution.h)
  // --sockets-per-node, --cores-per-socket, --threads-per-core, and -B which
  // sets all three (ExtraNodeInfoFloors; "*" = not asked): floors on a node's
  // layout.
  std::optional<std::string> sockets_per_node;
  std::optional<std::string> cores_per_socket;
  std::optional<std::string> threads_per_core;
  std::optional<std::string> extra_node_info;  // -B as given, for -v's block
  std::optional<bool> overcommit;              // -O, --overcommit
  std::optional<bool> spread_job;              // --spread-job
  std::optional<bool> contiguous;              // --contiguous
  std::optional<bool> use_min_nodes;           // --use-min-nodes
  // --container (SBATCH_CONTAINER) and pyxis's --container-image,
  // --container-mounts, ... (cli/common/container_options.h).
  ContainerOptions container;
  // Slurm options Skiff accepts and ignores, by long name ("--signal"), with a
  // warning each.
  std::vector<std::string> ignored;
};

// What the command line says, before the script is read.
struct SbatchCommandLine {
  SbatchRawOptions options;
  std::string script_path;               // as given; empty = stdin (or --wrap)
  std::vector<std::string> script_args;  // after the script path
  int verbose = 0;                       // -v, repeated: print the defined options
  bool help = false;                     // -h/--help, --usage: print help_text, exit 0
  std::string help_text;
  bool version = false;  // -V/--version
};

// Parses sbatch's arguments (without argv[0]) as getopt_long reads Slurm's
// (cli/common/getopt_args.h). Options end at the first non-option, which is the
// script; the rest are the script's arguments, as in Slurm. -h/--help and
// --usage set `help`, with Slurm's help or usage text. Errors: an unknown
// option, a missing value or a value given to a flag is InvalidArgument with
// glibc's message ("unrecognized option '--foo'") and IsGetoptError; then
// FailedPrecondition "Script arguments not permitted with --wrap option".
absl::StatusOr<SbatchCommandLine> ParseSbatchCommandLine(const std::vector<std::string>& args);

// The arguments of the #SBATCH lines in the script's leading comment block, split
// as Slurm splits them (whitespace, quotes, backslash escapes, '#' starting a
// comment). Reading stops at the first line that is neither blank nor a comment;
// the shebang is a comment. Error: InvalidArgument for an unmatched quote.
absl::StatusOr<std::vector<std::string>> ExtractDirectives(std::string_view script);

// --tmp=SIZE (sbatch, salloc, srun): Slurm's check of the value (a size in MB
// unless suffixed K, M, G, T), made where Slurm makes it, as the option is
// read: InvalidArgument "Invalid --tmp specification", on which all three
// exit 255. A valid value becomes JobSpec.min_tmp_disk_mb (BuildSubmission).
absl::Status CheckTmpOption(const std::string& value);

// -B, --extra-node-info=S[:C[:T]] (sbatch, salloc, srun), read as Slurm's
// verify_socket_core_thread_count: each part a count, MIN-MAX (the minimum is
// the floor) or "*"/empty (not asked). Returns the floors for
// --sockets-per-node, --cores-per-socket and --threads-per-core as their
// option values ("*" for not asked): -B sets all three, so a later -B undoes
// an earlier --cores-per-socket, as in Slurm. Error: FailedPrecondition
// 'Invalid numeric value "x" for second arg of -B.' (exit 1, as Slurm's).
absl::StatusOr<std::array<std::string, 3>> ExtraNodeInfoFloors(const std::string& value);

// One of --sockets-per-node, --cores-per-socket, --threads-per-core: a count
// above zero (Slurm's parse_int), or "*" from -B for not asked (0).
absl::StatusOr<int32_t> TopologyFloorOption(const std::string& option, const std::string& value);

// -k/--no-kill's value (sbatch, salloc, srun): "set" (its bare form) is true,
// "off" and "no" false, any case; else InvalidArgument "Invalid --no-kill
// specification" (exit 255), as Slurm's arg_set_no_kill.
absl::StatusOr<bool> ParseNoKillOption(const std::string& value);

// ExtractDirectives, then the same option parser as the command line.
// Errors: InvalidArgument "Invalid directive found in batch script: <arg>" for
// a word that is not an option (and for -h, -V, --wrap); an unknown option or a
// missing value as the command line's (IsGetoptError), as Slurm's sbatch
// refuses them in the script with getopt's message too.
absl::StatusOr<SbatchRawOptions> ParseDirectives(std::string_view script);

// Slurm's sanity checks on a batch script, with its messages (one per line):
// "Batch script is empty!", "Batch script contains only whitespace!", the
// three-line "This does not look like a batch script..." when the first line
// is not "#!", NUL characters, DOS line breaks. FailedPrecondition.
absl::Status ValidateScript(std::string_view script);

// JobSpec's text fields (`string` in proto/job.proto; the others are bytes),
// each by its proto name with its values. BuildSubmission refuses one that is
// not UTF-8, naming the option. The messages are lite (no reflection), so the
// list is written out; sbatch_options_test compares it with the schema.
struct JobSpecTextField {
  std::string_view name;
  std::vector<const std::string*> values;
};
std::vector<JobSpecTextField> JobSpecTextFields(const v1::JobSpec& spec);

// --signal=[{R|B}:]SIG[@TIME] (sbatch, salloc, srun), as Slurm's
// get_signal_opts: SIG a name or number, TIME seconds (60 when left out, at
// most 65535); "Invalid --signal specification" otherwise.
struct WarnSignal {
  int number = 0;
  int32_t seconds = 60;
  bool batch_only = false;  // B: the batch shell only
};
absl::StatusOr<WarnSignal> ParseSignalOption(const std::string& value);

// The script --wrap submits: "#!/bin/sh\n<command>\n".
std::string WrapScript(std::string_view command);

// What sbatch knows about where it runs, gathered by sbatch.cc.
struct SubmitContext {
  std::string cwd;                                 // absolute
  std::string hostname;                            // short host name
  std::map<std::string, std::string> environment;  // the whole current environment
  int64_t now = 0;                                 // unix seconds, for --begin
  // Reads a whole file, as the submitting user, for --bbf and for -w/-x given as
  // a file name. Called with an absolute path (relative ones are resolved
  // against cwd). On failure the status message is the reason alone ("No such
  // file or directory"). Unset: every read fails.
  std::function<absl::StatusOr<std::string>(const std::string& path)> read_file;
};

struct SbatchSubmission {
  v1::JobSpec spec;
  bool parsable = false;
  bool wait = false;                  // -W: block until the job (every task of an array) has ended
  bool test_only = false;             // --test-only: ask for an estimate, submit nothing
  std::vector<std::string> warnings;  // "sbatch: warning: " + each, on stderr
  // With -v: Slurm's "defined options" block, each line after "sbatch: ".
  std::vector<std::string> defined_options;
};

// The options set in `options` (merged or one level), for the -v block: each
// by its long name, a flag without a value. salloc's as well as sbatch's.
std::vector<GivenOption> SbatchGivenOptions(const SbatchRawOptions& options);

// Merges directives (from `script`, unless --wrap), SBATCH_* variables and the
// command line, validates every value and fills the JobSpec. `script` is the text
// to submit: the file's contents, stdin's, or WrapScript(--wrap).
// Defaults: name = the script's base name, "wrap" or "sbatch" (stdin); work_dir =
// cwd; -o/-e/-i made absolute against work_dir; command = the script's absolute
// path, "(wrap)", or "" for stdin; --export ALL (SLURM_* variables always go).
// -w/-x are expanded (a value with a '/' names a file of node names, one entry
// or hostlist per line, '#' comments), duplicates dropped. --bbf's file text is
// appended to --bb's on a line of its own. --array, -G, --gpus-per-node and -C
// are checked for form only and sent as written; ctld checks them fully.
// The container options make spec.container (BuildContainerRequest; a
// relative --container against cwd), set only when a container is asked for.
// Errors beyond InvalidArgument (exit 255): FailedPrecondition (exit 1) for
// "--mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.", for
// "--container and --container-image options are mutually exclusive", an
// unreadable --bbf file ("Could not open burst buffer specification file ...")
// or node file, as Slurm's sbatch exits 1 for those.
absl::StatusOr<SbatchSubmission> BuildSubmission(const SbatchCommandLine& command_line,
                                                 std::string_view script,
                                                 const SubmitContext& context);

// --begin: "now", "now+N[seconds|minutes|hours|days|weeks]" (default seconds),
// "HH:MM[:SS]" (today, or tomorrow if already past), "YYYY-MM-DD[THH:MM[:SS]]",
// "midnight", "noon", "teatime" (16:00), "today", "tomorrow". Local time (TZ).
// Error: InvalidArgument "Invalid --begin specification: <text>".
absl::StatusOr<int64_t> ParseBeginTime(std::string_view text, int64_t now);

// sbatch --test-only's answer, as Slurm's: "Job 5 to start at
// 2026-11-23T20:40:00 using 2 processors on nodes n[1-2] in partition debug".
std::string FormatWillRun(uint64_t job_id, int64_t start, int32_t cpus, const std::string& nodes,
                          const std::string& partition);

// "Submitted batch job N", or "N" with --parsable; newline-terminated.
std::string FormatSubmitted(uint64_t job_id, bool parsable);

// What `sbatch --wait` has learned from one look at the job's records (every
// task of an array): nullopt while any is still queued, running or completing;
// else the exit status sbatch ends with, as Slurm's: the highest exit code of
// the tasks, 1 for one killed by a signal.
std::optional<int> WaitExitCode(const std::vector<v1::JobInfo>& jobs);

// Whether `status` is getopt's refusal of an option, which sbatch prints as
// Slurm's does ("sbatch: <message>", then "Try "sbatch --help" for more
// information"), exiting 255.
bool IsGetoptError(const absl::Status& status);

// 255 for InvalidArgument (Slurm's exit for a bad option value, and for an
// option getopt refuses), else 1 (FailedPrecondition: a bad count, which
// Slurm's parse_int refuses with exit 1).
int SbatchExitCode(const absl::Status& status);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_COMMON_SBATCH_OPTIONS_H_
