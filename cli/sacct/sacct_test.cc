#include <gtest/gtest.h>

#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cli/sacct/sacct_format.h"
#include "cli/sacct/sacct_options.h"
#include "common/time_format.h"

namespace skiff::cli {
namespace {

class SacctTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "UTC0", 1);
    tzset();
  }
};

constexpr int64_t kT = 1795324443;  // 2026-11-22T05:14:03

v1::AcctJob Job(uint64_t id, const std::string& name, const std::string& partition,
                const std::string& state, int cpus) {
  v1::AcctJob job;
  job.set_job_id(id);
  job.set_array_task_id(-1);
  job.set_name(name);
  job.set_partition(partition);
  job.set_account("research");
  job.set_state(state);
  job.set_alloc_cpus(cpus);
  job.set_submit_time(kT);
  job.set_start_time(kT);
  job.set_end_time(kT);
  return job;
}

v1::AcctStep* Batch(v1::AcctJob* job, const std::string& state, int cpus, int signal = 0) {
  v1::AcctStep* step = job->add_steps();
  step->set_step_id("batch");
  step->set_name("batch");
  step->set_state(state);
  step->set_alloc_cpus(cpus);
  step->set_exit_signal(signal);
  step->set_start_time(kT);
  step->set_end_time(kT);
  return step;
}

// Rows of shared/reference/sacct_default.txt.
v1::GetAccountingReply Reference() {
  v1::GetAccountingReply reply;
  v1::AcctJob* a = reply.add_jobs();
  *a = Job(15373, "env_job.sh", "gpu", "COMPLETED", 1);
  Batch(a, "COMPLETED", 1);
  v1::AcctJob* t1 = reply.add_jobs();
  *t1 = Job(15376, "env_job.sh", "debug", "COMPLETED", 1);
  t1->set_array_job_id(15376);
  t1->set_array_task_id(1);
  Batch(t1, "COMPLETED", 1);
  v1::AcctJob* failed = reply.add_jobs();
  *failed = Job(15380, "wrap", "debug", "FAILED", 1);
  failed->set_exit_code(3);
  Batch(failed, "FAILED", 1)->set_exit_code(3);
  v1::AcctJob* wide = reply.add_jobs();
  *wide = Job(15391, "wide", "debug", "CANCELLED", 4);
  wide->set_cancelled_by_known(true);
  wide->set_cancelled_by(0);
  Batch(wide, "CANCELLED", 2, 15);
  for (int task = 1; task <= 5; ++task) {
    v1::AcctJob* pending = reply.add_jobs();
    *pending = Job(15400 + task - 1, "arr", "debug", "CANCELLED", 1);
    pending->set_array_job_id(15400);
    pending->set_array_task_id(task);
    pending->set_start_time(0);
    pending->set_cancelled_by_known(true);
  }
  return reply;
}

TEST_F(SacctTest, DefaultFormatMatchesSlurmsLayout) {
  auto fields = ParseSacctFormat(kSacctDefaultFields);
  ASSERT_TRUE(fields.ok());
  EXPECT_EQ(FormatSacct(Reference(), *fields, {}),
            "JobID           JobName  Partition    Account  AllocCPUS      State ExitCode \n"
            "------------ ---------- ---------- ---------- ---------- ---------- -------- \n"
            "15373        env_job.sh        gpu   research          1  COMPLETED      0:0 \n"
            "15373.batch       batch              research          1  COMPLETED      0:0 \n"
            "15376_1      env_job.sh      debug   research          1  COMPLETED      0:0 \n"
            "15376_1.bat+      batch              research          1  COMPLETED      0:0 \n"
            "15380              wrap      debug   research          1     FAILED      3:0 \n"
            "15380.batch       batch              research          1     FAILED      3:0 \n"
            "15391              wide      debug   research          4 CANCELLED+      0:0 \n"
            "15391.batch       batch              research          2  CANCELLED     0:15 \n"
            "15400_[1-5]         arr      debug   research          1 CANCELLED+      0:0 \n");
}

TEST_F(SacctTest, ParsableAllocationsAsTheReference) {
  auto fields = ParseSacctFormat("JobID,JobName,State,ExitCode,Start,End");
  ASSERT_TRUE(fields.ok());
  v1::GetAccountingReply reply = Reference();
  for (auto& job : *reply.mutable_jobs()) job.clear_steps();  // -X
  SacctLayout layout;
  layout.parsable2 = true;
  const std::string out = FormatSacct(reply, *fields, layout);
  EXPECT_EQ(out,
            "JobID|JobName|State|ExitCode|Start|End\n"
            "15373|env_job.sh|COMPLETED|0:0|2026-11-22T05:14:03|2026-11-22T05:14:03\n"
            "15376_1|env_job.sh|COMPLETED|0:0|2026-11-22T05:14:03|2026-11-22T05:14:03\n"
            "15380|wrap|FAILED|3:0|2026-11-22T05:14:03|2026-11-22T05:14:03\n"
            "15391|wide|CANCELLED by 0|0:0|2026-11-22T05:14:03|2026-11-22T05:14:03\n"
            "15400_[1-5]|arr|CANCELLED by 0|0:0|None|2026-11-22T05:14:03\n");
  layout.parsable = true;
  layout.parsable2 = false;
  layout.no_header = true;
  EXPECT_EQ(FormatSacct(reply, *ParseSacctFormat("jobidraw,state"), layout).substr(0, 17),
            "15373|COMPLETED|\n");
}

TEST_F(SacctTest, StepsOnlyAndWidthsAndRunningJobs) {
  v1::GetAccountingReply reply;
  v1::AcctJob* job = reply.add_jobs();
  *job = Job(15392, "gpubb", "gpu", "RUNNING", 1);
  job->set_end_time(0);
  job->set_alloc_tres("bb/lua=2G,billing=1,cpu=1,gres/gpu=1,mem=100M,node=1");
  Batch(job, "RUNNING", 1)->set_alloc_tres("cpu=1,gres/gpu=1,mem=100M,node=1");
  job->mutable_steps(0)->set_end_time(0);
  reply.set_now(kT + 3725);
  auto fields = ParseSacctFormat("JobID,State,AllocTRES%50,End,Elapsed,NodeList");
  ASSERT_TRUE(fields.ok());
  std::string out = FormatSacct(reply, *fields, {});
  EXPECT_NE(out.find(" bb/lua=2G,billing=1,cpu=1,gres/gpu=1,mem=100M,nod+ "), std::string::npos)
      << out;
  EXPECT_NE(out.find("Unknown   01:02:05   None assigned"), std::string::npos) << out;
  job->set_steps_only(true);
  out = FormatSacct(reply, *ParseSacctFormat("jobid"), SacctLayout{true});
  EXPECT_EQ(out, "15392.batch  \n");
}

TEST_F(SacctTest, BadFieldsAreNamed) {
  EXPECT_EQ(ParseSacctFormat("jobid,bogus").status().message(),
            "Invalid field requested: \"bogus\"");
  EXPECT_EQ((*ParseSacctFormat("state%20"))[0].width, 20);
  EXPECT_EQ((*ParseSacctFormat("JOBID%30"))[0].width, -30);
}

SacctContext Context(uid_t uid = 1000) {
  SacctContext context;
  context.now = kT;
  context.uid = uid;
  context.cluster = "lab";
  context.uid_of = [](const std::string& name) -> std::optional<uid_t> {
    if (name == "alice") return 1000;
    return std::nullopt;
  };
  return context;
}

TEST_F(SacctTest, DefaultWindowsFollowSlurm) {
  SacctCommandLine line;
  auto plan = PlanSacct(line, Context());
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(FormatTimestamp(plan->request.window_start()), "2026-11-22T00:00:00");  // midnight
  EXPECT_EQ(plan->request.window_end(), kT);
  EXPECT_EQ(plan->request.uids_size(), 1);  // the caller only
  line.jobs = {"15,16_3,17.batch"};
  plan = PlanSacct(line, Context());
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->request.window_start(), 0);  // -j: since the epoch
  ASSERT_EQ(plan->request.jobs_size(), 3);
  EXPECT_EQ(plan->request.jobs(1).array_task_id(), 3);
  EXPECT_EQ(plan->request.jobs(2).step(), "batch");
  line.jobs.clear();
  line.states = "CA,r";
  plan = PlanSacct(line, Context());
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->request.window_start(), kT);  // -s: now
  EXPECT_EQ(plan->request.window_end(), kT);
  EXPECT_EQ(plan->request.states(0), "CANCELLED");
  EXPECT_EQ(plan->request.states(1), "RUNNING");
  SacctCommandLine root;
  EXPECT_EQ(PlanSacct(root, Context(0))->request.uids_size(), 0);  // root: everyone
}

TEST_F(SacctTest, BadInputGetsSlurmsMessages) {
  SacctCommandLine line;
  line.states = "XX";
  EXPECT_EQ(PlanSacct(line, Context()).status().message(), "unrecognized job state value 'XX'");
  line = {};
  line.start_time = "yesterday";
  EXPECT_EQ(PlanSacct(line, Context()).status().message(),
            "Invalid time specification 'yesterday'");
  line = {};
  line.start_time = "now";
  line.end_time = "now-1days";
  EXPECT_EQ(PlanSacct(line, Context()).status().message(),
            "Start time (2026-11-22T05:14:03) requested is after end time "
            "(2026-11-21T05:14:03).");
  line = {};
  line.users = "nosuchuser";
  EXPECT_EQ(PlanSacct(line, Context()).status().message(), "Invalid user id: nosuchuser");
  line = {};
  line.jobs = {"abc"};
  EXPECT_EQ(PlanSacct(line, Context()).status().message(), "Invalid job id: abc");
  line = {};
  line.format = "jobid";
  line.long_format = true;
  EXPECT_FALSE(PlanSacct(line, Context()).ok());
  line = {};
  line.clusters = "other";
  EXPECT_EQ(PlanSacct(line, Context()).status().message(), "Invalid cluster name: other");
}

// Every field Slurm 22.05's `sacct --helpformat` lists is accepted; those of
// usage gathering (MaxRSS, TotalCPU, ...) print blank, as without a gathering
// plugin.
TEST_F(SacctTest, EveryHelpformatFieldIsAccepted) {
  std::string all;
  for (absl::string_view word : absl::StrSplit(SacctHelpFormat(), ' ', absl::SkipWhitespace())) {
    absl::StrAppend(&all, all.empty() ? "" : ",", absl::StripAsciiWhitespace(word));
  }
  absl::StatusOr<std::vector<SacctField>> fields = ParseSacctFormat(all);
  ASSERT_TRUE(fields.ok()) << fields.status();
  EXPECT_EQ(fields->size(), 112u);  // Slurm's 109 and Skiff's 3
  for (const char* name : {"TotalCPU", "MaxRSS", "AveRSS", "TRESUsageInMax", "SubmitLine",
                           "ConsumedEnergyRaw", "ReqCPUFreqGov", "WCKeyID", "DBIndex"}) {
    EXPECT_TRUE(ParseSacctFormat(name).ok()) << name;
  }
  SacctLayout layout;
  layout.parsable2 = true;
  layout.no_header = true;
  v1::GetAccountingReply reply = Reference();
  reply.mutable_jobs(0)->set_submit_line("sbatch env_job.sh");
  reply.mutable_jobs()->DeleteSubrange(1, reply.jobs_size() - 1);
  EXPECT_EQ(
      FormatSacct(reply, *ParseSacctFormat("JobID,TotalCPU,MaxRSS,SubmitLine,ReqCPUFreq"), layout),
      "15373|||sbatch env_job.sh|Unknown\n15373.batch||||Unknown\n");
}

// --units=[KMGTP]: memory in that unit, as Slurm's convert_num_unit.
TEST_F(SacctTest, UnitsConvertMemory) {
  EXPECT_EQ(*ParseSacctUnits("K"), 1);
  EXPECT_EQ(*ParseSacctUnits("g"), 3);
  EXPECT_EQ(*ParseSacctUnits("P"), 5);
  EXPECT_EQ(ParseSacctUnits("X").status().message(),
            "Invalid unit type 'X'. Possible options are 'KMGTP'");
  v1::GetAccountingReply reply;
  *reply.add_jobs() = Job(7, "a", "debug", "COMPLETED", 1);
  reply.mutable_jobs(0)->set_req_mem_mb(100);
  *reply.add_jobs() = Job(8, "b", "debug", "COMPLETED", 1);
  reply.mutable_jobs(1)->set_req_mem_mb(2048);
  SacctLayout layout;
  layout.parsable2 = true;
  layout.no_header = true;
  const std::vector<SacctField> fields = *ParseSacctFormat("JobID,ReqMem");
  EXPECT_EQ(FormatSacct(reply, fields, layout), "7|100M\n8|2G\n");
  layout.units = 1;
  EXPECT_EQ(FormatSacct(reply, fields, layout), "7|102400K\n8|2097152K\n");
  layout.units = 3;
  EXPECT_EQ(FormatSacct(reply, fields, layout), "7|0.10G\n8|2G\n");
}

// Slurm's forms: _elapsed_time for CPU time, convert_num_unit (exact) of
// bytes for MaxRSS; the job's row sums its steps' CPU and has no MaxRSS.
TEST_F(SacctTest, StepUsageAsSlurmPrintsIt) {
  v1::GetAccountingReply reply;
  v1::AcctJob* job = reply.add_jobs();
  *job = Job(9, "u", "debug", "COMPLETED", 2);
  v1::AcctStep* batch = Batch(job, "COMPLETED", 2);
  batch->set_has_usage(true);
  batch->set_user_cpu_usec(1234567);
  batch->set_system_cpu_usec(0);
  batch->set_max_rss_kb(2016);
  batch->set_ave_rss_kb(1536);
  batch->set_max_rss_node("n1");
  v1::AcctStep* step = job->add_steps();
  step->set_step_id("0");
  step->set_name("sleep");
  step->set_state("COMPLETED");
  step->set_has_usage(true);
  step->set_user_cpu_usec(3600LL * 1000000 + 5);
  step->set_system_cpu_usec(61LL * 1000000);
  step->set_max_rss_kb(2048);
  step->set_ave_rss_kb(2048);
  step->set_max_rss_node("n2");
  step->set_max_rss_task(3);
  v1::AcctStep* unmeasured = job->add_steps();
  unmeasured->set_step_id("1");
  unmeasured->set_name("x");
  unmeasured->set_state("COMPLETED");
  SacctLayout layout;
  layout.parsable2 = true;
  layout.no_header = true;
  EXPECT_EQ(FormatSacct(reply,
                        *ParseSacctFormat("JobID,TotalCPU,UserCPU,SystemCPU,MaxRSS,MaxRSSNode,"
                                          "MaxRSSTask,AveRSS"),
                        layout),
            "9|01:01:02|01:00:01|00:01:01||||\n"
            "9.batch|00:01.234|00:01.234|00:00:00|2016K|n1|0|1.50M\n"
            "9.0|01:01:01|01:00:00|00:01:01|2M|n2|3|2M\n"
            "9.1|||||||\n");
  // TRESUsageInTot: what is measured, the tasks' CPU time and memory summed
  // (4 tasks of 2 MB on average: 8 MB).
  step->set_ntasks(4);
  EXPECT_EQ(FormatSacct(reply, *ParseSacctFormat("JobID,TRESUsageInTot"), layout),
            "9|\n9.batch|cpu=00:01.234,mem=1.50M\n9.0|cpu=01:01:01,mem=8M\n9.1|\n");
  // The job's sampled GPUs: gres/gpumem and gres/gpuutil on the batch step,
  // the GPUs' energy on the job's and the batch step's rows.
  v1::GpuUsage* gpu = job->add_gpus();
  gpu->set_samples(2);
  gpu->set_util_sum(90);
  gpu->set_util_max(60);
  gpu->set_memory_samples(2);
  gpu->set_memory_sum_mib(3072);
  gpu->set_memory_max_bytes(2ull << 30);
  gpu->set_energy_mj(5000000);
  EXPECT_EQ(FormatSacct(reply,
                        *ParseSacctFormat("JobID,TRESUsageInAve,TRESUsageInMax,TRESUsageInTot,"
                                          "ConsumedEnergy,ConsumedEnergyRaw"),
                        layout),
            "9||||5000|5000\n"
            "9.batch|gres/gpumem=1.50G,gres/gpuutil=45|gres/gpumem=2G,gres/gpuutil=60|"
            "cpu=00:01.234,gres/gpumem=1.50G,gres/gpuutil=45,mem=1.50M|5000|5000\n"
            "9.0|||cpu=01:01:01,mem=8M|0|0\n9.1||||0|0\n");
}

TEST(SacctTresArray, SlurmsJsonTresList) {
  EXPECT_EQ(SacctTresArray("bb/lua=2G,billing=1,cpu=2,gres/gpu=1,mem=100M,node=1").Dump(),
            SacctTresArray("cpu=2,mem=100M,node=1,billing=1,gres/gpu=1,bb/lua=2G").Dump())
      << "ordered by id, whatever the string's order";
  const std::string dump = SacctTresArray("cpu=2,mem=1G,gres/gpu=1").Dump();
  EXPECT_NE(dump.find("\"type\": \"cpu\""), std::string::npos) << dump;
  EXPECT_NE(dump.find("\"name\": null"), std::string::npos) << dump;
  EXPECT_NE(dump.find("\"count\": 1024"), std::string::npos) << "mem in MB: " << dump;
  EXPECT_NE(dump.find("\"type\": \"gres\""), std::string::npos) << dump;
  EXPECT_NE(dump.find("\"name\": \"gpu\""), std::string::npos) << dump;
  EXPECT_NE(dump.find("\"id\": 1001"), std::string::npos) << dump;
  EXPECT_LT(dump.find("\"id\": 1,"), dump.find("\"id\": 2,")) << dump;
  EXPECT_EQ(SacctTresArray("").Dump(), client::Json::Array().Dump());
}

}  // namespace
}  // namespace skiff::cli
