// Admission through the core: the checks that need the job table, and
// --test-only refusing what a submission would be refused.
#include <gtest/gtest.h>
#include <signal.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ctld/core/lifecycle/lifecycle_test_util.h"

namespace skiff::ctld {
namespace {

TEST_F(LifecycleTest, AGresTypeNoNodeHasIsRefused) {
  SubmitRequest typed = Request();
  typed.gres = {"gpu:abc"};  // type abc, count 1; used to read as zero GPUs
  EXPECT_EQ(core_->Admit(typed, now_).status().message(),
            "Invalid generic resource (gres) specification");
}

TEST_F(LifecycleTest, ScriptsOverMaxScriptSizeAreRefused) {
  config_.scheduler_parameters.max_script_size = 100;
  Reset();
  SubmitRequest big = Request();
  big.script = "#!/bin/sh\n" + std::string(100, '#') + "\n";
  EXPECT_EQ(core_->Admit(big, now_).status().message(),
            "Pathname of a file, directory or other parameter too long (the batch script has 111 "
            "bytes; SchedulerParameters=max_script_size allows 100)");
  big.script = "#!/bin/sh\ntrue\n";
  EXPECT_TRUE(core_->Admit(big, now_).ok());
}

TEST_F(LifecycleTest, ConcurrentAdmissionsCannotExceedMaxSubmitJobsPerUser) {
  Qos limited{"normal"};
  limited.max_submit_jobs_per_user = 2;
  core_->SetQosViewForTest({limited});
  // Two admitted but not yet inserted (their slurm_bb_job_process is running).
  ASSERT_TRUE(core_->Admit(Request(), now_).ok());
  ASSERT_TRUE(core_->Admit(Request(), now_).ok());
  absl::StatusOr<Admitted> third = core_->Admit(Request(), now_);
  EXPECT_EQ(third.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(third.status().message().find("job submit limit"), std::string::npos);
}

TEST_F(LifecycleTest, TestOnlyIsRefusedWhatASubmissionWouldBe) {
  Qos limited{"normal"};
  limited.max_submit_jobs_per_user = 1;
  core_->SetQosViewForTest({limited});
  ASSERT_TRUE(core_->WillRunSnapshot(Request(), now_).ok());
  Submit(Request());
  absl::StatusOr<CtldSnapshot> over = core_->WillRunSnapshot(Request(), now_);
  EXPECT_EQ(over.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(over.status().message().find("job submit limit"), std::string::npos);
  // Nothing is reserved by the checks: room for one job is room for any
  // number of --test-only submissions.
  config_.max_job_count = 1;
  SetUp();
  EXPECT_TRUE(core_->WillRunSnapshot(Request(), now_).ok());
  EXPECT_TRUE(core_->WillRunSnapshot(Request(), now_).ok());
}

TEST_F(LifecycleTest, MaxJobCountCountsReservations) {
  config_.max_job_count = 3;
  SetUp();
  SubmitRequest array = Request();
  array.array = "1-2";
  ASSERT_TRUE(core_->Admit(array, now_).ok());
  EXPECT_EQ(core_->Admit(array, now_).status().code(), absl::StatusCode::kResourceExhausted);
}

}  // namespace
}  // namespace skiff::ctld
