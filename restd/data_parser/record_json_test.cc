// Jobs, nodes, partitions, reservations and shares in data_parser v0.0.42's
// shapes: the values, and each record against Slurm's own schema for it.
#include <gtest/gtest.h>

#include "restd/data_parser/cluster_json.h"
#include "restd/data_parser/job_json.h"
#include "restd/openapi/openapi_check.h"
#include "restd/openapi/openapi_documents.h"

namespace skiff::restd {
namespace {

using Json = nlohmann::json;

// A record as a reader sees it.
Json Read(const client::Json& record) { return Json::parse(record.Text()); }

const Json& Document() { return SlurmOpenapiDocument("v0.0.42"); }

std::string Problems(const std::string& schema, const Json& value) {
  std::string text;
  for (const std::string& problem :
       SchemaProblems(Document(), {{"$ref", "#/components/schemas/" + schema}}, value)) {
    text += problem + "\n";
  }
  return text;
}

v1::NodeInfo GpuNode() {
  v1::NodeInfo node;
  node.set_name("g1");
  node.set_cpus(8);
  node.set_sockets(2);
  node.set_cores_per_socket(4);
  node.set_threads_per_core(1);
  node.set_real_memory_mb(65536);
  node.set_state("MIXED");
  node.set_drain(true);
  node.add_partitions("gpu");
  v1::Gres* gres = node.add_gres();
  gres->set_name("gpu");
  gres->set_type("a100");
  gres->set_count(4);
  node.set_alloc_cpus(5);
  node.add_alloc_gpu_indices(1);
  node.add_alloc_gpu_indices(2);
  node.set_reason("flaky fan");
  node.set_reason_uid(0);
  return node;
}

v1::JobInfo RunningGpuJob() {
  v1::JobInfo job;
  job.set_job_id(42);
  job.set_user_name("alice");
  job.set_state(v1::RUNNING);
  job.set_start_time(1000);
  job.set_submit_time(900);
  job.set_time_limit(3600);
  job.set_partition("gpu");
  job.add_nodes("g1");
  job.set_num_nodes(1);
  job.set_num_cpus(4);
  job.set_array_task_id(-1);
  job.mutable_spec()->set_name("train");
  job.mutable_spec()->add_gres("gpu:a100:2");
  job.mutable_spec()->set_mail_type("END,TIME_LIMIT_90,bogus");
  v1::JobNodeResources* resources = job.add_node_resources();
  for (int cpu : {0, 1, 4, 5}) resources->add_cpu_ids(cpu);
  resources->add_gpu_indices(1);
  resources->add_gpu_indices(2);
  return job;
}

TEST(RecordJsonTest, ARunningGpuJobShowsItsGpusCoresAndEnd) {
  const v1::NodeInfo node = GpuNode();
  JobJsonContext context{"lab", {{"g1", &node}}};
  const Json job = Read(JobJson(RunningGpuJob(), context));
  EXPECT_EQ(Problems("v0.0.42_job_info", job), "");
  EXPECT_EQ(job["job_state"], Json::array({"RUNNING"}));
  EXPECT_EQ(job["gres_detail"], Json::array({"gpu:a100:2(IDX:1-2)"}));
  EXPECT_EQ(job["tres_per_node"], "gres/gpu:a100:2");
  EXPECT_EQ(job["time_limit"]["number"], 60);
  EXPECT_EQ(job["end_time"]["number"], 1000 + 3600);  // by its limit
  EXPECT_EQ(job["mail_type"], Json::array({"END", "TIME=90%"}));
  EXPECT_EQ(job["array_task_id"]["set"], false);
  const Json& sockets = job["job_resources"]["nodes"]["allocation"][0]["sockets"];
  ASSERT_EQ(sockets.size(), 2u);  // CPUs 0,1 on socket 0; 4,5 on socket 1
  EXPECT_EQ(sockets[1]["index"], 1);
  EXPECT_EQ(sockets[1]["cores"][1]["index"], 1);
}

TEST(RecordJsonTest, APendingJobShowsItsEstimatedStartAndNoResources) {
  v1::JobInfo job;
  job.set_job_id(7);
  job.set_state(v1::PENDING);
  job.set_state_reason("Resources");
  job.set_expected_start(5000);
  job.set_array_job_id(7);
  job.set_array_task_id(3);
  const Json json = Read(JobJson(job, {"lab", {}}));
  EXPECT_EQ(Problems("v0.0.42_job_info", json), "");
  EXPECT_EQ(json["start_time"]["number"], 5000);
  EXPECT_EQ(json["state_reason"], "Resources");
  EXPECT_FALSE(json.contains("job_resources"));
  EXPECT_EQ(json["exit_code"]["status"], Json::array({"PENDING"}));
  EXPECT_EQ(json["array_task_id"]["number"], 3);
}

TEST(RecordJsonTest, ANodeShowsItsStateFlagsGresAndTres) {
  const Json node = Read(NodeJson(GpuNode(), "lab", [](uint32_t) { return "root"; }));
  EXPECT_EQ(Problems("v0.0.42_node", node), "");
  EXPECT_EQ(node["state"], Json::array({"MIXED", "DRAIN"}));
  EXPECT_EQ(node["gres"], "gpu:a100:4");
  EXPECT_EQ(node["alloc_idle_cpus"], 3);
  EXPECT_EQ(node["tres"], "cpu=8,mem=64G,billing=8,gres/gpu=4,gres/gpu:a100=4");
  EXPECT_EQ(node["tres_used"], "cpu=5,gres/gpu=2");
  EXPECT_EQ(node["reason_set_by_user"], "root");
  EXPECT_EQ(node["free_mem"]["set"], false);
}

TEST(RecordJsonTest, APartitionAddsUpItsNodes) {
  const v1::NodeInfo node = GpuNode();
  v1::PartitionInfo partition;
  partition.set_name("gpu");
  partition.add_nodes("g1");
  partition.set_max_time(-1);
  partition.set_default_time(-1);
  partition.set_max_nodes(-1);
  partition.set_state("UP");
  const Json json = Read(PartitionJson(partition, {{"g1", &node}}, "lab"));
  EXPECT_EQ(Problems("v0.0.42_partition_info", json), "");
  EXPECT_EQ(json["cpus"]["total"], 8);
  EXPECT_EQ(json["nodes"]["configured"], "g1");
  EXPECT_EQ(json["maximums"]["time"]["infinite"], true);
  EXPECT_EQ(json["partition"]["state"], Json::array({"UP"}));
}

TEST(RecordJsonTest, AReservationKeepsSlurmsFlags) {
  v1::ReservationInfo reservation;
  reservation.set_name("maint");
  reservation.add_nodes("g1");
  reservation.add_nodes("g2");
  reservation.add_users("root");
  reservation.set_flags_text("MAINT,SPEC_NODES");
  reservation.set_start_time(100);
  reservation.set_end_time(200);
  const Json json = Read(ReservationJson(reservation));
  EXPECT_EQ(Problems("v0.0.42_reservation_info", json), "");
  EXPECT_EQ(json["node_list"], "g[1-2]");
  EXPECT_EQ(json["flags"], Json::array({"MAINT", "SPEC_NODES"}));
}

TEST(RecordJsonTest, SharesListTheTreeWithFairShare) {
  v1::GetAccountsReply reply;
  reply.set_cluster("lab");
  v1::AccountInfo* root = reply.add_accounts();
  root->set_name("root");
  v1::AccountInfo* lab = reply.add_accounts();
  lab->set_name("lab");
  lab->set_parent("root");
  for (auto [account, user, parent] :
       {std::tuple<const char*, const char*, const char*>{"root", "", ""},
        {"lab", "", "root"},
        {"lab", "alice", ""}}) {
    v1::AssocInfo* assoc = reply.add_assocs();
    assoc->set_account(account);
    assoc->set_user(user);
    assoc->set_parent_account(parent);
  }
  const Json shares = Read(SharesJson(reply));
  EXPECT_EQ(Problems("v0.0.42_shares_resp_msg", shares), "");
  ASSERT_EQ(shares["shares"].size(), 3u);
  EXPECT_EQ(shares["shares"][2]["name"], "alice");
  EXPECT_EQ(shares["shares"][2]["parent"], "lab");
  EXPECT_EQ(shares["shares"][2]["type"], Json::array({"USER"}));
  EXPECT_EQ(shares["shares"][1]["parent"], "root");
}

}  // namespace
}  // namespace skiff::restd
