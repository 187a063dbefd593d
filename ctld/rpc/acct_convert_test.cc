#include "ctld/rpc/acct_convert.h"

#include <gtest/gtest.h>

#include "proto/schema.h"

namespace skiff::ctld {
namespace {

Job Finished(uint64_t id, JobState state) {
  Job job;
  job.id = id;
  job.uid = 1000;
  job.gid = 1000;
  job.user_name = "alice";
  job.group_name = "alice";
  job.name = "train";
  job.account = "research";
  job.qos = "normal";
  job.request.partition = "gpu";
  job.request.mem_per_node_mb = 100;
  job.request.gpus_per_node = 1;
  job.request.time_limit = 600;
  job.state = state;
  job.submit_time = 100;
  job.eligible_time = 100;
  job.start_time = 110;
  job.end_time = 200;
  job.nodes = {"n1"};
  job.cpus_by_node = {1};
  job.mem_by_node_mb = {100};
  job.gpu_indices = {0};
  job.gpus_by_node = {{0}};
  job.progress.launched = true;
  job.work_dir = "/home/alice";
  return job;
}

// sreport's Planned: what a job asked for times its eligible wait inside the
// window; held jobs, jobs in a reservation and the time before eligibility
// add nothing.
TEST(AcctConvert, WaitingTresCountsTheEligibleWaitInsideTheWindow) {
  Job job = Finished(1, JobState::kCompleted);  // 1 CPU, 1 GPU, 100 MB
  job.eligible_time = 100;
  job.start_time = 400;
  std::map<std::string, double> waiting;
  AddWaitingTres(job, 200, 1000, 1000, {}, &waiting);  // waited 200..400 in the window
  EXPECT_DOUBLE_EQ(waiting["cpu"], 200);
  EXPECT_DOUBLE_EQ(waiting["gres/gpu"], 200);
  EXPECT_DOUBLE_EQ(waiting["mem"], 100 * 200);
  EXPECT_DOUBLE_EQ(waiting["billing"], 200);
  Job pending = job;
  pending.state = JobState::kPending;
  pending.start_time = 0;
  pending.end_time = 0;
  std::map<std::string, double> still;
  AddWaitingTres(pending, 0, 1000, 700, {}, &still);  // still waiting at 700
  EXPECT_DOUBLE_EQ(still["cpu"], 600);
  pending.eligible_time = 0;  // held
  std::map<std::string, double> held;
  AddWaitingTres(pending, 0, 1000, 700, {}, &held);
  EXPECT_TRUE(held.empty());
  Job in_resv = job;  // waited for its reservation, not for the cluster
  in_resv.reservation = "lab";
  std::map<std::string, double> reserved;
  AddWaitingTres(in_resv, 200, 1000, 1000, {}, &reserved);
  EXPECT_TRUE(reserved.empty());
}

TEST(AcctConvert, TresStringsAreSortedByNameWithBurstBufferFirst) {
  Job job = Finished(1, JobState::kCompleted);
  job.bb_directives = "#BB_LUA pool=p capacity=2G";
  job.bb_size = 2ull << 30;
  EXPECT_EQ(AcctReqTres(job), "billing=1,cpu=1,gres/gpu=1,mem=100M,node=1");
  // Billing under the partition's TRESBillingWeights: a GPU weighs 10.
  absl::StatusOr<BillingWeights> weights = ParseBillingWeights("CPU=1.0,GRES/gpu=10");
  ASSERT_TRUE(weights.ok());
  EXPECT_EQ(AcctReqTres(job, *weights), "billing=11,cpu=1,gres/gpu=1,mem=100M,node=1");
  EXPECT_EQ(AcctAllocTres(job), "bb/lua=2G,billing=1,cpu=1,gres/gpu=1,mem=100M,node=1");
  job.nodes.clear();
  EXPECT_EQ(AcctAllocTres(job), "");
}

TEST(AcctConvert, AllocTresIsWhatTheRunHeldWithWeightedBillingAndTypedGpus) {
  Job job = Finished(1, JobState::kCompleted);
  job.gpus_by_node = {{0, 1}};
  job.alloc_tres = RunTres(1, 100, 1, 17, {{"a100", 2}});
  EXPECT_EQ(AcctAllocTres(job), "billing=17,cpu=1,gres/gpu=2,gres/gpu:a100=2,mem=100M,node=1");
  job.bb_directives = "#BB_LUA pool=p capacity=2G";
  job.bb_size = 2ull << 30;
  EXPECT_EQ(AcctAllocTres(job),
            "bb/lua=2G,billing=17,cpu=1,gres/gpu=2,gres/gpu:a100=2,mem=100M,node=1");
  job.nodes.clear();  // requeued: holds nothing now
  EXPECT_EQ(AcctAllocTres(job), "");
}

TEST(AcctConvert, ClusterTresCountsNodesGpusAndTheirBestBilling) {
  Node cpu;
  cpu.config.name = "c1";
  cpu.config.cpus = 8;
  cpu.config.real_memory_mb = 1000;
  Node gpu;
  gpu.config.name = "g1";
  gpu.config.cpus = 16;
  gpu.config.real_memory_mb = 2000;
  gpu.config.gres = {{"gpu", "a100", 4}};
  gpu.gpu_type = "a100";
  PartitionConfig all;
  all.nodes = {"c1", "g1"};
  PartitionConfig gpus;
  gpus.nodes = {"g1"};
  gpus.tres_billing_weights = "CPU=1.0,GRES/gpu=4.0";
  const std::vector<std::pair<std::string, double>> tres =
      ClusterTres({cpu, gpu}, {all, gpus}, /*burst_buffer=*/true);
  // g1 bills 16 + 4 x 4 = 32 in the gpu partition (more than its 16 CPUs in all).
  EXPECT_EQ(tres, (std::vector<std::pair<std::string, double>>{{"cpu", 24},
                                                               {"mem", 3000},
                                                               {"energy", 0},
                                                               {"node", 2},
                                                               {"billing", 8 + 32},
                                                               {"fs/disk", 0},
                                                               {"vmem", 0},
                                                               {"pages", 0},
                                                               {"bb/lua", 0},
                                                               {"gres/gpu", 4},
                                                               {"gres/gpu:a100", 4}}));
}

TEST(AcctConvert, CancelledRunningJobHasABatchStepKilledBySigterm) {
  Job job = Finished(15392, JobState::kCancelled);
  job.cancelled_by = 0;
  job.exit_signal = 0;
  v1::AcctJob record = ToAcctJob(job, /*with_steps=*/true, "lab", 300);
  EXPECT_EQ(record.state(), "CANCELLED");
  EXPECT_TRUE(record.cancelled_by_known());
  EXPECT_EQ(record.cancelled_by(), 0u);
  EXPECT_EQ(record.exit_code(), 0);
  EXPECT_EQ(record.exit_signal(), 0);
  ASSERT_EQ(record.steps_size(), 1);
  const v1::AcctStep& batch = record.steps(0);
  EXPECT_EQ(batch.step_id(), "batch");
  EXPECT_EQ(batch.state(), "CANCELLED");
  EXPECT_EQ(batch.exit_signal(), 15);
  EXPECT_EQ(batch.alloc_tres(), "cpu=1,gres/gpu=1,mem=100M,node=1");
  EXPECT_EQ(record.node_list(), "n1");
  EXPECT_EQ(record.work_dir(), "/home/alice");
  EXPECT_EQ(record.cluster(), "lab");
}

TEST(AcctConvert, FailedJobKeepsItsExitCodeOnJobAndBatch) {
  Job job = Finished(15380, JobState::kFailed);
  job.exit_code = 3;
  v1::AcctJob record = ToAcctJob(job, true, "lab", 300);
  EXPECT_EQ(record.state(), "FAILED");
  EXPECT_EQ(record.exit_code(), 3);
  ASSERT_EQ(record.steps_size(), 1);
  EXPECT_EQ(record.steps(0).state(), "FAILED");
  EXPECT_EQ(record.steps(0).exit_code(), 3);
  EXPECT_EQ(ToAcctJob(job, false, "lab", 300).steps_size(), 0);
}

TEST(AcctConvert, NeverLaunchedJobHasNoBatchStepAndRequestedCpus) {
  Job job = Finished(15395, JobState::kCancelled);
  job.progress.launched = false;
  job.nodes.clear();
  job.start_time = 0;
  job.request.ntasks = 2;
  v1::AcctJob record = ToAcctJob(job, true, "lab", 300);
  EXPECT_EQ(record.steps_size(), 0);
  EXPECT_EQ(record.alloc_cpus(), 2);
  EXPECT_EQ(record.node_list(), "");
  EXPECT_FALSE(record.cancelled_by_known());  // no canceller recorded
}

TEST(AcctConvert, CompletingShowsItsFinalStateAndConfiguringShowsRunning) {
  Job job = Finished(3, JobState::kCompleting);
  job.final_state = JobState::kFailed;
  EXPECT_EQ(AcctStateName(job), "FAILED");
  job.state = JobState::kConfiguring;
  EXPECT_EQ(AcctStateName(job), "RUNNING");
}

TEST(AcctConvert, SelectsByIdArrayTaskUserAndWindow) {
  v1::GetAccountingRequest request;
  AcctSelection selection{&request, {}, 1000};
  Job plain = Finished(10, JobState::kCompleted);
  Job task = Finished(12, JobState::kCompleted);
  task.array_job_id = 11;
  task.array_task_id = 3;
  EXPECT_TRUE(AcctSelected(plain, selection));

  v1::AcctJobSelector* selector = request.add_jobs();
  selector->set_job_id(11);
  selector->set_array_task_id(-1);
  EXPECT_FALSE(AcctSelected(plain, selection));
  EXPECT_TRUE(AcctSelected(task, selection));
  selector->set_array_task_id(4);
  EXPECT_FALSE(AcctSelected(task, selection));
  selector->set_array_task_id(3);
  EXPECT_TRUE(AcctSelected(task, selection));
  request.clear_jobs();

  request.add_uids(1001);
  EXPECT_FALSE(AcctSelected(plain, selection));
  request.clear_uids();
  request.add_accounts("RESEARCH");  // any case
  EXPECT_TRUE(AcctSelected(plain, selection));

  request.set_window_start(201);  // ended at 200: before the window
  EXPECT_FALSE(AcctSelected(plain, selection));
  request.set_window_start(150);
  EXPECT_TRUE(AcctSelected(plain, selection));
  selection.window_end = 99;  // submitted at 100: after the window
  EXPECT_FALSE(AcctSelected(plain, selection));
}

TEST(AcctConvert, StatesMatchWhatTheJobWasDuringTheWindow) {
  v1::GetAccountingRequest request;
  AcctSelection selection{&request, {}, 1000};
  Job job = Finished(10, JobState::kCompleted);  // pending 100-110, running 110-200
  request.add_states("RUNNING");
  request.set_window_start(150);
  EXPECT_TRUE(AcctSelected(job, selection));
  request.set_window_start(250);
  EXPECT_FALSE(AcctSelected(job, selection));
  request.clear_states();
  request.add_states("PENDING");
  request.set_window_start(105);
  EXPECT_TRUE(AcctSelected(job, selection));
  request.set_window_start(120);
  EXPECT_FALSE(AcctSelected(job, selection));
  request.clear_states();
  request.add_states("COMPLETED");
  request.set_window_start(0);
  EXPECT_TRUE(AcctSelected(job, selection));
  selection.window_end = 150;  // ended at 200, after the window
  EXPECT_FALSE(AcctSelected(job, selection));
  request.clear_states();
  request.add_states("CANCELLED");
  selection.window_end = 1000;
  EXPECT_FALSE(AcctSelected(job, selection));
}

TEST(AcctConvert, StepSelectorsNameOnlyThoseSteps) {
  v1::GetAccountingRequest request;
  Job job = Finished(10, JobState::kCompleted);
  v1::AcctJobSelector* selector = request.add_jobs();
  selector->set_job_id(10);
  selector->set_array_task_id(-1);
  selector->set_step("batch");
  EXPECT_EQ(AcctSelectedSteps(job, request), std::vector<std::string>{"batch"});
  v1::AcctJobSelector* whole = request.add_jobs();
  whole->set_job_id(10);
  whole->set_array_task_id(-1);
  EXPECT_TRUE(AcctSelectedSteps(job, request).empty());
}

TEST(AcctConvert, NodeFilterMatchesAnyAllocatedNode) {
  v1::GetAccountingRequest request;
  AcctSelection selection{&request, {"n2"}, 1000};
  Job job = Finished(10, JobState::kCompleted);
  EXPECT_FALSE(AcctSelected(job, selection));
  job.nodes = {"n1", "n2"};
  EXPECT_TRUE(AcctSelected(job, selection));
}

// ---- proto <-> plain

v1::QosInfo FullQosInfo() {
  v1::QosInfo info;
  info.set_name("high");
  info.set_description("the high one");
  info.set_priority(1000);
  info.mutable_max_tres_per_user()->set_gpu(4);  // the other TRES unset
  info.mutable_max_tres_per_job()->set_cpu(64);
  info.mutable_max_tres_per_job()->set_mem_mb(-1);
  info.mutable_max_tres_per_job()->set_node(2);
  info.mutable_max_tres_per_job()->set_gpu(0);
  info.set_max_jobs_per_user(2);
  info.set_max_submit_jobs_per_user(10);
  info.set_max_wall(3600);
  info.add_preempt("normal");
  info.add_preempt("scav");
  info.set_preempt_mode("REQUEUE");
  info.set_usage_factor(2.5);
  info.set_grace_time(30);
  info.set_id(7);
  info.mutable_grp_tres_run_mins()->set_gpu(600);
  info.mutable_max_tres_run_mins_per_user()->set_gpu(240);
  info.mutable_max_tres_mins_per_job()->set_cpu(-1);
  info.mutable_grp_tres_mins()->set_gpu(6000);
  return info;
}

TEST(AcctConvert, QosRoundTripsFieldForField) {
  const v1::QosInfo info = FullQosInfo();
  const QosDefinition qos = QosFromProto(info);
  EXPECT_EQ(qos.name, "high");
  EXPECT_EQ(qos.description, "the high one");
  EXPECT_EQ(qos.priority, 1000);
  EXPECT_EQ(qos.max_tres_per_user, (TresSpec{std::nullopt, std::nullopt, std::nullopt, 4}));
  EXPECT_EQ(qos.max_tres_per_job, (TresSpec{64, -1, 2, 0}));
  EXPECT_EQ(qos.max_jobs_per_user, 2);
  EXPECT_EQ(qos.max_submit_jobs_per_user, 10);
  EXPECT_EQ(qos.max_wall, 3600);
  EXPECT_EQ(qos.preempt, (std::vector<std::string>{"normal", "scav"}));
  EXPECT_EQ(qos.preempt_mode, "REQUEUE");
  EXPECT_DOUBLE_EQ(qos.usage_factor, 2.5);
  EXPECT_EQ(qos.grace_time, 30);
  EXPECT_EQ(qos.id, 7u);
  EXPECT_EQ(qos.grp_tres_run_mins, (TresSpec{std::nullopt, std::nullopt, std::nullopt, 600}));
  EXPECT_EQ(qos.max_tres_run_mins_per_user,
            (TresSpec{std::nullopt, std::nullopt, std::nullopt, 240}));
  EXPECT_EQ(qos.max_tres_mins_per_job, (TresSpec{-1, std::nullopt, std::nullopt, std::nullopt}));
  EXPECT_EQ(qos.grp_tres_mins, (TresSpec{std::nullopt, std::nullopt, std::nullopt, 6000}));
  EXPECT_EQ(QosToProto(qos).SerializeAsString(), info.SerializeAsString());
  EXPECT_EQ(QosFromProto(QosToProto(QosWithDefaults("normal"))), QosWithDefaults("normal"));
  // Both TRES lists are always sent, as every stored QOS has them.
  QosDefinition bare;
  bare.max_tres_per_user = TresSpec{};
  EXPECT_TRUE(QosToProto(bare).has_max_tres_per_user());
  EXPECT_TRUE(QosToProto(bare).has_max_tres_per_job());
  // The TRES-minutes limits only when set: older rows keep their bytes.
  EXPECT_FALSE(QosToProto(bare).has_grp_tres_run_mins());
  EXPECT_FALSE(QosToProto(bare).has_max_tres_mins_per_job());
}

TEST(AcctConvert, QosUpdateKeepsWhatIsUnsetUnset) {
  v1::UpdateQosRequest request;
  request.set_op(v1::UpdateQosRequest::MODIFY);
  request.add_names("a");
  request.add_names("B");
  v1::QosChanges* c = request.mutable_changes();
  c->set_description("d");
  c->set_priority(5);
  c->mutable_max_tres_per_user()->set_cpu(-1);
  c->mutable_max_tres_per_job()->set_gpu(2);
  c->set_max_jobs_per_user(1);
  c->set_max_submit_jobs_per_user(2);
  c->set_max_wall(60);
  c->set_preempt("low");
  c->set_preempt_op("+=");
  c->set_preempt_mode("cancel");
  c->set_usage_factor(0.5);
  c->set_grace_time(9);
  c->mutable_grp_tres_run_mins()->set_gpu(100);
  c->mutable_max_tres_run_mins_per_user()->set_node(-1);
  c->mutable_max_tres_mins_per_job()->set_mem_mb(5);
  c->mutable_grp_tres_mins()->set_node(7);
  QosUpdate update = QosUpdateFromProto(request);
  EXPECT_EQ(update.op, QosOp::kModify);
  EXPECT_EQ(update.names, (std::vector<std::string>{"a", "B"}));
  EXPECT_EQ(update.changes.description, "d");
  EXPECT_EQ(update.changes.priority, 5);
  EXPECT_EQ(update.changes.max_tres_per_user,
            (TresSpec{-1, std::nullopt, std::nullopt, std::nullopt}));
  EXPECT_EQ(update.changes.max_tres_per_job,
            (TresSpec{std::nullopt, std::nullopt, std::nullopt, 2}));
  EXPECT_EQ(update.changes.max_jobs_per_user, 1);
  EXPECT_EQ(update.changes.max_submit_jobs_per_user, 2);
  EXPECT_EQ(update.changes.max_wall, 60);
  EXPECT_EQ(update.changes.preempt, "low");
  EXPECT_EQ(update.changes.preempt_op, "+=");
  EXPECT_EQ(update.changes.preempt_mode, "cancel");
  EXPECT_EQ(update.changes.usage_factor, 0.5);
  EXPECT_EQ(update.changes.grace_time, 9);
  EXPECT_EQ(update.changes.grp_tres_run_mins,
            (TresSpec{std::nullopt, std::nullopt, std::nullopt, 100}));
  EXPECT_EQ(update.changes.max_tres_run_mins_per_user,
            (TresSpec{std::nullopt, std::nullopt, -1, std::nullopt}));
  EXPECT_EQ(update.changes.max_tres_mins_per_job,
            (TresSpec{std::nullopt, 5, std::nullopt, std::nullopt}));
  EXPECT_EQ(update.changes.grp_tres_mins, (TresSpec{std::nullopt, std::nullopt, 7, std::nullopt}));

  v1::UpdateQosRequest bare;
  bare.set_op(v1::UpdateQosRequest::ADD);
  update = QosUpdateFromProto(bare);
  EXPECT_EQ(update.op, QosOp::kAdd);
  EXPECT_FALSE(update.changes.description || update.changes.priority ||
               update.changes.max_jobs_per_user || update.changes.max_submit_jobs_per_user ||
               update.changes.max_wall || update.changes.preempt || update.changes.preempt_mode ||
               update.changes.usage_factor || update.changes.grace_time);
  EXPECT_EQ(update.changes.max_tres_per_user, TresSpec{});
  EXPECT_EQ(QosUpdateFromProto(v1::UpdateQosRequest()).op, QosOp::kUnspecified);
  bare.set_op(v1::UpdateQosRequest::DELETE);
  EXPECT_EQ(QosUpdateFromProto(bare).op, QosOp::kDelete);
  bare.set_op(static_cast<v1::UpdateQosRequest::Op>(42));  // from a newer sacctmgr
  EXPECT_EQ(QosUpdateFromProto(bare).op, QosOp::kUnspecified);
}

v1::AssocInfo FullAssocInfo() {
  v1::AssocInfo info;
  info.set_id(4);
  info.set_account("research");
  info.set_user("alice");
  info.set_partition("gpu");
  info.set_parent_account("root");
  v1::AssocLimits* l = info.mutable_limits();
  l->set_fairshare(3);
  l->mutable_grp_tres();  // given once, every TRES cleared since
  l->set_grp_jobs(10);
  l->set_grp_submit_jobs(20);
  l->set_max_jobs(4);
  l->set_max_submit_jobs(8);
  l->mutable_max_tres_per_job()->set_gpu(2);
  l->set_max_wall(7200);
  l->set_grp_billing_mins(5000);
  l->mutable_grp_tres_mins()->set_gpu(600);
  l->mutable_max_tres_mins_per_job()->set_cpu(120);
  l->mutable_grp_tres_run_mins()->set_gpu(480);
  info.add_qos("low");
  info.add_qos("normal");
  info.set_default_qos("normal");
  return info;
}

TEST(AcctConvert, AccountsUsersAndAssociationsRoundTripByteForByte) {
  v1::AccountInfo account;
  account.set_name("research");
  account.set_description("Research group");
  account.set_organization("science");
  account.set_parent("root");
  EXPECT_EQ(AccountFromProto(account), (Account{"research", "Research group", "science", "root"}));
  EXPECT_EQ(AccountToProto(AccountFromProto(account)).SerializeAsString(),
            account.SerializeAsString());

  v1::UserInfo user;
  user.set_name("alice");
  user.set_default_account("research");
  user.set_admin_level("Operator");
  user.set_uid(1000);
  EXPECT_EQ(AcctUserFromProto(user), (AcctUser{"alice", "research", "Operator", 1000}));
  EXPECT_EQ(AcctUserToProto(AcctUserFromProto(user)).SerializeAsString(), user.SerializeAsString());
  user.set_uid(-1);
  EXPECT_EQ(AcctUserFromProto(user).uid, -1);

  const v1::AssocInfo info = FullAssocInfo();
  const Association assoc = AssocFromProto(info);
  EXPECT_EQ(assoc.id, 4u);
  EXPECT_EQ(assoc.account, "research");
  EXPECT_EQ(assoc.user, "alice");
  EXPECT_EQ(assoc.partition, "gpu");
  EXPECT_EQ(assoc.parent_account, "root");
  ASSERT_TRUE(assoc.limits.has_value());
  EXPECT_EQ(assoc.limits->fairshare, 3);
  EXPECT_EQ(assoc.limits->grp_tres, TresSpec{});
  EXPECT_EQ(assoc.limits->grp_jobs, 10);
  EXPECT_EQ(assoc.limits->grp_submit_jobs, 20);
  EXPECT_EQ(assoc.limits->max_jobs, 4);
  EXPECT_EQ(assoc.limits->max_submit_jobs, 8);
  EXPECT_EQ(assoc.limits->max_tres_per_job,
            (TresSpec{std::nullopt, std::nullopt, std::nullopt, 2}));
  EXPECT_EQ(assoc.limits->max_wall, 7200);
  EXPECT_EQ(assoc.limits->grp_billing_mins, 5000);
  EXPECT_EQ(assoc.limits->grp_tres_mins, (TresSpec{std::nullopt, std::nullopt, std::nullopt, 600}));
  EXPECT_EQ(assoc.limits->max_tres_mins_per_job,
            (TresSpec{120, std::nullopt, std::nullopt, std::nullopt}));
  EXPECT_EQ(assoc.limits->grp_tres_run_mins,
            (TresSpec{std::nullopt, std::nullopt, std::nullopt, 480}));
  EXPECT_EQ(assoc.qos, (std::vector<std::string>{"low", "normal"}));
  EXPECT_EQ(assoc.default_qos, "normal");
  EXPECT_EQ(AssocToProto(assoc).SerializeAsString(), info.SerializeAsString());
  EXPECT_EQ(AssocFromProto(AssocToProto(assoc)), assoc);

  // Absent limits, and limits with nothing set, are different bytes and stay so.
  v1::AssocInfo bare;
  bare.set_account("root");
  EXPECT_FALSE(AssocFromProto(bare).limits.has_value());
  EXPECT_FALSE(AssocToProto(AssocFromProto(bare)).has_limits());
  bare.mutable_limits();
  EXPECT_EQ(AssocFromProto(bare).limits, AssocLimits{});
  EXPECT_EQ(AssocToProto(AssocFromProto(bare)).SerializeAsString(), bare.SerializeAsString());
  EXPECT_FALSE(AssocToProto(AssocFromProto(bare)).limits().has_grp_tres());
}

TEST(AcctConvert, AccountsUpdateCarriesEveryField) {
  v1::UpdateAccountsRequest request;
  request.set_op(v1::UpdateAccountsRequest::ADD_USER);
  request.add_names("alice");
  request.add_accounts("Research");
  request.set_description("d");
  request.set_organization("o");
  request.set_parent("p");
  request.set_default_account("research");
  request.set_admin_level("Operator");
  request.mutable_limits()->set_max_jobs(-1);
  request.mutable_limits()->mutable_grp_tres()->set_cpu(8);
  request.add_qos("normal");
  request.set_qos_op("+=");
  request.set_default_qos("normal");
  request.add_partitions("gpu");
  AccountsUpdate update = AccountsUpdateFromProto(request);
  EXPECT_EQ(update.op, AccountsOp::kAddUser);
  EXPECT_EQ(update.names, std::vector<std::string>{"alice"});
  EXPECT_EQ(update.accounts, std::vector<std::string>{"Research"});
  EXPECT_EQ(update.description, "d");
  EXPECT_EQ(update.organization, "o");
  EXPECT_EQ(update.parent, "p");
  EXPECT_EQ(update.default_account, "research");
  EXPECT_EQ(update.admin_level, "Operator");
  EXPECT_EQ(update.limits.max_jobs, -1);
  EXPECT_EQ(update.limits.grp_tres, (TresSpec{8, std::nullopt, std::nullopt, std::nullopt}));
  EXPECT_FALSE(update.limits.max_tres_per_job.has_value());
  EXPECT_FALSE(update.limits.fairshare.has_value());
  EXPECT_EQ(update.qos, std::vector<std::string>{"normal"});
  EXPECT_EQ(update.qos_op, "+=");
  EXPECT_EQ(update.default_qos, "normal");
  EXPECT_EQ(update.partitions, std::vector<std::string>{"gpu"});

  const std::pair<v1::UpdateAccountsRequest::Op, AccountsOp> ops[] = {
      {v1::UpdateAccountsRequest::ADD_ACCOUNT, AccountsOp::kAddAccount},
      {v1::UpdateAccountsRequest::ADD_USER, AccountsOp::kAddUser},
      {v1::UpdateAccountsRequest::MODIFY_ACCOUNT, AccountsOp::kModifyAccount},
      {v1::UpdateAccountsRequest::MODIFY_USER, AccountsOp::kModifyUser},
      {v1::UpdateAccountsRequest::DELETE_ACCOUNT, AccountsOp::kDeleteAccount},
      {v1::UpdateAccountsRequest::DELETE_USER, AccountsOp::kDeleteUser},
      {v1::UpdateAccountsRequest::OP_UNSPECIFIED, AccountsOp::kUnspecified},
      {static_cast<v1::UpdateAccountsRequest::Op>(42), AccountsOp::kUnspecified},
  };
  for (const auto& [proto, plain] : ops) {
    v1::UpdateAccountsRequest r;
    r.set_op(proto);
    EXPECT_EQ(AccountsUpdateFromProto(r).op, plain) << proto;
    // The log names the op as the proto does.
    if (proto != 42) EXPECT_EQ(AccountsOpName(plain), v1::UpdateAccountsRequest::Op_Name(proto));
  }
  v1::UpdateAccountsRequest bare;
  update = AccountsUpdateFromProto(bare);
  EXPECT_FALSE(update.description || update.organization || update.parent ||
               update.default_account || update.admin_level || update.default_qos);
  EXPECT_EQ(update.limits, AssocLimits{});

  v1::UpdateAccountsReply reply =
      AccountsAffectedToProto({{"alice"}, {AssocKey{"research", "alice", "gpu"}}});
  ASSERT_EQ(reply.affected_size(), 1);
  EXPECT_EQ(reply.affected(0), "alice");
  ASSERT_EQ(reply.associations_size(), 1);
  EXPECT_EQ(reply.associations(0).account(), "research");
  EXPECT_EQ(reply.associations(0).user(), "alice");
  EXPECT_EQ(reply.associations(0).partition(), "gpu");
}

TEST(AcctConvert, QosOpNamesAreTheProtosNames) {
  for (const auto& [proto, plain] : std::vector<std::pair<v1::UpdateQosRequest::Op, QosOp>>{
           {v1::UpdateQosRequest::ADD, QosOp::kAdd},
           {v1::UpdateQosRequest::MODIFY, QosOp::kModify},
           {v1::UpdateQosRequest::DELETE, QosOp::kDelete},
           {v1::UpdateQosRequest::OP_UNSPECIFIED, QosOp::kUnspecified}}) {
    EXPECT_EQ(QosOpName(plain), v1::UpdateQosRequest::Op_Name(proto));
  }
}

TEST(AcctConvert, JobsInUseAlwaysCarryTheirTres) {
  JobsInUse pending;  // only pending jobs counted: nothing running
  pending.submitted_jobs = 1;
  const v1::JobsInUse out = JobsInUseToProto(pending);
  EXPECT_EQ(out.submitted_jobs(), 1);
  EXPECT_EQ(out.running_jobs(), 0);
  EXPECT_TRUE(out.has_running_tres());  // so that "(0)" prints as a count
  EXPECT_TRUE(out.has_running_tres_secs());
  EXPECT_FALSE(out.running_tres().has_cpu());
  JobsInUse running;
  running.running_jobs = 1;
  running.submitted_jobs = 1;
  running.running_tres = TresSpec{8, 200, 2, 0};
  running.running_tres_secs = TresSpec{4000, 100000, 1000, 0};
  const v1::JobsInUse both = JobsInUseToProto(running);
  EXPECT_EQ(both.running_tres().cpu(), 8);
  EXPECT_TRUE(both.running_tres().has_gpu());
  EXPECT_EQ(both.running_tres_secs().mem_mb(), 100000);
}

TEST(AcctConvert, AccountsReplyListsWhatTheSnapshotHolds) {
  AccountsTable table = InitialAccounts();
  AccountsContext context;
  context.qos_names = {"normal"};
  AccountsUpdate research;
  research.op = AccountsOp::kAddAccount;
  research.names = {"Research"};
  table = ApplyAccountsUpdate(table, research, context, "lab")->table;
  AccountsUpdate users;
  users.op = AccountsOp::kAddUser;
  users.names = {"alice", "root"};
  users.accounts = {"research"};
  table = ApplyAccountsUpdate(table, users, context, "lab")->table;

  AccountsSnapshot snapshot;
  snapshot.cluster = "lab";
  for (const auto& [name, account] : table.accounts) snapshot.accounts.push_back(account);
  for (const auto& [name, user] : table.users) snapshot.users.push_back(user);
  snapshot.assocs = AssocsDepthFirst(table);
  const AssocKey research_key = AssocKey::Account("research");
  const AssocKey alice_key = AssocKey::User("research", "alice");
  snapshot.by_assoc[research_key].used_budget_mins = TresMinutes{1.5, 0, 0, 0, 6};
  snapshot.by_assoc[alice_key].held_budget_mins = TresMinutes{2.5, 0, 0, 0, 7};
  snapshot.by_assoc[alice_key].raw_usage = 3.5;
  snapshot.by_assoc[alice_key].used_tres_mins = {{"gres/gpu", 4.5}};
  for (const auto& [key, norm] : NormalizedShares(table)) snapshot.by_assoc[key].norm_shares = norm;
  snapshot.by_assoc[research_key].in_use = JobsInUse{};
  snapshot.by_assoc[research_key].in_use->submitted_jobs = 2;
  snapshot.by_qos[QosKey{"normal", "alice"}].in_use = JobsInUse{};
  snapshot.by_qos[QosKey{"normal", "alice"}].in_use->running_jobs = 1;
  const v1::GetAccountsReply reply = AccountsSnapshotToProto(snapshot);
  std::map<AssocKey, const v1::AssocUsage*> usage;
  for (const v1::AssocUsage& u : reply.assoc_usage()) {
    usage[AssocKey{u.key().account(), u.key().user(), u.key().partition()}] = &u;
  }

  EXPECT_EQ(reply.cluster(), "lab");
  std::vector<std::string> rows;
  for (const v1::AssocInfo& assoc : reply.assocs()) {
    rows.push_back(assoc.account() + "/" + assoc.user());
  }
  EXPECT_EQ(rows, (std::vector<std::string>{"root/", "root/root", "research/", "research/alice",
                                            "research/root"}));
  ASSERT_EQ(reply.accounts_size(), 2);
  EXPECT_EQ(reply.accounts(0).name(), "research");
  EXPECT_EQ(reply.accounts(0).organization(), "research");
  EXPECT_EQ(reply.accounts(0).parent(), "root");
  ASSERT_EQ(reply.users_size(), 2);
  EXPECT_EQ(reply.users(0).name(), "alice");
  ASSERT_EQ(usage.count(research_key), 1u);
  ASSERT_EQ(usage.count(alice_key), 1u);
  EXPECT_EQ(usage[research_key]->used_budget_mins().billing(), 1.5);
  EXPECT_EQ(usage[research_key]->used_budget_mins().gpu(), 6);
  EXPECT_FALSE(usage[research_key]->has_held_budget_mins());  // no balance sent: none kept
  EXPECT_EQ(usage[alice_key]->held_budget_mins().gpu(), 7);
  EXPECT_EQ(usage[alice_key]->held_budget_mins().billing(), 2.5);
  EXPECT_EQ(usage[alice_key]->raw_usage(), 3.5);
  EXPECT_EQ(usage[alice_key]->used_tres_mins().amounts().at("gres/gpu"), 4.5);
  EXPECT_DOUBLE_EQ(usage[research_key]->norm_shares(), 0.5);
  EXPECT_EQ(usage[research_key]->in_use().submitted_jobs(), 2);
  EXPECT_TRUE(usage[research_key]->in_use().has_running_tres());
  EXPECT_FALSE(usage[alice_key]->has_in_use());  // no job not yet ended
  ASSERT_EQ(reply.qos_usage_size(), 1);
  EXPECT_EQ(reply.qos_usage(0).qos(), "normal");
  EXPECT_EQ(reply.qos_usage(0).user(), "alice");
  EXPECT_EQ(reply.qos_usage(0).in_use().running_jobs(), 1);
}

TEST(AcctConvert, StepsRoundTripFieldForField) {
  v1::AcctStep step;
  step.set_step_id("3");
  step.set_name("train");
  step.set_state("COMPLETED");
  step.set_exit_code(2);
  step.set_exit_signal(9);
  step.set_start_time(1000);
  step.set_end_time(1100);
  step.set_alloc_cpus(8);
  step.set_num_nodes(2);
  step.set_node_list("n[1-2]");
  step.set_ntasks(4);
  step.set_alloc_tres("cpu=8,node=2");
  step.set_req_tres("cpu=8");
  step.set_suspended(5);
  step.set_srun_host("login1");
  step.set_srun_pid(4242);
  step.set_has_usage(true);
  step.set_user_cpu_usec(123456);
  step.set_system_cpu_usec(7890);
  step.set_max_rss_kb(2048);
  step.set_max_rss_node("n2");
  step.set_max_rss_task(3);
  step.set_ave_rss_kb(1024);
  const StepRecord record = StepFromProto(step);
  EXPECT_EQ(record.step_id, "3");
  EXPECT_EQ(record.srun_pid, 4242);
  EXPECT_EQ(record.ave_rss_kb, 1024);
  EXPECT_EQ(StepToProto(record).SerializeAsString(), step.SerializeAsString());
  EXPECT_EQ(StepFromProto(StepToProto(record)), record);

  JobStep running;
  running.job_id = 42;
  running.array_job_id = 40;
  running.array_task_id = 2;
  running.uid = 1000;
  running.user = "alice";
  running.partition = "gpu";
  running.step = record;
  const v1::StepInfo info = JobStepToProto(running);
  EXPECT_EQ(info.job_id(), 42u);
  EXPECT_EQ(info.array_job_id(), 40u);
  EXPECT_EQ(info.array_task_id(), 2);
  EXPECT_EQ(info.uid(), 1000u);
  EXPECT_EQ(info.user(), "alice");
  EXPECT_EQ(info.partition(), "gpu");
  EXPECT_EQ(info.step().SerializeAsString(), step.SerializeAsString());
}

TEST(AcctConvert, ConversionsKnowEveryFieldOfTheirMessages) {
  // The conversions above copy these many fields: a field added to one of
  // these messages fails here until its struct and conversion carry it.
  EXPECT_EQ(proto_schema::FieldCount("skiff.v1.Tres"), 4);
  EXPECT_EQ(proto_schema::FieldCount("skiff.v1.QosInfo"), 17);
  EXPECT_EQ(proto_schema::FieldCount("skiff.v1.QosChanges"), 16);
  EXPECT_EQ(proto_schema::FieldCount("skiff.v1.UpdateQosRequest"), 3);
  EXPECT_EQ(proto_schema::FieldCount("skiff.v1.AccountInfo"), 4);
  EXPECT_EQ(proto_schema::FieldCount("skiff.v1.UserInfo"), 4);
  EXPECT_EQ(proto_schema::FieldCount("skiff.v1.AssocLimits"), 12);
  EXPECT_EQ(proto_schema::FieldCount("skiff.v1.AssocInfo"), 8);
  EXPECT_EQ(proto_schema::FieldCount("skiff.v1.UpdateAccountsRequest"), 13);
  EXPECT_EQ(proto_schema::FieldCount("skiff.v1.UpdateAccountsReply"), 2);
  EXPECT_EQ(proto_schema::FieldCount("skiff.v1.JobsInUse"), 4);
  EXPECT_EQ(proto_schema::FieldCount("skiff.v1.GetAccountsReply"), 6);
  EXPECT_EQ(proto_schema::FieldCount("skiff.v1.AssocKey"), 3);
  EXPECT_EQ(proto_schema::FieldCount("skiff.v1.AssocUsage"), 7);
  EXPECT_EQ(proto_schema::FieldCount("skiff.v1.QosUsage"), 5);
  EXPECT_EQ(proto_schema::FieldCount("skiff.v1.BudgetMinutes"), 5);
  EXPECT_EQ(proto_schema::FieldCount("skiff.v1.AcctStep"), 23);
  EXPECT_EQ(proto_schema::FieldCount("skiff.v1.StepInfo"), 7);
}

TEST(AcctConvert, StoredStepsSettleAndGiveTheDerivedExitCode) {
  Job job = Finished(9, JobState::kCompleted);
  StepRecord ok;
  ok.step_id = "0";
  ok.state = "COMPLETED";
  ok.start_time = 120;
  ok.end_time = 130;
  StepRecord lost;  // its step manager never reported an end
  lost.step_id = "1";
  lost.state = "RUNNING";
  lost.start_time = 140;
  v1::AcctJob out;
  AddStoredSteps(job, {ok, lost}, /*add_rows=*/true, &out);
  EXPECT_EQ(out.derived_exit_code(), 1);
  ASSERT_EQ(out.steps_size(), 2);
  EXPECT_EQ(out.steps(1).state(), "FAILED");
  EXPECT_EQ(out.steps(1).end_time(), 200);
  v1::AcctJob no_rows;
  AddStoredSteps(job, {ok, lost}, /*add_rows=*/false, &no_rows);
  EXPECT_EQ(no_rows.steps_size(), 0);
  EXPECT_EQ(no_rows.derived_exit_code(), 1);
}

}  // namespace
}  // namespace skiff::ctld
