#include "ctld/qos_table.h"

#include <gtest/gtest.h>

namespace skiff {
namespace {

QosTable WithNormal() { return {{"normal", DefaultQosInfo("normal")}}; }

v1::UpdateQosRequest Request(v1::UpdateQosRequest::Op op, std::vector<std::string> names) {
  v1::UpdateQosRequest r;
  r.set_op(op);
  for (auto& n : names) r.add_names(n);
  return r;
}

TEST(QosTableTest, AddWithLimitsThenSchedulerSeesThem) {
  v1::UpdateQosRequest r = Request(v1::UpdateQosRequest::ADD, {"High"});
  r.mutable_changes()->set_priority(1000);
  r.mutable_changes()->mutable_max_tres_per_user()->set_gpu(4);
  r.mutable_changes()->set_max_jobs_per_user(2);
  auto result = ApplyQosUpdate(WithNormal(), r, {});
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->put.size(), 1u);
  EXPECT_EQ(result->put[0].name(), "high");  // QOS names are lower case, as in Slurm
  Qos q = ToSchedQos(result->put[0]);
  EXPECT_EQ(q.priority, 1000);
  EXPECT_EQ(q.max_tres_per_user.gpus, 4);
  EXPECT_EQ(q.max_tres_per_user.cpus, kNoLimit);
  EXPECT_EQ(q.max_jobs_per_user, 2);
  EXPECT_EQ(q.max_wall, kNoLimit);
  EXPECT_DOUBLE_EQ(q.usage_factor, 1.0);
}

TEST(QosTableTest, AddedQosAreNumberedInOrderAndListedByIdNotName) {
  QosTable table = WithNormal();
  table["normal"].set_id(1);
  auto result = ApplyQosUpdate(table, Request(v1::UpdateQosRequest::ADD, {"zeta", "alpha"}), {});
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->put.size(), 2u);
  EXPECT_EQ(result->put[0].id(), 2u);
  EXPECT_EQ(result->put[1].id(), 3u);
  for (const v1::QosInfo& row : result->put) table[row.name()] = row;
  std::vector<std::string> order;
  for (const v1::QosInfo& row : QosInIdOrder(table)) order.push_back(row.name());
  EXPECT_EQ(order, (std::vector<std::string>{"normal", "zeta", "alpha"}));
}

TEST(QosTableTest, AddExistingIsAnError) {
  auto result = ApplyQosUpdate(WithNormal(), Request(v1::UpdateQosRequest::ADD, {"normal"}), {});
  EXPECT_EQ(result.status().code(), absl::StatusCode::kAlreadyExists);
}

TEST(QosTableTest, ModifyMergesTresPerResourceAndMinusOneClears) {
  QosTable table = WithNormal();
  table["normal"].mutable_max_tres_per_user()->set_cpu(8);
  v1::UpdateQosRequest r = Request(v1::UpdateQosRequest::MODIFY, {"normal"});
  r.mutable_changes()->mutable_max_tres_per_user()->set_gpu(2);
  auto result = ApplyQosUpdate(table, r, {});
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->put[0].max_tres_per_user().cpu(), 8);
  EXPECT_EQ(result->put[0].max_tres_per_user().gpu(), 2);
  r.mutable_changes()->mutable_max_tres_per_user()->set_cpu(-1);
  result = ApplyQosUpdate(table, r, {});
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->put[0].max_tres_per_user().cpu(), kNoLimit);
}

TEST(QosTableTest, ModifyUnknownIsNotFound) {
  auto result = ApplyQosUpdate(WithNormal(), Request(v1::UpdateQosRequest::MODIFY, {"nope"}), {});
  EXPECT_EQ(result.status().code(), absl::StatusCode::kNotFound);
}

TEST(QosTableTest, BadValuesNameTheField) {
  v1::UpdateQosRequest r = Request(v1::UpdateQosRequest::MODIFY, {"normal"});
  r.mutable_changes()->set_priority(-5);
  EXPECT_NE(ApplyQosUpdate(WithNormal(), r, {}).status().message().find("Priority"),
            std::string::npos);
  r.mutable_changes()->clear_priority();
  r.mutable_changes()->set_preempt_mode("sometimes");
  EXPECT_NE(ApplyQosUpdate(WithNormal(), r, {}).status().message().find("PreemptMode"),
            std::string::npos);
  r.mutable_changes()->clear_preempt_mode();
  r.mutable_changes()->mutable_max_tres_per_job()->set_mem_mb(-7);
  EXPECT_NE(ApplyQosUpdate(WithNormal(), r, {}).status().message().find("MaxTRESPerJob"),
            std::string::npos);
  EXPECT_FALSE(ApplyQosUpdate(WithNormal(), Request(v1::UpdateQosRequest::ADD, {"a b"}), {}).ok());
}

TEST(QosTableTest, PreemptSetAddRemoveAndUnknownNames) {
  QosTable table = WithNormal();
  table["low"] = DefaultQosInfo("low");
  table["scav"] = DefaultQosInfo("scav");
  v1::UpdateQosRequest r = Request(v1::UpdateQosRequest::MODIFY, {"normal"});
  r.mutable_changes()->set_preempt("low");
  auto result = ApplyQosUpdate(table, r, {});
  ASSERT_TRUE(result.ok());
  table["normal"] = result->put[0];
  r.mutable_changes()->set_preempt("scav");
  r.mutable_changes()->set_preempt_op("+=");
  result = ApplyQosUpdate(table, r, {});
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->put[0].preempt_size(), 2);
  table["normal"] = result->put[0];
  r.mutable_changes()->set_preempt("low");
  r.mutable_changes()->set_preempt_op("-=");
  result = ApplyQosUpdate(table, r, {});
  ASSERT_TRUE(result.ok());
  ASSERT_EQ(result->put[0].preempt_size(), 1);
  EXPECT_EQ(result->put[0].preempt(0), "scav");
  r.mutable_changes()->set_preempt("ghost");
  r.mutable_changes()->set_preempt_op("=");
  EXPECT_FALSE(ApplyQosUpdate(table, r, {}).ok());
}

TEST(QosTableTest, DeleteRefusesInUseAndStripsPreemptLists) {
  QosTable table = WithNormal();
  table["low"] = DefaultQosInfo("low");
  table["normal"].add_preempt("low");
  EXPECT_EQ(ApplyQosUpdate(table, Request(v1::UpdateQosRequest::DELETE, {"low"}), {"low"})
                .status()
                .code(),
            absl::StatusCode::kFailedPrecondition);
  auto result = ApplyQosUpdate(table, Request(v1::UpdateQosRequest::DELETE, {"low"}), {});
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->deleted, std::vector<std::string>{"low"});
  ASSERT_EQ(result->put.size(), 1u);
  EXPECT_EQ(result->put[0].name(), "normal");
  EXPECT_EQ(result->put[0].preempt_size(), 0);
}

}  // namespace
}  // namespace skiff
