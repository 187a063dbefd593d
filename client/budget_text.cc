#include "client/budget_text.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "absl/strings/str_cat.h"

namespace skiff::client {

std::map<std::string, double> GrpTresMinsOf(const v1::AssocLimits& l) {
  std::map<std::string, double> out;
  if (l.has_grp_billing_mins() && l.grp_billing_mins() >= 0) {
    out["billing"] = static_cast<double>(l.grp_billing_mins());
  }
  const v1::Tres& t = l.grp_tres_mins();
  if (t.has_cpu() && t.cpu() >= 0) out["cpu"] = static_cast<double>(t.cpu());
  if (t.has_mem_mb() && t.mem_mb() >= 0) out["mem"] = static_cast<double>(t.mem_mb());
  if (t.has_node() && t.node() >= 0) out["node"] = static_cast<double>(t.node());
  if (t.has_gpu() && t.gpu() >= 0) out["gres/gpu"] = static_cast<double>(t.gpu());
  return out;
}

std::map<std::string, double> GrpTresLeftOf(const v1::AssocInfo& assoc,
                                            const v1::AssocUsage& usage) {
  const v1::BudgetMinutes& used = usage.used_budget_mins();
  const v1::BudgetMinutes& held = usage.held_budget_mins();
  auto taken = [&](const std::string& name) {
    if (name == "billing") return used.billing() + held.billing();
    if (name == "cpu") return used.cpu() + held.cpu();
    if (name == "mem") return used.mem() + held.mem();
    if (name == "node") return used.node() + held.node();
    return used.gpu() + held.gpu();
  };
  std::map<std::string, double> left;
  for (const auto& [name, limit] : GrpTresMinsOf(assoc.limits())) {
    left[name] = limit - taken(name);
  }
  return left;
}

std::string BudgetText(const std::map<std::string, double>& minutes) {
  std::string out;
  for (const char* name : {"cpu", "mem", "node", "billing", "gres/gpu"}) {
    auto it = minutes.find(name);
    if (it == minutes.end()) continue;
    absl::StrAppend(&out, out.empty() ? "" : ",", name, "=",
                    static_cast<int64_t>(std::floor(std::max(0.0, it->second))));
  }
  return out;
}

}  // namespace skiff::client
