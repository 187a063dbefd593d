// Advance reservations through the real daemons and the CLIs: scontrol
// create|update|delete|show reservation with Slurm's words, who may change
// them, the reservation surviving a kill -9 of ctld, and the scheduler keeping
// other jobs off a reservation's nodes for its window (a maintenance
// reservation starting in 5 minutes keeps a 1-hour job off and lets a
// 2-minute job run) while --reservation jobs run in it; HOURLY, WEEKDAY and
// WEEKEND repeats as Flags=, two OVERLAP reservations on one node both
// running their jobs, a MAGNETIC one drawing jobs that did not ask for it,
// a TIME_FLOAT one staying ahead of now, and Groups= letting members in.
// One cluster for the suite: 2 nodes with 4 CPUs, n2 with 2 fake GPUs.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/shared_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

constexpr char kAlice[] = "skiffalice";

class ReservationTest : public SharedClusterTest<ReservationTest> {
 protected:
  static void SetUpTestSuite() {
    if (getuid() != 0) return;
    LocalCluster::Options options = NodesWithGpus(2, 1);
    options.extra_config = "KillWait=1\n";
    StartCluster(options);
  }

  void SetUp() override { SetUpAsRoot({kAlice}); }

  // Every job and reservation gone, so each test starts from none (a
  // reservation its jobs still use is kept until they have left).
  void TearDown() override {
    if (cluster_ == nullptr) return;
    cluster_->Run("scancel -u " + std::string(kAlice) + "; scancel -u root");
    const CommandResult shown = cluster_->Run("scontrol -o show reservation");
    for (absl::string_view line : absl::StrSplit(shown.out, '\n', absl::SkipEmpty())) {
      if (!absl::StartsWith(line, "ReservationName=")) continue;
      const std::string name(line.substr(
          16, line.find(' ') == absl::string_view::npos ? line.size() - 16 : line.find(' ') - 16));
      EXPECT_TRUE(Eventually(30, [&] {
        return cluster_->Run("scontrol delete ReservationName=" + name).exit_code == 0;
      })) << name;
    }
  }

  static std::string Field(const std::string& job, const std::string& format) {
    return std::string(absl::StripAsciiWhitespace(
        cluster_->Run(absl::StrCat("squeue -h -j ", job, " -o '", format, "'")).out));
  }

  static std::string Submit(const std::string& args, const std::string& user = "root") {
    const std::string command =
        absl::StrCat("sbatch --parsable -o /dev/null ", args, " --wrap 'sleep 300'");
    CommandResult r = user == "root" ? cluster_->Run(command) : cluster_->RunAs(user, command);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return std::string(absl::StripAsciiWhitespace(r.out));
  }

  // A reservation `name` with repeat `flag` whose window began 5 minutes ago
  // and lasted 2: shown waiting for its next window, which starts as `date -d
  // next +format` says; deleted afterwards.
  static void ExpectNextWindow(const std::string& name, const std::string& flag,
                               const std::string& next, const std::string& format) {
    CommandResult r = cluster_->Run(
        absl::StrCat("scontrol create reservation ReservationName=", name,
                     " StartTime=now-5minutes Duration=2 Nodes=n1 Users=root Flags=", flag));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = cluster_->Run("scontrol -o show res " + name);
    EXPECT_TRUE(absl::StrContains(r.out, absl::StrCat(" Flags=", flag, ",SPEC_NODES "))) << r.out;
    EXPECT_TRUE(absl::StrContains(r.out, " State=INACTIVE ")) << r.out;
    const std::string start = absl::StrCat(
        "StartTime=", absl::StripAsciiWhitespace(
                          cluster_->Run(absl::StrCat("date -d '", next, "' +", format)).out));
    EXPECT_TRUE(absl::StrContains(r.out, start)) << r.out << " wanted " << start;
    ASSERT_EQ(cluster_->Run("scontrol delete ReservationName=" + name).exit_code, 0);
  }
};

TEST_F(ReservationTest, CreateShowUpdateDeleteWithSlurmsWordsAndSurviveARestart) {
  CommandResult r = cluster_->Run(
      absl::StrCat("scontrol create reservation ReservationName=lab StartTime=now+1hour "
                   "Duration=60 Nodes=n2 Users=",
                   kAlice));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "Reservation created: lab\n");
  r = cluster_->Run("scontrol show reservation lab");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(absl::StrContains(r.out, "ReservationName=lab StartTime=")) << r.out;
  EXPECT_TRUE(absl::StrContains(r.out, "Duration=01:00:00\n")) << r.out;
  EXPECT_TRUE(
      absl::StrContains(r.out,
                        "   Nodes=n2 NodeCnt=1 CoreCnt=4 Features=(null) PartitionName=(null) "
                        "Flags=SPEC_NODES\n   TRES=cpu=4\n"))
      << r.out;
  EXPECT_TRUE(absl::StrContains(r.out,
                                "Users=skiffalice Groups=(null) Accounts=(null) "
                                "Licenses=(null) State=INACTIVE"))
      << r.out;

  // Slurm's refusals.
  r = cluster_->Run(
      "scontrol create reservation ReservationName=other StartTime=now+90minutes Duration=10 "
      "Nodes=n2 Users=root");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "Error creating the reservation: Requested reservation overlaps with another "
            "reservation\n");
  r = cluster_->Run(
      "scontrol create reservation StartTime=now+1hour Duration=10 Nodes=n1 "
      "Users=nosuchskiffuser");
  EXPECT_EQ(r.err, "Error creating the reservation: Invalid user id\n");
  r = cluster_->Run(
      "scontrol create reservation StartTime=now-1hour Duration=10 Nodes=n1 Users=root");
  EXPECT_EQ(r.err, "Error creating the reservation: Invalid time specified\n");
  r = cluster_->Run("scontrol create reservation Duration=10 Nodes=n1 Users=root");
  EXPECT_EQ(r.err, "scontrol: error: A start time must be given.  No reservation created.\n");
  r = cluster_->Run("scontrol create reservation StartTime=now Duration=10 Nodes=n1");
  EXPECT_EQ(r.err,
            "scontrol: error: Either Users/Groups and/or Accounts must be specified.  No "
            "reservation created.\n");
  r = cluster_->Run(
      "scontrol create reservation ReservationName=lab StartTime=now+3hours Duration=10 "
      "Nodes=n1 Users=root");
  EXPECT_EQ(r.err, "Error creating the reservation: Duplicate reservation name\n");
  // Only operators create or update.
  r = cluster_->RunAs(kAlice,
                      "scontrol create reservation StartTime=now+3hours Duration=10 Nodes=n1 "
                      "Users=skiffalice");
  // (Slurm's words for it.)
  EXPECT_EQ(r.err, "Error creating the reservation: Invalid user id\n");
  r = cluster_->RunAs(kAlice, "scontrol update ReservationName=lab Duration=30");
  EXPECT_EQ(r.err,
            "Error updating the reservation: Invalid user id\nslurm_update error: Invalid user "
            "id\n");

  r = cluster_->RunAs(kAlice, "scontrol delete ReservationName=lab");
  EXPECT_EQ(r.err, "delete_reservation ReservationName=lab: Invalid user id\n");
  r = cluster_->Run("sinfo -T");
  EXPECT_TRUE(absl::StartsWith(r.out,
                               "RESV_NAME     STATE           START_TIME             "
                               "END_TIME     DURATION  NODELIST\nlab        INACTIVE  "))
      << r.out;
  EXPECT_TRUE(absl::EndsWith(r.out, "     01:00:00  n2\n")) << r.out;

  // A one-off reservation that has ended is gone; a DAILY one waits for
  // tomorrow's window.
  r = cluster_->Run(
      "scontrol create reservation ReservationName=once StartTime=now-5minutes Duration=2 "
      "Nodes=n1 Users=root");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(cluster_->Run("scontrol show res once").out, "Reservation once not found\n");
  ExpectNextWindow("daily", "DAILY", "now + 1 day - 5 minutes", "%Y-%m-%d");

  // HOURLY waits for the next hour's window; WEEKDAY and WEEKEND are taken
  // and shown in Slurm's order; two repeats at once are refused.
  ExpectNextWindow("hourly", "HOURLY", "now + 1 hour - 5 minutes", "%Y-%m-%dT%H");
  r = cluster_->Run(
      "scontrol create reservation ReservationName=weekday StartTime=now+1day Duration=2 "
      "Nodes=n1 Users=root Flags=weekday,overlap");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(absl::StrContains(cluster_->Run("scontrol -o show res weekday").out,
                                " Flags=OVERLAP,WEEKDAY,SPEC_NODES "));
  r = cluster_->Run("scontrol update ReservationName=weekday Flags+=WEEKEND");
  EXPECT_EQ(r.err,
            "Error updating the reservation: Error parsing flags WEEKDAY,WEEKEND: choose one "
            "repeat\nslurm_update error: Error parsing flags WEEKDAY,WEEKEND: choose one "
            "repeat\n");
  ASSERT_EQ(cluster_->Run("scontrol delete ReservationName=weekday").exit_code, 0);

  r = cluster_->Run("scontrol update ReservationName=lab Users+=root Flags+=USER_DELETE");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "Reservation updated.\n");
  r = cluster_->Run("scontrol update ReservationName=nope Duration=5");
  EXPECT_EQ(r.err,
            "Error updating the reservation: Requested reservation is invalid\nslurm_update "
            "error: Requested reservation is invalid\n");

  // Stored before the answer: a kill -9 of ctld loses nothing.
  const pid_t ctld = cluster_->Pid("ctld");
  ASSERT_GT(ctld, 0);
  kill(ctld, SIGKILL);
  ASSERT_TRUE(Eventually(30, [&] { return kill(ctld, 0) != 0; }));
  ASSERT_EQ(cluster_->Up().exit_code, 0);
  ASSERT_TRUE(Eventually(30, [&] {
    return absl::StrContains(cluster_->Run("scontrol -o show res lab").out,
                             "Flags=SPEC_NODES,USER_DELETE");
  })) << cluster_->Run("scontrol -o show res lab").out;
  EXPECT_TRUE(
      absl::StrContains(cluster_->Run("scontrol -o show res lab").out, "Users=skiffalice,root"));

  // USER_DELETE: a user of the reservation may delete it; others may not.
  r = cluster_->RunAs(kAlice, "scontrol delete ReservationName=lab");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = cluster_->Run("scontrol show reservation");
  EXPECT_EQ(r.out, "No reservations in the system\n");
  r = cluster_->Run("scontrol delete reservation lab");
  EXPECT_EQ(r.err, "delete_reservation reservation: Requested reservation is invalid\n");
}

TEST_F(ReservationTest, MaintenanceInFiveMinutesKeepsAnHourJobOffAndLetsTwoMinutesRun) {
  CommandResult r = cluster_->Run(
      "scontrol create reservation ReservationName=maint StartTime=now+5minutes Duration=60 "
      "Nodes=ALL Users=root Flags=MAINT,IGNORE_JOBS");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string hour = Submit("-t 60");
  ASSERT_TRUE(Eventually(30, [&] {
    return Field(hour, "%T %r") == "PENDING ReqNodeNotAvail, Reserved for maintenance";
  })) << Field(hour, "%T %r");
  const std::string minutes = Submit("-t 2");
  ASSERT_TRUE(Eventually(30, [&] { return Field(minutes, "%T") == "RUNNING"; }))
      << Field(minutes, "%T %r");
  EXPECT_EQ(Field(hour, "%T"), "PENDING");

  // A job of the reservation waits for it to open, and squeue names it.
  const std::string inside = Submit("-t 10 --reservation=maint");
  ASSERT_TRUE(Eventually(30, [&] { return Field(inside, "%T %r") == "PENDING Reservation"; }))
      << Field(inside, "%T %r");
  r = cluster_->Run("squeue -h -R maint -o '%i %v'");
  EXPECT_EQ(r.out, inside + " maint\n");
  // scontrol update JobId= ReservationName= moves a pending job into one.
  const std::string moved = Submit("--hold");
  r = cluster_->Run(absl::StrCat("scontrol update JobId=", moved, " ReservationName=nope"));
  EXPECT_EQ(r.err, absl::StrCat("Requested reservation is invalid for job ", moved, "\n"));
  r = cluster_->Run(absl::StrCat("scontrol update JobId=", moved, " ReservationName=maint"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Field(moved, "%v"), "maint");
  cluster_->Run("scancel " + moved);

  // The job's reservation is stored with it: a kill -9 of ctld keeps both.
  const pid_t ctld = cluster_->Pid("ctld");
  ASSERT_GT(ctld, 0);
  kill(ctld, SIGKILL);
  ASSERT_TRUE(Eventually(30, [&] { return kill(ctld, 0) != 0; }));
  ASSERT_EQ(cluster_->Up().exit_code, 0);
  ASSERT_TRUE(Eventually(30, [&] {
    return Field(inside, "%T %r %v") == "PENDING Reservation maint";
  })) << Field(inside, "%T %r %v");
  ASSERT_TRUE(Eventually(30, [&] {
    return Field(hour, "%T %r") == "PENDING ReqNodeNotAvail, Reserved for maintenance";
  })) << Field(hour, "%T %r");
  // Only its users may ask for it; an unknown one is refused at submit.
  r = cluster_->RunAs(kAlice, "sbatch -o /dev/null --reservation=maint --wrap true");
  EXPECT_EQ(r.err,
            "sbatch: error: Batch job submission failed: Access denied to requested "
            "reservation\n");
  r = cluster_->Run("sbatch -o /dev/null --reservation=nope --wrap true");
  EXPECT_EQ(r.err,
            "sbatch: error: Batch job submission failed: Requested reservation is invalid\n");

  // Opened now: its job runs inside it, the hour job still waits, and the
  // nodes show as in maintenance.
  cluster_->Run("scancel " + minutes);
  r = cluster_->Run("scontrol update ReservationName=maint StartTime=now");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(Eventually(30, [&] { return Field(inside, "%T") == "RUNNING"; }))
      << Field(inside, "%T %r");
  EXPECT_EQ(Field(hour, "%T"), "PENDING");
  ASSERT_TRUE(Eventually(30, [&] {
    return absl::StrContains(cluster_->Run("sinfo -h -N -o '%N %t'").out, " maint\n");
  })) << cluster_->Run("sinfo -h -N -o '%N %t'").out;
  EXPECT_TRUE(absl::StrContains(cluster_->Run("scontrol show res maint").out, "State=ACTIVE"));
  EXPECT_TRUE(absl::StrContains(cluster_->Run("scontrol show job " + inside).out,
                                "\n   Reservation=maint\n"));
  EXPECT_TRUE(absl::StrContains(cluster_->Run("scontrol show node").out,
                                "+MAINTENANCE+RESERVED ThreadsPerCore="))
      << cluster_->Run("scontrol show node").out;

  // A reservation its jobs run in stays; once they are gone it goes, and the
  // hour job starts.
  r = cluster_->Run("scontrol delete ReservationName=maint");
  EXPECT_EQ(r.err, "delete_reservation ReservationName=maint: Requested reservation is in use\n");
  cluster_->Run("scancel " + inside);
  ASSERT_TRUE(Eventually(
      30, [&] { return cluster_->Run("scontrol delete ReservationName=maint").exit_code == 0; }));
  ASSERT_TRUE(Eventually(30, [&] { return Field(hour, "%T") == "RUNNING"; }))
      << Field(hour, "%T %r");
  EXPECT_FALSE(absl::StrContains(cluster_->Run("sinfo -h -N -o '%N %t'").out, "maint"));
}

TEST_F(ReservationTest, OverlapReservationsOnOneNodeBothRunTheirJobs) {
  // The jobs an earlier test cancelled have left n1.
  ASSERT_TRUE(Eventually(30, [&] { return cluster_->Run("squeue -h -w n1").out.empty(); }))
      << cluster_->Run("squeue -w n1").out;
  for (const char* name : {"first", "second"}) {
    CommandResult r =
        cluster_->Run(absl::StrCat("scontrol create reservation ReservationName=", name,
                                   " StartTime=now Duration=60 Nodes=n1 Users=root Flags=OVERLAP"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  // n1 has 4 CPUs: a 2-CPU job in each reservation runs there at once.
  const std::string in_first = Submit("-t 10 -n 2 --reservation=first");
  const std::string in_second = Submit("-t 10 -n 2 --reservation=second");
  ASSERT_TRUE(Eventually(30, [&] { return Field(in_first, "%T %N") == "RUNNING n1"; }))
      << Field(in_first, "%T %r");
  ASSERT_TRUE(Eventually(30, [&] { return Field(in_second, "%T %N") == "RUNNING n1"; }))
      << Field(in_second, "%T %r");
  // A job in neither keeps off n1.
  const std::string outside = Submit("-t 10 -w n1");
  ASSERT_TRUE(Eventually(30, [&] { return !Field(outside, "%r").empty(); }));
  EXPECT_EQ(Field(outside, "%T"), "PENDING");
}

TEST_F(ReservationTest, MagneticReservationDrawsJobsThatDidNotAskForIt) {
  ASSERT_TRUE(Eventually(30, [&] { return cluster_->Run("squeue -h -w n1").out.empty(); }))
      << cluster_->Run("squeue -w n1").out;
  CommandResult r = cluster_->Run(
      "scontrol create reservation ReservationName=mag StartTime=now Duration=60 Nodes=n1 "
      "Users=root Flags=MAGNETIC");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(absl::StrContains(cluster_->Run("scontrol -o show res mag").out,
                                " Flags=SPEC_NODES,MAGNETIC "));
  // root may use it: a job asking for n1 (and no reservation) runs there, in it.
  const std::string drawn = Submit("-t 10 -w n1");
  ASSERT_TRUE(Eventually(30, [&] { return Field(drawn, "%T %N %v") == "RUNNING n1 mag"; }))
      << Field(drawn, "%T %N %v %r");
  // skiffalice may not: her job keeps off n1.
  const std::string kept = Submit("-t 10 -w n1", kAlice);
  ASSERT_TRUE(Eventually(30, [&] { return !Field(kept, "%r").empty(); }));
  EXPECT_EQ(Field(kept, "%T"), "PENDING");
  // The reservation is in use by the job it drew.
  r = cluster_->Run("scontrol delete ReservationName=mag");
  EXPECT_EQ(r.err, "delete_reservation ReservationName=mag: Requested reservation is in use\n");
}

TEST_F(ReservationTest, TimeFloatStaysAheadAndKeepsLongJobsOff) {
  ASSERT_TRUE(Eventually(30, [&] { return cluster_->Run("squeue -h -w n1").out.empty(); }))
      << cluster_->Run("squeue -w n1").out;
  CommandResult r = cluster_->Run(
      "scontrol create reservation ReservationName=float StartTime=now+30minutes Duration=60 "
      "Nodes=n1 Users=root Flags=TIME_FLOAT");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = cluster_->Run("scontrol -o show res float");
  EXPECT_TRUE(absl::StrContains(r.out, " Flags=SPEC_NODES,TIME_FLOAT ")) << r.out;
  EXPECT_TRUE(absl::StrContains(r.out, " State=INACTIVE ")) << r.out;
  // Always 30 minutes away: an hour job on n1 waits, a 10-minute one runs.
  const std::string hour = Submit("-t 60 -w n1");
  const std::string short_job = Submit("-t 10 -w n1");
  ASSERT_TRUE(Eventually(30, [&] { return Field(short_job, "%T") == "RUNNING"; }))
      << Field(short_job, "%T %r");
  EXPECT_EQ(Field(hour, "%T"), "PENDING");
  r = cluster_->Run("scontrol update ReservationName=float Flags-=TIME_FLOAT");
  EXPECT_EQ(r.err,
            "Error updating the reservation: Invalid time specified\nslurm_update error: Invalid "
            "time specified\n");
  r = cluster_->Run(
      "scontrol create reservation StartTime=now Duration=60 Nodes=n2 Users=root "
      "Flags=TIME_FLOAT,DAILY");
  EXPECT_EQ(r.err,
            "Error creating the reservation: Requested operation not supported on this system\n");
}

TEST_F(ReservationTest, GroupsLetTheirMembersIn) {
  ASSERT_EQ(cluster_
                ->Run(absl::StrCat("getent group skiffresv >/dev/null || groupadd skiffresv; "
                                   "usermod -a -G skiffresv ",
                                   kAlice))
                .exit_code,
            0);
  CommandResult r = cluster_->Run(
      "scontrol create reservation ReservationName=grp StartTime=now+1hour Duration=60 "
      "Nodes=n1 Groups=skiffresv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = cluster_->Run("scontrol -o show res grp");
  EXPECT_TRUE(absl::StrContains(r.out, " Users=(null) Groups=skiffresv Accounts=(null) ")) << r.out;
  // A member may submit to it; root, not a member, is refused.
  const std::string in = Submit("-t 10 --reservation=grp", kAlice);
  EXPECT_EQ(Field(in, "%v"), "grp");
  r = cluster_->Run("sbatch -o /dev/null --reservation=grp --wrap true");
  EXPECT_EQ(r.err,
            "sbatch: error: Batch job submission failed: Access denied to requested "
            "reservation\n");
  r = cluster_->Run(
      "scontrol create reservation StartTime=now+1hour Duration=60 Nodes=n2 "
      "Groups=nosuchskiffgroup");
  EXPECT_EQ(r.err, "Error creating the reservation: Invalid group id\n");
  r = cluster_->Run("scontrol update ReservationName=grp Users=root");
  EXPECT_EQ(r.err,
            "Error updating the reservation: Reservations can't have users and groups specified, "
            "only one or the other\nslurm_update error: Reservations can't have users and "
            "groups specified, only one or the other\n");
}

TEST_F(ReservationTest, GpuReservationSetsAsideGpusNotWholeNodes) {
  CommandResult r = cluster_->Run(
      absl::StrCat("scontrol create reservation ReservationName=gpus StartTime=now Duration=60 "
                   "TRES=gres/gpu=1 Users=",
                   kAlice));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = cluster_->Run("scontrol -o show res gpus");
  EXPECT_TRUE(absl::StrContains(r.out, " Nodes=n2 NodeCnt=1 ")) << r.out;
  EXPECT_TRUE(absl::StrContains(r.out, " TRES=gres/gpu=1 ")) << r.out;
  EXPECT_TRUE(absl::StrContains(r.out, " State=ACTIVE ")) << r.out;
  r = cluster_->Run(
      "scontrol create reservation StartTime=now Duration=60 TRES=gres/tpu=1 "
      "Users=root");
  EXPECT_EQ(r.err,
            "Error creating the reservation: Invalid Trackable RESource (TRES) specification\n");

  // n2 has two GPUs and one is set aside: a two-GPU job waits, a one-GPU job
  // runs beside the reservation, and the reservation's own job gets the other.
  const std::string two = Submit("-t 10 --gres=gpu:2");
  const std::string one = Submit("-t 10 --gres=gpu:1");
  ASSERT_TRUE(Eventually(30, [&] { return Field(one, "%T") == "RUNNING"; })) << Field(one, "%T %r");
  const std::string inside = Submit("-t 10 --gres=gpu:1 --reservation=gpus", kAlice);
  ASSERT_TRUE(Eventually(30, [&] { return Field(inside, "%T %N") == "RUNNING n2"; }))
      << Field(inside, "%T %r");
  EXPECT_EQ(Field(two, "%T"), "PENDING");
  // Its CPUs are not reserved: a CPU job still runs on n2's other CPUs.
  const std::string cpu = Submit("-t 10 -w n2");
  ASSERT_TRUE(Eventually(30, [&] { return Field(cpu, "%T") == "RUNNING"; })) << Field(cpu, "%T %r");
}

}  // namespace
}  // namespace skiff::testing
