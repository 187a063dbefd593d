// GrpTRESMins budgets: the TRES an account's budget may name, and amounts of
// them in TRES-minutes. A budget holds what ended runs used plus the most the
// jobs not yet ended may use; a job starts (and, with
// AccountingStorageEnforce=safe, is admitted) only if its own most fits what
// is left, in every TRES the budget names, so no account is ever overdrawn.
//
// The TRES are Slurm's names: billing (service units), cpu, mem (MB-minutes),
// node and gres/gpu (any type).
//
// Threads: none; plain values.
#ifndef SKIFF_CTLD_CORE_BUDGET_H_
#define SKIFF_CTLD_CORE_BUDGET_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/assoc_key.h"

namespace skiff::ctld {

enum class BudgetTres { kBilling, kCpu, kMem, kNode, kGpu };
inline constexpr std::array<BudgetTres, 5> kBudgetTres = {
    BudgetTres::kBilling, BudgetTres::kCpu, BudgetTres::kMem, BudgetTres::kNode, BudgetTres::kGpu};

// "billing", "cpu", "mem", "node", "gres/gpu".
const char* BudgetTresName(BudgetTres tres);
// Slurm's pending reason for an association over its GrpTRESMins in `tres`
// ("AssocGrpBillingMinutes", "AssocGrpCPUMinutesLimit", "AssocGrpMemMinutes",
// "AssocGrpNodeMinutes", "AssocGrpGRESMinutes").
const char* AssocGrpMinutesReason(BudgetTres tres);
// The TRES-minutes limits beside GrpTRESMins (Slurm 24.05's), each with its
// own pending reasons. "Run minutes" are what running jobs may still use:
// what each holds times what is left of its time limit; a job starts only if
// its own (what it would hold times its time limit) fits beside them.
enum class MinutesLimit {
  kAssocGrpMins,          // GrpTRESMins on an association
  kAssocGrpRunMins,       // GrpTRESRunMins on an association (its subtree)
  kQosGrpRunMins,         // GrpTRESRunMins on a QOS (all its running jobs)
  kQosMaxRunMinsPerUser,  // MaxTRESRunMinsPerUser (MaxTRESRunMinsPU) on a QOS
  kQosMaxMinsPerJob,      // MaxTRESMinsPerJob (MaxTRESMins) on a QOS
  kQosGrpMins,            // GrpTRESMins on a QOS (what its jobs used and may use)
};
// Slurm's reason for a job held by `limit` in `tres` ("AssocGrpGRESRunMinutes",
// "QOSGrpCPURunMinutesLimit", "MaxGRESRunMinsPerUser", "QOSMaxGRESMinutesPerJob", ...).
const char* MinutesLimitReason(MinutesLimit limit, BudgetTres tres);

// What the amounts are counted in, for messages: "billing-minutes",
// "CPU-minutes", "MB-minutes", "node-minutes", "GPU-minutes".
const char* BudgetUnit(BudgetTres tres);

// TRES-minutes per budget TRES. As a limit, a negative amount means none.
struct TresMinutes {
  double billing = 0;
  double cpu = 0;
  double mem = 0;
  double node = 0;
  double gpu = 0;

  double& operator[](BudgetTres tres);
  double operator[](BudgetTres tres) const;
  TresMinutes& operator+=(const TresMinutes& other);
  bool operator==(const TresMinutes& other) const;
  bool operator!=(const TresMinutes& other) const { return !(*this == other); }
  bool IsZero() const { return *this == TresMinutes{}; }
};
TresMinutes operator*(const TresMinutes& minutes, double factor);
TresMinutes operator+(TresMinutes a, const TresMinutes& b);

// A limit that names nothing.
inline constexpr TresMinutes kNoBudget{-1, -1, -1, -1, -1};
bool NamesAnyTres(const TresMinutes& limit);

// The first budget TRES (in kBudgetTres order) in which `used` plus `cost`
// goes over `limit`; nullopt when every limited TRES still fits.
std::optional<BudgetTres> OverBudget(const TresMinutes& limit, const TresMinutes& used,
                                     const TresMinutes& cost);

// What holding `per_minute` (the TRES-minutes of one minute) for `seconds`
// uses; `seconds` < 0 means without end: infinite in every TRES held.
TresMinutes MinutesOver(const TresMinutes& per_minute, int64_t seconds);

// A run's TRES-minutes: its billing, CPUs, memory (MB), nodes and GPUs held
// for `seconds`.
TresMinutes RunMinutes(double billing, double cpus, double mem_mb, double nodes, double gpus,
                       double seconds);

// Whose GrpTRESMins balance a figure is: an account (its whole subtree), a
// user's association in an account (the bank keeps one per account and user,
// so never a partition), or a QOS.
struct BankKey {
  AssocKey assoc;   // unused for a QOS's
  std::string qos;  // "" unless a QOS's

  static BankKey Of(const AssocKey& key) { return BankKey{key.WithoutPartition(), ""}; }
  static BankKey OfQos(std::string name) { return BankKey{AssocKey{}, std::move(name)}; }
  bool is_qos() const { return !qos.empty(); }

  // The bank record's key in the state store, as every release has written
  // it: "lab" (an account), "lab|alice" (a user in it), "qos=normal" (no
  // account name holds '='). FromRecordKey reads it back.
  std::string RecordKey() const;
  static BankKey FromRecordKey(std::string_view text);
  // "account lab", "user alice in account lab", "QOS normal".
  std::string Describe() const;

  friend bool operator<(const BankKey& a, const BankKey& b) {
    return a.qos != b.qos ? a.qos < b.qos : a.assoc < b.assoc;
  }
  friend bool operator==(const BankKey& a, const BankKey& b) {
    return a.qos == b.qos && a.assoc == b.assoc;
  }
};

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_BUDGET_H_
