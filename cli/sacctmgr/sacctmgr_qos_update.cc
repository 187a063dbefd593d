// An add, modify or delete of QOS: which of the named QOS exist, the request
// for ctld, and what sacctmgr prints and asks around it.
#include <cctype>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "cli/sacctmgr/sacctmgr_qos.h"
#include "cli/sacctmgr/sacctmgr_qos_internal.h"
#include "common/time_format.h"

namespace skiff::cli {

using sacctmgr_qos_internal::Lower;
using sacctmgr_qos_internal::TresText;

namespace {

std::string PreemptModeSetting(const std::string& mode) {
  return absl::AsciiStrToUpper(mode);  // Slurm's preempt_mode_string
}

}  // namespace

std::string AddQosMessage(const std::vector<std::string>& names, const v1::QosChanges& c) {
  std::string out = " Adding QOS(s)\n";
  for (const std::string& name : names) absl::StrAppend(&out, "  ", name, "\n");
  out += " Settings\n";
  // Slurm shows the description of the last QOS added: its name unless given.
  std::string description =
      c.has_description() ? c.description() : (names.empty() ? "QOS Name" : names.back());
  absl::StrAppend(&out, "  Description    = ", description, "\n");
  auto limit = [](int64_t value) { return value < 0 ? std::string("NONE") : absl::StrCat(value); };
  // The order and spacing of Slurm's sacctmgr_print_qos_limits.
  if (c.has_grace_time())
    absl::StrAppend(&out, "  GraceTime                = ", c.grace_time(), "\n");
  if (c.has_max_jobs_per_user()) {
    absl::StrAppend(&out, "  MaxJobsPerUser = ", limit(c.max_jobs_per_user()), "\n");
  }
  if (c.has_max_submit_jobs_per_user()) {
    absl::StrAppend(&out, "  MaxSubmitJobsPerUser     = ", limit(c.max_submit_jobs_per_user()),
                    "\n");
  }
  if (std::string t = TresText(c.max_tres_per_job()); !t.empty()) {
    absl::StrAppend(&out, "  MaxTRESPerJob            = ", t, "\n");
  }
  if (std::string t = TresText(c.max_tres_per_user()); !t.empty()) {
    absl::StrAppend(&out, "  MaxTRESPerUser           = ", t, "\n");
  }
  if (c.has_max_wall()) {
    absl::StrAppend(&out, "  MaxWall                  = ",
                    c.max_wall() < 0 ? "NONE" : FormatTimeLimit(c.max_wall()), "\n");
  }
  if (c.has_preempt() && !c.preempt().empty()) {
    absl::StrAppend(&out, "  Preempt                  = ", c.preempt(), "\n");
  }
  if (c.has_preempt_mode() && Lower(c.preempt_mode()) != "cluster") {
    absl::StrAppend(&out, "  PreemptMode              = ", PreemptModeSetting(c.preempt_mode()),
                    "\n");
  }
  if (c.has_priority()) absl::StrAppend(&out, "  Priority                 = ", c.priority(), "\n");
  if (c.has_usage_factor()) {
    char buf[64];
    snprintf(buf, sizeof(buf), "%.4f", c.usage_factor());
    absl::StrAppend(&out, "  UsageFactor              = ", buf, "\n");
  }
  return out;
}

std::string ChangedQosMessage(SacctmgrVerb verb, const std::vector<std::string>& names) {
  std::string out = verb == SacctmgrVerb::kDelete ? " Deleting QOS(s)...\n" : " Modified qos...\n";
  for (const std::string& name : names) absl::StrAppend(&out, "  ", name, "\n");
  return out;
}

std::string NothingChangedMessage(SacctmgrVerb verb) {
  switch (verb) {
    case SacctmgrVerb::kAdd:
      return " Nothing new added.\n";
    case SacctmgrVerb::kDelete:
      return " Nothing deleted\n";
    default:
      return " Nothing modified\n";
  }
}

std::string UpdateQosErrorText(const absl::Status& status, SacctmgrVerb verb) {
  std::string out;
  std::string reason(status.message());
  if (status.code() == absl::StatusCode::kPermissionDenied) {
    out = "sacctmgr: error: Your user doesn't have privilege to perform this action\n";
    reason = "Access/permission denied";
  }
  absl::StrAppend(
      &out, verb == SacctmgrVerb::kAdd ? " Problem adding QOS: " : " Error with request: ", reason,
      "\n");
  return out;
}

std::optional<bool> CommitAnswer(std::string_view line) {
  while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) {
    line.remove_suffix(1);
  }
  if (line.empty() || line == "n" || line == "N") return false;
  if (line == "y" || line == "Y") return true;
  return std::nullopt;
}

std::vector<std::string> ExistingQos(const v1::GetQosReply& reply,
                                     const std::vector<std::string>& wanted) {
  std::vector<std::string> out;
  if (wanted.empty()) {
    for (const v1::QosInfo& qos : reply.qos()) out.push_back(qos.name());
    return out;
  }
  std::set<std::string> known;
  for (const v1::QosInfo& qos : reply.qos()) known.insert(Lower(qos.name()));
  for (const std::string& name : wanted) {
    if (known.count(Lower(name)) > 0) out.push_back(name);
  }
  return out;
}

std::vector<std::string> MissingQos(const v1::GetQosReply& reply,
                                    const std::vector<std::string>& wanted) {
  std::set<std::string> known;
  for (const v1::QosInfo& qos : reply.qos()) known.insert(Lower(qos.name()));
  std::vector<std::string> out;
  for (const std::string& name : wanted) {
    if (known.count(Lower(name)) == 0) out.push_back(name);
  }
  return out;
}

v1::UpdateQosRequest BuildUpdateQosRequest(const SacctmgrCommand& command,
                                           const std::vector<std::string>& names) {
  v1::UpdateQosRequest request;
  switch (command.verb) {
    case SacctmgrVerb::kAdd:
      request.set_op(v1::UpdateQosRequest::ADD);
      break;
    case SacctmgrVerb::kModify:
      request.set_op(v1::UpdateQosRequest::MODIFY);
      break;
    case SacctmgrVerb::kDelete:
      request.set_op(v1::UpdateQosRequest::DELETE);
      break;
    case SacctmgrVerb::kShow:
      break;
  }
  for (const std::string& name : names) request.add_names(name);
  if (command.verb == SacctmgrVerb::kAdd || command.verb == SacctmgrVerb::kModify) {
    *request.mutable_changes() = command.changes;
  }
  return request;
}

}  // namespace skiff::cli
