// Slurm 22.05's reference outputs (tests/reference/slurm-22.05/*.txt) and the
// normalization that makes them comparable with a Skiff run of the same command.
//
// A reference file is: comment lines ("# as alice" says who ran it), one
// "$ COMMAND" line, the command's stdout and stderr as they came, and "[exit N]".
// transitions_*.txt are different: comment lines and one "  T.TTs Key=Value ..."
// line per change that a poller saw while a job ran.
//
// Normalize() rewrites only what legitimately differs between two runs of the
// same scenario (ids, clocks, host, install paths, pids, ports, versions and
// machine measurements). Every rule is a place where a real difference could
// hide, so each is listed in Normalize()'s comment and tested on its own.
//
// Pure: no I/O. Thread-compatible.
#ifndef SKIFF_TESTS_REFERENCE_REFERENCE_FILE_H_
#define SKIFF_TESTS_REFERENCE_REFERENCE_FILE_H_

#include <string>
#include <vector>

namespace skiff::reference {

struct ReferenceFile {
  std::string user = "root";  // from "# as USER"
  std::string command;        // after "$ ", as the shell would read it ("" when none)
  std::string output;         // every line between the command and "[exit N]"
  int exit_code = -1;         // -1 when there is no "[exit N]" line
};

ReferenceFile ParseReference(const std::string& text);

// What differs between the reference run and a Skiff run on one side of the
// comparison: each value found in that side's text is replaced with a token.
struct Side {
  std::string root;     // install root: "/srv/slurm", or the local cluster's directory
  std::string host;     // the machine's name: "vm", or gethostname()
  std::string product;  // "slurm-wlm" or "skiff", as --version prints it
  std::vector<std::string> versions;  // {"22.05.8"}, or Skiff's versions
  std::string user_uid;               // the non-root user's uid ("1001" for alice)
  std::string user_gid;               // and gid
  // Job ids are numbers in [first_job_id, first_job_id + 1000).
  unsigned long first_job_id = 0;
};

// The rules, in order:
//  1. `root` -> ROOT, `host` as a whole word -> HOST, and the host parts of
//     NodeHostName= and AllocNode:Sid= (the machine each daemon and sbatch ran
//     on, as that machine resolved itself) -> HOST.
//  2. `product VERSION` (--version) and every "Version=VERSION" / "= VERSION"
//     -> PRODUCT VERSION.
//  3. Job ids: each distinct number in the job-id range becomes J1, J2, ... in
//     order of first appearance, so two runs that number their jobs differently
//     compare equal while a job listed out of order, or missing, does not.
//  3b. Priorities of priority/basic (0xffff0000 less the jobs the controller has
//     seen since it started) -> P1, P2, ... in order of first appearance.
//  4. Date-times (2026-11-22T05:14:02) -> TIME; ctime lines (Sun Nov 22 05:14:02
//     2026) -> DATE.
//  5. Elapsed times: RunTime=HH:MM:SS -> RunTime=ELAPSED, and a lone M:SS or
//     MM:SS (squeue's TIME column) -> ELAPSED. Time limits (HH:MM:SS, D-HH:MM:SS)
//     are never touched.
//  6. Per-process and per-boot numbers: pids (SLURM_TASK_PID=, AllocNode:Sid=H:N),
//     ports (Port=, SlurmctldPort, the port in SLURM_WORKING_CLUSTER), CPULoad=,
//     FreeMem=, OS=, and the user's uid and gid: "USER(UID)", SLURM_JOB_UID/GID=UID.
//  7. Trailing blanks at the end of each line are kept (they are part of
//     Slurm's output); nothing else is touched.
std::string Normalize(const std::string& text, const Side& side);

// The distinct values a transitions file shows, in order: each line's fields
// with the leading time dropped ("JobState=PENDING Reason=None"), consecutive
// repeats collapsed, "(job record purged)" dropped.
std::vector<std::string> StateSequence(const std::string& transitions);

// Reference text and local text differ: a unified-looking listing of the lines
// that differ ("- ref" / "+ local"), for a failure message. "" when equal.
std::string LineDiff(const std::string& expected, const std::string& actual);

}  // namespace skiff::reference

#endif  // SKIFF_TESTS_REFERENCE_REFERENCE_FILE_H_
