#include "ctld/core/accounting/qos.h"

#include <gtest/gtest.h>

namespace skiff::ctld {
namespace {

QosTable WithNormal() { return {{"normal", QosWithDefaults("normal")}}; }

QosUpdate Request(QosOp op, std::vector<std::string> names) {
  QosUpdate r;
  r.op = op;
  r.names = std::move(names);
  return r;
}

TEST(QosTableTest, AddWithLimitsThenSchedulerSeesThem) {
  QosUpdate r = Request(QosOp::kAdd, {"High"});
  r.changes.priority = 1000;
  r.changes.max_tres_per_user.gpu = 4;
  r.changes.max_jobs_per_user = 2;
  auto result = ApplyQosUpdate(WithNormal(), r, {});
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->put.size(), 1u);
  EXPECT_EQ(result->put[0].name, "high");  // QOS names are lower case, as in Slurm
  Qos q = ToSchedQos(result->put[0]);
  EXPECT_EQ(q.priority, 1000);
  EXPECT_EQ(q.max_tres_per_user.gpus, 4);
  EXPECT_EQ(q.max_tres_per_user.cpus, kNoLimit);
  EXPECT_EQ(q.max_jobs_per_user, 2);
  EXPECT_EQ(q.max_wall, kNoLimit);
  EXPECT_DOUBLE_EQ(q.usage_factor, 1.0);
  EXPECT_FALSE(NamesAnyTres(q.max_tres_run_mins_per_user));
}

TEST(QosTableTest, TresMinuteLimitsReachTheSchedulerAndMinusOneClears) {
  QosUpdate add = Request(QosOp::kAdd, {"gpu"});
  add.changes.grp_tres_run_mins.gpu = 600;
  add.changes.max_tres_run_mins_per_user.gpu = 240;
  add.changes.max_tres_run_mins_per_user.cpu = 1000;
  add.changes.max_tres_mins_per_job.gpu = 120;
  auto added = ApplyQosUpdate(WithNormal(), add, {});
  ASSERT_TRUE(added.ok()) << added.status();
  Qos q = ToSchedQos(added->put[0]);
  EXPECT_DOUBLE_EQ(q.grp_tres_run_mins.gpu, 600);
  EXPECT_DOUBLE_EQ(q.max_tres_run_mins_per_user.gpu, 240);
  EXPECT_DOUBLE_EQ(q.max_tres_run_mins_per_user.cpu, 1000);
  EXPECT_LT(q.max_tres_run_mins_per_user.mem, 0);
  EXPECT_DOUBLE_EQ(q.max_tres_mins_per_job.gpu, 120);
  QosTable table = WithNormal();
  table["gpu"] = added->put[0];
  QosUpdate clear = Request(QosOp::kModify, {"gpu"});
  clear.changes.max_tres_run_mins_per_user.gpu = -1;
  auto cleared = ApplyQosUpdate(table, clear, {});
  ASSERT_TRUE(cleared.ok()) << cleared.status();
  q = ToSchedQos(cleared->put[0]);
  EXPECT_LT(q.max_tres_run_mins_per_user.gpu, 0);
  EXPECT_DOUBLE_EQ(q.max_tres_run_mins_per_user.cpu, 1000);  // the others stay
  QosUpdate bad = Request(QosOp::kModify, {"gpu"});
  bad.changes.grp_tres_run_mins.gpu = -5;
  auto refused = ApplyQosUpdate(table, bad, {});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("GrpTRESRunMins"), std::string::npos);
}

TEST(QosTableTest, AddedQosAreNumberedInOrderAndListedByIdNotName) {
  QosTable table = WithNormal();
  table["normal"].id = 1;
  auto result = ApplyQosUpdate(table, Request(QosOp::kAdd, {"zeta", "alpha"}), {});
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->put.size(), 2u);
  EXPECT_EQ(result->put[0].id, 2u);
  EXPECT_EQ(result->put[1].id, 3u);
  for (const QosDefinition& row : result->put) table[row.name] = row;
  std::vector<std::string> order;
  for (const QosDefinition& row : QosInIdOrder(table)) order.push_back(row.name);
  EXPECT_EQ(order, (std::vector<std::string>{"normal", "zeta", "alpha"}));
}

TEST(QosTableTest, AddExistingIsAnError) {
  auto result = ApplyQosUpdate(WithNormal(), Request(QosOp::kAdd, {"normal"}), {});
  EXPECT_EQ(result.status().code(), absl::StatusCode::kAlreadyExists);
}

TEST(QosTableTest, ModifyMergesTresPerResourceAndMinusOneClears) {
  QosTable table = WithNormal();
  table["normal"].max_tres_per_user.cpu = 8;
  QosUpdate r = Request(QosOp::kModify, {"normal"});
  r.changes.max_tres_per_user.gpu = 2;
  auto result = ApplyQosUpdate(table, r, {});
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->put[0].max_tres_per_user.cpu, 8);
  EXPECT_EQ(result->put[0].max_tres_per_user.gpu, 2);
  r.changes.max_tres_per_user.cpu = -1;
  result = ApplyQosUpdate(table, r, {});
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->put[0].max_tres_per_user.cpu, kNoLimit);
}

TEST(QosTableTest, ModifyUnknownIsNotFound) {
  auto result = ApplyQosUpdate(WithNormal(), Request(QosOp::kModify, {"nope"}), {});
  EXPECT_EQ(result.status().code(), absl::StatusCode::kNotFound);
}

TEST(QosTableTest, BadValuesNameTheField) {
  QosUpdate r = Request(QosOp::kModify, {"normal"});
  r.changes.priority = -5;
  EXPECT_NE(ApplyQosUpdate(WithNormal(), r, {}).status().message().find("Priority"),
            std::string::npos);
  r.changes.priority.reset();
  r.changes.preempt_mode = "sometimes";
  EXPECT_NE(ApplyQosUpdate(WithNormal(), r, {}).status().message().find("PreemptMode"),
            std::string::npos);
  r.changes.preempt_mode.reset();
  r.changes.max_tres_per_job.mem_mb = -7;
  EXPECT_NE(ApplyQosUpdate(WithNormal(), r, {}).status().message().find("MaxTRESPerJob"),
            std::string::npos);
  EXPECT_FALSE(ApplyQosUpdate(WithNormal(), Request(QosOp::kAdd, {"a b"}), {}).ok());
}

TEST(QosTableTest, PreemptSetAddRemoveAndUnknownNames) {
  QosTable table = WithNormal();
  table["low"] = QosWithDefaults("low");
  table["scav"] = QosWithDefaults("scav");
  QosUpdate r = Request(QosOp::kModify, {"normal"});
  r.changes.preempt = "low";
  auto result = ApplyQosUpdate(table, r, {});
  ASSERT_TRUE(result.ok());
  table["normal"] = result->put[0];
  r.changes.preempt = "scav";
  r.changes.preempt_op = "+=";
  result = ApplyQosUpdate(table, r, {});
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->put[0].preempt.size(), 2u);
  table["normal"] = result->put[0];
  r.changes.preempt = "low";
  r.changes.preempt_op = "-=";
  result = ApplyQosUpdate(table, r, {});
  ASSERT_TRUE(result.ok());
  ASSERT_EQ(result->put[0].preempt.size(), 1u);
  EXPECT_EQ(result->put[0].preempt[0], "scav");
  r.changes.preempt = "ghost";
  r.changes.preempt_op = "=";
  EXPECT_FALSE(ApplyQosUpdate(table, r, {}).ok());
}

TEST(QosTableTest, DeleteRefusesInUseAndStripsPreemptLists) {
  QosTable table = WithNormal();
  table["low"] = QosWithDefaults("low");
  table["normal"].preempt.push_back("low");
  EXPECT_EQ(ApplyQosUpdate(table, Request(QosOp::kDelete, {"low"}), {"low"}).status().code(),
            absl::StatusCode::kFailedPrecondition);
  auto result = ApplyQosUpdate(table, Request(QosOp::kDelete, {"low"}), {});
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->deleted, std::vector<std::string>{"low"});
  ASSERT_EQ(result->put.size(), 1u);
  EXPECT_EQ(result->put[0].name, "normal");
  EXPECT_EQ(result->put[0].preempt.size(), 0u);
}

TEST(QosTableTest, NoOperationIsRefused) {
  EXPECT_EQ(
      ApplyQosUpdate(WithNormal(), Request(QosOp::kUnspecified, {"normal"}), {}).status().message(),
      "sacctmgr: no operation (add, modify or delete)");
  EXPECT_STREQ(QosOpName(QosOp::kModify), "MODIFY");
}

TEST(QosTableTest, SchedulerTableResolvesPreemptNamesToIndices) {
  QosTable table = WithNormal();
  table["low"] = QosWithDefaults("low");
  table["normal"].preempt = {"low", "gone"};
  table["normal"].preempt_mode = "REQUEUE";
  const std::vector<Qos> view = ToSchedQosTable(table);
  ASSERT_EQ(view.size(), 2u);  // by name: low, normal
  EXPECT_EQ(view[1].name, "normal");
  EXPECT_EQ(view[1].preempt, std::vector<int32_t>{0});
  EXPECT_EQ(view[1].preempt_mode, PreemptMode::kRequeue);
}

}  // namespace
}  // namespace skiff::ctld
