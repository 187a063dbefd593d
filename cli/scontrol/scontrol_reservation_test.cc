#include "cli/scontrol/scontrol_reservation.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace skiff::cli {
namespace {

constexpr int64_t kNow = 1'800'000'000;

class ReservationArgsTest : public ::testing::Test {
 protected:
  void SetUp() override { setenv("TZ", "UTC", 1); }
};

TEST_F(ReservationArgsTest, CreateTakesSlurmsKeysByPrefix) {
  absl::StatusOr<v1::UpdateReservationRequest> r = ParseReservationArgs(
      {"reservation", "ReservationName=maint", "StartTime=now+5minutes", "Duration=60",
       "Nodes=n[1-2]", "Users=alice,bob", "Flags=MAINT,IGNORE_JOBS", "PartitionName=debug"},
      true, kNow);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->op(), v1::UpdateReservationRequest::CREATE);
  EXPECT_EQ(r->name(), "maint");
  EXPECT_EQ(r->start_time(), kNow + 300);
  EXPECT_EQ(r->duration(), 3600);
  EXPECT_EQ(r->nodes(), "n[1-2]");
  EXPECT_EQ(r->users().items_size(), 2);
  EXPECT_EQ(r->flags().items(1), "IGNORE_JOBS");
  EXPECT_EQ(r->partition(), "debug");
  r = ParseReservationArgs(
      {"res", "starttime=now", "dur=UNLIMITED", "nodecnt=1", "accounts=lab", "TRES=gres/gpu=2"},
      true, kNow);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->duration(), -1);
  EXPECT_EQ(r->node_cnt(), 1);
  EXPECT_EQ(r->tres(), "gres/gpu=2");
}

TEST_F(ReservationArgsTest, CreateRefusesWithScontrolsWords) {
  auto error = [](std::vector<std::string> words) {
    return std::string(ParseReservationArgs(words, true, kNow).status().message());
  };
  EXPECT_EQ(error({"res", "Nodes=n1", "Users=a", "Duration=5"}),
            "A start time must be given.  No reservation created.");
  EXPECT_EQ(error({"res", "Nodes=n1", "Users=a", "StartTime=now"}),
            "An end time or duration must be given.  No reservation created.");
  EXPECT_EQ(error({"res", "Users=a", "StartTime=now", "Duration=5"}),
            "CoreCnt, Nodes, NodeCnt, BurstBuffer, Licenses or Watts must be specified.  No "
            "reservation created.");
  EXPECT_EQ(error({"res", "Nodes=n1", "StartTime=now", "Duration=5"}),
            "Either Users/Groups and/or Accounts must be specified.  No reservation created.");
  EXPECT_EQ(error({"res", "Bogus=1"}), "Unknown parameter Bogus=1.  No reservation created.");
  EXPECT_EQ(error({"res", "StartTime=yesterdayish"}),
            "Invalid start time StartTime=yesterdayish.  No reservation created.");
}

TEST_F(ReservationArgsTest, UpdateTakesPlusMinusOnListsOnly) {
  absl::StatusOr<v1::UpdateReservationRequest> r =
      ParseReservationArgs({"ReservationName=x", "Users+=carol", "Flags-=MAINT"}, false, kNow);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->users().op(), v1::ResvListEdit::ADD);
  EXPECT_EQ(r->flags().op(), v1::ResvListEdit::REMOVE);
  r = ParseReservationArgs({"ReservationName=x", "Groups-=ops"}, false, kNow);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->groups().op(), v1::ResvListEdit::REMOVE);
  EXPECT_EQ(r->groups().items(0), "ops");
  r = ParseReservationArgs({"res", "Nodes=n1", "StartTime=now", "Duration=5", "Groups=lab"}, true,
                           kNow);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->groups().items(0), "lab");
  EXPECT_EQ(
      ParseReservationArgs({"ReservationName=x", "Nodes+=n3"}, false, kNow).status().message(),
      "The +=/-= notation is not supported when updating Nodes.  No reservation update.");
  EXPECT_EQ(ParseReservationArgs({"Users=a"}, false, kNow).status().message(),
            "Reservation must be given.  No reservation update.");
  EXPECT_TRUE(NamesReservation({"ReservationName=x", "Users=a"}));
  EXPECT_TRUE(NamesReservation({"reservation", "Users=a"}));
  EXPECT_FALSE(NamesReservation({"JobId=5", "TimeLimit=5"}));
  EXPECT_FALSE(NamesReservation({"ReservationName=x", "JobId=5"}));
}

TEST_F(ReservationArgsTest, ShowHasSlurmsLayout) {
  v1::ReservationInfo resv;
  resv.set_name("maint");
  resv.set_start_time(kNow);
  resv.set_end_time(kNow + 3600);
  resv.add_nodes("n1");
  resv.add_nodes("n2");
  resv.set_core_cnt(4);
  resv.set_flags_text("MAINT,SPEC_NODES");
  resv.set_tres("cpu=4");
  resv.add_users("alice");
  EXPECT_EQ(FormatReservation(resv, false),
            "ReservationName=maint StartTime=2027-01-15T08:00:00 EndTime=2027-01-15T09:00:00 "
            "Duration=01:00:00\n"
            "   Nodes=n[1-2] NodeCnt=2 CoreCnt=4 Features=(null) PartitionName=(null) "
            "Flags=MAINT,SPEC_NODES\n"
            "   TRES=cpu=4\n"
            "   Users=alice Groups=(null) Accounts=(null) Licenses=(null) State=INACTIVE "
            "BurstBuffer=(null) Watts=n/a\n"
            "   MaxStartDelay=(null)\n\n");
}

}  // namespace
}  // namespace skiff::cli
