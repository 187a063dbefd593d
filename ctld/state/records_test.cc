#include "ctld/state/records.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace skiff::ctld {

// For comparing rows here (found by argument lookup, so in RecordRow's namespace).
bool operator==(const RecordRow& a, const RecordRow& b) {
  return a.kind == b.kind && a.key == b.key && a.blob == b.blob;
}

void PrintTo(const RecordRow& row, std::ostream* os) {
  *os << row.kind << "/" << row.key << " (" << row.blob.size() << " bytes)";
}

namespace {

using namespace std::string_literals;

// Rows as ctld stored them before the tables were plain structs: written by
// the code this change replaced (v1 messages built by ctld/qos_table.cc and
// ctld/accounts/accounts_table.cc), for the scenarios below.
const std::vector<RecordRow> kQosRows = {
    {"qos", "normal",
     "\x0a\x06\x6e\x6f\x72\x6d\x61\x6c\x22\x2c\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x10\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x18\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x20\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x2a\x2c\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x10\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x18\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x20\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x30\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x38\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x40\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x52\x07\x63\x6c\x75\x73\x74\x65\x72\x59\x00\x00\x00\x00\x00\x00\xf0\x3f\x68\x01"s},
    {"qos", "high",
     "\x0a\x04\x68\x69\x67\x68\x12\x0c\x74\x68\x65\x20\x68\x69\x67\x68\x20\x6f\x6e\x65\x18\xe8\x07\x22\x23\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x10\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x18\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x20\x04\x2a\x1b\x08\x40\x10\x80\x50\x18\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x20\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x30\x02\x38\x0a\x40\x90\x1c\x4a\x06\x6e\x6f\x72\x6d\x61\x6c\x52\x07\x52\x45\x51\x55\x45\x55\x45\x59\x00\x00\x00\x00\x00\x00\x04\x40\x60\x1e\x68\x02"s},
};
const std::vector<RecordRow> kInitialAccountRows = {
    {"account", "root",
     "\x0a\x04\x72\x6f\x6f\x74\x12\x14\x64\x65\x66\x61\x75\x6c\x74\x20\x72\x6f\x6f\x74\x20\x61\x63\x63\x6f\x75\x6e\x74\x1a\x04\x72\x6f\x6f\x74"s},
    {"acct_user", "root",
     "\x0a\x04\x72\x6f\x6f\x74\x12\x04\x72\x6f\x6f\x74\x1a\x0d\x41\x64\x6d\x69\x6e\x69\x73\x74\x72\x61\x74\x6f\x72"s},
    {"assoc", "root|root|", "\x08\x02\x12\x04\x72\x6f\x6f\x74\x1a\x04\x72\x6f\x6f\x74"s},
    {"assoc", "root||", "\x08\x01\x12\x04\x72\x6f\x6f\x74\x3a\x06\x6e\x6f\x72\x6d\x61\x6c"s},
};
const std::vector<RecordRow> kLabAccountRows = {
    {"account", "research",
     "\x0a\x08\x72\x65\x73\x65\x61\x72\x63\x68\x12\x0e\x52\x65\x73\x65\x61\x72\x63\x68\x20\x67\x72\x6f\x75\x70\x1a\x07\x73\x63\x69\x65\x6e\x63\x65\x22\x04\x72\x6f\x6f\x74"s},
    {"account", "root", "\x0a\x04\x72\x6f\x6f\x74\x12\x03\x74\x6f\x70\x1a\x04\x72\x6f\x6f\x74"s},
    {"acct_user", "alice",
     "\x0a\x05\x61\x6c\x69\x63\x65\x12\x08\x72\x65\x73\x65\x61\x72\x63\x68\x1a\x08\x4f\x70\x65\x72\x61\x74\x6f\x72\x20\xe8\x07"s},
    {"assoc", "research|alice|gpu",
     "\x08\x04\x12\x08\x72\x65\x73\x65\x61\x72\x63\x68\x1a\x05\x61\x6c\x69\x63\x65\x22\x03\x67\x70\x75\x32\x0d\x08\x03\x28\x04\x30\x08\x3a\x02\x20\x02\x40\xa0\x38\x3a\x03\x6c\x6f\x77\x3a\x06\x6e\x6f\x72\x6d\x61\x6c\x42\x06\x6e\x6f\x72\x6d\x61\x6c"s},
    {"assoc", "research||",
     "\x08\x03\x12\x08\x72\x65\x73\x65\x61\x72\x63\x68\x2a\x04\x72\x6f\x6f\x74\x32\x09\x12\x00\x18\x0a\x20\x14\x48\x88\x27"s},
    {"assoc", "root||",
     "\x08\x01\x12\x04\x72\x6f\x6f\x74\x32\x00\x3a\x06\x6e\x6f\x72\x6d\x61\x6c"s},
};
const std::vector<RecordRow> kStepRows = {
    {"step", "00000000000000000042.0000000003",
     "\x0a\x01\x33\x12\x05\x74\x72\x61\x69\x6e\x1a\x09\x43\x4f\x4d\x50\x4c\x45\x54\x45\x44\x20\x02\x28\x09\x30\xe8\x07\x38\xcc\x08\x40\x08\x48\x02\x52\x06\x6e\x5b\x31\x2d\x32\x5d\x58\x04\x62\x15\x63\x70\x75\x3d\x38\x2c\x6d\x65\x6d\x3d\x32\x30\x30\x4d\x2c\x6e\x6f\x64\x65\x3d\x32\x6a\x0c\x63\x70\x75\x3d\x38\x2c\x6e\x6f\x64\x65\x3d\x32\x70\x05\x7a\x06\x6c\x6f\x67\x69\x6e\x31\x80\x01\x92\x21\x88\x01\x01\x90\x01\xc0\xc4\x07\x98\x01\xd2\x3d\xa0\x01\x80\x10\xaa\x01\x02\x6e\x32\xb0\x01\x03\xb8\x01\x80\x08"s},
    {"step", "00000000000000000042.~extern",
     "\x0a\x06\x65\x78\x74\x65\x72\x6e\x1a\x07\x52\x55\x4e\x4e\x49\x4e\x47\x30\x05"s},
};

// The QOS of a new database, and `sacctmgr add qos High ...` with every field.
std::vector<RecordRow> QosScenario() {
  QosDefinition normal = QosWithDefaults("normal");
  normal.id = 1;
  QosTable table{{"normal", normal}};
  QosUpdate add;
  add.op = QosOp::kAdd;
  add.names = {"High"};
  add.changes.description = "the high one";
  add.changes.priority = 1000;
  add.changes.max_tres_per_user.gpu = 4;
  add.changes.max_tres_per_job.cpu = 64;
  add.changes.max_tres_per_job.mem_mb = 10240;
  add.changes.max_jobs_per_user = 2;
  add.changes.max_submit_jobs_per_user = 10;
  add.changes.max_wall = 3600;
  add.changes.preempt = "normal";
  add.changes.preempt_mode = "requeue";
  add.changes.usage_factor = 2.5;
  add.changes.grace_time = 30;
  absl::StatusOr<QosUpdateResult> result = ApplyQosUpdate(table, add, {});
  EXPECT_TRUE(result.ok()) << result.status();
  std::vector<RecordRow> rows = {QosRow(normal)};
  for (RecordRow& row : QosRows(*result)) rows.push_back(std::move(row));
  return rows;
}

AccountsTable Apply(const AccountsTable& table, const AccountsUpdate& update) {
  AccountsContext context;
  context.qos_names = {"normal", "low", "high"};
  context.uids = {{"alice", 1000}};
  absl::StatusOr<AccountsUpdateResult> result = ApplyAccountsUpdate(table, update, context, "lab");
  EXPECT_TRUE(result.ok()) << result.status();
  return result.ok() ? result->table : table;
}

// An account with limits, a user with every setting, a GrpTRES cleared (the
// list stays, empty) and root's association modified (it gains empty limits).
AccountsTable LabScenario() {
  AccountsTable table = InitialAccounts();
  AccountsUpdate account;
  account.op = AccountsOp::kAddAccount;
  account.names = {"Research"};
  account.description = "Research group";
  account.organization = "science";
  account.limits.grp_jobs = 10;
  account.limits.grp_tres.emplace().cpu = 64;
  account.limits.grp_billing_mins = 5000;
  table = Apply(table, account);
  AccountsUpdate user;
  user.op = AccountsOp::kAddUser;
  user.names = {"alice"};
  user.accounts = {"research"};
  user.partitions = {"gpu"};
  user.qos = {"normal", "low"};
  user.qos_op = "=";
  user.default_qos = "normal";
  user.admin_level = "Operator";
  user.limits.fairshare = 3;
  user.limits.max_jobs = 4;
  user.limits.max_submit_jobs = 8;
  user.limits.max_wall = 7200;
  user.limits.max_tres_per_job.emplace().gpu = 2;
  table = Apply(table, user);
  AccountsUpdate clear;
  clear.op = AccountsOp::kModifyAccount;
  clear.names = {"research"};
  clear.limits.grp_tres.emplace().cpu = -1;
  clear.limits.grp_submit_jobs = 20;
  table = Apply(table, clear);
  AccountsUpdate root;
  root.op = AccountsOp::kModifyAccount;
  root.names = {"root"};
  root.description = "top";
  return Apply(table, root);
}

StepRecord FullStep() {
  StepRecord step;
  step.step_id = "3";
  step.name = "train";
  step.state = "COMPLETED";
  step.exit_code = 2;
  step.exit_signal = 9;
  step.start_time = 1000;
  step.end_time = 1100;
  step.alloc_cpus = 8;
  step.num_nodes = 2;
  step.node_list = "n[1-2]";
  step.ntasks = 4;
  step.alloc_tres = "cpu=8,mem=200M,node=2";
  step.req_tres = "cpu=8,node=2";
  step.suspended = 5;
  step.srun_host = "login1";
  step.srun_pid = 4242;
  step.has_usage = true;
  step.user_cpu_usec = 123456;
  step.system_cpu_usec = 7890;
  step.max_rss_kb = 2048;
  step.max_rss_node = "n2";
  step.max_rss_task = 3;
  step.ave_rss_kb = 1024;
  return step;
}

TEST(Records, KindsAreThoseAlwaysStored) {
  EXPECT_STREQ(kQosKind, "qos");
  EXPECT_STREQ(kAccountKind, "account");
  EXPECT_STREQ(kAcctUserKind, "acct_user");
  EXPECT_STREQ(kAssocKind, "assoc");
  EXPECT_STREQ(kStepKind, "step");
}

TEST(Records, QosRowsAreWrittenAsBefore) { EXPECT_EQ(QosScenario(), kQosRows); }

TEST(Records, AccountRowsAreWrittenAsBefore) {
  EXPECT_EQ(AccountsRows(DiffAccounts(AccountsTable{}, InitialAccounts())), kInitialAccountRows);
  EXPECT_EQ(AccountsRows(DiffAccounts(InitialAccounts(), LabScenario())), kLabAccountRows);
}

TEST(Records, StepRowsAreWrittenAsBefore) {
  StepRecord external;
  external.step_id = "extern";
  external.state = "RUNNING";
  external.start_time = 5;
  EXPECT_EQ((std::vector<RecordRow>{StepRow(42, FullStep()), StepRow(42, external)}), kStepRows);
}

TEST(Records, StoredQosDecodesAndEncodesByteForByte) {
  std::map<std::string, std::string> rows;
  for (const RecordRow& row : kQosRows) rows[row.key] = row.blob;
  absl::StatusOr<QosTable> table = QosFromRecords(rows);
  ASSERT_TRUE(table.ok()) << table.status();
  const QosDefinition& high = table->at("high");
  EXPECT_EQ(high.description, "the high one");
  EXPECT_EQ(high.priority, 1000);
  EXPECT_EQ(high.max_tres_per_user.gpu, 4);
  EXPECT_EQ(high.max_tres_per_user.cpu, kNoLimit);
  EXPECT_EQ(high.max_tres_per_job.mem_mb, 10240);
  EXPECT_EQ(high.max_jobs_per_user, 2);
  EXPECT_EQ(high.max_submit_jobs_per_user, 10);
  EXPECT_EQ(high.max_wall, 3600);
  EXPECT_EQ(high.preempt, std::vector<std::string>{"normal"});
  EXPECT_EQ(high.preempt_mode, "REQUEUE");
  EXPECT_DOUBLE_EQ(high.usage_factor, 2.5);
  EXPECT_EQ(high.grace_time, 30);
  EXPECT_EQ(high.id, 2u);
  EXPECT_EQ(table->at("normal").id, 1u);
  for (const RecordRow& row : kQosRows) {
    EXPECT_EQ(EncodeQos(table->at(row.key)), row.blob) << row.key;
  }
}

TEST(Records, StoredAccountsDecodeAndEncodeByteForByte) {
  std::map<std::string, std::string> accounts, users, assocs;
  for (const std::vector<RecordRow>* rows : {&kInitialAccountRows, &kLabAccountRows}) {
    for (const RecordRow& row : *rows) {
      if (row.kind == kAccountKind) accounts[row.key] = row.blob;
      if (row.kind == kAcctUserKind) users[row.key] = row.blob;
      if (row.kind == kAssocKind) assocs[row.key] = row.blob;
    }
  }
  absl::StatusOr<AccountsTable> table = AccountsFromRecords(accounts, users, assocs);
  ASSERT_TRUE(table.ok()) << table.status();
  // The database holds the lab scenario's tables exactly.
  const AccountsTable lab = LabScenario();
  EXPECT_TRUE(DiffAccounts(lab, *table).empty());
  const Association& alice = table->assocs.at(AssocKey{"research", "alice", "gpu"});
  ASSERT_TRUE(alice.limits.has_value());
  EXPECT_EQ(alice.limits->fairshare, 3);
  EXPECT_EQ(alice.limits->max_tres_per_job,
            (TresSpec{std::nullopt, std::nullopt, std::nullopt, 2}));
  EXPECT_EQ(alice.qos, (std::vector<std::string>{"low", "normal"}));
  EXPECT_EQ(alice.default_qos, "normal");
  const Association& research = table->assocs.at(AssocKey::Account("research"));
  ASSERT_TRUE(research.limits && research.limits->grp_tres);
  EXPECT_EQ(*research.limits->grp_tres, TresSpec{});
  EXPECT_EQ(table->users.at("alice").uid, 1000);
  EXPECT_EQ(table->users.at("root").uid, 0);
  EXPECT_EQ(table->accounts.at("research").organization, "science");
  for (const auto& [key, blob] : accounts) EXPECT_EQ(EncodeAccount(table->accounts.at(key)), blob);
  for (const auto& [key, blob] : users) EXPECT_EQ(EncodeAcctUser(table->users.at(key)), blob);
  for (const auto& [key, blob] : assocs) {
    // The stored key is the association's own RecordKey.
    EXPECT_EQ(EncodeAssoc(table->assocs.at(*AssocKey::FromRecordKey(key))), blob) << key;
  }
}

TEST(Records, StoredStepsDecodeAndEncodeByteForByte) {
  std::vector<std::string> blobs;
  for (const RecordRow& row : kStepRows) blobs.push_back(row.blob);
  const std::vector<StepRecord> steps = StepsFromRecords(blobs);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0], FullStep());
  EXPECT_EQ(steps[1].step_id, "extern");
  for (size_t i = 0; i < steps.size(); ++i) EXPECT_EQ(EncodeStep(steps[i]), blobs[i]);
}

TEST(Records, EncodeThenDecodeGivesTheStructBack) {
  QosDefinition qos = QosWithDefaults("scav");
  qos.max_tres_per_job = TresSpec{};  // nothing set: stays nothing
  qos.max_tres_per_user.gpu.reset();
  qos.preempt = {"a", "b"};
  qos.id = 9;
  absl::StatusOr<QosDefinition> qos_back = DecodeQos("scav", EncodeQos(qos));
  ASSERT_TRUE(qos_back.ok());
  EXPECT_EQ(*qos_back, qos);

  for (const auto& [key, assoc] : LabScenario().assocs) {
    absl::StatusOr<Association> back = DecodeAssoc(key.RecordKey(), EncodeAssoc(assoc));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, assoc) << key.RecordKey();
  }
  Association bare;  // no limits at all, and limits with nothing set, differ
  bare.account = "x";
  EXPECT_FALSE(DecodeAssoc("x||", EncodeAssoc(bare))->limits.has_value());
  bare.limits.emplace();
  EXPECT_TRUE(DecodeAssoc("x||", EncodeAssoc(bare))->limits.has_value());

  AcctUser unknown{"carol", "research", "None", -1};
  EXPECT_EQ(*DecodeAcctUser("carol", EncodeAcctUser(unknown)), unknown);
  Account account{"ml", "Machine learning", "science", "research"};
  EXPECT_EQ(*DecodeAccount("ml", EncodeAccount(account)), account);
  EXPECT_EQ(*DecodeStep("k", EncodeStep(FullStep())), FullStep());
}

TEST(Records, RowsThatDoNotParseAreDataLossOrSkippedForSteps) {
  EXPECT_EQ(DecodeQos("high", "\xff").status(),
            absl::DataLossError("QOS record 'high' does not parse"));
  EXPECT_EQ(QosFromRecords({{"high", "\xff"}}).status(),
            absl::DataLossError("QOS record 'high' does not parse"));
  EXPECT_EQ(AccountsFromRecords({{"x", "\xff"}}, {}, {}).status(),
            absl::DataLossError("account record 'x' does not parse"));
  EXPECT_EQ(AccountsFromRecords({}, {{"bob", "\xff"}}, {}).status(),
            absl::DataLossError("user record 'bob' does not parse"));
  EXPECT_EQ(AccountsFromRecords({}, {}, {{"a||", "\xff"}}).status(),
            absl::DataLossError("association record 'a||' does not parse"));
  const RecordRow row = StepRow(7, FullStep());
  EXPECT_EQ(row.kind, "step");
  EXPECT_EQ(row.key, StepRecordKey(7, "3"));
  const std::vector<StepRecord> steps = StepsFromRecords({row.blob, "not a step \xff"});
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].step_id, "3");
}

TEST(Records, QosRowsPutThenDelete) {
  QosUpdateResult result;
  result.put = {QosWithDefaults("normal")};
  result.deleted = {"low"};
  const std::vector<RecordRow> rows = QosRows(result);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].key, "normal");
  EXPECT_FALSE(rows[0].blob.empty());
  EXPECT_EQ(rows[1], (RecordRow{"qos", "low", ""}));
}

// The lifecycle core's records: written as ctld has always written them, and
// read back whole.
TEST(Records, UsageBankAndNodeAdminRowsAreTheTextAlwaysStored) {
  UserUsageRecord usage;
  usage.usage = 1234.5;
  usage.as_of = 1700000000;
  usage.shares = 2;
  const std::vector<RecordRow> rows = EncodeRecords(
      {UsageChange{"alice", usage}, AssocUsageChange{"lab|alice", usage},
       BankChange{"lab|alice", TresMinutes{12.25}}, NodeAdminChange{"n1", NodeAdminState{}}});
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0], (RecordRow{"usage", "alice", "1234.5 1700000000 2"}));
  EXPECT_EQ(rows[1], (RecordRow{"assoc_usage", "lab|alice", "1234.5 1700000000"}));
  EXPECT_EQ(rows[2], (RecordRow{"bank", "lab|alice", "12.250000"}));
  EXPECT_EQ(rows[3], (RecordRow{"node_admin", "n1", ""}));  // nothing decided: deleted
  EXPECT_EQ(DecodeUsage(rows[0].blob)->shares, 2);
  EXPECT_EQ(DecodeAssocUsage(rows[1].blob)->as_of, 1700000000);
  EXPECT_EQ(DecodeBank("lab|alice", rows[2].blob)->billing, 12.25);
}

// Other TRES than billing: every budget TRES by name; the bare number of
// older records stays billing.
TEST(Records, BankRowsCarryEveryBudgetTres) {
  const TresMinutes used{12.5, 60, 1024, 1, 3};
  const std::string blob = EncodeBank(used);
  EXPECT_EQ(blob,
            "billing=12.500000,cpu=60.000000,mem=1024.000000,node=1.000000,gres/gpu=3.000000");
  EXPECT_EQ(*DecodeBank("lab|alice", blob), used);
  EXPECT_EQ(*DecodeBank("lab|alice", "7.000000"), TresMinutes{7});
  EXPECT_FALSE(DecodeBank("lab|alice", "billing=1,watts=2").ok());
  EXPECT_FALSE(DecodeBank("lab|alice", "gres/gpu=x").ok());
}

TEST(Records, UsageRowsThatDoNotParseAreDroppedBankRowsAreRefused) {
  EXPECT_FALSE(DecodeUsage("garbage").has_value());
  EXPECT_FALSE(DecodeAssocUsage("1.5").has_value());
  EXPECT_EQ(DecodeUsage("1.5 100")->shares, 1.0);  // rows from before shares were kept
  EXPECT_EQ(DecodeBank("lab|bob", "x").status(),
            absl::DataLossError("bank record 'lab|bob' does not parse: x"));
}

TEST(Records, NodeAdminStatesRoundTrip) {
  NodeAdminState drained;
  drained.drain = true;
  drained.reason = "disk swap soon";
  drained.reason_time = 50;
  drained.reason_uid = 1000;
  NodeAdminState ctld_drain;  // ctld's own drain: no uid
  ctld_drain.drain = true;
  ctld_drain.reason = "Prolog error";
  NodeAdminState failing;
  failing.fail = true;
  failing.reason = "ecc errors";
  for (const NodeAdminState& state : {drained, ctld_drain, failing}) {
    absl::StatusOr<NodeAdminState> decoded = DecodeNodeAdmin("n", EncodeNodeAdmin(state));
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    EXPECT_EQ(*decoded, state);
  }
  EXPECT_EQ(DecodeNodeAdmin("n9", "1 x").status().code(), absl::StatusCode::kDataLoss);
}

TEST(Records, EveryTypedChangeBecomesItsRows) {
  AccountsChange accounts{DiffAccounts(AccountsTable{}, InitialAccounts())};
  StepRecord step;
  step.step_id = "0";
  const std::vector<RecordRow> rows =
      EncodeRecords({QosChange{"high", QosWithDefaults("high")}, QosChange{"low", std::nullopt},
                     accounts, StepChange{42, step}, RecordRow{"trigger", "7", "x"}});
  std::vector<std::string> kinds;
  for (const RecordRow& row : rows) kinds.push_back(row.kind);
  // qos put, qos deleted, the initial account, user and associations, the
  // step, and the Controller's own row as it was.
  EXPECT_EQ(kinds.front(), "qos");
  EXPECT_EQ(rows[1], (RecordRow{"qos", "low", ""}));
  EXPECT_EQ(rows.back(), (RecordRow{"trigger", "7", "x"}));
  EXPECT_EQ(rows[rows.size() - 2].kind, "step");
  EXPECT_EQ(rows[rows.size() - 2].key, StepRecordKey(42, "0"));
  EXPECT_EQ(std::count(kinds.begin(), kinds.end(), "account"), 1);
  EXPECT_EQ(std::count(kinds.begin(), kinds.end(), "acct_user"), 1);
}

TEST(Records, ANewDatabaseIsSeededOnceWithNormalAndRoot) {
  StoredRecords records;
  const std::vector<RecordRow> seed = SeedNewDatabase(records);
  ASSERT_FALSE(seed.empty());
  EXPECT_EQ(seed.front().kind, "qos");
  EXPECT_EQ(records.qos.at("normal").id, 1u);
  EXPECT_EQ(records.accounts.accounts.count("root"), 1u);
  EXPECT_TRUE(SeedNewDatabase(records).empty());  // seeded: nothing more
}

TEST(Records, ReservationsRoundTripAndDeleteWithAnEmptyBlob) {
  AdvanceReservation resv;
  resv.name = "gpus";
  resv.start = 1800000000;
  resv.end = 1800003600;
  resv.nodes = {"n1", "n2"};
  resv.node_gpus = {1, 2};
  resv.partition = "gpu";
  resv.users = {"alice", "bob"};
  resv.accounts = {"lab"};
  resv.flags = kResvDaily | kResvUserDelete;
  const std::vector<RecordRow> rows =
      EncodeRecords({ResvChange{"gpus", resv}, ResvChange{"old", std::nullopt}});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].kind, "resv");
  EXPECT_EQ(rows[0].key, "gpus");
  absl::StatusOr<AdvanceReservation> back = DecodeResv(rows[0].key, rows[0].blob);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->name, resv.name);
  EXPECT_EQ(back->start, resv.start);
  EXPECT_EQ(back->end, resv.end);
  EXPECT_EQ(back->nodes, resv.nodes);
  EXPECT_EQ(back->node_gpus, resv.node_gpus);
  EXPECT_EQ(back->partition, resv.partition);
  EXPECT_EQ(back->users, resv.users);
  EXPECT_EQ(back->accounts, resv.accounts);
  EXPECT_EQ(back->flags, resv.flags);
  EXPECT_EQ(rows[1].blob, "");  // removes the record
  EXPECT_EQ(DecodeResv("bad", "\xff\xff").status().code(), absl::StatusCode::kDataLoss);
}

// Reservation changes are kept (never removed) under keys that sort a
// reservation's changes by time.
TEST(Records, ReservationChangesRoundTripInTimeOrder) {
  AdvanceReservation resv;
  resv.name = "lab|x";
  resv.start = 1800000000;
  resv.end = 1800003600;
  resv.nodes = {"n1"};
  resv.flags = kResvMaint;
  const std::vector<RecordRow> rows =
      EncodeRecords({ResvEventChange{{"lab|x", 999, true, resv, {{"cpu", 8}, {"node", 1}}}},
                     ResvEventChange{{"lab|x", 1000, false, std::nullopt, {}}}});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].kind, "resv_event");
  EXPECT_LT(rows[0].key, rows[1].key);
  EXPECT_NE(rows[1].blob, "");  // a delete is a change kept, not a removal
  absl::StatusOr<ResvEvent> created = DecodeResvEvent(rows[0].key, rows[0].blob);
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_EQ(created->name, "lab|x");
  EXPECT_EQ(created->time, 999);
  EXPECT_TRUE(created->created);
  ASSERT_TRUE(created->resv.has_value());
  EXPECT_EQ(created->resv->flags, kResvMaint);
  EXPECT_EQ(created->tres, (TresCounts{{"cpu", 8}, {"node", 1}}));
  absl::StatusOr<ResvEvent> deleted = DecodeResvEvent(rows[1].key, rows[1].blob);
  ASSERT_TRUE(deleted.ok()) << deleted.status();
  EXPECT_FALSE(deleted->resv.has_value());
  EXPECT_EQ(DecodeResvEvent("x|1", "\xff\xff").status().code(), absl::StatusCode::kDataLoss);
}

}  // namespace
}  // namespace skiff::ctld
