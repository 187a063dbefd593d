#include "ctld/state/records.h"

#include <algorithm>
#include <optional>
#include <type_traits>
#include <utility>
#include <variant>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "common/tres_usage.h"
#include "ctld/rpc/acct_convert.h"
#include "ctld/rpc/resv_convert.h"
#include "proto/accounting.pb.h"
#include "proto/ctld.pb.h"

namespace skiff::ctld {
namespace {

// `what` as DataLoss names it ("QOS", "account", "user", "association", "step").
template <typename Message, typename Struct, typename FromProto>
absl::StatusOr<Struct> Decode(const char* what, const std::string& key, const std::string& blob,
                              FromProto from_proto) {
  Message message;
  if (!message.ParseFromString(blob)) {
    return absl::DataLossError(absl::StrCat(what, " record '", key, "' does not parse"));
  }
  return from_proto(message);
}

// A record's key as the table keeps it: the text as stored, or for
// associations the AssocKey it spells.
std::optional<std::string> TableKey(const std::string& key, const std::string*) { return key; }
std::optional<AssocKey> TableKey(const std::string& key, const AssocKey*) {
  return AssocKey::FromRecordKey(key);
}
std::string StoredKey(const std::string& key) { return key; }
std::string StoredKey(const AssocKey& key) { return key.RecordKey(); }

template <typename Key, typename Struct, typename DecodeRow>
absl::Status DecodeAll(const std::map<std::string, std::string>& rows, DecodeRow decode,
                       std::map<Key, Struct>* out) {
  for (const auto& [key, blob] : rows) {
    absl::StatusOr<Struct> row = decode(key, blob);
    if (!row.ok()) return row.status();
    std::optional<Key> table_key = TableKey(key, static_cast<const Key*>(nullptr));
    if (!table_key) return absl::DataLossError(absl::StrCat("bad record key '", key, "'"));
    (*out)[*table_key] = std::move(*row);
  }
  return absl::OkStatus();
}

}  // namespace

std::string EncodeQos(const QosDefinition& qos) { return QosToProto(qos).SerializeAsString(); }

absl::StatusOr<QosDefinition> DecodeQos(const std::string& key, const std::string& blob) {
  return Decode<v1::QosInfo, QosDefinition>("QOS", key, blob, QosFromProto);
}

std::string EncodeAccount(const Account& account) {
  return AccountToProto(account).SerializeAsString();
}

absl::StatusOr<Account> DecodeAccount(const std::string& key, const std::string& blob) {
  return Decode<v1::AccountInfo, Account>("account", key, blob, AccountFromProto);
}

std::string EncodeAcctUser(const AcctUser& user) {
  return AcctUserToProto(user).SerializeAsString();
}

absl::StatusOr<AcctUser> DecodeAcctUser(const std::string& key, const std::string& blob) {
  return Decode<v1::UserInfo, AcctUser>("user", key, blob, AcctUserFromProto);
}

std::string EncodeAssoc(const Association& assoc) {
  return AssocToProto(assoc).SerializeAsString();
}

absl::StatusOr<Association> DecodeAssoc(const std::string& key, const std::string& blob) {
  return Decode<v1::AssocInfo, Association>("association", key, blob, AssocFromProto);
}

std::string EncodeStep(const StepRecord& step) { return StepToProto(step).SerializeAsString(); }

absl::StatusOr<StepRecord> DecodeStep(const std::string& key, const std::string& blob) {
  return Decode<v1::AcctStep, StepRecord>("step", key, blob, StepFromProto);
}

absl::StatusOr<QosTable> QosFromRecords(const std::map<std::string, std::string>& rows) {
  QosTable table;
  if (absl::Status s = DecodeAll(rows, DecodeQos, &table); !s.ok()) return s;
  return table;
}

absl::StatusOr<AccountsTable> AccountsFromRecords(
    const std::map<std::string, std::string>& accounts,
    const std::map<std::string, std::string>& users,
    const std::map<std::string, std::string>& assocs) {
  AccountsTable table;
  if (absl::Status s = DecodeAll(accounts, DecodeAccount, &table.accounts); !s.ok()) return s;
  if (absl::Status s = DecodeAll(users, DecodeAcctUser, &table.users); !s.ok()) return s;
  if (absl::Status s = DecodeAll(assocs, DecodeAssoc, &table.assocs); !s.ok()) return s;
  return table;
}

std::vector<StepRecord> StepsFromRecords(const std::vector<std::string>& blobs) {
  std::vector<StepRecord> steps;
  for (const std::string& blob : blobs) {
    absl::StatusOr<StepRecord> step = DecodeStep("", blob);
    if (step.ok()) steps.push_back(std::move(*step));
  }
  return steps;
}

RecordRow QosRow(const QosDefinition& qos) { return RecordRow{kQosKind, qos.name, EncodeQos(qos)}; }

std::vector<RecordRow> QosRows(const QosUpdateResult& result) {
  std::vector<RecordRow> rows;
  for (const QosDefinition& qos : result.put) rows.push_back(QosRow(qos));
  for (const std::string& name : result.deleted) rows.push_back(RecordRow{kQosKind, name, ""});
  return rows;
}

std::vector<RecordRow> AccountsRows(const AccountsDiff& diff) {
  std::vector<RecordRow> rows;
  // Changed rows, then removed ones, each in stored-key order (the order
  // every release has written them in).
  auto by_key = [](const RecordRow& a, const RecordRow& b) { return a.key < b.key; };
  auto add = [&rows, &by_key](const char* kind, const auto& changed, const auto& removed,
                              auto encode) {
    const size_t first_changed = rows.size();
    for (const auto& [key, row] : changed) {
      rows.push_back(RecordRow{kind, StoredKey(key), encode(row)});
    }
    std::sort(rows.begin() + first_changed, rows.end(), by_key);
    const size_t first_removed = rows.size();
    for (const auto& key : removed) rows.push_back(RecordRow{kind, StoredKey(key), ""});
    std::sort(rows.begin() + first_removed, rows.end(), by_key);
  };
  add(kAccountKind, diff.accounts, diff.removed_accounts, EncodeAccount);
  add(kAcctUserKind, diff.users, diff.removed_users, EncodeAcctUser);
  add(kAssocKind, diff.assocs, diff.removed_assocs, EncodeAssoc);
  return rows;
}

RecordRow StepRow(uint64_t job_id, const StepRecord& step) {
  return RecordRow{kStepKind, StepRecordKey(job_id, step.step_id), EncodeStep(step)};
}

// ---- the lifecycle core's records

std::string EncodeUsage(const UserUsageRecord& usage) {
  return absl::StrCat(usage.usage, " ", usage.as_of, " ", usage.shares);
}

std::optional<UserUsageRecord> DecodeUsage(const std::string& blob) {
  // "USAGE AS_OF SHARES"; rows stored before shares were kept have two fields.
  std::vector<std::string> parts = absl::StrSplit(blob, ' ', absl::SkipEmpty());
  UserUsageRecord usage;
  if (parts.size() < 2 || !absl::SimpleAtod(parts[0], &usage.usage) ||
      !absl::SimpleAtoi(parts[1], &usage.as_of)) {
    return std::nullopt;
  }
  double shares = 0;
  if (parts.size() > 2 && absl::SimpleAtod(parts[2], &shares)) usage.shares = shares;
  return usage;
}

std::string EncodeAssocUsage(const UserUsageRecord& usage) {
  return absl::StrCat(usage.usage, " ", usage.as_of);
}

std::optional<UserUsageRecord> DecodeAssocUsage(const std::string& blob) {
  std::vector<std::string> parts = absl::StrSplit(blob, ' ', absl::SkipEmpty());
  UserUsageRecord usage;
  if (parts.size() < 2 || !absl::SimpleAtod(parts[0], &usage.usage) ||
      !absl::SimpleAtoi(parts[1], &usage.as_of)) {
    return std::nullopt;
  }
  return usage;
}

std::string EncodeBank(const TresMinutes& used) {
  // Billing alone keeps the form records had before the other TRES (a bare
  // number), so an older ctld still reads them.
  if (used.cpu == 0 && used.mem == 0 && used.node == 0 && used.gpu == 0) {
    return absl::StrFormat("%.6f", used.billing);
  }
  std::string out;
  for (BudgetTres tres : kBudgetTres) {
    if (!out.empty()) out += ",";
    absl::StrAppendFormat(&out, "%s=%.6f", BudgetTresName(tres), used[tres]);
  }
  return out;
}

absl::StatusOr<TresMinutes> DecodeBank(const std::string& key, const std::string& blob) {
  auto bad = [&] {
    return absl::DataLossError(absl::StrCat("bank record '", key, "' does not parse: ", blob));
  };
  TresMinutes used;
  if (blob.find('=') == std::string::npos) {
    if (!absl::SimpleAtod(blob, &used.billing)) return bad();
    return used;
  }
  for (absl::string_view item : absl::StrSplit(blob, ',')) {
    const size_t eq = item.find('=');
    if (eq == absl::string_view::npos) return bad();
    const absl::string_view name = item.substr(0, eq);
    double value = 0;
    if (!absl::SimpleAtod(item.substr(eq + 1), &value)) return bad();
    bool known = false;
    for (BudgetTres tres : kBudgetTres) {
      if (name == BudgetTresName(tres)) {
        used[tres] = value;
        known = true;
      }
    }
    if (!known) return bad();
  }
  return used;
}

std::string EncodeNodeAdmin(const NodeAdminState& state) {
  // One line: drain fail down reason_time uid(-1 = ctld) reason (the rest, free text).
  return absl::StrCat(
      state.drain ? 1 : 0, " ", state.fail ? 1 : 0, " ", state.down ? 1 : 0, " ", state.reason_time,
      " ", state.reason_uid ? static_cast<int64_t>(*state.reason_uid) : -1, " ", state.reason);
}

absl::StatusOr<NodeAdminState> DecodeNodeAdmin(const std::string& node_name,
                                               const std::string& text) {
  std::vector<std::string> parts = absl::StrSplit(text, absl::MaxSplits(' ', 5));
  NodeAdminState state;
  int drain = 0, fail = 0, down = 0;
  int64_t uid = -1;
  if (parts.size() != 6 || !absl::SimpleAtoi(parts[0], &drain) ||
      !absl::SimpleAtoi(parts[1], &fail) || !absl::SimpleAtoi(parts[2], &down) ||
      !absl::SimpleAtoi(parts[3], &state.reason_time) || !absl::SimpleAtoi(parts[4], &uid)) {
    return absl::DataLossError(
        absl::StrCat("node state record of ", node_name, " does not parse: ", text));
  }
  state.drain = drain != 0;
  state.fail = fail != 0;
  state.down = down != 0;
  if (uid >= 0) state.reason_uid = static_cast<uint32_t>(uid);
  state.reason = parts[5];
  return state;
}

std::string EncodeResv(const AdvanceReservation& resv) {
  return ResvToProto(resv).SerializeAsString();
}

absl::StatusOr<AdvanceReservation> DecodeResv(const std::string& key, const std::string& blob) {
  return Decode<v1::ReservationInfo, AdvanceReservation>("reservation", key, blob, ResvFromProto);
}

std::string ResvEventKey(const ResvEvent& event) {
  return absl::StrCat(event.name, "|", absl::StrFormat("%020d", event.time));
}

std::string EncodeResvEvent(const ResvEvent& event) {
  v1::ResvEventRecord record;
  record.set_time(event.time);
  record.set_created(event.created);
  if (event.resv) *record.mutable_resv() = ResvToProto(*event.resv);
  record.set_tres(EncodeTres(event.tres));
  return record.SerializeAsString();
}

absl::StatusOr<ResvEvent> DecodeResvEvent(const std::string& key, const std::string& blob) {
  auto bad = [&key](const std::string& why) {
    return absl::DataLossError(absl::StrCat("reservation change record '", key, "' ", why));
  };
  v1::ResvEventRecord record;
  if (!record.ParseFromString(blob)) return bad("does not parse");
  ResvEvent event;
  event.name = key.substr(0, key.rfind('|'));
  event.time = record.time();
  event.created = record.created();
  if (record.has_resv()) event.resv = ResvFromProto(record.resv());
  absl::StatusOr<TresCounts> tres = DecodeTres(record.tres());
  if (!tres.ok()) return bad(std::string(tres.status().message()));
  event.tres = std::move(*tres);
  return event;
}

absl::StatusOr<std::vector<ResvEvent>> LoadResvEvents(JobStore& store) {
  absl::StatusOr<std::map<std::string, std::string>> rows = store.LoadRecords(kResvEventKind);
  if (!rows.ok()) return rows.status();
  std::vector<ResvEvent> out;
  out.reserve(rows->size());
  for (const auto& [key, blob] : *rows) {
    absl::StatusOr<ResvEvent> event = DecodeResvEvent(key, blob);
    if (!event.ok()) return event.status();
    out.push_back(std::move(*event));
  }
  return out;
}

std::vector<RecordRow> EncodeRecords(std::vector<RecordChange> changes) {
  std::vector<RecordRow> rows;
  rows.reserve(changes.size());
  for (RecordChange& change : changes) {
    std::visit(
        [&rows](auto& c) {
          using T = std::decay_t<decltype(c)>;
          if constexpr (std::is_same_v<T, RecordRow>) {
            rows.push_back(std::move(c));
          } else if constexpr (std::is_same_v<T, UsageChange>) {
            rows.push_back({kUsageKind, c.user, EncodeUsage(c.usage)});
          } else if constexpr (std::is_same_v<T, AssocUsageChange>) {
            rows.push_back({kAssocUsageKind, c.key, EncodeAssocUsage(c.usage)});
          } else if constexpr (std::is_same_v<T, BankChange>) {
            rows.push_back({kBankKind, c.key, EncodeBank(c.used)});
          } else if constexpr (std::is_same_v<T, NodeAdminChange>) {
            rows.push_back(
                {kNodeAdminKind, c.node, c.state.empty() ? "" : EncodeNodeAdmin(c.state)});
          } else if constexpr (std::is_same_v<T, QosChange>) {
            rows.push_back({kQosKind, c.name, c.qos ? EncodeQos(*c.qos) : ""});
          } else if constexpr (std::is_same_v<T, AccountsChange>) {
            for (RecordRow& row : AccountsRows(c.diff)) rows.push_back(std::move(row));
          } else if constexpr (std::is_same_v<T, StepChange>) {
            rows.push_back(StepRow(c.job_id, c.step));
          } else if constexpr (std::is_same_v<T, TriggerChange>) {
            rows.push_back({kTriggerRecordKind, absl::StrCat(c.id),
                            c.trigger ? EncodeTrigger(*c.trigger) : ""});
          } else if constexpr (std::is_same_v<T, ResvChange>) {
            rows.push_back({kResvKind, c.name, c.resv ? EncodeResv(*c.resv) : ""});
          } else if constexpr (std::is_same_v<T, ResvEventChange>) {
            rows.push_back({kResvEventKind, ResvEventKey(c.event), EncodeResvEvent(c.event)});
          } else {
            static_assert(sizeof(T) == 0, "a RecordChange with no encoding");
          }
        },
        change);
  }
  return rows;
}

absl::StatusOr<StoredRecords> LoadStoredRecords(JobStore& store) {
  StoredRecords out;
  auto load = [&store](const char* kind) { return store.LoadRecords(kind); };
  absl::StatusOr<std::map<std::string, std::string>> qos = load(kQosKind);
  if (!qos.ok()) return qos.status();
  absl::StatusOr<QosTable> qos_table = QosFromRecords(*qos);
  if (!qos_table.ok()) return qos_table.status();
  out.qos = std::move(*qos_table);
  absl::StatusOr<std::map<std::string, std::string>> accounts = load(kAccountKind);
  if (!accounts.ok()) return accounts.status();
  absl::StatusOr<std::map<std::string, std::string>> users = load(kAcctUserKind);
  if (!users.ok()) return users.status();
  absl::StatusOr<std::map<std::string, std::string>> assocs = load(kAssocKind);
  if (!assocs.ok()) return assocs.status();
  absl::StatusOr<AccountsTable> accounts_table = AccountsFromRecords(*accounts, *users, *assocs);
  if (!accounts_table.ok()) return accounts_table.status();
  out.accounts = std::move(*accounts_table);
  absl::StatusOr<std::map<std::string, std::string>> usage = load(kUsageKind);
  if (!usage.ok()) return usage.status();
  for (const auto& [user, blob] : *usage) {
    if (std::optional<UserUsageRecord> row = DecodeUsage(blob)) out.usage[user] = *row;
  }
  absl::StatusOr<std::map<std::string, std::string>> assoc_usage = load(kAssocUsageKind);
  if (!assoc_usage.ok()) return assoc_usage.status();
  for (const auto& [key, blob] : *assoc_usage) {
    if (std::optional<UserUsageRecord> row = DecodeAssocUsage(blob)) out.assoc_usage[key] = *row;
  }
  absl::StatusOr<std::map<std::string, std::string>> bank = load(kBankKind);
  if (!bank.ok()) return bank.status();
  for (const auto& [key, blob] : *bank) {
    absl::StatusOr<TresMinutes> used = DecodeBank(key, blob);
    if (!used.ok()) return used.status();
    out.bank[key] = *used;
  }
  absl::StatusOr<std::map<std::string, std::string>> node_admin = load(kNodeAdminKind);
  if (!node_admin.ok()) return node_admin.status();
  for (const auto& [node, blob] : *node_admin) {
    absl::StatusOr<NodeAdminState> state = DecodeNodeAdmin(node, blob);
    if (!state.ok()) return state.status();
    out.node_admin[node] = *state;
  }
  absl::StatusOr<std::map<std::string, std::string>> triggers = load(kTriggerRecordKind);
  if (!triggers.ok()) return triggers.status();
  for (const auto& [key, blob] : *triggers) {
    absl::StatusOr<Trigger> trigger = DecodeTrigger(blob);
    if (!trigger.ok()) return trigger.status();
    out.triggers.push_back(std::move(*trigger));
  }
  absl::StatusOr<std::map<std::string, std::string>> resv = load(kResvKind);
  if (!resv.ok()) return resv.status();
  if (absl::Status s = DecodeAll(*resv, DecodeResv, &out.advance_reservations); !s.ok()) return s;
  return out;
}

std::vector<RecordRow> SeedNewDatabase(StoredRecords& records) {
  std::vector<RecordRow> rows;
  if (records.qos.empty()) {
    // Slurm's default QOS, so jobs without --qos have one.
    QosDefinition normal = QosWithDefaults("normal");
    normal.id = 1;  // Slurm's id for its default QOS
    rows.push_back(QosRow(normal));
    records.qos["normal"] = std::move(normal);
  }
  if (records.accounts.accounts.empty()) {
    // Slurm's root account and user.
    AccountsTable initial = InitialAccounts();
    for (RecordRow& row : AccountsRows(DiffAccounts(AccountsTable{}, initial))) {
      rows.push_back(std::move(row));
    }
    records.accounts = std::move(initial);
  }
  return rows;
}

}  // namespace skiff::ctld
