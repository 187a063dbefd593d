#include "admin/node_commands.h"

#include "absl/strings/str_cat.h"
#include "client/ctld_client.h"
#include "common/hostlist.h"

namespace skiff::cli {

absl::Status RemoveNodes(const std::string& conf_path, const std::vector<std::string>& names) {
  v1::DeleteNodesRequest request;
  for (const std::string& expression : names) {
    absl::StatusOr<std::vector<std::string>> expanded = ExpandHostlist(expression);
    if (!expanded.ok() || expanded->empty()) {
      return absl::InvalidArgumentError(absl::StrCat("not a node name or list: ", expression));
    }
    for (const std::string& name : *expanded) request.add_names(name);
  }
  absl::StatusOr<std::unique_ptr<client::CtldClient>> ctld = client::CtldClient::Connect(conf_path);
  if (!ctld.ok()) return ctld.status();
  v1::DeleteNodesReply reply;
  return (*ctld)->Call(&v1::Ctld::Stub::DeleteNodes, request, &reply);
}

}  // namespace skiff::cli
