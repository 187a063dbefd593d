// sshare's table as pure functions: the shares tree of a GetAccountsReply
// (client/shares.h: shares, usage and the fair-share factor per association)
// as the rows Slurm 22.05's sshare prints (src/sshare/process.c), filtered by
// its options.
//
// Budgets show in the long listing: GrpTRESMins is the account's
// GrpTRESMins (billing, cpu, mem, node, gres/gpu). Beyond Slurm, -o
// GrpTRESLeft shows what is left of each: the limit less what ended runs used
// and what the jobs not yet ended may still use. GrpTRESRaw and TRESRunMins list every TRES
// as Slurm's sshare does (cpu, mem, energy, node, billing, fs/disk, vmem,
// pages, gres/gpu, then typed GPUs), in TRES-minutes: GrpTRESRaw what the
// ended runs used (billing: the billing-minutes charged), TRESRunMins what the
// running jobs hold for the rest of their time limits (billing: the most the
// jobs not yet ended may cost).
#ifndef SKIFF_CLI_SSHARE_SSHARE_FORMAT_H_
#define SKIFF_CLI_SSHARE_SSHARE_FORMAT_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/shares.h"
#include "proto/ctld.pb.h"

namespace skiff::cli {

struct SshareOptions {
  bool all_users = false;             // -a
  std::vector<std::string> accounts;  // -A: these accounts' subtrees
  std::vector<std::string> users;     // -u: these users' lines (and their accounts)
  bool users_only = false;            // -U
  bool long_format = false;           // -l
  bool no_header = false;             // -n
  bool parsable = false;              // -p
  bool parsable2 = false;             // -P
  std::string format;                 // -o
  std::string caller;                 // the user running sshare (lines shown without -a/-u)
};

// The table. Errors: InvalidArgument `Invalid field requested: "X"`.
absl::StatusOr<std::string> FormatSshare(const v1::GetAccountsReply& reply,
                                         const SshareOptions& options);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_SSHARE_SSHARE_FORMAT_H_
