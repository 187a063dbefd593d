// sbcast's command line, environment and messages, as Slurm 22.05's sbcast
// (src/sbcast/opts.c, src/bcast/file_bcast.c). Pure: no I/O.
#ifndef SKIFF_CLI_SBCAST_SBCAST_OPTIONS_H_
#define SKIFF_CLI_SBCAST_SBCAST_OPTIONS_H_

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/noded.pb.h"

namespace skiff::cli {

// Slurm's BcastExclude default: the system's own library directories.
inline constexpr char kDefaultBcastExclude[] = "/lib,/usr/lib,/lib64,/usr/lib64";

// -j JOB[_TASK][+OFFSET][.STEP], as Slurm's slurm_parse_step_str reads it.
struct JobStepId {
  uint64_t job_id = 0;
  std::optional<int32_t> array_task;  // JOB_TASK: that array task's job
  bool het_offset = false;            // JOB+N: a hetjob component (Skiff has none)
  bool has_step = false;
  uint32_t step_id = 0;
  bool batch_step = false;  // JOB.batch
  std::string text;         // as Slurm prints it in "Slurm job TEXT lookup error"
};

// FatalError text ("Bad step specified: 12") for what Slurm refuses with fatal().
absl::StatusOr<JobStepId> ParseJobStep(const std::string& text);

struct SbcastArgs {
  std::string source;
  std::string destination;  // absolute: relative names are made so with the cwd
  JobStepId job;
  bool compress = false;  // -C / SBCAST_COMPRESS (lz4 asked: gRPC's gzip here)
  std::string exclude = kDefaultBcastExclude;
  int fanout = 0;  // accepted, as Slurm's (see docs/compatibility.md)
  bool force = false;
  bool preserve = false;
  bool send_libs = false;
  // -s: bytes per chunk; 0 when the given size was invalid (Slurm then uses
  // 512 KiB). Slurm's default is 8 MiB.
  uint32_t block_size = 8 << 20;
  int timeout_seconds = 0;  // -t; 0: MessageTimeout
  int verbose = 0;
  bool help = false, usage = false, version = false;
};

// What parsing decided: the arguments (with the warnings Slurm prints and goes
// on), or the lines to print to stderr before exiting with exit_code.
struct SbcastParse {
  std::optional<SbcastArgs> args;
  std::vector<std::string> warnings;  // whole lines ("sbcast: error: ...")
  std::vector<std::string> errors;    // whole lines
  int exit_code = 1;
};

// Parses argv (without argv[0]) as sbcast's getopt_long does, after its
// input environment variables (SBCAST_COMPRESS, SBCAST_EXCLUDE, SBCAST_FANOUT,
// SBCAST_FORCE, SBCAST_PRESERVE, SBCAST_SEND_LIBS, SBCAST_SIZE,
// SBCAST_TIMEOUT; SLURM_JOB_ID when no -j). `cwd` makes DEST absolute.
SbcastParse ParseSbcastArgs(const std::vector<std::string>& args,
                            const std::map<std::string, std::string>& env, const std::string& cwd);

// -v: Slurm's block of the options, one line each (without "sbcast: ").
std::vector<std::string> SbcastOptionLines(const SbcastArgs& args);

// The bytes per chunk sent for a file of `file_size` bytes: -s's size (512 KiB
// when it was invalid), kept within 4 KiB .. 8 MiB (gRPC's messages), and no
// more than the file. At least 1.
uint64_t ChunkSize(uint32_t block_size, uint64_t file_size);

// The libraries `ldd` names (absolute paths, in its order).
std::vector<std::string> LibrariesFromLdd(const std::string& ldd_output);

// --exclude's directories; a relative one is dropped with Slurm's warning line.
// "NONE" (any case): none.
std::vector<std::string> ExcludedDirectories(const std::string& exclude,
                                             std::vector<std::string>* warnings);

// Whether `library` lies in one of `directories`.
bool IsExcluded(const std::string& library, const std::vector<std::string>& directories);

// Where --send-libs puts `library` for destination `destination`:
// DEST_libs/BASENAME.
std::string LibraryDestination(const std::string& destination, const std::string& library);

// The step manager's answer: one "sbcast: error: REQUEST_FILE_BCAST(NODE):
// TEXT" line per failed node, and the exit code Slurm's sbcast ends with (the
// last failure's errno, 255 for a failure that has none; 0 when every copy
// was written).
struct BroadcastOutcome {
  std::vector<std::string> errors;
  int exit_code = 0;
};
BroadcastOutcome OutcomeOf(const v1::BroadcastFileReply& reply);

// Why a job's state leaves nothing to broadcast to (Slurm's job_alloc_info
// texts), or "" for a running or configuring job (the step manager decides).
std::string JobStateRefusal(int job_state);

// "Slurm job 12.3 lookup error: TEXT", printed as an error; sbcast then ends 255.
std::string LookupError(const JobStepId& job, const std::string& text);

// -v's lines about the source file (Slurm's _file_state), without "sbcast: ".
std::vector<std::string> SourceLines(uint32_t mode, uid_t uid, gid_t gid, int64_t atime,
                                     int64_t mtime, int64_t ctime, int64_t size);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_SBCAST_SBCAST_OPTIONS_H_
