// --mail-type through the real daemons (issue 34, part 3): ctld decides each
// mail, scriptd runs MailProg with Slurm 22.05's arguments and environment;
// BEGIN then END, FAIL, TIME_LIMIT_50 and TIME_LIMIT; a kill -9 of ctld or of
// scriptd while a mail is being sent neither loses it nor sends it twice;
// skiff-notify posts to the webhook a user registered (a local HTTP listener
// here) and mails otherwise.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/json.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/shared_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

// The test's user, one per run: two copies of the test at once (bazel
// --runs_per_test) must not point one user's home at two clusters. Removed
// when the suite ends.
const std::string& User() {
  static const std::string* const user = new std::string(absl::StrCat("mail", getpid()));
  return *user;
}

// MailProg: one line per mail in log/mail.txt, "JOBID|MAIL_TYPE|STATE|
// EXIT_CODE_MAX|USER|ARGS", written once the file mail.hold is gone (it notes
// in log/mail.started that it began). A job named hook* goes to skiff-notify.
constexpr char kMailProg[] =
    "#!/bin/sh\n"
    "case \"$SLURM_JOB_NAME\" in hook*) exec @DIR@/bin/skiff-notify \"$@\" ;; esac\n"
    "echo \"$SLURM_JOB_ID $SLURM_JOB_MAIL_TYPE\" >> @DIR@/log/mail.started\n"
    "while [ -e @DIR@/mail.hold ]; do sleep 0.1; done\n"
    "echo \"$SLURM_JOB_ID|$SLURM_JOB_MAIL_TYPE|$SLURM_JOB_STATE|$SLURM_JOB_EXIT_CODE_MAX|"
    "$SLURM_JOB_USER|$*\" >> @DIR@/log/mail.txt\n";
// The real mailer skiff-notify falls back to (notify.conf's Mailer=).
constexpr char kFakeMailer[] = "#!/bin/sh\necho \"$*\" >> @DIR@/log/mailer.txt\n";

// One HTTP listener on 127.0.0.1 that answers every request with `reply`
// (200 unless told) and keeps it whole, and the body of every POST.
class HookServer {
 public:
  explicit HookServer(
      std::string reply = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
      : reply_(std::move(reply)) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addr);
    if (bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || listen(fd_, 8) != 0 ||
        getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      return;
    }
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }
  ~HookServer() {
    stop_ = true;
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    if (thread_.joinable()) thread_.join();
  }
  int port() const { return port_; }
  std::vector<std::string> bodies() {
    std::lock_guard<std::mutex> lock(mu_);
    return bodies_;
  }
  // Every request, head and body, whatever its method.
  std::vector<std::string> requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }

 private:
  void Serve() {
    while (!stop_) {
      const int conn = accept(fd_, nullptr, nullptr);
      if (conn < 0) return;
      std::string request;
      char buffer[4096];
      size_t header_end = std::string::npos;
      size_t length = 0;
      while (true) {
        const ssize_t n = read(conn, buffer, sizeof(buffer));
        if (n <= 0) break;
        request.append(buffer, static_cast<size_t>(n));
        if (header_end == std::string::npos) {
          header_end = request.find("\r\n\r\n");
          if (header_end == std::string::npos) continue;
          for (absl::string_view line : absl::StrSplit(request.substr(0, header_end), "\r\n")) {
            if (absl::StartsWithIgnoreCase(line, "content-length:")) {
              (void)absl::SimpleAtoi(absl::StripAsciiWhitespace(line.substr(15)), &length);
            }
          }
        }
        if (request.size() >= header_end + 4 + length) break;
      }
      (void)!write(conn, reply_.data(), reply_.size());
      close(conn);
      std::lock_guard<std::mutex> lock(mu_);
      if (!request.empty()) requests_.push_back(request);
      if (header_end != std::string::npos && absl::StartsWith(request, "POST ")) {
        bodies_.push_back(request.substr(header_end + 4));
      }
    }
  }

  const std::string reply_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::mutex mu_;
  std::vector<std::string> bodies_;
  std::vector<std::string> requests_;
};

class MailTest : public SharedClusterTest<MailTest> {
 protected:
  static void SetUpTestSuite() {
    LocalCluster::Options options = NodesWithoutGpus(2, 2);
    options.extra_config = "MailProg=@DIR@/etc/mail.sh\n";
    options.files["etc/mail.sh"] = kMailProg;
    options.files["etc/fake-mail.sh"] = kFakeMailer;
    options.files["etc/notify.conf"] = "Mailer=@DIR@/etc/fake-mail.sh\n";
    StartCluster(options);
    if (HasFatalFailure()) return;
    ASSERT_EQ(RunShell(absl::StrCat("chmod 755 ", cluster_->dir(), "/etc/mail.sh ", cluster_->dir(),
                                    "/etc/fake-mail.sh"))
                  .exit_code,
              0);
    absl::StatusOr<uid_t> uid = cluster_->EnsureUser(User());
    ASSERT_TRUE(uid.ok()) << uid.status();
    // skiff-notify finds ~/.config/skiff/notify through the user's passwd entry.
    const CommandResult home = RunShell(absl::StrCat("usermod -d ", Home(), " ", User()));
    ASSERT_EQ(home.exit_code, 0) << home.err;
  }
  static void TearDownTestSuite() {
    SharedClusterTest::TearDownTestSuite();
    RunShell(absl::StrCat("userdel ", User(), " 2>/dev/null"));
  }

  static std::string Home() { return absl::StrCat(cluster_->dir(), "/home/", User()); }
  // notify.conf: the fake mailer, then `lines` (skiff-notify reads it at every run).
  static void WriteNotifyConf(const std::string& lines) {
    std::ofstream(cluster_->dir() + "/etc/notify.conf")
        << "Mailer=" << cluster_->dir() << "/etc/fake-mail.sh\n"
        << lines;
  }
  // The user's ~/.config/skiff/notify, written as the user: one URL a line.
  static void RegisterHooks(const std::vector<std::string>& urls) {
    const std::string config = Home() + "/.config/skiff";
    std::string text;
    for (const std::string& url : urls) absl::StrAppend(&text, url, "\\n");
    const CommandResult r = cluster_->RunAs(
        User(), absl::StrCat("mkdir -p ", config, " && printf '", text, "' > ", config, "/notify"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  // MailProg has answered the mail `kind` ("END") about job `id` (ctld logs it then).
  static bool Answered(uint64_t id, const std::string& kind) {
    return absl::StrContains(cluster_->Log("ctld.log"),
                             absl::StrCat("JobId=", id, " mailed ", kind));
  }
  // The fake mailer's line for job `id`, "" until there is one.
  static std::string MailerLine(uint64_t id) {
    for (absl::string_view line :
         absl::StrSplit(ReadFile(cluster_->dir() + "/log/mailer.txt"), '\n', absl::SkipEmpty())) {
      if (absl::StrContains(line, absl::StrCat("Job_id=", id, " "))) return std::string(line);
    }
    return "";
  }
  static uint64_t Submit(const std::string& options) {
    const CommandResult r = cluster_->RunAs(User(), "sbatch -o /dev/null " + options);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const std::vector<uint64_t> ids = SubmittedJobIds(r.out);
    return ids.empty() ? 0 : ids.front();
  }
  // The MailProg lines about job `id`, in the order they were written.
  static std::vector<std::string> Mails(uint64_t id) {
    std::vector<std::string> out;
    for (absl::string_view line :
         absl::StrSplit(ReadFile(cluster_->dir() + "/log/mail.txt"), '\n', absl::SkipEmpty())) {
      if (absl::StartsWith(line, absl::StrCat(id, "|"))) out.emplace_back(line);
    }
    return out;
  }
  static bool HasMails(uint64_t id, size_t count) { return Mails(id).size() >= count; }
  // A job named `name` that runs until `gate` exists, once MailProg has begun
  // its BEGIN mail and waits on `hold` (created here); 0 when it did not get there.
  static uint64_t SubmitWithBeginMailHeld(const std::string& name, const std::string& hold,
                                          const std::string& gate) {
    if (RunShell("touch " + hold).exit_code != 0) return 0;
    const uint64_t id =
        Submit(absl::StrCat("--mail-type=BEGIN,END -J ", name, " --wrap 'while [ ! -e ", gate,
                            " ]; do sleep 0.2; done'"));
    const bool begun = id != 0 && Eventually(60, [&] {
                         return absl::StrContains(ReadFile(cluster_->dir() + "/log/mail.started"),
                                                  absl::StrCat(id, " Began"));
                       });
    EXPECT_TRUE(begun) << Context(id);
    return begun ? id : 0;
  }
  static std::string Context(uint64_t id) {
    return absl::StrCat(ReadFile(cluster_->dir() + "/log/mail.txt"), "\n",
                        cluster_->Run(absl::StrCat("scontrol show job ", id)).out,
                        cluster_->Log("ctld.log").substr(0, 20000));
  }
};

TEST_F(MailTest, AllMailsBeginThenEndWithSlurmsSubjectsAndEnvironment) {
  const uint64_t id = Submit("--mail-type=ALL -J mailjob --wrap 'sleep 1'");
  ASSERT_NE(id, 0u);
  ASSERT_TRUE(Eventually(60, [&] { return HasMails(id, 2); })) << Context(id);
  const std::vector<std::string> mails = Mails(id);
  ASSERT_EQ(mails.size(), 2u) << Context(id);
  const std::string begin = absl::StrCat(id, "|Began|RUNNING||", User(), "|-s Slurm Job_id=", id,
                                         " Name=mailjob Began, Queued time 00:00:0");
  EXPECT_TRUE(absl::StartsWith(mails[0], begin)) << mails[0];
  EXPECT_TRUE(absl::EndsWith(mails[0], absl::StrCat(" ", User()))) << mails[0];
  const std::string end = absl::StrCat(id, "|Ended|COMPLETED|0|", User(), "|-s Slurm Job_id=", id,
                                       " Name=mailjob Ended, Run time 00:00:0");
  EXPECT_TRUE(absl::StartsWith(mails[1], end)) << mails[1];
  EXPECT_TRUE(absl::EndsWith(mails[1], absl::StrCat(", COMPLETED, ExitCode 0 ", User())))
      << mails[1];
}

TEST_F(MailTest, AFailingJobMailsFailed) {
  const uint64_t id =
      Submit("--mail-type=END,FAIL -J failjob --mail-user=lab@example.org --wrap 'exit 3'");
  ASSERT_NE(id, 0u);
  ASSERT_TRUE(Eventually(60, [&] { return HasMails(id, 1); })) << Context(id);
  const std::vector<std::string> mails = Mails(id);
  ASSERT_EQ(mails.size(), 1u) << Context(id);
  EXPECT_TRUE(absl::StartsWith(
      mails[0], absl::StrCat(id, "|Failed|FAILED|3|", User(), "|-s Slurm Job_id=", id,
                             " Name=failjob Failed, Run time 00:00:0")))
      << mails[0];
  EXPECT_TRUE(absl::EndsWith(mails[0], ", FAILED, ExitCode 3 lab@example.org")) << mails[0];
}

TEST_F(MailTest, HalfTheTimeLimitThenTheLimitMailAndTheJobTimesOut) {
  const uint64_t id = Submit(
      "-t 1 --mail-type=TIME_LIMIT_50,TIME_LIMIT -J tljob --wrap 'while true; do sleep 0.2; done'");
  ASSERT_NE(id, 0u);
  ASSERT_TRUE(Eventually(70, [&] { return HasMails(id, 1); })) << Context(id);
  std::vector<std::string> mails = Mails(id);
  EXPECT_TRUE(absl::StartsWith(mails[0], absl::StrCat(id, "|Reached 50% of time limit|RUNNING||",
                                                      User(), "|-s Slurm Job_id=", id,
                                                      " Name=tljob Reached 50% of time limit, "
                                                      "Run time 00:00:3")))
      << mails[0];
  // The limit itself: Slurm's TIME_LIMIT mail, then the job ends TIMEOUT.
  ASSERT_TRUE(Eventually(90, [&] { return HasMails(id, 2); })) << Context(id);
  mails = Mails(id);
  ASSERT_EQ(mails.size(), 2u) << Context(id);
  EXPECT_TRUE(absl::StartsWith(
      mails[1], absl::StrCat(id, "|Reached time limit|RUNNING||", User(), "|-s Slurm Job_id=", id,
                             " Name=tljob Reached time limit, "
                             "Run time 00:01:0")))
      << mails[1];
  EXPECT_TRUE(Eventually(60, [&] {
    return absl::StrContains(cluster_->Run(absl::StrCat("scontrol show job ", id)).out,
                             "JobState=TIMEOUT");
  })) << Context(id);
}

TEST_F(MailTest, AKilledCtldNeitherLosesNorRepeatsAMail) {
  const std::string hold = cluster_->dir() + "/mail.hold";
  const std::string gate = Home() + "/kill.gate";
  // The BEGIN mail is decided, stored and being sent (MailProg waits on the
  // hold file) when ctld dies.
  const uint64_t id = SubmitWithBeginMailHeld("killjob", hold, gate);
  ASSERT_NE(id, 0u);
  const pid_t ctld = cluster_->Pid("ctld");
  ASSERT_GT(ctld, 0);
  kill(ctld, SIGKILL);
  ASSERT_TRUE(Eventually(30, [&] { return kill(ctld, 0) != 0; }));
  ASSERT_EQ(cluster_->Up().exit_code, 0);
  ASSERT_EQ(RunShell("rm -f " + hold).exit_code, 0);
  ASSERT_TRUE(Eventually(60, [&] { return HasMails(id, 1); })) << Context(id);
  // ctld dies again after the mail was sent: the restarted one has nothing to
  // repeat, and the job's end mails once. Sent means ctld heard MailProg's
  // answer and stored it; a MailProg that wrote its line but was cut off
  // before answering may run again (docs/decisions.md, "Mail and webhooks").
  ASSERT_TRUE(Eventually(60, [&] {
    return absl::StrContains(cluster_->Log("ctld.log"),
                             absl::StrCat("JobId=", id, " mailed BEGIN"));
  })) << Context(id);
  const pid_t again = cluster_->Pid("ctld");
  ASSERT_GT(again, 0);
  kill(again, SIGKILL);
  ASSERT_TRUE(Eventually(30, [&] { return kill(again, 0) != 0; }));
  ASSERT_EQ(cluster_->Up().exit_code, 0);
  ASSERT_EQ(RunShell("touch " + gate).exit_code, 0);
  ASSERT_TRUE(Eventually(60, [&] { return HasMails(id, 2); })) << Context(id);
  ASSERT_TRUE(Eventually(60, [&] {
    return absl::StrContains(cluster_->Log("ctld.log"), absl::StrCat("JobId=", id, " mailed END"));
  })) << Context(id);
  // A third ctld start re-sends nothing either.
  const pid_t third = cluster_->Pid("ctld");
  kill(third, SIGKILL);
  ASSERT_TRUE(Eventually(30, [&] { return kill(third, 0) != 0; }));
  ASSERT_EQ(cluster_->Up().exit_code, 0);
  ASSERT_TRUE(Eventually(
      30, [&] { return cluster_->Run(absl::StrCat("scontrol show job ", id)).exit_code == 0; }));
  const std::vector<std::string> mails = Mails(id);
  ASSERT_EQ(mails.size(), 2u) << Context(id);
  EXPECT_TRUE(absl::StrContains(mails[0], "|Began|")) << mails[0];
  EXPECT_TRUE(absl::StrContains(mails[1], "|Ended|COMPLETED|")) << mails[1];
}

// scriptd killed while MailProg runs a mail: ctld starts a new scriptd and
// asks again; the mail reaches MailProg's log once, and the job's end once.
TEST_F(MailTest, AKilledScriptdNeitherLosesNorRepeatsAMail) {
  const std::string hold = cluster_->dir() + "/mail.hold";
  const std::string gate = Home() + "/scriptd.gate";
  const uint64_t id = SubmitWithBeginMailHeld("sdjob", hold, gate);
  ASSERT_NE(id, 0u);
  // scriptd is ctld's only child.
  auto scriptd_pid = [] {
    const pid_t ctld = cluster_->Pid("ctld");
    return atoi(ReadFile(absl::StrCat("/proc/", ctld, "/task/", ctld, "/children")).c_str());
  };
  const pid_t scriptd = scriptd_pid();
  ASSERT_GT(scriptd, 0);
  ASSERT_EQ(kill(scriptd, SIGKILL), 0);
  ASSERT_TRUE(Eventually(30, [&] {
    const pid_t now = scriptd_pid();
    return now > 0 && now != scriptd;
  })) << Context(id);
  ASSERT_EQ(RunShell("rm -f " + hold).exit_code, 0);
  ASSERT_TRUE(Eventually(60, [&] { return HasMails(id, 1); })) << Context(id);
  ASSERT_EQ(RunShell("touch " + gate).exit_code, 0);
  ASSERT_TRUE(Eventually(60, [&] { return HasMails(id, 2); })) << Context(id);
  // The job is done and its mails answered: nothing more comes.
  ASSERT_TRUE(Eventually(60, [&] {
    return absl::StrContains(cluster_->Run(absl::StrCat("scontrol show job ", id)).out,
                             "JobState=COMPLETED");
  }));
  const std::vector<std::string> mails = Mails(id);
  ASSERT_EQ(mails.size(), 2u) << Context(id);
  EXPECT_TRUE(absl::StrContains(mails[0], "|Began|")) << mails[0];
  EXPECT_TRUE(absl::StrContains(mails[1], "|Ended|COMPLETED|")) << mails[1];
}

TEST_F(MailTest, SkiffNotifyPostsJsonToTheUsersWebhookAndMailsWithoutOne) {
  HookServer server;
  ASSERT_NE(server.port(), 0);
  // The listener is on loopback: the site allows it by name and address.
  WriteNotifyConf("AllowedWebhookHosts=127.0.0.1\nAllowPrivateWebhookAddresses=yes\n");
  const std::string config = Home() + "/.config/skiff";
  ASSERT_EQ(cluster_
                ->RunAs(User(), absl::StrCat("mkdir -p ", config, " && printf '# mine\\nurl=",
                                             "http://127.0.0.1:", server.port(), "/hook\\n' > ",
                                             config, "/notify"))
                .exit_code,
            0);
  const uint64_t id = Submit("--mail-type=END -J hookjob --wrap true");
  ASSERT_NE(id, 0u);
  ASSERT_TRUE(Eventually(60, [&] { return !server.bodies().empty(); })) << Context(id);
  const std::vector<std::string> bodies = server.bodies();
  ASSERT_EQ(bodies.size(), 1u);
  absl::StatusOr<JsonValue> json = ParseJson(bodies[0]);
  ASSERT_TRUE(json.ok()) << json.status() << "\n" << bodies[0];
  const JsonValue* text = json->Find("text");
  ASSERT_NE(text, nullptr) << bodies[0];
  EXPECT_TRUE(
      absl::StartsWith(text->as_string(),
                       absl::StrCat("Slurm Job_id=", id, " Name=hookjob Ended, Run time 00:00:0")))
      << text->as_string();
  EXPECT_TRUE(absl::EndsWith(text->as_string(), ", COMPLETED, ExitCode 0")) << text->as_string();
  const JsonValue* skiff = json->Find("skiff");
  ASSERT_NE(skiff, nullptr) << bodies[0];
  EXPECT_EQ(skiff->Find("job_id")->as_string(), absl::StrCat(id));
  EXPECT_EQ(skiff->Find("event")->as_string(), "Ended");
  EXPECT_EQ(skiff->Find("state")->as_string(), "COMPLETED");
  EXPECT_EQ(skiff->Find("user")->as_string(), User());

  // Without a registered URL, the real mailer gets the mail.
  ASSERT_EQ(RunShell(absl::StrCat("rm -f ", config, "/notify")).exit_code, 0);
  const uint64_t plain = Submit("--mail-type=END -J hookplain --wrap true");
  ASSERT_NE(plain, 0u);
  const std::string expected = absl::StrCat("-s Slurm Job_id=", plain, " Name=hookplain Ended, ");
  ASSERT_TRUE(Eventually(
      60,
      [&] { return absl::StrContains(ReadFile(cluster_->dir() + "/log/mailer.txt"), expected); }))
      << ReadFile(cluster_->dir() + "/log/mailer.txt") << Context(plain);
  EXPECT_TRUE(absl::StrContains(ReadFile(cluster_->dir() + "/log/mailer.txt"),
                                absl::StrCat(", COMPLETED, ExitCode 0 ", User(), "\n")));
  EXPECT_EQ(server.bodies().size(), 1u);
}

// Issue 47, item 13: skiff-notify runs on the controller host, where a URL
// reaches what no user should (restd's and other daemons' loopback ports, a
// cloud's metadata service). A webhook goes only to a host notify.conf's
// AllowedWebhookHosts lists, at an address that is not loopback or private
// unless AllowPrivateWebhookAddresses=yes; every other URL is refused and the
// mail goes to the mailer. Nothing of the user's steers curl: no ~/.curlrc
// (a header, another method, a trace file, following redirects).
TEST_F(MailTest, SkiffNotifyPostsOnlyToAllowedHostsAndIgnoresTheUsersCurlrc) {
  HookServer admin;  // stands for a loopback admin endpoint
  ASSERT_NE(admin.port(), 0);
  const std::string port = absl::StrCat(admin.port());
  // The plain URL, one whose user part names an allowed host, and the same
  // address written as one number (curl takes it as 127.0.0.1).
  RegisterHooks({"http://127.0.0.1:" + port + "/admin/drain",
                 "http://hooks.example.org@127.0.0.1:" + port + "/admin/userinfo",
                 "http://2130706433:" + port + "/admin/decimal"});
  const std::pair<std::string, std::string> refused[] = {
      {"", "no AllowedWebhookHosts: no webhooks at all"},
      {"AllowedWebhookHosts=hooks.example.org\n", "a host the site did not list"},
      {"AllowedWebhookHosts=localhost,127.0.0.1,2130706433\n",
       "listed hosts at a loopback address, without AllowPrivateWebhookAddresses"},
  };
  for (const auto& [conf, why] : refused) {
    WriteNotifyConf(conf);
    const uint64_t id = Submit("--mail-type=END -J hookdeny --wrap true");
    ASSERT_NE(id, 0u);
    // Refused URLs leave the mail to the mailer.
    ASSERT_TRUE(
        Eventually(60, [&] { return !MailerLine(id).empty() || !admin.requests().empty(); }))
        << why << "\n"
        << Context(id);
    EXPECT_TRUE(admin.requests().empty()) << why << ": " << admin.requests().front();
    ASSERT_FALSE(MailerLine(id).empty()) << why;
    EXPECT_TRUE(absl::EndsWith(MailerLine(id), absl::StrCat(", COMPLETED, ExitCode 0 ", User())))
        << MailerLine(id);
  }

  // An allowed URL that answers with a redirect to the admin endpoint; the
  // user's ~/.curlrc asks for a header, PUT, a trace file and redirects.
  HookServer hook(
      absl::StrCat("HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:", port,
                   "/admin/redirected\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"));
  ASSERT_NE(hook.port(), 0);
  WriteNotifyConf("AllowedWebhookHosts=127.0.0.1\nAllowPrivateWebhookAddresses=yes\n");
  RegisterHooks({absl::StrCat("http://127.0.0.1:", hook.port(), "/hook")});
  const std::string trace = Home() + "/curl-trace.txt";
  ASSERT_EQ(cluster_
                ->RunAs(User(), absl::StrCat("printf '%s\\n' 'header = \"X-From-Curlrc: yes\"' "
                                             "'request = PUT' 'trace-ascii = ",
                                             trace, "' 'location' > .curlrc"))
                .exit_code,
            0);
  const uint64_t id = Submit("--mail-type=END -J hookrc --wrap true");
  ASSERT_NE(id, 0u);
  ASSERT_TRUE(Eventually(60, [&] { return Answered(id, "END"); })) << Context(id);
  const std::vector<std::string> requests = hook.requests();
  ASSERT_EQ(requests.size(), 1u) << Context(id);
  EXPECT_TRUE(absl::StartsWith(requests[0], "POST /hook HTTP/1.1\r\n")) << requests[0];
  EXPECT_FALSE(absl::StrContains(requests[0], "X-From-Curlrc")) << requests[0];
  EXPECT_FALSE(absl::StrContains(requests[0], "x-from-curlrc")) << requests[0];
  EXPECT_EQ(ReadFile(trace), "") << "curl wrote the user's trace file";
  EXPECT_TRUE(admin.requests().empty())
      << "the redirect was followed: " << admin.requests().front();
  EXPECT_TRUE(MailerLine(id).empty()) << MailerLine(id);
  RunShell(absl::StrCat("rm -f ", Home(), "/.curlrc ", Home(), "/.config/skiff/notify"));
}

// Issue 47, item 14: ctld runs MailProg as Slurm does, `MailProg -s SUBJECT
// RECIPIENT`, so a --mail-user that starts with '-' or holds blanks would be
// the mailer's options (sendmail's -oQ, -C, mailx's -r ...): refused at
// submission naming --mail-user. A job name's control characters (a newline
// starting a mail header) never reach the subject.
TEST_F(MailTest, AMailUserThatCouldBeAnOptionIsRefusedAndSubjectsHoldNoControlCharacters) {
  for (const char* bad :
       {"-oQ/tmp/x", "lab@example.org -C/tmp/evil.cf", "-r", "a\tb@example.org"}) {
    const CommandResult r = cluster_->RunAs(
        User(), absl::StrCat("sbatch -o /dev/null --mail-type=END --mail-user=\"$(printf -- '", bad,
                             "')\" --wrap true"));
    EXPECT_NE(r.exit_code, 0) << bad << ": " << r.out;
    EXPECT_TRUE(absl::StrContains(r.err, "sbatch: error: ")) << bad << ": " << r.err;
    EXPECT_TRUE(absl::StrContains(r.err, "--mail-user")) << bad << ": " << r.err;
    EXPECT_TRUE(SubmittedJobIds(r.out).empty()) << bad << ": " << r.out;
  }
  // Addresses and lists of them are still taken.
  const uint64_t listed = Submit(
      "--mail-type=END -J listed --mail-user=lab@example.org,pi+slurm@lab.example.org --wrap true");
  ASSERT_NE(listed, 0u);
  ASSERT_TRUE(Eventually(60, [&] { return HasMails(listed, 1); })) << Context(listed);
  EXPECT_TRUE(absl::EndsWith(Mails(listed)[0], " lab@example.org,pi+slurm@lab.example.org"))
      << Mails(listed)[0];

  // A name with a newline and a carriage return: one subject line.
  const uint64_t id =
      Submit("--mail-type=END -J \"$(printf 'nl\\nBcc: evil@example.org\\rX')\" --wrap true");
  ASSERT_NE(id, 0u);
  ASSERT_TRUE(Eventually(60, [&] { return Answered(id, "END"); })) << Context(id);
  const std::vector<std::string> mails = Mails(id);
  ASSERT_EQ(mails.size(), 1u) << Context(id);
  EXPECT_TRUE(absl::StrContains(
      mails[0], absl::StrCat("-s Slurm Job_id=", id, " Name=nl Bcc: evil@example.org X Ended, ")))
      << mails[0];
  for (absl::string_view line :
       absl::StrSplit(ReadFile(cluster_->dir() + "/log/mail.txt"), '\n', absl::SkipEmpty())) {
    EXPECT_FALSE(absl::StartsWith(line, "Bcc:")) << line;
    EXPECT_FALSE(absl::StrContains(line, "\r")) << line;
  }
}

}  // namespace
}  // namespace skiff::testing
