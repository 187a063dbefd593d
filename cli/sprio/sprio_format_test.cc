#include "cli/sprio/sprio_format.h"

#include <gtest/gtest.h>

namespace skiff::cli {
namespace {

v1::JobInfo Pending(uint64_t id, const std::string& partition, const std::string& user, int64_t age,
                    int64_t fairshare, int64_t job_size, int64_t part, int64_t qos) {
  v1::JobInfo job;
  job.set_job_id(id);
  job.set_partition(partition);
  job.set_user_name(user);
  job.set_state(v1::PENDING);
  v1::PriorityFactors* f = job.mutable_priority_factors();
  f->set_age(age);
  f->set_fairshare(fairshare);
  f->set_job_size(job_size);
  f->set_partition(part);
  f->set_qos(qos);
  f->set_priority(age + fairshare + job_size + part + qos);
  return job;
}

PublishedWeights Weights() {
  PublishedWeights w;
  w.age = 1000;
  w.fairshare = 10000;
  w.job_size = 1000;
  w.partition = 1000;
  w.qos = 2000;
  w.priority_type = "priority/multifactor";
  return w;
}

v1::GetJobsReply Queue() {
  v1::GetJobsReply reply;
  *reply.add_jobs() = Pending(15402, "debug", "alice", 12, 5000, 125, 1000, 20);
  *reply.add_jobs() = Pending(15395, "debug", "root", 35, 2500, 250, 1000, 0);
  v1::JobInfo running = Pending(15391, "debug", "root", 1, 1, 1, 1, 1);
  running.set_state(v1::RUNNING);
  *reply.add_jobs() = running;
  v1::JobInfo held = Pending(15397, "debug", "root", 1, 1, 1, 1, 1);
  held.set_held(true);
  *reply.add_jobs() = held;
  return reply;
}

TEST(SprioDefaultFormat, FollowsTheWeightsLikeSlurm) {
  SprioOptions options;
  EXPECT_EQ(SprioDefaultFormat(options, Weights()),
            "%.15i %9r %.10Y %.10S %.10A %.10F %.10J %.10P %.10Q");
  PublishedWeights w = Weights();
  w.fairshare = 0;
  w.qos = 0;
  options.show_user = true;
  EXPECT_EQ(SprioDefaultFormat(options, w), "%.15i %9r %.8u %.10Y %.10S %.10A %.10J %.10P");
  options = SprioOptions();
  options.normalized = true;
  EXPECT_EQ(SprioDefaultFormat(options, Weights()), "%.15i %9r %10y %10a %10f %10j %10p %10q");
  // Weights ctld does not publish count as non-zero.
  EXPECT_EQ(SprioDefaultFormat(SprioOptions(), PublishedWeights()),
            "%.15i %9r %.10Y %.10S %.10A %.10F %.10J %.10P %.10Q");
}

TEST(FormatSprio, DefaultColumnsForPendingJobsByJobId) {
  EXPECT_EQ(*FormatSprio(Queue(), Weights(), SprioOptions()),
            "          JOBID PARTITION   PRIORITY       SITE        AGE  FAIRSHARE    JOBSIZE  "
            "PARTITION        QOS\n"
            "          15395 debug           3785          0         35       2500        250  "
            "     1000          0\n"
            "          15402 debug           6157          0         12       5000        125  "
            "     1000         20\n");
}

TEST(FormatSprio, WeightsLine) {
  SprioOptions options;
  options.weights = true;
  EXPECT_EQ(*FormatSprio(Queue(), Weights(), options),
            "          JOBID PARTITION   PRIORITY       SITE        AGE  FAIRSHARE    JOBSIZE  "
            "PARTITION        QOS\n"
            "        Weights                               1       1000      10000       1000  "
            "     1000       2000\n");
}

TEST(FormatSprio, NormalizedFactors) {
  SprioOptions options;
  options.normalized = true;
  options.no_header = true;
  options.format = "%.15i %10y %10a %10f %10q";
  EXPECT_EQ(*FormatSprio(Queue(), Weights(), options),
            "          15395 0.00000088 0.0350000  0.2500000  0.0000000 \n"
            "          15402 0.00000143 0.0120000  0.5000000  0.0100000 \n");
}

TEST(FormatSprio, TresFactorsWeightedAndNormalized) {
  v1::GetJobsReply reply;
  v1::JobInfo job = Pending(20, "gpu", "alice", 0, 0, 0, 0, 0);
  job.mutable_priority_factors()->set_tres_cpu(250);
  job.mutable_priority_factors()->set_tres_gpu(1000);
  *reply.add_jobs() = job;
  PublishedWeights w = Weights();
  w.tres = "CPU=1000,GRES/gpu=4000";
  SprioOptions options;
  options.no_header = true;
  options.format = "%.5i %.25T %.25t";
  EXPECT_EQ(*FormatSprio(reply, w, options),
            "   20     cpu=250,gres/gpu=1000    cpu=0.25,gres/gpu=0.25\n");
}

TEST(FormatSprio, LongFormatAndUsers) {
  SprioOptions options;
  options.long_format = true;
  std::string out = *FormatSprio(Queue(), Weights(), options);
  EXPECT_EQ(out.substr(0, out.find('\n')),
            "          JOBID PARTITION     USER   PRIORITY       SITE        AGE      ASSOC  "
            "FAIRSHARE    JOBSIZE  PARTITION        QOS        NICE                 TRES");
  EXPECT_NE(out.find("          15402 debug        alice       6157          0         12  "
                     "        0       5000        125       1000         20           0 "),
            std::string::npos)
      << out;
}

TEST(FormatSprio, NamedJobsThatAreNotPendingSaySo) {
  SprioOptions options;
  options.jobs_named = true;
  EXPECT_EQ(*FormatSprio(v1::GetJobsReply(), Weights(), options),
            "Unable to find jobs matching user/id(s) specified\n");
}

TEST(ParseSprioFormat, LettersAndErrors) {
  std::vector<SprioFormatItem> items = *ParseSprioFormat("%.15i|%9r");
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[0].field, 'i');
  EXPECT_TRUE(items[0].right);
  EXPECT_EQ(items[1].literal, "|");
  EXPECT_EQ(items[2].width, 9);
  EXPECT_FALSE(items[2].right);
  EXPECT_EQ(ParseSprioFormat("%i %z").status().message(), "Invalid job format specification: z");
  EXPECT_FALSE(ParseSprioFormat("%.5").ok());
}

TEST(WeightsFromConfig, ReadsPublishedEntries) {
  v1::GetConfigReply config;
  auto add = [&](const char* key, const char* value) {
    v1::ConfigEntry* e = config.add_entries();
    e->set_key(key);
    e->set_value(value);
  };
  add("PriorityType", "priority/multifactor");
  add("PriorityWeightAge", "1000");
  add("PriorityWeightQOS", "0");
  add("PriorityWeightTRES", "(null)");
  add("PriorityWeightFairshare", "lots");
  PublishedWeights w = WeightsFromConfig(config);
  EXPECT_EQ(w.age, 1000);
  EXPECT_EQ(w.qos, 0);
  EXPECT_FALSE(w.fairshare.has_value());
  EXPECT_FALSE(w.job_size.has_value());
  EXPECT_EQ(w.tres, "");
  EXPECT_TRUE(CheckPriorityType(w).ok());
}

TEST(CheckPriorityType, BasicHasNoFactors) {
  PublishedWeights w;
  w.priority_type = "priority/basic";
  EXPECT_EQ(CheckPriorityType(w).message(),
            "You are not running a supported priority plugin\n(priority/basic).\n"
            "Only 'priority/multifactor' is supported.");
}

}  // namespace
}  // namespace skiff::cli
