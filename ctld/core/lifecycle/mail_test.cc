// --mail-type in the lifecycle core: which events mail, Slurm 22.05's subjects
// and MailProg environment, arrays, and the once-only rule across restarts.
#include "ctld/core/lifecycle/mail.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "ctld/core/lifecycle/lifecycle_test_util.h"

namespace skiff::ctld {
namespace {

class MailTest : public LifecycleTest {
 protected:
  SubmitRequest Mailing(const std::string& types) {
    SubmitRequest request = Request();
    request.mail_type = types;
    return request;
  }

  // The subjects waiting in the job's stored outbox, oldest first; each is
  // then answered (MailSent), as the dispatcher does once MailProg has run.
  std::vector<std::string> TakeMail(uint64_t id) {
    std::vector<std::string> subjects;
    const std::vector<MailMessage> outbox = store_[id].mail_outbox;
    for (const MailMessage& message : outbox) {
      subjects.push_back(message.subject);
      Store(core_->MailSent(id, message.kind, message.run));
    }
    EXPECT_TRUE(store_[id].mail_outbox.empty());
    return subjects;
  }

  static std::vector<MailIntent> MailsIn(const Effects& effects) {
    std::vector<MailIntent> out;
    for (const Intent& intent : effects.intents) {
      if (const auto* mail = std::get_if<MailIntent>(&intent)) out.push_back(*mail);
    }
    return out;
  }

  // A core restarted from what the store holds (Load, then Resume).
  std::unique_ptr<Lifecycle> Restart(Effects* resumed) {
    std::vector<Job> jobs;
    uint64_t max_id = 0;
    for (const auto& [id, job] : store_) {
      jobs.push_back(job);
      max_id = std::max(max_id, id);
    }
    auto restarted = std::make_unique<Lifecycle>(config_, settings_, now_);
    restarted->Load(std::move(jobs), max_id, {});
    restarted->SetQosViewForTest({Qos{"normal"}});
    *resumed = restarted->Resume(now_);
    restarted->Confirm();
    return restarted;
  }
};

TEST(MailTypeTest, ParsesAsSlurmsParseMailType) {
  EXPECT_EQ(ParseMailType("END,fail"), kMailEnd | kMailFail);
  EXPECT_EQ(ParseMailType("ALL"),
            kMailBegin | kMailEnd | kMailFail | kMailRequeue | kMailInvalidDepend | kMailStageOut);
  EXPECT_EQ(ParseMailType("time_limit,TIME_LIMIT_90,TIME_LIMIT_80,TIME_LIMIT_50,ARRAY_TASKS"),
            kMailTime100 | kMailTime90 | kMailTime80 | kMailTime50 | kMailArrayTasks);
  EXPECT_EQ(ParseMailType("BEGIN,NONE"), 0);
  EXPECT_EQ(ParseMailType("NONE,END"), 0);
  EXPECT_EQ(ParseMailType(""), 0);
  EXPECT_EQ(MailDuration(62), "00:01:02");
  EXPECT_EQ(MailDuration(93784), "1-02:03:04");
}

TEST_F(MailTest, BeginThenEndWithSlurmsSubjectsAndEnvironment) {
  const uint64_t id = Submit(Mailing("ALL"));
  now_ += 1;
  Effects started = Schedule();
  std::vector<MailIntent> begin = MailsIn(started);
  ASSERT_EQ(begin.size(), 1u);
  EXPECT_EQ(begin[0].message.subject,
            absl::StrCat("Slurm Job_id=", id, " Name=j Began, Queued time 00:00:01"));
  EXPECT_EQ(begin[0].message.user, "alice");
  EXPECT_EQ(begin[0].message.env.at("SLURM_JOB_MAIL_TYPE"), "Began");
  EXPECT_EQ(begin[0].message.env.at("SLURM_JOB_STATE"), "RUNNING");
  EXPECT_EQ(begin[0].message.env.at("SLURM_JOB_QUEUED_TIME"), "00:00:01");
  EXPECT_EQ(begin[0].message.env.at("SLURM_JOB_ID"), absl::StrCat(id));
  EXPECT_EQ(begin[0].message.env.at("SLURM_JOB_USER"), "alice");
  EXPECT_EQ(begin[0].message.env.at("SLURM_CLUSTER_NAME"), "test");
  // Decided with the event: in its rows before the intent may run.
  ASSERT_EQ(store_[id].mail_outbox.size(), 1u);
  EXPECT_EQ(store_[id].mail_sent, kMailBegin);
  Drive(std::move(started));
  EXPECT_EQ(TakeMail(id).size(), 1u);

  now_ += 62;
  Drive(Store(core_->JobComplete("n1", {id, true, 0, 0, ""}, now_)));
  ASSERT_EQ(StateOf(id), JobState::kCompleted);
  const std::vector<MailMessage> outbox = store_[id].mail_outbox;
  ASSERT_EQ(outbox.size(), 1u);
  EXPECT_EQ(
      outbox[0].subject,
      absl::StrCat("Slurm Job_id=", id, " Name=j Ended, Run time 00:01:02, COMPLETED, ExitCode 0"));
  EXPECT_EQ(outbox[0].env.at("SLURM_JOB_EXIT_CODE_MAX"), "0");
  EXPECT_EQ(outbox[0].env.at("SLURM_JOB_STATE"), "COMPLETED");
  EXPECT_EQ(outbox[0].env.at("SLURM_JOB_RUN_TIME"), "00:01:02");
  EXPECT_EQ(outbox[0].env.at("SLURM_JOB_EXIT_CODE2"), "0:0");
  TakeMail(id);
}

TEST_F(MailTest, AFailedJobMailsFailAndNotEnd) {
  const uint64_t id = Submit(Mailing("END,FAIL"));
  Drive(Schedule());
  EXPECT_TRUE(store_[id].mail_outbox.empty());  // no BEGIN asked
  now_ += 5;
  Drive(Store(core_->JobComplete("n1", {id, true, 3, 0, ""}, now_)));
  EXPECT_EQ(TakeMail(id),
            std::vector<std::string>{absl::StrCat(
                "Slurm Job_id=", id, " Name=j Failed, Run time 00:00:05, FAILED, ExitCode 3")});
}

TEST_F(MailTest, ACancelledPendingJobEndsWithARunTimeOfZero) {
  SubmitRequest request = Mailing("END");
  request.hold = true;
  const uint64_t id = Submit(request);
  std::vector<CancelOutcome> outcomes;
  Store(core_->Cancel({1001, 1001}, false, CancelOf(id), now_, &outcomes));
  EXPECT_EQ(TakeMail(id),
            std::vector<std::string>{absl::StrCat(
                "Slurm Job_id=", id, " Name=j Ended, Run time 00:00:00, CANCELLED, ExitCode 0")});
}

TEST_F(MailTest, TimeLimitThresholdsMailOnceEachAsTheyPass) {
  const uint64_t id = Submit(Mailing("TIME_LIMIT,TIME_LIMIT_90,TIME_LIMIT_80,TIME_LIMIT_50"));
  Drive(Schedule());
  const int64_t start = now_;
  auto mails_at = [&](int64_t t) {
    std::vector<std::string> kinds;
    for (const MailIntent& mail : MailsIn(Store(core_->EnforceTimeLimits(start + t)))) {
      kinds.push_back(mail.message.env.at("SLURM_JOB_MAIL_TYPE"));
    }
    return kinds;
  };
  EXPECT_TRUE(mails_at(299).empty());
  EXPECT_EQ(mails_at(300), std::vector<std::string>{"Reached 50% of time limit"});
  EXPECT_TRUE(mails_at(301).empty());  // checked every second, mailed once
  EXPECT_EQ(mails_at(480), std::vector<std::string>{"Reached 80% of time limit"});
  EXPECT_EQ(mails_at(540), std::vector<std::string>{"Reached 90% of time limit"});
  EXPECT_EQ(
      store_[id].mail_outbox.back().subject,
      absl::StrCat("Slurm Job_id=", id, " Name=j Reached 90% of time limit, Run time 00:09:00"));
  EXPECT_EQ(mails_at(600), std::vector<std::string>{"Reached time limit"});
  EXPECT_TRUE(mails_at(601).empty());
}

TEST_F(MailTest, ALateCheckMailsEveryThresholdPassedInSlurmsOrder) {
  Submit(Mailing("TIME_LIMIT_50,TIME_LIMIT_90"));
  Drive(Schedule());
  std::vector<std::string> kinds;
  for (const MailIntent& mail : MailsIn(Store(core_->EnforceTimeLimits(now_ + 550)))) {
    kinds.push_back(MailKindName(mail.message.kind));
  }
  EXPECT_EQ(kinds, (std::vector<std::string>{"TIME_LIMIT_90", "TIME_LIMIT_50"}));
}

TEST_F(MailTest, ARequeuedRunMailsRequeueAndThenBeginsAndEndsAgain) {
  const uint64_t id = Submit(Mailing("BEGIN,END,REQUEUE,TIME_LIMIT_50"));
  Drive(Schedule());
  Store(core_->EnforceTimeLimits(now_ + 300));
  EXPECT_EQ(TakeMail(id).size(), 2u);  // BEGIN, TIME_LIMIT_50
  JobUpdate update;
  update.job_id = id;
  update.requeue = JobUpdate::Requeue::kRequeue;
  Drive(Store(core_->Update({1001, 1001}, false, update, now_)));
  Drive(Store(core_->JobComplete("n1", {id, true, 0, 15, ""}, now_ + 305)));
  ASSERT_EQ(StateOf(id), JobState::kPending);
  std::vector<std::string> requeued = TakeMail(id);
  ASSERT_EQ(requeued.size(), 1u);
  // The run's time, as Slurm's REQUEUE mail says it; a pending job shows no end.
  EXPECT_EQ(requeued[0], absl::StrCat("Slurm Job_id=", id, " Name=j Requeued, Run time 00:05:05"));
  EXPECT_EQ(store_[id].end_time, 0);
  // The next run begins (and would end) with mail again; TIME_LIMIT_50 was
  // the job's, as Slurm clears it once sent.
  Drive(Schedule());
  Store(core_->EnforceTimeLimits(now_ + 300));
  std::vector<std::string> again = TakeMail(id);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_NE(again[0].find(" Began, "), std::string::npos);
  EXPECT_EQ(store_[id].mail_outbox.size(), 0u);
}

TEST_F(MailTest, AnUnansweredMailIsSentAgainAfterARestartAndAnAnsweredOneIsNot) {
  const uint64_t id = Submit(Mailing("BEGIN,END,TIME_LIMIT_50"));
  Effects started = Schedule();
  const std::vector<MailIntent> first = MailsIn(started);
  ASSERT_EQ(first.size(), 1u);
  Drive(std::move(started));
  // ctld stops before MailProg answers: the restarted core sends the same
  // message (same kind and run: the same scriptd request) again.
  Effects resumed;
  std::unique_ptr<Lifecycle> restarted = Restart(&resumed);
  std::vector<MailIntent> again = MailsIn(resumed);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].job_id, id);
  EXPECT_EQ(again[0].message.kind, first[0].message.kind);
  EXPECT_EQ(again[0].message.run, first[0].message.run);
  EXPECT_EQ(again[0].message.subject, first[0].message.subject);
  EXPECT_EQ(again[0].message.env, first[0].message.env);
  // Answered, then restarted: nothing to send, and the checks that run
  // again (time limits) find the bits the rows kept.
  TakeMail(id);
  Store(core_->EnforceTimeLimits(now_ + 300));
  TakeMail(id);
  restarted = Restart(&resumed);
  EXPECT_TRUE(MailsIn(resumed).empty());
  Effects checked = restarted->EnforceTimeLimits(now_ + 301);
  EXPECT_TRUE(MailsIn(checked).empty());
  // MailSent for a mail already answered, or a job unknown, changes nothing.
  EXPECT_TRUE(restarted->MailSent(id, kMailBegin, 0).rows.empty());
  EXPECT_TRUE(restarted->MailSent(999, kMailBegin, 0).rows.empty());
}

TEST_F(MailTest, AnArrayMailsOnceForTheWholeArray) {
  SubmitRequest request = Mailing("BEGIN,END,FAIL");
  request.array = "0-2";
  const uint64_t base = Submit(request);
  now_ += 3;
  Drive(Schedule());  // two 1-CPU tasks per node: all three start
  int begun = 0;
  for (uint64_t id = base; id < base + 3; ++id) {
    ASSERT_EQ(StateOf(id), JobState::kRunning);
    for (const std::string& subject : TakeMail(id)) {
      ++begun;
      EXPECT_EQ(subject,
                absl::StrCat("Slurm Array Summary Job_id=", base, "_* (", base, ") Name=j Began"));
    }
  }
  EXPECT_EQ(begun, 1);
  Drive(Store(core_->JobComplete("n1", {base, true, 0, 0, ""}, now_)));
  Drive(Store(
      core_->JobComplete(core_->Find(base + 1)->nodes.front(), {base + 1, true, 0, 0, ""}, now_)));
  EXPECT_TRUE(TakeMail(base).empty());
  EXPECT_TRUE(TakeMail(base + 1).empty());
  Drive(Store(
      core_->JobComplete(core_->Find(base + 2)->nodes.front(), {base + 2, true, 2, 0, ""}, now_)));
  // The last task to end mails the summary: one task failed, so FAIL, "Mixed".
  EXPECT_EQ(TakeMail(base + 2),
            std::vector<std::string>{absl::StrCat("Slurm Array Summary Job_id=", base, "_* (", base,
                                                  ") Name=j Failed, Mixed, ExitCode [0-2]")});
}

TEST_F(MailTest, ArrayTasksMailsEveryTaskWithItsOwnSubject) {
  SubmitRequest request = Mailing("BEGIN,ARRAY_TASKS");
  request.array = "0-1";
  const uint64_t base = Submit(request);
  Drive(Schedule());
  EXPECT_EQ(TakeMail(base),
            std::vector<std::string>{absl::StrCat("Slurm Array Task Job_id=", base, "_0 (", base,
                                                  ") Name=j Began, Queued time 00:00:00")});
  EXPECT_EQ(TakeMail(base + 1), std::vector<std::string>{
                                    absl::StrCat("Slurm Array Task Job_id=", base, "_1 (", base + 1,
                                                 ") Name=j Began, Queued time 00:00:00")});
}

TEST_F(MailTest, ADependencyThatCanNeverBeSatisfiedMailsOnce) {
  const uint64_t first = Submit(Request());
  SubmitRequest dependent = Mailing("INVALID_DEPEND");
  dependent.dependency = absl::StrCat("afterok:", first);
  const uint64_t dep = Submit(dependent);
  Drive(Schedule());
  Drive(Store(core_->JobComplete("n1", {first, true, 1, 0, ""}, now_)));
  Drive(Schedule());
  Drive(Schedule());
  EXPECT_EQ(core_->Find(dep)->reason, "DependencyNeverSatisfied");
  EXPECT_EQ(TakeMail(dep), std::vector<std::string>{
                               absl::StrCat("Slurm Job_id=", dep, " Name=j Invalid dependency")});
  Drive(Schedule());
  EXPECT_TRUE(TakeMail(dep).empty());
}

TEST_F(MailTest, NoMailTypeMailsNothing) {
  const uint64_t id = Submit(Mailing("NONE"));
  Drive(Schedule());
  Drive(Store(core_->JobComplete("n1", {id, true, 1, 0, ""}, now_)));
  EXPECT_TRUE(store_[id].mail_outbox.empty());
  EXPECT_EQ(store_[id].mail_sent, 0);
}

// Issue 47, item 14: what MailProg would take as its options never reaches it.
TEST(MailUserTest, RefusesARecipientMailProgWouldTakeAsAnOption) {
  EXPECT_EQ(MailUserProblem(""), "");  // the job's user
  EXPECT_EQ(MailUserProblem("alice"), "");
  EXPECT_EQ(MailUserProblem("lab@example.org,pi+slurm@lab.example.org"), "");
  EXPECT_EQ(MailUserProblem("first.last_1%x=y~z@sub-domain.example.org"), "");
  EXPECT_EQ(MailUserProblem("-oQ/tmp/x"), "'-oQ/tmp/x' starts with '-'");
  EXPECT_EQ(MailUserProblem("lab@example.org,-r"), "'-r' starts with '-'");
  EXPECT_EQ(MailUserProblem("a@x -C/tmp/evil.cf"),
            "'a@x -C/tmp/evil.cf' holds ' ' (a recipient is user names or addresses: letters, "
            "digits and ._%+=@~-, comma-separated)");
  EXPECT_TRUE(absl::StartsWith(MailUserProblem("a\tb"), "'a\\tb' holds '\\t'"))
      << MailUserProblem("a\tb");
  EXPECT_TRUE(absl::StartsWith(MailUserProblem("a\nBcc: b"), "'a\\nBcc: b' holds '\\n'"));
  EXPECT_EQ(MailUserProblem("a,,b"), "'a,,b' has an empty item");
  EXPECT_NE(MailUserProblem("a;b"), "");
  EXPECT_NE(MailUserProblem("$(id)"), "");
  EXPECT_EQ(MailUserProblem(std::string(1025, 'a')), "longer than 1024 characters");
}

TEST(MailUserTest, CleanSubjectMakesEveryControlCharacterABlank) {
  EXPECT_EQ(CleanMailSubject("Name=a\nBcc: b\r\x7f\tc"), "Name=a Bcc: b   c");
  EXPECT_EQ(CleanMailSubject("Name=caf\xc3\xa9"), "Name=caf\xc3\xa9");  // UTF-8 kept
}

TEST_F(MailTest, ASubmissionWithAMailUserThatCouldBeAnOptionIsRefused) {
  SubmitRequest request = Mailing("END");
  request.mail_user = "-oQ/tmp/x";
  absl::StatusOr<Admitted> admitted = core_->Admit(request, now_);
  ASSERT_FALSE(admitted.ok());
  EXPECT_EQ(admitted.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(admitted.status().message(),
            "Invalid --mail-user specification: '-oQ/tmp/x' starts with '-'");
  request.mail_user = "lab@example.org";
  EXPECT_TRUE(core_->Admit(request, now_).ok());
}

TEST_F(MailTest, ANameWithControlCharactersMailsOneSubjectLine) {
  SubmitRequest request = Mailing("END");
  request.name = "nl\nBcc: evil@example.org\r";
  const uint64_t id = Submit(request);
  Drive(Schedule());
  now_ += 5;
  Drive(Store(core_->JobComplete("n1", {id, true, 0, 0, ""}, now_)));
  EXPECT_EQ(TakeMail(id), std::vector<std::string>{absl::StrCat(
                              "Slurm Job_id=", id,
                              " Name=nl Bcc: evil@example.org  Ended, Run time 00:00:05, "
                              "COMPLETED, ExitCode 0")});
  // MailProg's environment keeps the name as it is, as Slurm's.
}

// A job admitted before --mail-user was checked (an older ctld's row) mails
// its user instead.
TEST_F(MailTest, AStoredRecipientThatCouldBeAnOptionMailsTheJobsUser) {
  const uint64_t id = Submit(Mailing("END"));
  Drive(Schedule());
  ASSERT_EQ(StateOf(id), JobState::kRunning);
  store_[id].mail_user = "-oQ/tmp/x";
  Effects resumed;
  std::unique_ptr<Lifecycle> restarted = Restart(&resumed);
  now_ += 5;
  absl::StatusOr<Effects> ended = restarted->JobComplete("n1", {id, true, 0, 0, ""}, now_);
  ASSERT_TRUE(ended.ok()) << ended.status();
  const std::vector<MailIntent> end = MailsIn(*ended);
  ASSERT_EQ(end.size(), 1u);
  EXPECT_EQ(end[0].message.user, "alice");
}

}  // namespace
}  // namespace skiff::ctld
