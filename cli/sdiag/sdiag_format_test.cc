#include "cli/sdiag/sdiag_format.h"

#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace skiff::cli {
namespace {

class SdiagFormatTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "UTC0", 1);
    tzset();
  }
};

// Slurm's sections: everything before Skiff's own, which follow them.
std::string SlurmPart(const std::string& text) {
  return text.substr(0, text.find("\nJob overhead statistics"));
}

void AddType(v1::GetStatsReply* s, const std::string& name, uint32_t id, uint64_t count,
             uint64_t total) {
  v1::RpcTypeStat* t = s->add_rpcs_by_type();
  t->set_name(name);
  t->set_type_id(id);
  t->set_count(count);
  t->set_total_time(total);
}

void AddUser(v1::GetStatsReply* s, uint32_t uid, const std::string& name, uint64_t count,
             uint64_t total) {
  v1::RpcUserStat* u = s->add_rpcs_by_user();
  u->set_uid(uid);
  u->set_user(name);
  u->set_count(count);
  u->set_total_time(total);
}

// Figures from a real Slurm 22.05 sdiag (the anchor cluster), so the text can
// be compared line by line with what it printed.
v1::GetStatsReply AnchorLike() {
  v1::GetStatsReply s;
  s.set_req_time(1795804553);
  s.set_req_time_start(1795802706);
  s.set_server_thread_count(3);
  s.set_jobs_submitted(35);
  s.set_jobs_started(16);
  s.set_jobs_completed(12);
  s.set_jobs_canceled(15);
  s.set_job_states_ts(1795804536);
  s.set_schedule_cycle_last(17);
  s.set_schedule_cycle_max(631);
  s.set_schedule_cycle_counter(1846);
  s.set_schedule_cycle_sum(1846 * 14 + 5);
  s.set_schedule_cycle_depth(0);
  s.set_bf_backfilled_jobs(5);
  s.set_bf_last_backfilled_jobs(5);
  s.set_bf_cycle_counter(5);
  s.set_bf_when_last_cycle(1795803599);
  s.set_bf_cycle_last(236);
  s.set_bf_cycle_max(937);
  s.set_bf_cycle_sum(2285);
  s.set_bf_last_depth(1);
  s.set_bf_last_depth_try(1);
  s.set_bf_depth_sum(20);
  s.set_bf_depth_try_sum(20);
  s.set_bf_queue_len(1);
  s.set_bf_queue_len_sum(20);
  s.set_bf_table_size(1);
  s.set_bf_table_size_sum(15);
  s.set_gettimeofday_latency(24);
  AddType(&s, "REQUEST_JOB_INFO", 2003, 74, 18119);
  AddType(&s, "REQUEST_PARTITION_INFO", 2009, 148, 36868);
  AddType(&s, "REQUEST_SUBMIT_BATCH_JOB", 4003, 17, 16374);
  AddUser(&s, 0, "root", 502, 252359);
  return s;
}

TEST_F(SdiagFormatTest, PrintsSlurmsLayoutLineForLine) {
  v1::GetStatsReply s = AnchorLike();
  SortSdiagRpcs(&s, SdiagSort::kCount);
  EXPECT_EQ(SlurmPart(FormatSdiag(s)),
            "*******************************************************\n"
            "sdiag output at Fri Nov 27 18:35:53 2026 (1795804553)\n"
            "Data since      Fri Nov 27 18:05:06 2026 (1795802706)\n"
            "*******************************************************\n"
            "Server thread count:  3\n"
            "Agent queue size:     0\n"
            "Agent count:          0\n"
            "Agent thread count:   0\n"
            "DBD Agent queue size: 0\n"
            "\n"
            "Jobs submitted: 35\n"
            "Jobs started:   16\n"
            "Jobs completed: 12\n"
            "Jobs canceled:  15\n"
            "Jobs failed:    0\n"
            "\n"
            "Job states ts:  Fri Nov 27 18:35:36 2026 (1795804536)\n"
            "Jobs pending:   0\n"
            "Jobs running:   0\n"
            "\n"
            "Main schedule statistics (microseconds):\n"
            "\tLast cycle:   17\n"
            "\tMax cycle:    631\n"
            "\tTotal cycles: 1846\n"
            "\tMean cycle:   14\n"
            "\tMean depth cycle:  0\n"
            "\tCycles per minute: 61\n"
            "\tLast queue length: 0\n"
            "\n"
            "Backfilling stats\n"
            "\tTotal backfilled jobs (since last slurm start): 5\n"
            "\tTotal backfilled jobs (since last stats cycle start): 5\n"
            "\tTotal backfilled heterogeneous job components: 0\n"
            "\tTotal cycles: 5\n"
            "\tLast cycle when: Fri Nov 27 18:19:59 2026 (1795803599)\n"
            "\tLast cycle: 236\n"
            "\tMax cycle:  937\n"
            "\tMean cycle: 457\n"
            "\tLast depth cycle: 1\n"
            "\tLast depth cycle (try sched): 1\n"
            "\tDepth Mean: 4\n"
            "\tDepth Mean (try depth): 4\n"
            "\tLast queue length: 1\n"
            "\tQueue length mean: 4\n"
            "\tLast table size: 1\n"
            "\tMean table size: 3\n"
            "\n"
            "Latency for 1000 calls to gettimeofday(): 24 microseconds\n"
            "\n"
            "Remote Procedure Call statistics by message type\n"
            "\tREQUEST_PARTITION_INFO                  ( 2009) count:148    ave_time:249    "
            "total_time:36868\n"
            "\tREQUEST_JOB_INFO                        ( 2003) count:74     ave_time:244    "
            "total_time:18119\n"
            "\tREQUEST_SUBMIT_BATCH_JOB                ( 4003) count:17     ave_time:963    "
            "total_time:16374\n"
            "\n"
            "Remote Procedure Call statistics by user\n"
            "\troot            (       0) count:502    ave_time:502    total_time:252359\n"
            "\n"
            "Pending RPC statistics\n"
            "\tNo pending RPCs\n");
}

TEST_F(SdiagFormatTest, SkiffsJobOverheadsAndScriptdCallsFollowSlurmsSections) {
  v1::GetStatsReply s = AnchorLike();
  const std::string without = FormatSdiag(s);
  EXPECT_NE(
      without.find("\nJob overhead statistics (microseconds)\n"
                   "\tStart (allocated to launched)            count:0      ave_time:0        "
                   "max_time:0        total_time:0\n"),
      std::string::npos)
      << without;
  EXPECT_NE(without.find("\nScript daemon call statistics (microseconds)\n\tNo calls\n"),
            std::string::npos)
      << without;
  s.mutable_job_end_overhead()->set_count(4);
  s.mutable_job_end_overhead()->set_total_time(10000);
  s.mutable_job_end_overhead()->set_max_time(4000);
  v1::CallTimeStat* hook = s.add_scriptd_calls();
  hook->set_name("slurm_bb_data_in");
  hook->set_count(3);
  hook->set_total_time(30300);
  hook->set_max_time(12000);
  const std::string text = FormatSdiag(s);
  EXPECT_NE(text.find("\tEnd (ended on node to final state)       count:4      ave_time:2500     "
                      "max_time:4000     total_time:10000\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\tslurm_bb_data_in                         count:3      ave_time:10100    "
                      "max_time:12000    total_time:30300\n"),
            std::string::npos)
      << text;
  // After Slurm's last section, so that tools reading Slurm's lines see them as before.
  EXPECT_GT(text.find("Job overhead statistics"), text.find("Pending RPC statistics"));
}

TEST_F(SdiagFormatTest, WithoutCyclesMeansAreLeftOutAndBackfillNeverRanIsNA) {
  v1::GetStatsReply s;
  s.set_req_time(1000);
  s.set_req_time_start(990);  // under a minute: no cycles per minute either
  const std::string text = FormatSdiag(s);
  EXPECT_EQ(text.find("Mean cycle"), std::string::npos);
  EXPECT_EQ(text.find("Cycles per minute"), std::string::npos);
  EXPECT_EQ(text.find("Depth Mean"), std::string::npos);
  EXPECT_NE(text.find("\tLast cycle when: N/A\n"), std::string::npos);
  EXPECT_NE(text.find("\tLast table size: 0\n\nLatency"), std::string::npos);
}

TEST_F(SdiagFormatTest, AUserWithoutANameIsPrintedByNumber) {
  v1::GetStatsReply s;
  AddUser(&s, 4242, "", 2, 10);
  EXPECT_NE(FormatSdiag(s).find("\t4242            (    4242) count:2      ave_time:5      "
                                "total_time:10\n"),
            std::string::npos);
}

std::vector<std::string> TypeNames(const v1::GetStatsReply& s) {
  std::vector<std::string> names;
  for (const v1::RpcTypeStat& t : s.rpcs_by_type()) names.push_back(t.name());
  return names;
}

TEST_F(SdiagFormatTest, SortsAsSlurmsSdiag) {
  v1::GetStatsReply s;
  AddType(&s, "A", 3000, 5, 100);  // ave 20
  AddType(&s, "B", 1000, 1, 90);   // ave 90
  AddType(&s, "C", 2000, 9, 180);  // ave 20
  v1::GetStatsReply by_count = s;
  SortSdiagRpcs(&by_count, SdiagSort::kCount);
  EXPECT_EQ(TypeNames(by_count), (std::vector<std::string>{"C", "A", "B"}));
  v1::GetStatsReply by_id = s;
  SortSdiagRpcs(&by_id, SdiagSort::kId);
  EXPECT_EQ(TypeNames(by_id), (std::vector<std::string>{"B", "C", "A"}));
  v1::GetStatsReply by_time = s;
  SortSdiagRpcs(&by_time, SdiagSort::kTime);
  EXPECT_EQ(TypeNames(by_time), (std::vector<std::string>{"C", "A", "B"}));
  v1::GetStatsReply by_average = s;
  SortSdiagRpcs(&by_average, SdiagSort::kTime2);
  EXPECT_EQ(TypeNames(by_average), (std::vector<std::string>{"B", "A", "C"}));
}

TEST_F(SdiagFormatTest, TiesComeOutInSlurmsUnstableOrder) {
  // Slurm's swap sort: [1a, 1b, 2] by count gives 2, 1b, 1a.
  v1::GetStatsReply s;
  AddType(&s, "1a", 1, 1, 0);
  AddType(&s, "1b", 2, 1, 0);
  AddType(&s, "2", 3, 2, 0);
  SortSdiagRpcs(&s, SdiagSort::kCount);
  EXPECT_EQ(TypeNames(s), (std::vector<std::string>{"2", "1b", "1a"}));
}

TEST_F(SdiagFormatTest, JsonHasSlurmrestdsDiagShape) {
  v1::GetStatsReply s = AnchorLike();
  SortSdiagRpcs(&s, SdiagSort::kCount);
  const std::string json = FormatSdiagJson(s);
  EXPECT_NE(json.find("\"meta\": {"), std::string::npos);
  EXPECT_NE(json.find("\"errors\": []"), std::string::npos);
  const size_t statistics = json.find("\"statistics\": {");
  ASSERT_NE(statistics, std::string::npos);
  // The lists first, then the figures in slurmrestd's order.
  const std::vector<std::string> keys = {
      "\"rpcs_by_message_type\": [",
      "\"message_type\": \"REQUEST_PARTITION_INFO\"",
      "\"type_id\": 2009",
      "\"count\": 148",
      "\"average_time\": 249",
      "\"total_time\": 36868",
      "\"rpcs_by_user\": [",
      "\"user\": \"root\"",
      "\"user_id\": 0",
      "\"parts_packed\": 1",
      "\"req_time\": 1795804553",
      "\"req_time_start\": 1795802706",
      "\"server_thread_count\": 3",
      "\"agent_queue_size\": 0",
      "\"agent_count\": 0",
      "\"agent_thread_count\": 0",
      "\"dbd_agent_queue_size\": 0",
      "\"gettimeofday_latency\": 24",
      "\"schedule_cycle_max\": 631",
      "\"schedule_cycle_last\": 17",
      "\"schedule_cycle_total\": 1846",
      "\"schedule_cycle_mean\": 14",
      "\"schedule_cycle_mean_depth\": 0",
      "\"schedule_cycle_per_minute\": 61",
      "\"schedule_queue_length\": 0",
      "\"jobs_submitted\": 35",
      "\"jobs_started\": 16",
      "\"jobs_completed\": 12",
      "\"jobs_canceled\": 15",
      "\"jobs_failed\": 0",
      "\"jobs_pending\": 0",
      "\"jobs_running\": 0",
      "\"job_states_ts\": 1795804536",
      "\"bf_backfilled_jobs\": 5",
      "\"bf_last_backfilled_jobs\": 5",
      "\"bf_backfilled_het_jobs\": 0",
      "\"bf_cycle_counter\": 5",
      "\"bf_cycle_mean\": 457",
      "\"bf_depth_mean\": 4",
      "\"bf_depth_mean_try\": 4",
      "\"bf_cycle_last\": 236",
      "\"bf_cycle_max\": 937",
      "\"bf_queue_len\": 1",
      "\"bf_queue_len_mean\": 4",
      "\"bf_table_size\": 1",
      "\"bf_table_size_mean\": 3",
      "\"bf_when_last_cycle\": 1795803599",
      "\"bf_active\": false",
  };
  size_t at = statistics;
  for (const std::string& key : keys) {
    const size_t found = json.find(key, at);
    ASSERT_NE(found, std::string::npos) << key << " missing or out of order";
    at = found;
  }
}

}  // namespace
}  // namespace skiff::cli
