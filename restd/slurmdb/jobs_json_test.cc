// Accounting records as slurmdbd's v0.0.42 job records: the values, and each
// record against Slurm's own schema for it.
#include "restd/slurmdb/jobs_json.h"

#include <gtest/gtest.h>

#include "restd/openapi/openapi_check.h"
#include "restd/openapi/openapi_documents.h"

namespace skiff::restd {
namespace {

using Json = nlohmann::json;

// A record as a reader sees it.
Json Read(const client::Json& record) { return Json::parse(record.Text()); }

const Json& Document() { return SlurmOpenapiDocument("v0.0.42"); }

std::string Problems(const Json& jobs) {
  std::string text;
  const Json body = {{"jobs", jobs}, {"errors", Json::array()}, {"warnings", Json::array()}};
  for (const std::string& problem :
       ResponseProblems(Document(), "GET", "/slurmdb/v0.0.42/jobs", 200, body)) {
    text += problem + "\n";
  }
  return text;
}

constexpr int64_t kNow = 1760000600;

SlurmdbJobContext Context() {
  SlurmdbJobContext context;
  context.now = kNow;
  context.assoc_ids = {{AssocKey::User("physics", "alice"), 7},
                       {AssocKey{"physics", "alice", "gpu"}, 9}};
  context.user_name = [](uint32_t uid) {
    return uid == 0 ? std::string("root") : "u" + std::to_string(uid);
  };
  return context;
}

v1::AcctJob CompletedGpuJob() {
  v1::AcctJob job;
  job.set_job_id(42);
  job.set_array_task_id(-1);
  job.set_name("train");
  job.set_user("alice");
  job.set_uid(1001);
  job.set_group("lab");
  job.set_gid(500);
  job.set_account("physics");
  job.set_partition("gpu");
  job.set_qos("normal");
  job.set_state("COMPLETED");
  job.set_exit_code(0);
  job.set_derived_exit_code(3);
  job.set_submit_time(1760000000);
  job.set_eligible_time(1760000010);
  job.set_start_time(1760000040);
  job.set_end_time(1760000340);
  job.set_time_limit(3600);
  job.set_alloc_cpus(4);
  job.set_req_cpus(4);
  job.set_req_tres("billing=4,cpu=4,gres/gpu=2,mem=8G,node=1");
  job.set_alloc_tres("billing=4,cpu=4,gres/gpu=2,gres/gpu:a100=2,mem=8G,node=1");
  job.set_req_mem_mb(8192);
  job.set_req_nodes(1);
  job.set_alloc_nodes(1);
  job.set_node_list("g1");
  job.set_work_dir("/home/alice");
  job.set_reason("None");
  job.set_priority(4294);
  job.set_comment("first run");
  job.set_cluster("lab");
  job.set_constraints("a100");
  v1::AcctStep* batch = job.add_steps();
  batch->set_step_id("batch");
  batch->set_name("batch");
  batch->set_state("COMPLETED");
  batch->set_start_time(1760000040);
  batch->set_end_time(1760000340);
  batch->set_alloc_cpus(4);
  batch->set_num_nodes(1);
  batch->set_node_list("g1");
  batch->set_ntasks(1);
  batch->set_alloc_tres("cpu=4,gres/gpu=2,mem=8G,node=1");
  batch->set_has_usage(true);
  batch->set_user_cpu_usec(2500000);
  batch->set_system_cpu_usec(700000);
  batch->set_max_rss_kb(2048);
  batch->set_ave_rss_kb(1024);
  v1::AcctStep* step = job.add_steps();
  step->set_step_id("0");
  step->set_name("python");
  step->set_state("FAILED");
  step->set_exit_code(3);
  step->set_start_time(1760000100);
  step->set_end_time(1760000200);
  step->set_num_nodes(2);
  step->set_node_list("g[1-2]");
  step->set_ntasks(2);
  return job;
}

TEST(SlurmdbJobJsonTest, AFinishedJobHasSlurmsFieldsAndUnits) {
  const Json job = Read(SlurmdbJobJson(CompletedGpuJob(), Context()));
  EXPECT_EQ(job["job_id"], 42);
  EXPECT_EQ(job["name"], "train");
  EXPECT_EQ(job["user"], "alice");
  EXPECT_EQ(job["group"], "lab");
  EXPECT_EQ(job["account"], "physics");
  EXPECT_EQ(job["association"],
            Json::parse(R"({"account": "physics", "cluster": "lab", "partition": "gpu",
                            "user": "alice", "id": 9})"));
  EXPECT_EQ(job["state"]["current"], Json::array({"COMPLETED"}));
  EXPECT_EQ(job["state"]["reason"], "None");
  EXPECT_EQ(job["exit_code"]["status"], Json::array({"SUCCESS"}));
  EXPECT_EQ(job["exit_code"]["return_code"]["number"], 0);
  EXPECT_EQ(job["derived_exit_code"]["status"], Json::array({"ERROR"}));
  EXPECT_EQ(job["derived_exit_code"]["return_code"]["number"], 3);
  EXPECT_EQ(job["time"]["submission"], 1760000000);
  EXPECT_EQ(job["time"]["start"], 1760000040);
  EXPECT_EQ(job["time"]["end"], 1760000340);
  EXPECT_EQ(job["time"]["elapsed"], 300);
  EXPECT_EQ(job["time"]["planned"]["number"], 30);
  EXPECT_EQ(job["time"]["limit"], Json::parse(R"({"set": true, "infinite": false, "number": 60})"));
  EXPECT_EQ(job["time"]["total"], Json::parse(R"({"seconds": 3, "microseconds": 200000})"));
  EXPECT_EQ(job["required"]["CPUs"], 4);
  EXPECT_EQ(job["required"]["memory_per_node"]["number"], 8192);  // MiB
  EXPECT_EQ(job["required"]["memory_per_cpu"]["set"], false);
  EXPECT_EQ(job["nodes"], "g1");
  EXPECT_EQ(job["comment"]["job"], "first run");
  EXPECT_EQ(job["array"]["task_id"]["set"], false);
  const Json& allocated = job["tres"]["allocated"];
  ASSERT_EQ(allocated.size(), 6u) << allocated;
  EXPECT_EQ(allocated[0], Json::parse(R"({"type": "cpu", "name": "", "id": 1, "count": 4})"));
  EXPECT_EQ(allocated[1], Json::parse(R"({"type": "mem", "name": "", "id": 2, "count": 8192})"));
  EXPECT_EQ(allocated[4]["type"], "gres");
  EXPECT_EQ(allocated[4]["name"], "gpu");
  EXPECT_EQ(allocated[4]["count"], 2);
  EXPECT_EQ(allocated[5]["name"], "gpu:a100");
  ASSERT_EQ(job["steps"].size(), 2u);
  const Json& batch = job["steps"][0];
  EXPECT_EQ(batch["step"], Json::parse(R"({"id": "42.batch", "name": "batch"})"));
  EXPECT_EQ(batch["time"]["elapsed"], 300);
  EXPECT_EQ(batch["time"]["user"]["seconds"], 2);
  EXPECT_EQ(batch["tres"]["requested"]["max"][0]["count"], 2048 * 1024);  // bytes, as Slurm's
  const Json& srun = job["steps"][1];
  // The job's sampled GPUs: on the batch step's requested TRES.
  v1::AcctJob sampled = CompletedGpuJob();
  v1::GpuUsage* gpu = sampled.add_gpus();
  gpu->set_samples(2);
  gpu->set_util_sum(120);
  gpu->set_util_max(70);
  gpu->set_memory_samples(2);
  gpu->set_memory_sum_mib(2048);
  gpu->set_memory_max_bytes(1536ull << 20);
  const Json sampled_json = Read(SlurmdbJobJson(sampled, Context()));
  const Json& with_gpus = sampled_json["steps"][0]["tres"]["requested"];
  std::map<std::string, int64_t> max;
  for (const Json& t : with_gpus["max"]) {
    max[t["type"].get<std::string>() + "/" + t["name"].get<std::string>()] = t["count"];
  }
  EXPECT_EQ(max["gres/gpumem"], int64_t{1536} << 20) << with_gpus.dump();
  EXPECT_EQ(max["gres/gpuutil"], 70) << with_gpus.dump();
  EXPECT_EQ(max["mem/"], 2048 * 1024);
  EXPECT_EQ(sampled_json["steps"][1]["tres"].dump().find("gpuutil"), std::string::npos)
      << "the batch step's only";
  EXPECT_EQ(srun["state"], Json::array({"FAILED"}));
  EXPECT_EQ(srun["exit_code"]["return_code"]["number"], 3);
  EXPECT_EQ(srun["nodes"]["list"], Json::array({"g1", "g2"}));
  EXPECT_FALSE(srun["time"].contains("user"));  // not measured: left out
  EXPECT_FALSE(job.contains("kill_request_user"));
  EXPECT_FALSE(job.contains("stdout"));
  EXPECT_EQ(Problems(Json::array({job})), "");
}

TEST(SlurmdbJobJsonTest, PendingCancelledAndArrayRecords) {
  v1::AcctJob pending;
  pending.set_job_id(50);
  pending.set_array_job_id(48);
  pending.set_array_task_id(2);
  pending.set_array_max_running(2);
  pending.set_state("PENDING");
  pending.set_user("bob");
  pending.set_account("chem");
  pending.set_cluster("lab");
  pending.set_submit_time(1760000500);
  pending.set_eligible_time(1760000500);
  pending.set_time_limit(-1);
  pending.set_req_mem_mb(100);
  pending.set_req_mem_per_cpu(true);
  pending.set_req_tres("billing=1,cpu=1,mem=100M,node=1");
  pending.set_reason("Priority");
  const Json p = Read(SlurmdbJobJson(pending, Context()));
  EXPECT_EQ(p["nodes"], "None assigned");
  EXPECT_EQ(p["exit_code"]["status"], Json::array({"PENDING"}));
  EXPECT_EQ(p["time"]["elapsed"], 0);
  EXPECT_EQ(p["time"]["planned"]["number"], kNow - 1760000500);
  EXPECT_EQ(p["time"]["limit"]["infinite"], true);
  EXPECT_EQ(p["required"]["memory_per_cpu"]["number"], 100);
  EXPECT_EQ(p["required"]["memory_per_node"]["set"], false);
  EXPECT_EQ(p["array"]["job_id"], 48);
  EXPECT_EQ(p["array"]["task_id"]["number"], 2);
  EXPECT_EQ(p["array"]["limits"]["max"]["running"]["tasks"], 2);
  EXPECT_EQ(p["state"]["reason"], "Priority");
  EXPECT_EQ(p["tres"]["allocated"], Json::array());
  EXPECT_FALSE(p["association"].contains("id"));  // no association for bob in chem
  EXPECT_EQ(p["hold"], true);                     // pending at priority 0

  v1::AcctJob cancelled = CompletedGpuJob();
  cancelled.set_state("CANCELLED");
  cancelled.set_cancelled_by_known(true);
  cancelled.set_cancelled_by(0);
  cancelled.set_partition("cpu");
  cancelled.clear_steps();
  const Json c = Read(SlurmdbJobJson(cancelled, Context()));
  EXPECT_EQ(c["kill_request_user"], "root");
  EXPECT_EQ(c["association"]["id"], 7);  // the user's association for every partition
  EXPECT_EQ(c["association"]["partition"], "");
  EXPECT_FALSE(c["time"].contains("total"));

  v1::AcctJob running = CompletedGpuJob();
  running.set_state("RUNNING");
  running.set_end_time(0);
  running.set_suspended(100);
  const Json r = Read(SlurmdbJobJson(running, Context()));
  EXPECT_EQ(r["time"]["elapsed"], kNow - 1760000040 - 100);
  EXPECT_EQ(r["exit_code"]["status"], Json::array({"PENDING"}));
  EXPECT_EQ(Problems(Json::array({p, c, r})), "");
}

TEST(SlurmdbJobJsonTest, TresTextBecomesCountsInMiB) {
  EXPECT_EQ(TresCountsOf("billing=2,cpu=2,gres/gpu=1,mem=1536M,node=1,bb/lua=2G"),
            (std::map<std::string, int64_t>{{"billing", 2},
                                            {"bb/lua", 2048},
                                            {"cpu", 2},
                                            {"gres/gpu", 1},
                                            {"mem", 1536},
                                            {"node", 1}}));
  EXPECT_EQ(TresCountsOf("mem=1T"), (std::map<std::string, int64_t>{{"mem", 1024 * 1024}}));
  EXPECT_TRUE(TresCountsOf("").empty());
  EXPECT_EQ(TresCountsOf("cpu=x,=3,node,mem=2G"), (std::map<std::string, int64_t>{{"mem", 2048}}));
}

TEST(SlurmdbJobJsonTest, AssociationIdsAreKeyedByAccountUserAndPartition) {
  v1::GetAccountsReply accounts;
  v1::AssocInfo* root = accounts.add_assocs();
  root->set_id(1);
  root->set_account("root");
  v1::AssocInfo* user = accounts.add_assocs();
  user->set_id(5);
  user->set_account("physics");
  user->set_user("alice");
  user->set_partition("gpu");
  EXPECT_EQ(AssocIdsOf(accounts),
            (std::map<AssocKey, uint64_t>{{AssocKey::Account("root"), 1},
                                          {AssocKey{"physics", "alice", "gpu"}, 5}}));
}

}  // namespace
}  // namespace skiff::restd
