// sacct's options as Slurm 22.05 reads them (src/sacct/options.c) turned into a
// GetAccountingRequest and a layout: the default window (since midnight; from
// the epoch with -j; "now" with -s), who is shown (the caller, unless -a or -u;
// root sees everyone), -j's "N", "N_T", "N.batch" items, states by long or
// short name. Pure: the caller passes `now`, its uid, and a user resolver.
#ifndef SKIFF_CLI_SACCT_SACCT_OPTIONS_H_
#define SKIFF_CLI_SACCT_SACCT_OPTIONS_H_

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/sacct/sacct_format.h"
#include "proto/accounting.pb.h"

namespace skiff::cli {

struct SacctCommandLine {
  bool all_users = false;         // -a
  std::string accounts;           // -A
  bool brief = false;             // -b
  std::string end_time;           // -E
  std::string start_time;         // -S
  std::string groups;             // -g
  std::vector<std::string> jobs;  // -j (each a comma list)
  bool long_format = false;       // -l
  std::string clusters;           // -M
  bool no_header = false;         // -n
  std::string nodes;              // -N
  std::string names;              // --name
  std::string format;             // -o
  bool parsable = false;          // -p
  bool parsable2 = false;         // -P
  std::string qos;                // -q
  std::string partitions;         // -r
  std::string states;             // -s
  std::string users;              // -u
  bool allocations = false;       // -X
  bool truncate = false;          // -T
  std::string delimiter;          // --delimiter
  std::string units;              // --units=[KMGTP]
};

struct SacctPlan {
  v1::GetAccountingRequest request;
  std::vector<SacctField> fields;
  SacctLayout layout;
};

struct SacctContext {
  int64_t now = 0;
  uid_t uid = 0;
  std::string cluster;  // this cluster's name, for -M
  // A user name or uid to its uid; nullopt when unknown.
  std::function<std::optional<uid_t>(const std::string&)> uid_of;
  std::function<std::optional<gid_t>(const std::string&)> gid_of;
};

// Errors (InvalidArgument, printed after "sacct: error: " or, where Slurm says
// "fatal", "sacct: fatal: "): a bad -j item ("Invalid job id: X"), an unknown
// state ("unrecognized job state value 'X'"), a bad time ("Invalid time
// specification 'X'"), start after end ("Start time (A) requested is after end
// time (B)."), an unknown user ("Invalid user id: X") or group, -o with -l, an
// unknown field (`Invalid field requested: "X"`), another cluster.
absl::StatusOr<SacctPlan> PlanSacct(const SacctCommandLine& line, const SacctContext& context);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_SACCT_SACCT_OPTIONS_H_
