// Advance reservations as lifecycle events: one journaled frame per change
// with a typed record, privileges decided in the core, rollbacks exact, and
// --reservation checked at submit.
#include <gtest/gtest.h>

#include <string>

#include "ctld/core/lifecycle/lifecycle_test_util.h"

namespace skiff::ctld {
namespace {

class ReservationEventsTest : public LifecycleTest {
 protected:
  ResvRequest Maint(const std::string& name, int64_t start, int64_t duration,
                    const std::string& nodes = "n1") {
    ResvRequest request;
    request.name = name;
    request.start = start;
    request.duration = duration;
    request.nodes = nodes;
    request.users = ListEdit{ListOp::kSet, {"alice"}};
    return request;
  }

  absl::StatusOr<Effects> Change(ResvOp op, const ResvRequest& request, bool privileged = true,
                                 const std::string& caller = "root") {
    std::string name;
    return core_->UpdateReservation(Caller{privileged ? 0u : 1001u, 0}, privileged, caller, op,
                                    request, ResvLookups{{"alice", "root"}, {}}, now_, &name);
  }

  Caller root_{0, 0};
};

TEST_F(ReservationEventsTest, CreateIsOneFrameWithItsRecordAndRollsBackWhole) {
  absl::StatusOr<Effects> created = Change(ResvOp::kCreate, Maint("m", now_ + 300, 3600));
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_NE(created->frame, 0u);
  // The reservation, and the change kept for sreport with what it holds.
  ASSERT_EQ(created->records.size(), 2u);
  const auto* change = std::get_if<ResvChange>(&created->records[0]);
  ASSERT_NE(change, nullptr);
  EXPECT_EQ(change->name, "m");
  ASSERT_TRUE(change->resv.has_value());
  EXPECT_EQ(change->resv->nodes, (std::vector<std::string>{"n1"}));
  const auto* event = std::get_if<ResvEventChange>(&created->records[1]);
  ASSERT_NE(event, nullptr);
  EXPECT_EQ(event->event.name, "m");
  EXPECT_EQ(event->event.time, now_);
  EXPECT_TRUE(event->event.created);
  ASSERT_TRUE(event->event.resv.has_value());
  EXPECT_EQ(event->event.tres.at("node"), 1);
  EXPECT_GT(event->event.tres.at("cpu"), 0);
  EXPECT_TRUE(created->reschedule);
  EXPECT_EQ(core_->state().advance_reservations().count("m"), 1u);
  core_->Rollback();  // the store refused the row
  EXPECT_EQ(core_->state().advance_reservations().count("m"), 0u);
}

TEST_F(ReservationEventsTest, OnlyOperatorsCreateAndUpdate) {
  EXPECT_EQ(Change(ResvOp::kCreate, Maint("m", now_, 60), false, "alice").status().code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_FALSE(core_->in_transaction());
  Store(Change(ResvOp::kCreate, Maint("m", now_, 60)));
  ResvRequest update;
  update.name = "m";
  update.duration = 120;
  EXPECT_EQ(Change(ResvOp::kUpdate, update, false, "alice").status().code(),
            absl::StatusCode::kPermissionDenied);
  Store(Change(ResvOp::kUpdate, update));
  EXPECT_EQ(core_->state().advance_reservations().at("m").end, now_ + 120);
}

TEST_F(ReservationEventsTest, DeleteByItsUserNeedsUserDeleteAndNoRunningJob) {
  ResvRequest request = Maint("m", now_, 600);
  Store(Change(ResvOp::kCreate, request));
  ResvRequest del;
  del.name = "m";
  EXPECT_EQ(Change(ResvOp::kDelete, del, false, "alice").status().code(),
            absl::StatusCode::kPermissionDenied);
  ResvRequest flag;
  flag.name = "m";
  flag.flags = ListEdit{ListOp::kAdd, {"USER_DELETE"}};
  Store(Change(ResvOp::kUpdate, flag));
  // A job running in it keeps it.
  SubmitRequest job = Request();
  job.reservation = "m";
  const uint64_t id = Submit(job);
  Drive(Schedule());
  ASSERT_EQ(StateOf(id), JobState::kRunning);
  EXPECT_EQ(Change(ResvOp::kDelete, del, false, "alice").status().message(),
            "Requested reservation is in use");
  CancelSpec cancel = CancelOf(id);
  std::vector<CancelOutcome> outcomes;
  Drive(Store(core_->Cancel(root_, true, cancel, now_, &outcomes)));
  NodeRunReport report;
  report.job_id = id;
  report.finished = true;
  Drive(Store(core_->JobComplete(core_->Find(id)->nodes.at(0), report, now_)));
  absl::StatusOr<Effects> deleted = Change(ResvOp::kDelete, del, false, "alice");
  ASSERT_TRUE(deleted.ok()) << deleted.status();
  ASSERT_GE(deleted->records.size(), 2u);
  const auto* change = std::get_if<ResvChange>(&deleted->records.end()[-2]);
  ASSERT_NE(change, nullptr);
  EXPECT_FALSE(change->resv.has_value());
  const auto* event = std::get_if<ResvEventChange>(&deleted->records.back());
  ASSERT_NE(event, nullptr);
  EXPECT_FALSE(event->event.resv.has_value());
  EXPECT_FALSE(event->event.created);
  Store(std::move(deleted));
  EXPECT_TRUE(core_->state().advance_reservations().empty());
}

TEST_F(ReservationEventsTest, SubmitChecksTheReservationAndWhoMayUseIt) {
  Store(Change(ResvOp::kCreate, Maint("m", now_ + 300, 600)));
  SubmitRequest job = Request();
  job.reservation = "nope";
  EXPECT_EQ(core_->CheckSubmission(job, now_).status().message(),
            "Requested reservation is invalid");
  job.reservation = "m";
  job.user_name = "bob";
  EXPECT_EQ(core_->CheckSubmission(job, now_).status().message(),
            "Access denied to requested reservation");
  job.user_name = "alice";
  EXPECT_TRUE(core_->CheckSubmission(job, now_).ok());
}

TEST_F(ReservationEventsTest, JobTakesItsReservationsPartitionUnlessItNamesOne) {
  PartitionConfig other;
  other.name = "other";
  other.nodes = {"n2"};
  config_.partitions.push_back(other);
  Reset();
  ResvRequest request = Maint("m", now_, 600, "n2");
  request.partition = "other";
  Store(Change(ResvOp::kCreate, request));
  SubmitRequest job = Request();
  job.reservation = "m";
  absl::StatusOr<CheckedSubmission> checked = core_->CheckSubmission(job, now_);
  ASSERT_TRUE(checked.ok()) << checked.status();
  EXPECT_EQ(checked->job.request.partition, "other");
  job.partition = "debug";
  checked = core_->CheckSubmission(job, now_);
  ASSERT_TRUE(checked.ok()) << checked.status();
  EXPECT_EQ(checked->job.request.partition, "debug");
}

TEST_F(ReservationEventsTest, ThePassKeepsOthersOffAnOpenReservationAndRunsItsJobThere) {
  Store(Change(ResvOp::kCreate, Maint("m", now_, 600, "n1")));
  SubmitRequest whole = Request(2);  // both CPUs of a node
  const uint64_t first = Submit(whole);
  const uint64_t second = Submit(whole);
  SubmitRequest inside = Request(2);
  inside.reservation = "m";
  const uint64_t member = Submit(inside);
  Drive(Schedule());
  ASSERT_EQ(StateOf(first), JobState::kRunning);
  EXPECT_EQ(core_->Find(first)->nodes, std::vector<std::string>{"n2"});
  EXPECT_EQ(StateOf(second), JobState::kPending);
  EXPECT_EQ(core_->Find(second)->reason, "Resources");
  ASSERT_EQ(StateOf(member), JobState::kRunning);
  EXPECT_EQ(core_->Find(member)->nodes, std::vector<std::string>{"n1"});
}

}  // namespace
}  // namespace skiff::ctld
