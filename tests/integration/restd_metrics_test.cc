// restd's Prometheus metrics through the real daemons (issue 36): a cluster
// with two GPU nodes (2 fake GPUs each), a QOS capping a user at 4 GPUs, an
// account with a 10 GPU-hour budget, one running 1-GPU job and one held job.
// /metrics and Slurm 25.11's /metrics/* paths are read with curl (a token, a
// bearer token, the scrape credential, none), then a real Prometheus (Debian's
// `prometheus`) scrapes restd every second with the scrape credential that
// ./skiff up writes (etc/metrics.token) in its credentials_file, and its query
// API answers the GPUs in use.
//
// The answers are Prometheus's text format, not slurmrestd's JSON: Slurm's
// OpenAPI document (openapi_check.h) has no /metrics paths to check them
// against; Prometheus's own parser checks them instead.
//
// restd is the one `./skiff up` starts. Runs as root: it creates a test user.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"
#include "tests/harness/local_cluster.h"
#include "tests/harness/test_util.h"
#include "tests/integration/restd_client.h"

namespace skiff::testing {
namespace {

using Json = nlohmann::json;

constexpr char kAlice[] = "skiffalice";
constexpr char kPrometheus[] = "/usr/bin/prometheus";

struct TextAnswer {
  int status = 0;
  std::string content_type;
  std::string body;
};

// curl's answer: the body, then "\n<status> <content type>" on its own last line.
TextAnswer Curl(const LocalCluster& cluster, const std::string& args) {
  const CommandResult r =
      cluster.Run(absl::StrCat("curl -s -w '\\n%{http_code} %{content_type}' ", args));
  TextAnswer answer;
  const size_t newline = r.out.rfind('\n');
  if (newline == std::string::npos) return answer;
  const std::string last = r.out.substr(newline + 1);
  answer.status = atoi(last.c_str());
  const size_t space = last.find(' ');
  if (space != std::string::npos) answer.content_type = last.substr(space + 1);
  answer.body = r.out.substr(0, newline);
  return answer;
}

// The samples of the text format: "name{labels}" -> value, as written.
std::map<std::string, std::string> Samples(const std::string& text) {
  std::map<std::string, std::string> out;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    if (absl::StartsWith(line, "#")) continue;
    const size_t space = line.rfind(' ');
    if (space == absl::string_view::npos) continue;
    out[std::string(line.substr(0, space))] = std::string(line.substr(space + 1));
  }
  return out;
}

class RestdMetricsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (getuid() != 0) return;
    LocalCluster::Options options;  // 4 nodes with 4 CPUs; n3 and n4 with 2 GPUs each
    options.restd = true;           // as ./skiff up starts it, with its token key
    options.extra_config = "AccountingStorageEnforce=associations,limits,qos\n";
    auto cluster = LocalCluster::Start(options);
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = std::move(*cluster).release();
    ASSERT_TRUE(cluster_->EnsureUser(kAlice).ok());
    for (const std::string& command : std::vector<std::string>{
             "sacctmgr -i add qos gpu4 set MaxTRESPerUser=gres/gpu=4",
             "sacctmgr -i add account lab GrpTRESMins=gres/gpu=600",
             absl::StrCat("sacctmgr -i add user ", kAlice, " account=lab qos=normal,gpu4")}) {
      const CommandResult r = cluster_->Run(command);
      ASSERT_EQ(r.exit_code, 0) << command << ": " << r.out << r.err;
    }

    // The running GPU job, then a held one that stays pending.
    CommandResult submit = cluster_->RunAs(
        kAlice, "sbatch -p gpu -A lab --qos=gpu4 --gres=gpu:1 -t 10 --wrap='sleep 600'");
    ASSERT_EQ(submit.exit_code, 0) << submit.out << submit.err;
    running_job_ = absl::StrCat(SubmittedJobIds(submit.out).at(0));
    submit = cluster_->RunAs(kAlice, "sbatch -A lab --hold -t 5 --wrap='true'");
    ASSERT_EQ(submit.exit_code, 0) << submit.out << submit.err;
    ASSERT_TRUE(Eventually(60, [&] {
      return absl::StartsWith(cluster_->Run("squeue -h -o %T -j " + running_job_).out, "RUNNING");
    })) << cluster_->Run("squeue").out;

    token_ = TokenOf(*cluster_, kAlice);
    ASSERT_FALSE(token_.empty()) << "scontrol token as " << kAlice;

    port_ = RestdAddressOf(*cluster_).port;
    ASSERT_GT(port_, 0) << ReadFile(cluster_->dir() + "/etc/restd.env");
    ASSERT_TRUE(Eventually(30, [&] {
      return cluster_->Run(absl::StrCat("curl -s -o /dev/null http://127.0.0.1:", port_, "/"))
                 .exit_code == 0;
    })) << ReadFile(cluster_->dir() + "/log/restd.out");
  }

  static void TearDownTestSuite() {
    if (prometheus_ > 0) {
      kill(prometheus_, SIGTERM);
      waitpid(prometheus_, nullptr, 0);
    }
    if (cluster_ != nullptr) cluster_->Run("scancel -u " + std::string(kAlice));
    delete cluster_;
    cluster_ = nullptr;
  }

  void SetUp() override {
    if (getuid() != 0) GTEST_SKIP() << "needs root to create test users";
    ASSERT_NE(cluster_, nullptr);
  }

  static std::string Url(const std::string& path) {
    return absl::StrCat("http://127.0.0.1:", port_, path);
  }
  static std::string WithToken(const std::string& path) {
    return absl::StrCat("-H 'X-SLURM-USER-TOKEN: ", token_, "' ", Url(path));
  }

  static LocalCluster* cluster_;
  static pid_t prometheus_;
  static int port_;
  static std::string token_;
  static std::string running_job_;
};

LocalCluster* RestdMetricsTest::cluster_ = nullptr;
pid_t RestdMetricsTest::prometheus_ = -1;
int RestdMetricsTest::port_ = -1;
std::string RestdMetricsTest::token_;
std::string RestdMetricsTest::running_job_;

TEST_F(RestdMetricsTest, MetricsShowsSlurmsSetsAndTheLabsGpus) {
  const auto start = std::chrono::steady_clock::now();
  const TextAnswer answer = Curl(*cluster_, WithToken("/metrics"));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "GET /metrics (curl included): " << seconds * 1000 << " ms, " << answer.body.size()
            << " bytes\n";
  ASSERT_EQ(answer.status, 200) << answer.body;
  EXPECT_EQ(answer.content_type, "text/plain; version=0.0.4; charset=utf-8");
  // Prometheus's own parser takes it (promtool exits 1 on a parse error),
  // and its linter notes nothing but the GPU-hours (it would have seconds;
  // a lab's budgets are GPU-hours): exit 3 with only those lines.
  const std::string saved = cluster_->dir() + "/metrics.txt";
  std::ofstream(saved) << answer.body;
  const CommandResult check = cluster_->Run("promtool check metrics < " + saved);
  EXPECT_TRUE(check.exit_code == 0 || check.exit_code == 3) << check.out << check.err;
  for (absl::string_view line : absl::StrSplit(check.out + check.err, '\n', absl::SkipEmpty())) {
    EXPECT_TRUE(absl::StrContains(line, "_gpu_hours_") &&
                absl::EndsWith(line, "use base unit \"seconds\" instead of \"hours\""))
        << line;
  }
  const std::map<std::string, std::string> samples = Samples(answer.body);
  const std::map<std::string, std::string> expected = {
      // Slurm 25.11's names.
      {"slurm_jobs_running", "1"},
      {"slurm_jobs_pending", "1"},
      {"slurm_jobs_hold", "1"},
      {"slurm_nodes", "4"},
      {"slurm_node_cpus{node=\"n3\"}", "4"},
      {"slurm_partitions", "2"},
      {"slurm_partition_jobs_running{partition=\"gpu\"}", "1"},
      {"slurm_partition_nodes{partition=\"gpu\"}", "2"},
      {"slurm_user_jobs_pending{username=\"skiffalice\"}", "1"},
      {"slurm_account_jobs_running{account=\"lab\"}", "1"},
      // Skiff's, for the lab: 4 untyped GPUs, the job's one in use.
      {"skiff_gpus{type=\"\"}", "4"},
      {"skiff_gpus_allocated{type=\"\"}", "1"},
      {"skiff_gpus_idle{type=\"\"}", "3"},
      {"skiff_partition_gpus_allocated{partition=\"gpu\",type=\"\"}", "1"},
      {"skiff_user_gpus_allocated{user=\"skiffalice\",account=\"lab\"}", "1"},
      {"skiff_account_gpus_allocated{account=\"lab\"}", "1"},
      {"skiff_qos_gpus_allocated{qos=\"gpu4\"}", "1"},
      {"skiff_qos_gpus_per_user_limit{qos=\"gpu4\"}", "4"},
      {"skiff_account_gpu_hours_budget{account=\"lab\"}", "10"},
      {"skiff_jobs_pending{reason=\"JobHeldUser\"}", "1"},
  };
  for (const auto& [series, value] : expected) {
    auto it = samples.find(series);
    ASSERT_NE(it, samples.end()) << series << " missing from:\n" << answer.body;
    EXPECT_EQ(it->second, value) << series;
  }
  // Figures that vary: present, and numbers.
  for (const std::string& series :
       {std::string("slurm_schedule_cycle_cnt"), std::string("slurm_bf_cycle_cnt"),
        std::string("skiff_scheduler_cycle_last_seconds{scheduler=\"main\"}"),
        std::string("skiff_account_gpu_hours_used{account=\"lab\"}"),
        std::string("skiff_account_gpu_hours_held{account=\"lab\"}"),
        std::string("skiff_restd_ctld_round_trip_seconds{rpc=\"GetJobs\"}"),
        std::string("skiff_ctld_rpcs_total{rpc=\"REQUEST_JOB_INFO\"}"),
        // What Skiff adds around jobs (issue 48): the running job was launched.
        std::string("skiff_job_overheads_total{phase=\"start\"}"),
        std::string("skiff_job_overhead_max_seconds{phase=\"end\"}")}) {
    auto it = samples.find(series);
    ASSERT_NE(it, samples.end()) << series << " missing from:\n" << answer.body;
    double value;
    EXPECT_TRUE(absl::SimpleAtod(it->second, &value)) << series << " " << it->second;
  }
  // The running job holds GPU-hours against the budget (1 GPU x its 10 minutes, at most).
  double held = 0;
  ASSERT_TRUE(absl::SimpleAtod(samples.at("skiff_account_gpu_hours_held{account=\"lab\"}"), &held));
  EXPECT_GT(held, 0);
  EXPECT_LE(held, 1);
  EXPECT_TRUE(absl::StrContains(answer.body, "# TYPE skiff_ctld_rpcs_total counter\n"));
  EXPECT_TRUE(absl::StrContains(answer.body,
                                "# HELP slurm_jobs_running Number of jobs in Running state\n"));
}

TEST_F(RestdMetricsTest, SlurmsEndpointsServeTheirOwnSets) {
  const std::map<std::string, std::pair<std::string, std::string>> endpoints = {
      {"/metrics/jobs", {"slurm_jobs_running", "slurm_nodes"}},
      {"/metrics/nodes", {"slurm_nodes_mixed", "slurm_jobs"}},
      {"/metrics/partitions", {"slurm_partition_jobs_pending{partition=\"debug\"}", "slurm_jobs"}},
      {"/metrics/scheduler", {"slurm_schedule_cycle_last", "slurm_nodes"}},
      {"/metrics/jobs-users-accts",
       {"slurm_user_jobs_running{username=\"skiffalice\"}", "slurm_jobs"}},
  };
  for (const auto& [path, series] : endpoints) {
    const TextAnswer answer = Curl(*cluster_, WithToken(path));
    ASSERT_EQ(answer.status, 200) << path << ": " << answer.body;
    EXPECT_EQ(answer.content_type, "text/plain; version=0.0.4; charset=utf-8") << path;
    const std::map<std::string, std::string> samples = Samples(answer.body);
    EXPECT_EQ(samples.count(series.first), 1u) << path << " lacks " << series.first;
    EXPECT_EQ(samples.count(series.second), 0u) << path << " has " << series.second;
    EXPECT_FALSE(absl::StrContains(answer.body, "skiff_")) << path;
  }
  EXPECT_EQ(Samples(Curl(*cluster_, WithToken("/metrics/nodes")).body).at("slurm_nodes_mixed"),
            "1");
}

TEST_F(RestdMetricsTest, OnlyAnAuthenticatedRequestIsAnswered) {
  const TextAnswer none = Curl(*cluster_, Url("/metrics"));
  EXPECT_EQ(none.status, 401) << none.body;
  EXPECT_TRUE(absl::StrContains(none.body, "authentication required")) << none.body;
  EXPECT_EQ(Curl(*cluster_, Url("/metrics/jobs")).status, 401);
  // What Prometheus sends: Authorization: Bearer.
  const TextAnswer bearer =
      Curl(*cluster_, absl::StrCat("-H 'Authorization: Bearer ", token_, "' ", Url("/metrics")));
  EXPECT_EQ(bearer.status, 200) << bearer.body;
  const TextAnswer forged =
      Curl(*cluster_, absl::StrCat("-H 'Authorization: Bearer x", token_, "' ", Url("/metrics")));
  EXPECT_EQ(forged.status, 401) << forged.body;
  // Only GET.
  EXPECT_EQ(Curl(*cluster_, "-X POST " + WithToken("/metrics")).status, 405);
}

// The scrape credential (restd --metrics-token-file, which ./skiff up writes):
// it outlives a user's token, reads /metrics and /metrics/* and nothing else,
// and ctld does not take it as a token at all.
TEST_F(RestdMetricsTest, TheScrapeCredentialNeverExpiresAndReadsOnlyTheMetrics) {
  const std::string secret(
      absl::StripAsciiWhitespace(ReadFile(cluster_->dir() + "/etc/metrics.token")));
  ASSERT_GE(secret.size(), 32u);
  const std::string scraper = absl::StrCat("-H 'Authorization: Bearer ", secret, "' ");
  // A user's token of one second, to outlive.
  const CommandResult made = cluster_->RunAs(kAlice, "scontrol token lifespan=1");
  ASSERT_TRUE(absl::StartsWith(made.out, "SLURM_JWT=")) << made.err;
  const std::string brief(absl::StripAsciiWhitespace(made.out.substr(strlen("SLURM_JWT="))));
  EXPECT_TRUE(Eventually(30, [&] {
    return Curl(*cluster_, absl::StrCat("-H 'Authorization: Bearer ", brief, "' ", Url("/metrics")))
               .status == 401;
  })) << "the user's token expired";
  for (const char* path : {"/metrics", "/metrics/jobs", "/metrics/nodes"}) {
    const TextAnswer read = Curl(*cluster_, scraper + Url(path));
    EXPECT_EQ(read.status, 200) << path << ": " << read.body;
  }
  const std::map<std::string, std::string> samples =
      Samples(Curl(*cluster_, scraper + Url("/metrics")).body);
  EXPECT_EQ(samples.count("slurm_jobs_running"), 1u);
  // Nothing else: other paths, writes, and ctld itself.
  for (const std::string& args :
       {Url("/slurm/v0.0.42/jobs"), Url("/slurmdb/v0.0.42/accounts"), "-X POST " + Url("/metrics"),
        absl::StrCat("-X DELETE ", Url("/slurm/v0.0.42/job/" + running_job_))}) {
    const TextAnswer refused = Curl(*cluster_, scraper + args);
    EXPECT_EQ(refused.status, 403) << args << ": " << refused.body;
  }
  EXPECT_TRUE(absl::StartsWith(cluster_->Run("squeue -h -o %T -j " + running_job_).out, "RUNNING"));
  const CommandResult direct = cluster_->RunAs(kAlice, "SLURM_JWT=" + secret + " squeue -h");
  EXPECT_NE(direct.exit_code, 0) << direct.out;
}

// Prometheus's instant query `query`: the single result's value, or "" (no
// answer yet, or not exactly one series).
std::string PrometheusValue(const LocalCluster& cluster, int port, const std::string& query) {
  const CommandResult r = cluster.Run(absl::StrCat("curl -s -G --data-urlencode 'query=", query,
                                                   "' http://127.0.0.1:", port, "/api/v1/query"));
  const Json answer = Json::parse(r.out, nullptr, false);
  if (!answer.is_object() || answer.value("status", "") != "success") return "";
  const Json& result = answer["data"]["result"];
  if (!result.is_array() || result.size() != 1) return "";
  return result[0]["value"][1].get<std::string>();
}

TEST_F(RestdMetricsTest, ARealPrometheusScrapesItAndAnswersQueries) {
  ASSERT_EQ(access(kPrometheus, X_OK), 0)
      << kPrometheus << " is missing: apt-get install prometheus (./skiff setup does)";
  const std::string dir = cluster_->dir() + "/prometheus";
  ASSERT_EQ(cluster_->Run("mkdir -p " + dir + "/data").exit_code, 0);
  // The scrape credential in a file, as Prometheus's credentials_file reads it.
  std::ofstream(dir + "/token") << ReadFile(cluster_->dir() + "/etc/metrics.token") << "\n";
  const std::string scrape = absl::StrCat(
      "    scrape_interval: 1s\n"
      "    scrape_timeout: 1s\n"
      "    authorization:\n"
      "      type: Bearer\n"
      "      credentials_file: ",
      dir,
      "/token\n"
      "    static_configs:\n"
      "      - targets: ['127.0.0.1:",
      port_, "']\n");
  std::ofstream(dir + "/prometheus.yml")
      << "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
      << "scrape_configs:\n"
      << "  - job_name: skiff\n    metrics_path: /metrics\n"
      << scrape << "  - job_name: slurm_jobs\n    metrics_path: /metrics/jobs\n"
      << scrape;
  const int web_port = FreePort();
  const std::string log = dir + "/prometheus.log";
  prometheus_ = fork();
  if (prometheus_ == 0) {
    freopen(log.c_str(), "w", stdout);
    freopen(log.c_str(), "a", stderr);
    const std::string config = "--config.file=" + dir + "/prometheus.yml";
    const std::string storage = "--storage.tsdb.path=" + dir + "/data";
    const std::string listen = absl::StrCat("--web.listen-address=127.0.0.1:", web_port);
    execl(kPrometheus, kPrometheus, config.c_str(), storage.c_str(), listen.c_str(), nullptr);
    _exit(127);
  }
  // The GPU the running job holds, summed over the series as a lab's panel would.
  EXPECT_TRUE(Eventually(
      90, [&] { return PrometheusValue(*cluster_, web_port, "sum(skiff_gpus_allocated)") == "1"; }))
      << PrometheusValue(*cluster_, web_port, "sum(skiff_gpus_allocated)") << "\n"
      << cluster_->Run("curl -s http://127.0.0.1:" + std::to_string(web_port) + "/api/v1/targets")
             .out
      << "\n"
      << ReadFile(log);
  // Both targets up; Slurm's name from Slurm's path; a per-user series.
  EXPECT_EQ(PrometheusValue(*cluster_, web_port, "up{job=\"skiff\"}"), "1");
  EXPECT_TRUE(Eventually(30, [&] {
    return PrometheusValue(*cluster_, web_port, "slurm_jobs_running{job=\"slurm_jobs\"}") == "1";
  })) << ReadFile(log);
  EXPECT_EQ(PrometheusValue(*cluster_, web_port,
                            "skiff_user_gpus_allocated{user=\"skiffalice\",account=\"lab\"}"),
            "1");
  EXPECT_EQ(PrometheusValue(*cluster_, web_port, "sum(skiff_gpus)"), "4");
}

}  // namespace
}  // namespace skiff::testing
