// The codec of the records ctld stores for sacctmgr's tables and job steps,
// in one place: each record's `kind` in the job store's records table, its
// key, and the bytes of its blob. Blobs are the serialized v1 messages
// (QosInfo, AccountInfo, UserInfo, AssocInfo, AcctStep) or the text lines that
// ctld has always stored, so existing databases load and a row written now has
// the bytes it had before; the plain structs are ctld/core's (accounting's
// converted by ctld/rpc/acct_convert.h). The lifecycle core names what an
// event changes with typed RecordChanges (effects.h); EncodeRecords makes
// them rows when the Controller stores the event.
//
//   kind        key                          blob
//   qos         QOS name                     v1::QosInfo
//   account     account name                 v1::AccountInfo
//   acct_user   user name                    v1::UserInfo
//   assoc       AssocKey::RecordKey          v1::AssocInfo
//   step        StepRecordKey (job, step)    v1::AcctStep
//   usage       user name                    "USAGE AS_OF SHARES" (fair share)
//   assoc_usage AssocKey::UsageRecordKey     "USAGE AS_OF"
//   bank        BankKey::RecordKey           billing-minutes used, "%.6f"
//   node_admin  node name                    "DRAIN FAIL DOWN TIME UID REASON"
//   resv        reservation name             v1::ReservationInfo (its stored fields)
//   resv_event  "name|time" (time 20 digits) v1::ResvEventRecord (one per change, kept)
//
// (Partition overrides, join tokens and event triggers are the Controller's
// own records: ctld/core/partition_update.h, common/join, ctld/core/triggers.)
//
// An empty blob in a RecordRow removes the record.
//
// Threads: none; pure functions (no I/O: the caller reads and writes the store).
#ifndef SKIFF_CTLD_STATE_RECORDS_H_
#define SKIFF_CTLD_STATE_RECORDS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ctld/core/accounting/accounts.h"
#include "ctld/core/accounting/qos.h"
#include "ctld/core/accounting/step_book.h"
#include "ctld/core/lifecycle/effects.h"
#include "ctld/core/lifecycle/journaled_state.h"
#include "ctld/core/node_table.h"
#include "ctld/core/scheduler/from_ctld.h"
#include "ctld/state/job_store.h"

namespace skiff::ctld {

inline constexpr char kQosKind[] = "qos";
inline constexpr char kAccountKind[] = "account";
inline constexpr char kAcctUserKind[] = "acct_user";
inline constexpr char kAssocKind[] = "assoc";
inline constexpr char kStepKind[] = "step";
inline constexpr char kUsageKind[] = "usage";
inline constexpr char kAssocUsageKind[] = "assoc_usage";
inline constexpr char kBankKind[] = "bank";
inline constexpr char kNodeAdminKind[] = "node_admin";
inline constexpr char kResvKind[] = "resv";
inline constexpr char kResvEventKind[] = "resv_event";

// Encode/Decode pairs. Decode's error is DataLoss naming the record by `key`
// ("QOS record 'high' does not parse").
std::string EncodeQos(const QosDefinition& qos);
absl::StatusOr<QosDefinition> DecodeQos(const std::string& key, const std::string& blob);
std::string EncodeAccount(const Account& account);
absl::StatusOr<Account> DecodeAccount(const std::string& key, const std::string& blob);
std::string EncodeAcctUser(const AcctUser& user);
absl::StatusOr<AcctUser> DecodeAcctUser(const std::string& key, const std::string& blob);
std::string EncodeAssoc(const Association& assoc);
absl::StatusOr<Association> DecodeAssoc(const std::string& key, const std::string& blob);
std::string EncodeStep(const StepRecord& step);
absl::StatusOr<StepRecord> DecodeStep(const std::string& key, const std::string& blob);

// Fair-share usage. nullopt when the row does not parse: usage only shapes
// priority, so such a row is dropped rather than refused at start-up.
std::string EncodeUsage(const UserUsageRecord& usage);
std::optional<UserUsageRecord> DecodeUsage(const std::string& blob);
std::string EncodeAssocUsage(const UserUsageRecord& usage);
std::optional<UserUsageRecord> DecodeAssocUsage(const std::string& blob);
// Service units: a row that does not parse is DataLoss (money is never guessed).
// "billing=B,cpu=C,mem=M,node=N,gres/gpu=G"; billing alone as a bare number,
// the form of records written before the other TRES.
std::string EncodeBank(const TresMinutes& used);
absl::StatusOr<TresMinutes> DecodeBank(const std::string& key, const std::string& blob);
// DataLoss names the node.
std::string EncodeNodeAdmin(const NodeAdminState& state);
absl::StatusOr<NodeAdminState> DecodeNodeAdmin(const std::string& node, const std::string& blob);

// Advance reservations. DataLoss names the reservation.
std::string EncodeResv(const AdvanceReservation& resv);
absl::StatusOr<AdvanceReservation> DecodeResv(const std::string& key, const std::string& blob);
// A reservation's change as sreport reads it back; its key sorts a
// reservation's changes by time. Two changes of one reservation in the same
// second share a key: the later one, which stands, is kept.
std::string ResvEventKey(const ResvEvent& event);
std::string EncodeResvEvent(const ResvEvent& event);
absl::StatusOr<ResvEvent> DecodeResvEvent(const std::string& key, const std::string& blob);
// Every stored reservation change (the store's reads: call without locks).
absl::StatusOr<std::vector<ResvEvent>> LoadResvEvents(JobStore& store);
// The rows of an event's typed changes, in the order the event made them.
std::vector<RecordRow> EncodeRecords(std::vector<RecordChange> changes);

// StoredRecords (journaled_state.h): every stored record Recover needs
// besides the jobs and the Controller's own.
// Reads and decodes them (the store's reads: call without locks). DataLoss
// names a row that does not parse, except usage rows (dropped, see above).
absl::StatusOr<StoredRecords> LoadStoredRecords(JobStore& store);
// A new database has neither QOS nor accounts: Slurm's default QOS "normal"
// (id 1) and its initial accounts (InitialAccounts) go into `records`, and
// their rows are returned to be stored before ctld serves anything.
std::vector<RecordRow> SeedNewDatabase(StoredRecords& records);

// ---- whole tables, as JobStore::LoadRecords returns them (key -> blob)

// The QOS table, by key. DataLoss names a row that does not parse.
absl::StatusOr<QosTable> QosFromRecords(const std::map<std::string, std::string>& rows);
// The accounts tables, by key. DataLoss names a row that does not parse.
absl::StatusOr<AccountsTable> AccountsFromRecords(
    const std::map<std::string, std::string>& accounts,
    const std::map<std::string, std::string>& users,
    const std::map<std::string, std::string>& assocs);
// The steps of stored records (LoadRecordRange), in their order; records that
// do not parse are skipped.
std::vector<StepRecord> StepsFromRecords(const std::vector<std::string>& blobs);

// ---- rows to store (JobStore::Save's records)

// An update's rows: the rows put, then the QOS deleted.
std::vector<RecordRow> QosRows(const QosUpdateResult& result);
RecordRow QosRow(const QosDefinition& qos);
// Per kind (account, acct_user, assoc): the rows added or changed, then the
// rows removed, each in key order.
std::vector<RecordRow> AccountsRows(const AccountsDiff& diff);
RecordRow StepRow(uint64_t job_id, const StepRecord& step);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_STATE_RECORDS_H_
