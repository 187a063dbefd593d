// burst_buffer.lua never takes ctld down (issue 10 item 8), through the real
// daemons: a synchronous hook that loops or calls os.exit fails that one call
// (the submission, the launch) with a clear message, and ctld keeps serving
// and stops on SIGTERM; a script whose top level loops or calls os.exit
// leaves burst buffers unavailable, saying why, and ctld starts anyway.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

constexpr char kUser[] = "skifflua";

// Every required hook succeeding, then `extra` (which may redefine one, or
// run code at the top level).
std::string Script(const std::string& extra) {
  std::string text;
  for (const char* name :
       {"slurm_bb_job_process", "slurm_bb_pools", "slurm_bb_job_teardown", "slurm_bb_setup",
        "slurm_bb_data_in", "slurm_bb_real_size", "slurm_bb_paths", "slurm_bb_pre_run",
        "slurm_bb_post_run", "slurm_bb_data_out", "slurm_bb_get_status"}) {
    absl::StrAppend(&text, "function ", name, "(...) return slurm.SUCCESS end\n");
  }
  return text + extra;
}

class LuaBoundsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (getuid() != 0) GTEST_SKIP() << "needs root to create a test user (root has no bb)";
  }

  // A one-node cluster running `lua` as burst_buffer.lua, and the test user.
  void StartCluster(const std::string& lua) {
    LocalCluster::Options options;
    options.nodes = 1;
    options.gpu_nodes = 0;
    options.extra_config = "BurstBufferType=burst_buffer/lua\nMinJobAge=600\n";
    options.files["etc/burst_buffer.lua"] = lua;
    options.files["etc/burst_buffer.conf"] = "Flags=DisablePersistent\nPollInterval=1\n";
    absl::StatusOr<std::unique_ptr<LocalCluster>> cluster = LocalCluster::Start(options);
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = *std::move(cluster);
    ASSERT_TRUE(cluster_->EnsureUser(kUser).ok());
  }

  // sbatch as the test user with a burst buffer directive; no pool, so
  // admission needs none and slurm_bb_job_process decides.
  CommandResult SubmitWithBb(const std::string& marker = "") const {
    return cluster_->RunAs(kUser, "sbatch --bb='use_lua " + marker + "' -t 1 --wrap=true");
  }

  // ctld answers: sinfo and squeue work, and a job without a burst buffer is
  // accepted.
  void ExpectCtldServes() const {
    CommandResult sinfo = cluster_->Run("sinfo -h");
    EXPECT_EQ(sinfo.exit_code, 0) << sinfo.err;
    CommandResult squeue = cluster_->Run("squeue -h");
    EXPECT_EQ(squeue.exit_code, 0) << squeue.err;
    CommandResult plain = cluster_->RunAs(kUser, "sbatch -t 1 --wrap=true");
    EXPECT_EQ(plain.exit_code, 0) << plain.err;
    EXPECT_EQ(SubmittedJobIds(plain.out).size(), 1u) << plain.out;
  }

  // SIGTERM to ctld; true when it has exited within `seconds`.
  bool StopsOnSigterm(int seconds) const {
    const pid_t ctld = cluster_->Pid("ctld");
    if (ctld <= 0 || kill(ctld, SIGTERM) != 0) return false;
    return Eventually(seconds, [&] { return !Alive(ctld); });
  }

  std::unique_ptr<LocalCluster> cluster_;
};

TEST_F(LuaBoundsTest, JobProcessThatLoopsFailsTheSubmissionAndCtldKeepsServingAndStops) {
  ASSERT_NO_FATAL_FAILURE(StartCluster(Script(R"lua(
function slurm_bb_job_process(job_script, uid, gid, job_info)
  while true do pcall(function() while true do end end) end
end
)lua")));
  const pid_t ctld = cluster_->Pid("ctld");
  ASSERT_GT(ctld, 0);

  const auto start = std::chrono::steady_clock::now();
  CommandResult r = SubmitWithBb();
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("sbatch: error: burst_buffer/lua: slurm_bb_job_process exceeded 5 s\n"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("sbatch: error: Batch job submission failed: "), std::string::npos) << r.err;
  EXPECT_LT(took, std::chrono::seconds(15));
  EXPECT_NE(cluster_->Log("ctld.log").find("slurm_bb_job_process exceeded 5 s"), std::string::npos);

  ExpectCtldServes();
  EXPECT_EQ(cluster_->Pid("ctld"), ctld);

  // SIGTERM while a hook is looping: ctld still stops (the hook ends at its
  // budget and shutdown goes on).
  const double busy_before = CpuSeconds(ctld);
  std::thread looping([&] { SubmitWithBb(); });
  // The hook is looping once ctld burns CPU (idle, it uses next to none).
  EXPECT_TRUE(Eventually(30, [&] { return CpuSeconds(ctld) >= busy_before + 0.5; }));
  EXPECT_TRUE(StopsOnSigterm(20)) << cluster_->Log("ctld.log");
  looping.join();
}

TEST_F(LuaBoundsTest, OsExitInASynchronousHookFailsThatCallAndCtldLives) {
  // job_process exits for jobs marked exit_in_job_process; slurm_bb_paths
  // always exits, when a job with a burst buffer is about to start.
  ASSERT_NO_FATAL_FAILURE(StartCluster(Script(R"lua(
function slurm_bb_job_process(job_script, uid, gid, job_info)
  if job_info.burst_buffer:find("exit_in_job_process", 1, true) then os.exit(1) end
  return slurm.SUCCESS
end
function slurm_bb_paths(job_id, job_script, path_file, uid, gid, job_info)
  os.exit(2)
end
)lua")));
  const pid_t ctld = cluster_->Pid("ctld");
  ASSERT_GT(ctld, 0);

  CommandResult r = SubmitWithBb("exit_in_job_process");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("sbatch: error: burst_buffer/lua: slurm_bb_job_process: os.exit is not "
                       "available in synchronous hooks\n"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(Alive(ctld));
  ExpectCtldServes();

  // Accepted, staged in (by scriptd's helper), then slurm_bb_paths at launch.
  CommandResult accepted = SubmitWithBb();
  ASSERT_EQ(accepted.exit_code, 0) << accepted.err;
  EXPECT_TRUE(Eventually(60, [&] {
    return cluster_->Log("ctld.log")
               .find("slurm_bb_paths: os.exit is not available in synchronous hooks") !=
           std::string::npos;
  })) << cluster_->Log("ctld.log");
  EXPECT_TRUE(Alive(ctld));
  EXPECT_EQ(cluster_->Pid("ctld"), ctld);
  ExpectCtldServes();
  EXPECT_TRUE(StopsOnSigterm(20)) << cluster_->Log("ctld.log");
}

// A hook's message of megabytes: the submitter gets its start and how long it
// was, never gRPC's "received initial metadata size exceeds limit"; a stage's
// goes into the job's Reason just as bounded.
TEST_F(LuaBoundsTest, AHugeHookMessageIsTruncatedInTheErrorAndInTheReason) {
  ASSERT_NO_FATAL_FAILURE(StartCluster(Script(R"lua(
function slurm_bb_job_process(job_script, uid, gid, job_info)
  if job_info.burst_buffer:find("huge_job_process", 1, true) then
    return slurm.ERROR, "refused: " .. string.rep("x", 4 * 1024 * 1024)
  end
  return slurm.SUCCESS
end
function slurm_bb_data_in(job_id, job_script, uid, gid, job_info)
  return slurm.ERROR, "stage-in refused: " .. string.rep("y", 512 * 1024)
end
)lua")));
  CommandResult r = SubmitWithBb("huge_job_process");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err.substr(0, 2000);
  EXPECT_EQ(r.err.find("metadata"), std::string::npos) << r.err.substr(0, 2000);
  EXPECT_NE(r.err.find("sbatch: error: burst_buffer/lua: refused: xxxxxxxxxx"), std::string::npos)
      << r.err.substr(0, 2000);
  EXPECT_NE(r.err.find(" ... (truncated, 4194313 bytes in all)"), std::string::npos)
      << r.err.substr(0, 2000);
  EXPECT_LT(r.err.size(), 4000u);

  // Accepted; data_in fails and the job is held with the hook's message.
  CommandResult accepted = SubmitWithBb();
  ASSERT_EQ(accepted.exit_code, 0) << accepted.err;
  const std::vector<uint64_t> ids = SubmittedJobIds(accepted.out);
  ASSERT_EQ(ids.size(), 1u) << accepted.out;
  std::string shown;
  EXPECT_TRUE(Eventually(60, [&] {
    shown = cluster_->Run(absl::StrCat("scontrol show job ", ids[0])).out;
    return shown.find("Reason=burst_buffer/lua:_data_in_failed:_stage-in_refused:_yyyy") !=
           std::string::npos;
  })) << shown.substr(0, 3000);
  // scontrol writes the Reason's spaces as '_', as Slurm does.
  EXPECT_NE(shown.find("yyyy_..._(truncated,_524306_bytes_in_all) Dependency="), std::string::npos)
      << shown.substr(0, 3000);
  EXPECT_LT(shown.size(), 4000u);
  const CommandResult squeue = cluster_->Run(absl::StrCat("squeue -h -j ", ids[0], " -o %R"));
  EXPECT_EQ(squeue.exit_code, 0) << squeue.err.substr(0, 2000);
  EXPECT_LT(squeue.out.size(), 1200u);
}

TEST_F(LuaBoundsTest, TopLevelThatLoopsLeavesBurstBuffersUnavailableAndCtldStarts) {
  ASSERT_NO_FATAL_FAILURE(StartCluster(Script("while true do end\n")));
  const std::string path = cluster_->dir() + "/etc/burst_buffer.lua";
  EXPECT_NE(cluster_->Log("ctld.log")
                .find(absl::StrCat("BurstBufferType=burst_buffer/lua: ", path,
                                   ": the script's top level exceeded 5 s; burst buffers are "
                                   "unavailable until it loads")),
            std::string::npos)
      << cluster_->Log("ctld.log");
  ExpectCtldServes();

  CommandResult r = SubmitWithBb();
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find(absl::StrCat("sbatch: error: burst_buffer/lua: ", path,
                                    ": the script's top level exceeded 5 s\n")),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(StopsOnSigterm(20)) << cluster_->Log("ctld.log");
}

TEST_F(LuaBoundsTest, TopLevelOsExitLeavesBurstBuffersUnavailableAndCtldStarts) {
  ASSERT_NO_FATAL_FAILURE(StartCluster(Script("os.exit(0)\n")));
  const std::string path = cluster_->dir() + "/etc/burst_buffer.lua";
  EXPECT_NE(cluster_->Log("ctld.log")
                .find(absl::StrCat("BurstBufferType=burst_buffer/lua: ", path,
                                   ": os.exit is not available while ctld loads the script; burst "
                                   "buffers are unavailable until it loads")),
            std::string::npos)
      << cluster_->Log("ctld.log");
  ExpectCtldServes();
  EXPECT_TRUE(StopsOnSigterm(20)) << cluster_->Log("ctld.log");
}

}  // namespace
}  // namespace skiff::testing
