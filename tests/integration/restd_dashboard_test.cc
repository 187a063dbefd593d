// restd's lab dashboard in a real headless browser (issue 36): Debian's
// Chromium, driven over its DevTools pipe (restd/dashboard/chromium_pipe.h),
// loads the page restd serves from a LocalCluster with a GPU node. The page
// must load with no console error, show the cluster's real state (a running
// GPU job with its GPUs, the nodes' GPUs), cancel the signed-in user's own
// job through its cancel button (squeue and scontrol then say CANCELLED)
// while another user's job has no button and the API refuses it, and tail a
// job's output read with the caller's own permissions. Screenshots at
// 1440x900 and 390x844 go to $TEST_UNDECLARED_OUTPUTS_DIR and
// /tmp/dashboard-shots/.
//
// Runs as root: it creates test users, and Chromium runs without its sandbox.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "restd/dashboard/chromium_pipe.h"
#include "restd/openapi/openapi_check.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/test_util.h"
#include "tests/integration/restd_client.h"

namespace skiff::testing {
namespace {

using Json = nlohmann::json;
using restd::ChromiumPipe;

constexpr char kAlice[] = "skiffdashalice";
constexpr char kBob[] = "skiffdashbob";
constexpr char kKey[] = "dashboard test key: thirty-two bytes or more, please.";
constexpr char kChromium[] = "/usr/bin/chromium";

class RestdDashboardTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (getuid() != 0 || access(kChromium, X_OK) != 0) return;
    std::ifstream document(RunfilesRoot() + "/third_party/slurm_openapi/v0.0.42.json");
    openapi_ = new Json(Json::parse(document, nullptr, false));
    ASSERT_TRUE(openapi_->is_object()) << "cannot read Slurm's OpenAPI document";
    LocalCluster::Options options;
    options.nodes = 2;
    options.gpu_nodes = 1;
    options.files = {{"etc/jwt_hs256.key", kKey}};
    // The GPU node shares its GPUs as shards too (a GPU is whole or shared).
    options.environment["SKIFF_GPU_GRES"] = "gpu:2,shard:8";
    options.extra_config =
        "GresTypes=gpu,shard\n"
        "AuthAltTypes=auth/jwt\nAuthAltParameters=jwt_key=@DIR@/etc/jwt_hs256.key\n"
        "MaxArraySize=10001\nMaxJobCount=20000\n"  // the 10,000-job queue
        // An idle GPU job is warned (3 s under 5%), nothing more.
        "GpuIdlePolicy=threshold=5,minutes=0.05,action=notify\n";
    auto cluster = LocalCluster::Start(options);
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = std::move(*cluster).release();
    ASSERT_TRUE(cluster_->EnsureUser(kAlice).ok());
    ASSERT_TRUE(cluster_->EnsureUser(kBob).ok());
    work_ = cluster_->dir() + "/work";
    mkdir(work_.c_str(), 0777);
    chmod(work_.c_str(), 01777);
    port_ = FreePort();
    const std::string binary = RunfilesRoot() + "/restd/restd";
    const std::string conf = cluster_->conf_path();
    const std::string log = cluster_->dir() + "/log/restd.log";
    restd_ = fork();
    if (restd_ == 0) {
      setenv("SKIFF_CONF", conf.c_str(), 1);
      freopen(log.c_str(), "w", stdout);
      freopen(log.c_str(), "a", stderr);
      const std::string tcp = absl::StrCat("127.0.0.1:", port_);
      execl(binary.c_str(), binary.c_str(), tcp.c_str(), nullptr);
      _exit(127);
    }
    ASSERT_TRUE(Eventually(30, [&] {
      return cluster_->Run(absl::StrCat("curl -sf http://127.0.0.1:", port_, "/dashboard/"))
                 .exit_code == 0;
    })) << ReadFile(log);
    ChromiumPipe::Options browser;
    browser.binary = kChromium;
    browser.user_data_dir = cluster_->dir() + "/chromium";
    browser.log_path = cluster_->dir() + "/log/chromium.log";
    auto started = ChromiumPipe::Start(browser);
    ASSERT_TRUE(started.ok()) << started.status() << ReadFile(browser.log_path);
    browser_ = started->release();
  }
  static void TearDownTestSuite() {
    delete browser_;
    browser_ = nullptr;
    if (restd_ > 0) {
      kill(restd_, SIGTERM);
      waitpid(restd_, nullptr, 0);
      restd_ = -1;
    }
    delete cluster_;
    cluster_ = nullptr;
    delete openapi_;
    openapi_ = nullptr;
  }
  void SetUp() override {
    if (getuid() != 0) GTEST_SKIP() << "needs root to create test users";
    if (access(kChromium, X_OK) != 0) GTEST_SKIP() << "needs Debian's chromium";
    ASSERT_NE(cluster_, nullptr);
    ASSERT_NE(browser_, nullptr);
    ErrorsText();  // another test's
  }

  static std::string Url(const std::string& path) {
    return absl::StrCat("http://127.0.0.1:", port_, path);
  }
  static std::string TokenOf(const std::string& user) { return testing::TokenOf(*cluster_, user); }

  static HttpAnswer WithToken(const std::string& token, const std::string& method,
                              const std::string& path) {
    const CommandResult r =
        cluster_->Run(absl::StrCat("curl -s -w '\\n%{http_code}' -X ", method,
                                   " -H 'X-SLURM-USER-TOKEN: ", token, "' '", Url(path), "'"));
    HttpAnswer answer;
    const size_t newline = r.out.rfind('\n');
    if (newline == std::string::npos) return answer;
    answer.status = atoi(r.out.c_str() + newline + 1);
    answer.body = Json::parse(r.out.substr(0, newline), nullptr, false);
    return answer;
  }
  static std::string Problems(const std::string& method, const std::string& path,
                              const HttpAnswer& answer) {
    return absl::StrJoin(
        restd::ResponseProblems(*openapi_, method, path, answer.status, answer.body), "\n");
  }
  // `user`'s batch job running `script_body`, once it runs.
  static uint64_t RunningJob(const std::string& user, const std::string& options,
                             const std::string& script_body) {
    const CommandResult r =
        cluster_->RunAs(user, absl::StrCat("cd ", work_, " && sbatch --parsable ", options,
                                           " --wrap='", script_body, "'"));
    const uint64_t id = strtoull(r.out.c_str(), nullptr, 10);
    EXPECT_GT(id, 0u) << r.out << r.err;
    EXPECT_TRUE(Eventually(60, [&] {
      return cluster_->Run(absl::StrCat("squeue -h -o %T -j ", id)).out == "RUNNING\n";
    })) << cluster_->Run(absl::StrCat("squeue -j ", id)).out;
    return id;
  }
  static std::string JobState(uint64_t id) {
    return ScontrolField(cluster_->Run(absl::StrCat("scontrol show job ", id)).out, "JobState");
  }
  // Signs `user` in through the URL's fragment and waits for the page to draw.
  static void OpenAs(const std::string& user) {
    // From a blank page: a fragment alone does not reload the dashboard.
    ASSERT_TRUE(browser_->Navigate("about:blank").ok());
    // No token kept from before: a link's token replaces a stored one only
    // when the user says so. (Cleared through DevTools: a page of restd's
    // that is not the dashboard's would have the browser ask for
    // /favicon.ico, which needs a token.)
    ASSERT_TRUE(browser_
                    ->Call("Storage.clearDataForOrigin",
                           {{"origin", Url("")}, {"storageTypes", "local_storage"}})
                    .ok());
    ASSERT_TRUE(browser_->Navigate(Url("/#token=" + TokenOf(user))).ok());
    ASSERT_TRUE(
        browser_->WaitFor("document.body.dataset.state === 'ready'", absl::Seconds(60)).ok())
        << browser_->Evaluate("document.body.innerText")->dump();
  }
  static void SaveScreenshot(const std::string& name) {
    ASSERT_TRUE(browser_->Evaluate("window.scrollTo(0, 0)").ok());  // the header on top
    absl::StatusOr<std::string> png = browser_->Screenshot();
    ASSERT_TRUE(png.ok()) << png.status();
    ASSERT_GT(png->size(), 1000u);
    std::vector<std::string> dirs = {"/tmp/dashboard-shots"};
    if (const char* outputs = getenv("TEST_UNDECLARED_OUTPUTS_DIR")) dirs.push_back(outputs);
    mkdir("/tmp/dashboard-shots", 0755);
    for (const std::string& dir : dirs) {
      std::ofstream file(dir + "/" + name, std::ios::binary);
      file << *png;
      EXPECT_TRUE(file.flush()) << dir << "/" << name;
    }
  }
  // The text of the cells of the row of `table` whose first cell is `first`.
  static Json RowCells(const std::string& table, const std::string& first) {
    return *browser_->Evaluate(
        absl::StrCat("(() => { for (const tr of document.querySelectorAll('#", table,
                     " tbody tr')) { const cells = Array.from(tr.cells, (c) => c.innerText);"
                     " if (cells[0] === ",
                     Json(first).dump(), ") return cells; } return null; })()"));
  }
  // What the page logged as errors since the last look.
  static std::string ErrorsText() { return absl::StrJoin(browser_->TakeErrors(), "\n"); }

  static LocalCluster* cluster_;
  static Json* openapi_;
  static ChromiumPipe* browser_;
  static std::string work_;
  static int port_;
  static pid_t restd_;
};

LocalCluster* RestdDashboardTest::cluster_ = nullptr;
Json* RestdDashboardTest::openapi_ = nullptr;
ChromiumPipe* RestdDashboardTest::browser_ = nullptr;
std::string RestdDashboardTest::work_;
int RestdDashboardTest::port_ = 0;
pid_t RestdDashboardTest::restd_ = -1;

TEST_F(RestdDashboardTest, StaticFilesNeedNoTokenAndCarryTheirTypes) {
  for (const auto& [path, type] : std::vector<std::pair<std::string, std::string>>{
           {"/", "text/html"},
           {"/dashboard/", "text/html"},
           {"/dashboard/dashboard.js", "text/javascript"},
           {"/dashboard/dashboard.css", "text/css"},
           {"/dashboard/session.json", "application/json"}}) {
    const CommandResult r = cluster_->Run(
        absl::StrCat("curl -s -o /dev/null -w '%{http_code} %{content_type}' ", Url(path)));
    EXPECT_TRUE(absl::StartsWith(r.out, "200 " + type)) << path << ": " << r.out;
  }
  // The API itself still wants a token.
  EXPECT_EQ(WithToken("", "GET", "/slurm/v0.0.42/ping").status, 401);
}

TEST_F(RestdDashboardTest, ShowsTheClusterAndCancelsOnlyTheUsersOwnJob) {
  const uint64_t gpu_job =
      RunningJob(kAlice, "--gres=gpu:2 -J gpujob", "echo hello-from-alice; sleep 300");
  const uint64_t own_job = RunningJob(kAlice, "-J tocancel", "sleep 300");
  const uint64_t bobs_job = RunningJob(kBob, "-J bobsjob", "sleep 300");

  ASSERT_TRUE(browser_->SetViewport(1440, 900, false).ok());
  OpenAs(kAlice);
  // The token left the address bar at once.
  EXPECT_FALSE(absl::StrContains(browser_->Evaluate("location.href")->get<std::string>(), "token"));
  EXPECT_EQ(
      browser_->Evaluate("document.getElementById('user-name').textContent")->get<std::string>(),
      kAlice);

  // The running GPU job, with its two GPUs, in the queue and in "my jobs".
  const Json queue_row = RowCells("queue-table", std::to_string(gpu_job));
  ASSERT_TRUE(queue_row.is_array())
      << browser_->Evaluate("document.getElementById('queue').innerText")->dump();
  EXPECT_EQ(queue_row[1], kAlice);
  EXPECT_EQ(queue_row[4], "RUNNING");
  EXPECT_TRUE(absl::StartsWith(queue_row[6].get<std::string>(), "2")) << queue_row;
  const Json my_row = RowCells("my-jobs-table", std::to_string(gpu_job));
  ASSERT_TRUE(my_row.is_array());
  EXPECT_TRUE(absl::StartsWith(my_row[3].get<std::string>(), "2")) << my_row;
  // The GPU node's GPUs: 2 fake GPUs, both held by the job.
  const std::string glance =
      browser_->Evaluate("document.getElementById('glance').innerText")->get<std::string>();
  EXPECT_TRUE(absl::StrContains(glance, "0 / 2")) << glance;
  // Bob's job is in the queue, without a cancel button; Alice's have one.
  EXPECT_TRUE(RowCells("queue-table", std::to_string(bobs_job)).is_array());
  EXPECT_EQ(
      *browser_->Evaluate(absl::StrCat("document.querySelectorAll('[data-cancel-job]').length")),
      2);
  EXPECT_TRUE(browser_
                  ->Evaluate(absl::StrCat("document.querySelector('[data-cancel-job=\"", bobs_job,
                                          "\"]') === null"))
                  ->get<bool>());

  // The GPU job's output, through the page's button.
  ASSERT_TRUE(browser_->Click(absl::StrCat("[data-output-job=\"", gpu_job, "\"]")).ok());
  ASSERT_TRUE(browser_
                  ->WaitFor("document.getElementById('output-text').textContent.includes("
                            "'hello-from-alice')",
                            absl::Seconds(30))
                  .ok())
      << browser_->Evaluate("document.getElementById('output-panel').innerText")->dump();
  SaveScreenshot("dashboard-desktop-1440.png");

  // A phone: the same page, one column; the token is remembered.
  ASSERT_TRUE(browser_->SetViewport(390, 844, true).ok());
  ASSERT_TRUE(browser_->Navigate(Url("/")).ok());
  ASSERT_TRUE(browser_->WaitFor("document.body.dataset.state === 'ready'", absl::Seconds(60)).ok());
  EXPECT_LE(*browser_->Evaluate("document.documentElement.scrollWidth"), 390)
      << "the page is wider than a phone";
  SaveScreenshot("dashboard-phone-390.png");
  ASSERT_TRUE(browser_->SetViewport(1440, 900, false).ok());

  // Cancel: the first click arms the button, the second cancels.
  const std::string button = absl::StrCat("[data-cancel-job=\"", own_job, "\"]");
  ASSERT_TRUE(browser_->Click(button).ok());
  ASSERT_TRUE(browser_
                  ->WaitFor(absl::StrCat("document.querySelector('", button,
                                         "').classList.contains('confirm')"),
                            absl::Seconds(10))
                  .ok());
  ASSERT_TRUE(browser_->Click(button).ok());
  EXPECT_TRUE(Eventually(60, [&] { return JobState(own_job) == "CANCELLED"; }))
      << cluster_->Run(absl::StrCat("scontrol show job ", own_job)).out;
  EXPECT_TRUE(absl::StrContains(
      cluster_->Run(absl::StrCat("squeue -h -t all -o %T -j ", own_job)).out, "CANCELLED"));
  // Only that one: the GPU job and Bob's run on.
  EXPECT_EQ(JobState(gpu_job), "RUNNING");
  EXPECT_EQ(JobState(bobs_job), "RUNNING");

  // Alice's token cannot cancel Bob's job, nor read its output.
  const std::string alice = TokenOf(kAlice);
  const std::string path = absl::StrCat("/slurm/v0.0.42/job/", bobs_job);
  const HttpAnswer refused = WithToken(alice, "DELETE", path);
  EXPECT_EQ(refused.status, 403) << refused.body;
  EXPECT_EQ(Problems("DELETE", path, refused), "");
  EXPECT_EQ(WithToken(alice, "GET", absl::StrCat("/skiff/v1/job/", bobs_job, "/output")).status,
            403);
  EXPECT_EQ(JobState(bobs_job), "RUNNING");

  EXPECT_EQ(ErrorsText(), "") << "the page logged errors";
  const Json timings = *browser_->Evaluate("window.skiffDashboard.timings");
  std::cout << "dashboard timings (ms since script start): " << timings.dump() << "\n";
  cluster_->Run(absl::StrCat("scancel ", gpu_job, " ", bobs_job));
}

TEST_F(RestdDashboardTest, OutputIsReadWithTheCallersOwnPermissions) {
  const uint64_t id = RunningJob(kAlice, "-J lines", "seq 1 5000; sleep 300");
  const std::string alice = TokenOf(kAlice);
  const std::string path = absl::StrCat("/skiff/v1/job/", id, "/output");
  HttpAnswer tail;
  ASSERT_TRUE(Eventually(30, [&] {
    tail = WithToken(alice, "GET", path + "?lines=3");
    return tail.status == 200 && tail.body["output"] == "4998\n4999\n5000\n";
  })) << tail.body;
  EXPECT_EQ(tail.body["truncated"], true);
  EXPECT_EQ(WithToken(alice, "GET", path + "?lines=5000").body["output"].get<std::string>().size(),
            std::string("4001\n").size() * 1000);  // capped at 1000 lines
  EXPECT_EQ(WithToken(alice, "GET", path + "?lines=zero").status, 400);
  // Root may read it; so may Alice, until the file is root's alone: restd
  // reads as Alice, not as itself.
  EXPECT_EQ(WithToken(TokenOf("root"), "GET", path + "?lines=1").body["output"], "5000\n");
  const std::string file = absl::StrCat(work_, "/slurm-", id, ".out");
  ASSERT_EQ(cluster_->Run("chown root:root " + file + " && chmod 600 " + file).exit_code, 0);
  const HttpAnswer refused = WithToken(alice, "GET", path + "?lines=1");
  EXPECT_EQ(refused.status, 403) << refused.body;
  EXPECT_EQ(WithToken(TokenOf("root"), "GET", path + "?lines=1").status, 200);
  EXPECT_EQ(WithToken(alice, "GET", "/skiff/v1/job/999999/output").status, 404);
  cluster_->Run(absl::StrCat("scancel ", id));
}

TEST_F(RestdDashboardTest, StatusIsSstatusReport) {
  const uint64_t id = RunningJob(kAlice, "--gres=gpu:1 -J statusjob", "sleep 300");
  const HttpAnswer status = WithToken(TokenOf(kAlice), "GET", "/skiff/v1/status");
  ASSERT_EQ(status.status, 200) << status.body;
  Json report = status.body;
  report.erase("meta");
  report.erase("errors");
  report.erase("warnings");
  Json sstatus = Json::parse(cluster_->RunAs(kAlice, "sstatus --json").out, nullptr, false);
  ASSERT_TRUE(sstatus.is_object());
  // The two were taken moments apart: a running job's CPU time may differ.
  for (Json* answer : {&report, &sstatus}) {
    for (Json& job : (*answer)["jobs"]) {
      job.erase("cpu_time");
      job.erase("cpu_time_seconds");
    }
  }
  EXPECT_EQ(report, sstatus);
  EXPECT_EQ(report["user"], kAlice);
  EXPECT_EQ(report["user_gpus"], 1);
  cluster_->Run(absl::StrCat("scancel ", id));
}

TEST_F(RestdDashboardTest, SignsInWithAPastedTokenAndOutAgain) {
  ASSERT_TRUE(browser_->SetViewport(1440, 900, false).ok());
  ASSERT_TRUE(browser_->Navigate(Url("/")).ok());
  (void)browser_->Evaluate("localStorage.clear()");
  ASSERT_TRUE(browser_->Navigate(Url("/")).ok());
  ASSERT_TRUE(
      browser_->WaitFor("document.body.dataset.state === 'signed-out'", absl::Seconds(30)).ok());
  // As `scontrol token` prints it, prefix and newline included.
  const std::string pasted = absl::StrCat("SLURM_JWT=", TokenOf(kBob), "\n");
  ASSERT_TRUE(browser_
                  ->Evaluate(absl::StrCat("document.getElementById('token-input').value = ",
                                          Json(pasted).dump()))
                  .ok());
  ASSERT_TRUE(browser_->Click("#sign-in-form button[type=submit]").ok());
  ASSERT_TRUE(browser_->WaitFor("document.body.dataset.state === 'ready'", absl::Seconds(60)).ok());
  EXPECT_EQ(
      browser_->Evaluate("document.getElementById('user-name').textContent")->get<std::string>(),
      kBob);
  ASSERT_TRUE(browser_->Click("#sign-out").ok());
  ASSERT_TRUE(
      browser_->WaitFor("document.body.dataset.state === 'signed-out'", absl::Seconds(10)).ok());
  EXPECT_TRUE(browser_->Evaluate("localStorage.length === 0")->get<bool>());
  EXPECT_EQ(ErrorsText(), "");
}

TEST_F(RestdDashboardTest, BehindAProxyThatSendsTheTokenNoSignInIsAsked) {
  ASSERT_TRUE(browser_->Navigate(Url("/")).ok());
  (void)browser_->Evaluate("localStorage.clear()");
  ASSERT_TRUE(browser_->Call("Network.enable").ok());
  ASSERT_TRUE(browser_
                  ->Call("Network.setExtraHTTPHeaders",
                         {{"headers", {{"X-SLURM-USER-TOKEN", TokenOf(kBob)}}}})
                  .ok());
  ASSERT_TRUE(browser_->Navigate(Url("/")).ok());
  EXPECT_TRUE(browser_->WaitFor("document.body.dataset.state === 'ready'", absl::Seconds(60)).ok());
  EXPECT_EQ(
      browser_->Evaluate("document.getElementById('user-name').textContent")->get<std::string>(),
      kBob);
  EXPECT_TRUE(browser_->Evaluate("document.getElementById('sign-out').hidden")->get<bool>());
  ASSERT_TRUE(browser_->Call("Network.setExtraHTTPHeaders", {{"headers", Json::object()}}).ok());
  EXPECT_EQ(ErrorsText(), "");
}

// Item 11 of issue 47: a link carrying someone else's token ("#token=", login
// CSRF) does not silently replace the token the browser keeps: the page names
// the link's user and asks; keeping the stored one keeps its user, and the
// token leaves the address bar either way.
TEST_F(RestdDashboardTest, ALinksTokenReplacesTheStoredOneOnlyWhenTheUserSaysSo) {
  ASSERT_TRUE(browser_->SetViewport(1440, 900, false).ok());
  OpenAs(kAlice);
  const std::string stored =
      browser_->Evaluate("localStorage.getItem('skiff.dashboard.token')")->get<std::string>();
  ASSERT_FALSE(stored.empty());
  auto open_link_of = [&](const std::string& user) {
    ASSERT_TRUE(browser_->Navigate("about:blank").ok());
    ASSERT_TRUE(browser_->Navigate(Url("/#token=" + TokenOf(user))).ok());
    ASSERT_TRUE(browser_
                    ->WaitFor("['confirm-token', 'ready'].includes(document.body.dataset.state)",
                              absl::Seconds(60))
                    .ok());
  };
  open_link_of(kBob);
  EXPECT_EQ(browser_->Evaluate("localStorage.getItem('skiff.dashboard.token')")->get<std::string>(),
            stored);
  ASSERT_EQ(browser_->Evaluate("document.body.dataset.state")->get<std::string>(), "confirm-token");
  EXPECT_FALSE(absl::StrContains(browser_->Evaluate("location.href")->get<std::string>(), "token"));
  const std::string question =
      browser_->Evaluate("document.getElementById('token-confirm').innerText")->get<std::string>();
  EXPECT_TRUE(absl::StrContains(question, kBob)) << question;
  EXPECT_TRUE(absl::StrContains(question, kAlice)) << question;
  // Keep: still Alice, with her token.
  ASSERT_TRUE(browser_->Click("#token-keep").ok());
  ASSERT_TRUE(browser_->WaitFor("document.body.dataset.state === 'ready'", absl::Seconds(60)).ok());
  EXPECT_EQ(
      browser_->Evaluate("document.getElementById('user-name').textContent")->get<std::string>(),
      kAlice);
  EXPECT_EQ(browser_->Evaluate("localStorage.getItem('skiff.dashboard.token')")->get<std::string>(),
            stored);
  // Switch: now Bob, whose token is kept.
  open_link_of(kBob);
  ASSERT_EQ(browser_->Evaluate("document.body.dataset.state")->get<std::string>(), "confirm-token");
  ASSERT_TRUE(browser_->Click("#token-switch").ok());
  ASSERT_TRUE(browser_->WaitFor("document.body.dataset.state === 'ready'", absl::Seconds(60)).ok());
  EXPECT_EQ(
      browser_->Evaluate("document.getElementById('user-name').textContent")->get<std::string>(),
      kBob);
  EXPECT_NE(browser_->Evaluate("localStorage.getItem('skiff.dashboard.token')")->get<std::string>(),
            stored);
  EXPECT_EQ(ErrorsText(), "");
  (void)browser_->Evaluate("localStorage.clear()");
}

// 10,000 jobs (a held array: each task is a job record) are counted by state
// and reason, and only the first 200 drawn.
TEST_F(RestdDashboardTest, TenThousandJobsAreCountedAndTwoHundredDrawn) {
  const CommandResult submitted =
      cluster_->RunAs(kAlice, absl::StrCat("cd ", work_,
                                           " && sbatch --parsable --hold --array=0-9999 -J many "
                                           "--wrap=true"));
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
  ASSERT_TRUE(browser_->SetViewport(1440, 900, false).ok());
  const absl::Time started = absl::Now();
  OpenAs(kAlice);
  const absl::Duration to_ready = absl::Now() - started;
  const std::string summary =
      browser_->Evaluate("document.getElementById('queue-summary').innerText")->get<std::string>();
  EXPECT_TRUE(absl::StrContains(summary, "10000")) << summary;
  EXPECT_EQ(*browser_->Evaluate("document.querySelectorAll('#queue-table tbody tr').length"), 200);
  EXPECT_TRUE(absl::StrContains(
      browser_->Evaluate("document.getElementById('queue-more').textContent")->get<std::string>(),
      "of 10000"));
  // The filter finds a job beyond the first 200.
  ASSERT_TRUE(browser_
                  ->Evaluate("const f = document.getElementById('queue-filter');"
                             " f.value = 'many _9999'; f.dispatchEvent(new Event('input')); true")
                  .ok());
  EXPECT_TRUE(browser_
                  ->WaitFor("document.querySelectorAll('#queue-table tbody tr').length === 1",
                            absl::Seconds(10))
                  .ok());
  const Json paint = *browser_->Evaluate(
      "(performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime || null");
  const Json timings = *browser_->Evaluate("window.skiffDashboard.timings");
  std::cout << "10000 jobs: first contentful paint " << paint.dump() << " ms, timings "
            << timings.dump() << ", navigation to ready " << to_ready << "\n";
  // How fast is bench/dashboard_bench's to say (tests do not time).
  EXPECT_TRUE(paint.is_number()) << "the page never painted";
  EXPECT_EQ(ErrorsText(), "");
  cluster_->Run(absl::StrCat("scancel -u ", kAlice));
}

// "My limits and balance" from the cluster's own limits: a QOS capping
// Alice at 4 GPUs, an account with a 10 GPU-hour budget, her fair-share line.
// Last: the associations it adds would change what the tests above see.
TEST_F(RestdDashboardTest, MyLimitsShowTheGpuCapBudgetAndFairShare) {
  for (const std::string& command :
       {std::string("sacctmgr -i add qos gpu4 set MaxTRESPerUser=gres/gpu=4"),
        std::string("sacctmgr -i add account lab GrpTRESMins=gres/gpu=600"),
        absl::StrCat("sacctmgr -i add user ", kAlice, " account=lab qos=normal,gpu4")}) {
    const CommandResult r = cluster_->Run(command);
    ASSERT_EQ(r.exit_code, 0) << command << ": " << r.err;
  }
  const uint64_t id = RunningJob(kAlice, "-A lab -q gpu4 --gres=gpu:1 -J capped", "sleep 300");
  ASSERT_TRUE(browser_->SetViewport(1440, 900, false).ok());
  OpenAs(kAlice);
  ASSERT_TRUE(browser_
                  ->WaitFor("document.getElementById('limits-body').innerText.includes('gpu4')",
                            absl::Seconds(30))
                  .ok())
      << browser_->Evaluate("document.getElementById('limits-body').innerText")->dump();
  const std::string limits =
      browser_->Evaluate("document.getElementById('limits-body').innerText")->get<std::string>();
  EXPECT_TRUE(absl::StrContains(limits, "You hold 1 GPU now.")) << limits;
  EXPECT_TRUE(absl::StrContains(limits, "GPUs on QOS gpu4")) << limits;
  EXPECT_TRUE(absl::StrContains(limits, "1 / 4")) << limits;
  // The budget: 600 GPU-minutes, 10 hours, on the account.
  const Json budget = RowCells("limits-body table:last-of-type", "account lab");
  ASSERT_EQ(budget.size(), 3u) << limits;
  EXPECT_EQ(budget[2], "10 h") << limits;
  // Her fair-share line in the account.
  EXPECT_FALSE(RowCells("limits-body table:first-of-type", "lab").empty()) << limits;
  EXPECT_EQ(ErrorsText(), "");
  cluster_->Run(absl::StrCat("scancel ", id));
}

// How much of its GPUs a job uses, in its user's rows (the local cluster's
// fake NVML, which the job's environment makes look busy), and GpuIdlePolicy's
// warning on the idle one; the figures are the owner's (and operators'), not
// another user's.
// A shard job's row says how many shards it holds, and its GPU counts as in
// use at a glance.
TEST_F(RestdDashboardTest, AShardJobsRowAndItsGpuInUse) {
  const uint64_t id = RunningJob(kAlice, "--gres=shard:2 -J shardjob", "sleep 300");
  OpenAs(kAlice);
  const Json row = RowCells("my-jobs-table", std::to_string(id));
  ASSERT_TRUE(row.is_array())
      << browser_->Evaluate("document.getElementById('my-jobs-table').innerText")->dump();
  EXPECT_EQ(row[3], "2 shards") << row;
  const std::string glance =
      browser_->Evaluate("document.getElementById('glance').innerText")->get<std::string>();
  EXPECT_TRUE(absl::StrContains(glance, "1 / 2")) << glance;  // free GPUs
  cluster_->Run(absl::StrCat("scancel ", id));
  EXPECT_TRUE(Eventually(30, [&] { return JobState(id) != "RUNNING"; }));
}

TEST_F(RestdDashboardTest, AJobsGpuUseAndIdleWarningAreInItsRow) {
  const uint64_t busy = RunningJob(kAlice, "--gres=gpu:1 -J busygpu",
                                   "SKIFF_FAKE_GPU_UTIL=70 SKIFF_FAKE_GPU_MEM=3072 sleep 300");
  const uint64_t idle = RunningJob(kAlice, "--gres=gpu:1 -J idlegpu", "sleep 300");
  const std::string alice = TokenOf(kAlice);
  auto usage_of = [&](const std::string& token, uint64_t job) {
    const HttpAnswer answer = WithToken(token, "GET", "/skiff/v1/gpu_usage");
    if (answer.status != 200 || !answer.body.contains("jobs")) return Json();
    for (const Json& entry : answer.body["jobs"]) {
      if (entry.value("job_id", uint64_t{0}) == job) return entry;
    }
    return Json();
  };
  ASSERT_TRUE(Eventually(90, [&] {
    const Json entry = usage_of(alice, busy);
    return entry.is_object() && entry["gpus"].size() == 1 &&
           entry["gpus"][0].value("utilization_average", 0.0) == 70.0;
  })) << WithToken(alice, "GET", "/skiff/v1/gpu_usage").body.dump();
  EXPECT_EQ(usage_of(alice, busy)["gpus"][0]["memory_peak_bytes"], 3072ull << 20);
  EXPECT_EQ(usage_of(alice, busy)["user_name"], kAlice);
  ASSERT_TRUE(Eventually(90, [&] {
    return absl::StrContains(cluster_->Run(absl::StrCat("scontrol show job ", idle)).out,
                             "Reason=GPUs_idle:");
  })) << cluster_->Log("ctld.log");
  // Bob sees Alice's jobs in the queue, not how she uses her GPUs.
  const HttpAnswer bobs = WithToken(TokenOf(kBob), "GET", "/skiff/v1/gpu_usage");
  EXPECT_EQ(bobs.status, 200);
  EXPECT_TRUE(usage_of(TokenOf(kBob), busy).is_null()) << bobs.body.dump();

  OpenAs(kAlice);
  ASSERT_TRUE(browser_
                  ->WaitFor(absl::StrCat("document.querySelector('#my-jobs-table') !== null && "
                                         "document.getElementById('my-jobs-table').innerText"
                                         ".includes('70% · 3.0/40 GiB')"),
                            absl::Seconds(60))
                  .ok())
      << browser_->Evaluate("document.getElementById('my-jobs-table').innerText")->dump();
  const Json busy_row = RowCells("my-jobs-table", std::to_string(busy));
  ASSERT_TRUE(busy_row.is_array());
  EXPECT_TRUE(absl::StartsWith(busy_row[3].get<std::string>(), "1 #")) << busy_row;
  EXPECT_TRUE(absl::StrContains(busy_row[3].get<std::string>(), "70% · 3.0/40 GiB")) << busy_row;
  const Json idle_row = RowCells("my-jobs-table", std::to_string(idle));
  ASSERT_TRUE(idle_row.is_array());
  EXPECT_TRUE(absl::StrContains(idle_row[3].get<std::string>(), "0% · 0.0/40 GiB idle: warned"))
      << idle_row;
  EXPECT_EQ(ErrorsText(), "") << "the page logged errors";
  cluster_->Run(absl::StrCat("scancel ", busy, " ", idle));
}

}  // namespace
}  // namespace skiff::testing
