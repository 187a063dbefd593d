// sacctmgr for QOS as pure functions: the command line (Slurm's syntax, keys
// abbreviated as Slurm allows) to GetQos/UpdateQos requests, and ctld's answers to
// the text Slurm 22.05's sacctmgr prints: `show qos` tables (fixed-width, -p, -P,
// see shared/reference/sacctmgr_show_qos.txt), the " Adding QOS(s)" / " Modified
// qos..." / " Deleting QOS(s)..." messages and its error lines.
//
// Skiff keeps QOS in ctld, not in a separate accounting daemon (accounts, users
// and associations: sacctmgr_assoc.h). Names are kept in lower case, as Slurm's
// database keeps them.
#ifndef SKIFF_CLI_SACCTMGR_SACCTMGR_QOS_H_
#define SKIFF_CLI_SACCTMGR_SACCTMGR_QOS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/tres.h"
#include "proto/ctld.pb.h"

namespace skiff::cli {

struct SacctmgrOptions {
  bool immediate = false;   // -i: commit without asking
  bool no_header = false;   // -n
  bool parsable = false;    // -p: '|' after every field
  bool parsable2 = false;   // -P: '|' between fields
  bool quiet = false;       // -Q: only errors
  bool readonly = false;    // -r: only show/list may run
  bool with_assoc = false;  // -s, --associations: show account|user with their associations
};

// sacctmgr's options and the words of its command, as getopt_long reads
// Slurm's: options may come anywhere among the words ("sacctmgr show qos -n"),
// short ones group ("-nP"), long ones abbreviate ("--parsable2", "--pars" is
// ambiguous), "--" ends them.
struct SacctmgrCommandLine {
  SacctmgrOptions options;
  bool help = false;     // -h, --help, --usage
  bool version = false;  // -V, --version
  std::vector<std::string> words;
};

// Error: InvalidArgument with glibc's message ("unrecognized option '--foo'"),
// which sacctmgr prints after "sacctmgr: ", followed by
// "Try "sacctmgr --help" for more information", and exits 1.
absl::StatusOr<SacctmgrCommandLine> ParseSacctmgrOptions(const std::vector<std::string>& args);

enum class SacctmgrVerb { kAdd, kModify, kDelete, kShow };

struct SacctmgrCommand {
  SacctmgrOptions options;
  bool help = false;     // -h/--help or "help"
  bool version = false;  // -V/--version or "version"
  SacctmgrVerb verb = SacctmgrVerb::kShow;
  // add: the QOS to create; modify, delete, show: the QOS named (Name=, bare
  // words, after "where"); empty = all. Lower case, duplicates dropped.
  std::vector<std::string> names;
  v1::QosChanges changes;  // add, modify: the settings given
  bool has_changes = false;
  std::vector<std::string> format;  // show: format= fields, in order; empty = default
};

// Parses sacctmgr's arguments (argv without the program name): options (see
// ParseSacctmgrOptions, whose errors it returns as they are), then
// add|create, modify|update, delete|remove or show|list (any case), "qos", and the
// entity's arguments:
//   add qos NAME[,NAME2] [Key=Value ...]
//   modify qos [where] [Name=]NAME [set] Key=Value ...
//   delete qos [where] [Name=]NAME
//   show qos [NAME...] [format=Name,Priority,...]
// Setting keys (prefixes as Slurm accepts them): Description, Priority, GraceTime
// (seconds), MaxTRESPerUser/MaxTRESPU, MaxTRESPerJob/MaxTRES, MaxCPUsPerJob,
// MaxCPUsPerUser, MaxNodesPerJob, MaxNodesPerUser, MaxJobsPerUser/MaxJobsPU,
// MaxSubmitJobsPerUser/MaxSubmitJobsPU/MaxSubmitPU, MaxWall (Slurm time; -1 or
// UNLIMITED clears), Preempt (=, += and -=), PreemptMode (cluster, off, cancel,
// requeue), UsageFactor. -1 clears a limit. In modify, a setting key before "set"
// counts as a setting.
// Errors (InvalidArgument, one message line per output line): an unknown key
// ("Unknown option: Foo=1"), a condition sacctmgr does not know ("Unknown
// condition: ..."), a Slurm key Skiff's QOS lacks ("GrpTRES is not supported ..."),
// a bad value naming its key, another entity than qos, a missing command or name,
// modify without a setting ("You didn't give me anything to set").
absl::StatusOr<SacctmgrCommand> ParseSacctmgrCommandLine(const std::vector<std::string>& args);

// TRES limits between their text form and the proto.
v1::Tres ToProto(const TresLimits& limits);
TresLimits FromProto(const v1::Tres& tres);

// The default `show qos` fields: Slurm 22.05's list, Skiff's fields filled in and
// the others (GrpTRES, MaxTRESPA, ...) kept in place, blank.
std::vector<std::string> DefaultQosFormat();

// A `show qos` table: a header and dashes unless no_header (or just the header
// with -p/-P), then one line per QOS in ctld's order. Fields as Slurm's sacctmgr
// names and abbreviates them ("Name", "Prio", "MaxTRESPU", "Name%20" for a width);
// columns are right-aligned in their width and each is followed by a space;
// longer text is cut and ends in '+'.
// Error: InvalidArgument "Unknown field 'X'".
absl::StatusOr<std::string> FormatQosTable(const v1::GetQosReply& reply,
                                           const std::vector<std::string>& format,
                                           const SacctmgrOptions& options);

// " Adding QOS(s)\n  NAME\n Settings\n  Description    = ...\n" and one line per
// setting given, as sacctmgr prints before committing an add.
std::string AddQosMessage(const std::vector<std::string>& names, const v1::QosChanges& changes);

// " Modified qos...\n  NAME\n" / " Deleting QOS(s)...\n  NAME\n".
std::string ChangedQosMessage(SacctmgrVerb verb, const std::vector<std::string>& names);

// " Nothing new added.\n", " Nothing modified\n" or " Nothing deleted\n".
std::string NothingChangedMessage(SacctmgrVerb verb);

// What sacctmgr prints to stderr when UpdateQos fails. PERMISSION_DENIED gives
// Slurm's text for an unprivileged user: "sacctmgr: error: Your user doesn't have
// privilege to perform this action" and " Problem adding QOS: Access/permission
// denied" (add) or " Error with request: Access/permission denied".
std::string UpdateQosErrorText(const absl::Status& status, SacctmgrVerb verb);

// Slurm's confirmation prompt, asked only when stdin is a terminal and -i is not
// given.
inline constexpr char kCommitQuestion[] =
    "Would you like to commit changes? (You have 30 seconds to decide)\n(N/y): ";
inline constexpr char kNoConditionsQuestion[] =
    "You didn't set any conditions with 'WHERE'.\nAre you sure you want to continue? "
    "(You have 30 seconds to decide)\n(N/y): ";

// An answer to the prompt: 'y'/'Y' -> true; 'n', 'N' or an empty line -> false;
// anything else -> nullopt (Slurm asks "Y or N please").
std::optional<bool> CommitAnswer(std::string_view line);

// The QOS of `reply` that `wanted` names (all of them when `wanted` is empty), in
// the order of `wanted` (ctld's order when empty).
std::vector<std::string> ExistingQos(const v1::GetQosReply& reply,
                                     const std::vector<std::string>& wanted);

// The names of `wanted` not in `reply`, in order: what an add really creates.
std::vector<std::string> MissingQos(const v1::GetQosReply& reply,
                                    const std::vector<std::string>& wanted);

// The request for an add/modify/delete of `names` with the command's changes.
v1::UpdateQosRequest BuildUpdateQosRequest(const SacctmgrCommand& command,
                                           const std::vector<std::string>& names);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_SACCTMGR_SACCTMGR_QOS_H_
