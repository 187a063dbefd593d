// scontrol show assoc_mgr (and its short form "show assoc"): ctld's users,
// associations and QOS with their limits and what the jobs not yet ended hold,
// in Slurm 22.05's layout (src/scontrol/info_assoc_mgr.c). Pure.
//
// The TRES listed are Slurm's default set plus gres/gpu, in TRES id order:
// cpu, mem, energy, node, billing, fs/disk, vmem, pages, gres/gpu. Skiff keeps
// decayed usage in billing units only, so GrpTRESMins' used figures are
// billing's (others 0); energy, fs/disk, vmem and pages are never used. QOS
// ids are the QOS' places in ctld's list (creation order), as Slurm numbers
// them when none was deleted.
#ifndef SKIFF_CLI_SCONTROL_ASSOC_MGR_FORMAT_H_
#define SKIFF_CLI_SCONTROL_ASSOC_MGR_FORMAT_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/ctld.pb.h"

namespace skiff::cli {

struct AssocMgrRequest {
  std::vector<std::string> accounts;  // Accounts=: only these associations
  std::vector<std::string> users;     // Users=: only these users and their associations
  std::vector<std::string> qos;       // QOS=: only these QOS
  // Flags=Users,Assoc,QOS: which sections; none given = all three.
  bool show_users = true;
  bool show_assoc = true;
  bool show_qos = true;
};

// The words after "show assoc_mgr". Errors (InvalidArgument, Slurm's texts):
// "No value given for option X", "invalid flag 'X', valid options are 'Assoc,
// QOS, and/or Users'", "invalid entity: X for keyword:show assoc_mgr".
absl::StatusOr<AssocMgrRequest> ParseAssocMgrArgs(const std::vector<std::string>& args);

// The whole answer, "Current Association Manager state" first. `uid_of` gives
// a user's uid for the QOS' per-user lines (-1 when unknown).
std::string FormatAssocMgr(const v1::GetAccountsReply& accounts, const v1::GetQosReply& qos,
                           const AssocMgrRequest& request, bool one_liner,
                           const std::function<int64_t(const std::string&)>& uid_of);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_SCONTROL_ASSOC_MGR_FORMAT_H_
