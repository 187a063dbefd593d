#include "ctld/core/budget.h"

#include <limits>

namespace skiff::ctld {

const char* BudgetTresName(BudgetTres tres) {
  switch (tres) {
    case BudgetTres::kBilling:
      return "billing";
    case BudgetTres::kCpu:
      return "cpu";
    case BudgetTres::kMem:
      return "mem";
    case BudgetTres::kNode:
      return "node";
    case BudgetTres::kGpu:
      return "gres/gpu";
  }
  return "billing";
}

const char* AssocGrpMinutesReason(BudgetTres tres) {
  return MinutesLimitReason(MinutesLimit::kAssocGrpMins, tres);
}

const char* MinutesLimitReason(MinutesLimit limit, BudgetTres tres) {
  // job_state_reason strings, in kBudgetTres order (billing, cpu, mem, node, gres/gpu).
  static const char* const kReasons[][5] = {
      {"AssocGrpBillingMinutes", "AssocGrpCPUMinutesLimit", "AssocGrpMemMinutes",
       "AssocGrpNodeMinutes", "AssocGrpGRESMinutes"},
      {"AssocGrpBillingRunMinutes", "AssocGrpCPURunMinutesLimit", "AssocGrpMemRunMinutes",
       "AssocGrpNodeRunMinutes", "AssocGrpGRESRunMinutes"},
      {"QOSGrpBillingRunMinutes", "QOSGrpCPURunMinutesLimit", "QOSGrpMemoryRunMinutes",
       "QOSGrpNodeRunMinutes", "QOSGrpGRESRunMinutes"},
      {"MaxBillingRunMinsPerUser", "MaxCpuRunMinsPerUser", "MaxMemoryRunMinsPerUser",
       "MaxNodeRunMinsPerUser", "MaxGRESRunMinsPerUser"},
      {"QOSMaxBillingMinutesPerJob", "QOSMaxCpuMinutesPerJobLimit", "QOSMaxMemoryMinutesPerJob",
       "QOSMaxNodeMinutesPerJob", "QOSMaxGRESMinutesPerJob"},
      {"QOSGrpBillingMinutes", "QOSGrpCPUMinutesLimit", "QOSGrpMemoryMinutes", "QOSGrpNodeMinutes",
       "QOSGrpGRESMinutes"},
  };
  return kReasons[static_cast<int>(limit)][static_cast<int>(tres)];
}

TresMinutes MinutesOver(const TresMinutes& per_minute, int64_t seconds) {
  TresMinutes out;
  for (BudgetTres t : kBudgetTres) {
    if (per_minute[t] == 0) continue;
    out[t] = seconds < 0 ? std::numeric_limits<double>::infinity()
                         : per_minute[t] * static_cast<double>(seconds) / 60.0;
  }
  return out;
}

const char* BudgetUnit(BudgetTres tres) {
  switch (tres) {
    case BudgetTres::kBilling:
      return "billing-minutes";
    case BudgetTres::kCpu:
      return "CPU-minutes";
    case BudgetTres::kMem:
      return "MB-minutes";
    case BudgetTres::kNode:
      return "node-minutes";
    case BudgetTres::kGpu:
      return "GPU-minutes";
  }
  return "billing-minutes";
}

double& TresMinutes::operator[](BudgetTres tres) {
  switch (tres) {
    case BudgetTres::kBilling:
      return billing;
    case BudgetTres::kCpu:
      return cpu;
    case BudgetTres::kMem:
      return mem;
    case BudgetTres::kNode:
      return node;
    case BudgetTres::kGpu:
      return gpu;
  }
  return billing;
}

double TresMinutes::operator[](BudgetTres tres) const {
  return const_cast<TresMinutes&>(*this)[tres];
}

TresMinutes& TresMinutes::operator+=(const TresMinutes& other) {
  for (BudgetTres tres : kBudgetTres) (*this)[tres] += other[tres];
  return *this;
}

bool TresMinutes::operator==(const TresMinutes& other) const {
  for (BudgetTres tres : kBudgetTres) {
    if ((*this)[tres] != other[tres]) return false;
  }
  return true;
}

TresMinutes operator*(const TresMinutes& minutes, double factor) {
  TresMinutes out;
  for (BudgetTres tres : kBudgetTres) out[tres] = minutes[tres] * factor;
  return out;
}

TresMinutes operator+(TresMinutes a, const TresMinutes& b) { return a += b; }

bool NamesAnyTres(const TresMinutes& limit) {
  for (BudgetTres tres : kBudgetTres) {
    if (limit[tres] >= 0) return true;
  }
  return false;
}

std::optional<BudgetTres> OverBudget(const TresMinutes& limit, const TresMinutes& used,
                                     const TresMinutes& cost) {
  for (BudgetTres tres : kBudgetTres) {
    if (limit[tres] >= 0 && used[tres] + cost[tres] > limit[tres]) return tres;
  }
  return std::nullopt;
}

TresMinutes RunMinutes(double billing, double cpus, double mem_mb, double nodes, double gpus,
                       double seconds) {
  const double minutes = seconds / 60.0;
  return TresMinutes{billing * minutes, cpus * minutes, mem_mb * minutes, nodes * minutes,
                     gpus * minutes};
}

namespace {
constexpr std::string_view kQosRecordPrefix = "qos=";
}  // namespace

std::string BankKey::RecordKey() const {
  if (is_qos()) return std::string(kQosRecordPrefix) + qos;
  return assoc.user.empty() ? assoc.account : assoc.UsageRecordKey();
}

BankKey BankKey::FromRecordKey(std::string_view text) {
  if (text.substr(0, kQosRecordPrefix.size()) == kQosRecordPrefix) {
    return OfQos(std::string(text.substr(kQosRecordPrefix.size())));
  }
  return Of(AssocKey::FromRecordKey(text).value_or(AssocKey::Account(std::string(text))));
}

std::string BankKey::Describe() const { return is_qos() ? "QOS " + qos : assoc.Describe(); }

}  // namespace skiff::ctld
