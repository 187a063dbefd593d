// Skiff's example burst_buffer.lua, driven in-process through BbLua. In
// production the asynchronous hooks run in a helper process scriptd execs; the
// Lua code is the same.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "ctld/core/burst_buffer/pools.h"
#include "lua/bb_lua.h"

namespace skiff {
namespace {

using ctld::BbPoolDef;  // the pools ctld reads from slurm_bb_pools
using ctld::ParseBbPoolsJson;

std::string TmpDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr ? dir : "/tmp";
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

class ExampleScript : public ::testing::Test {
 protected:
  void SetUp() override {
    bb_root_ = TmpDir() + "/bbroot";
    setenv("SKIFF_BB_ROOT", bb_root_.c_str(), 1);
    setenv("SKIFF_CLUSTER_NAME", "lab", 1);
    absl::StatusOr<std::unique_ptr<BbLua>> lua = BbLua::Load(
        "lua/burst_buffer.lua",
        [this](BbLuaLogLevel level, std::string_view m) { logs_ += std::string(m) + "\n"; });
    ASSERT_TRUE(lua.ok()) << lua.status();
    lua_ = *std::move(lua);
    info_.job_id = 42;
    info_.user_id = 1001;
    info_.group_id = 1001;
    info_.user_name = "alice";
  }

  // A job script file, as ctld writes it for the Lua code to open.
  std::string JobScript(const std::string& name, const std::string& text) {
    const std::string path = TmpDir() + "/" + name;
    WriteFile(path, text);
    return path;
  }

  std::string bb_root_;
  std::string logs_;
  std::unique_ptr<BbLua> lua_;
  BbJobInfo info_;
};

TEST_F(ExampleScript, DefinesEveryHookIncludingOptionalOnes) {
  for (const char* fn : kBbRequiredFunctions) EXPECT_TRUE(lua_->HasFunction(fn)) << fn;
  for (const char* fn : kBbOptionalFunctions) EXPECT_TRUE(lua_->HasFunction(fn)) << fn;
}

TEST_F(ExampleScript, PoolsAreValidJsonForThePoolParser) {
  absl::StatusOr<BbLuaResult> r = lua_->Pools();
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->ok());
  absl::StatusOr<std::vector<BbPoolDef>> pools = ParseBbPoolsJson(r->message);
  ASSERT_TRUE(pools.ok()) << pools.status();
  ASSERT_EQ(pools->size(), 2u);
  EXPECT_EQ((*pools)[0].name, "fast");
  EXPECT_EQ((*pools)[0].total, 8ULL << 30);
  EXPECT_EQ((*pools)[0].granularity, 1ULL << 20);
  EXPECT_EQ((*pools)[1].name, "bulk");
  EXPECT_EQ((*pools)[1].total, 64ULL << 30);
  EXPECT_EQ((*pools)[1].granularity, 1ULL << 30);
}

TEST_F(ExampleScript, JobProcessAcceptsAGoodScript) {
  const std::string input = TmpDir() + "/hello.txt";
  WriteFile(input, "hello\n");
  const std::string script = JobScript(
      "good.sh",
      "#!/bin/bash\n#SBATCH -t 1\n#BB_LUA pool=fast capacity=1G\n#BB_LUA stage_in source=\"" +
          input +
          "\" destination=\"/tmp/job_in\"\n"
          "#BB_LUA stage_out source=/tmp/job_out destination=/home/x/out\n"
          "echo hi\n");
  // As this test's own user: the source must be readable by the job's user.
  absl::StatusOr<BbLuaResult> r = lua_->JobProcess(script, getuid(), getgid(), info_);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->ok()) << r->message;
  // A job with only "#BB_LUA" is fine too.
  r = lua_->JobProcess(JobScript("plain.sh", "#!/bin/bash\n#BB_LUA\ntrue\n"), 1001, 1001, info_);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->ok());
}

// ctld loads the example with its in-process limits: the top level and the
// synchronous hooks must run within them.
TEST_F(ExampleScript, SynchronousHooksRunUnderCtldsLimits) {
  absl::StatusOr<std::unique_ptr<BbLua>> lua =
      BbLua::Load("lua/burst_buffer.lua", nullptr, BbLuaOptions::InCtld());
  ASSERT_TRUE(lua.ok()) << lua.status();
  absl::StatusOr<BbLuaResult> pools = (*lua)->Pools();
  ASSERT_TRUE(pools.ok()) << pools.status();
  EXPECT_TRUE(pools->ok());
  const std::string script =
      JobScript("sync.sh", "#!/bin/bash\n#BB_LUA pool=fast capacity=1G\necho hi\n");
  absl::StatusOr<BbLuaResult> processed = (*lua)->JobProcess(script, 1001, 1001, info_);
  ASSERT_TRUE(processed.ok()) << processed.status();
  EXPECT_TRUE(processed->ok()) << processed->message;
  const std::string path_file = TmpDir() + "/sync_paths";
  absl::StatusOr<BbLuaResult> paths = (*lua)->Paths(42, script, path_file, 1001, 1001, info_);
  ASSERT_TRUE(paths.ok()) << paths.status();
  EXPECT_EQ(ReadFile(path_file), "BB_JOB_DIR=" + bb_root_ + "/job_42\n");
}

TEST_F(ExampleScript, JobProcessRejectsBadStageLinesWithAMessage) {
  struct Case {
    const char* line;
    const char* message;
  };
  const Case cases[] = {
      // sbatch_err_bb_lua_rejects.txt
      {"#BB_LUA stage_in source=/nonexistent/file destination=/tmp/x",
       "stage_in source /nonexistent/file not found"},
      {"#BB_LUA stage_in source=/etc/hostname",
       "stage_in needs source=PATH and destination=PATH: stage_in source=/etc/hostname"},
      {"#BB_LUA stage_out source=out destination=/tmp/x",
       "stage_out paths must be absolute: stage_out source=out destination=/tmp/x"},
  };
  for (const Case& c : cases) {
    const std::string script = JobScript("bad.sh", std::string("#!/bin/bash\n") + c.line + "\n");
    absl::StatusOr<BbLuaResult> r = lua_->JobProcess(script, 1001, 1001, info_);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->rc, kBbLuaError) << c.line;
    EXPECT_EQ(r->message, c.message);
  }
  // Directives below the first command are not directives: not checked.
  const std::string late = JobScript(
      "late.sh", "#!/bin/bash\ntrue\n#BB_LUA stage_in source=/nonexistent destination=/tmp/x\n");
  EXPECT_TRUE(lua_->JobProcess(late, 1001, 1001, info_)->ok());
}

// The seed's bb_example.batch flow: setup, stage-in copy, paths, stage-out copy,
// teardown.
TEST_F(ExampleScript, StagesCopyFilesAndManageTheJobDirectory) {
  const std::string in_src = TmpDir() + "/in_src.txt";
  const std::string in_dest = TmpDir() + "/job_in";
  const std::string out_src = TmpDir() + "/job_out";
  const std::string out_dest = TmpDir() + "/out_dest.txt";
  WriteFile(in_src, std::string("hello\n") + std::string(3 << 20, 'x'));  // > one 1 MiB chunk
  std::remove(in_dest.c_str());
  std::remove(out_dest.c_str());
  const std::string script =
      JobScript("stage.sh",
                "#!/bin/bash\n#BB_LUA pool=fast capacity=1G\n#BB_LUA stage_in source=\"" + in_src +
                    "\" destination=\"" + in_dest + "\"\n#BB_LUA stage_out source=" + out_src +
                    " destination=" + out_dest + "\necho done\n");
  const std::string job_dir = bb_root_ + "/job_42";

  absl::StatusOr<BbLuaResult> r = lua_->Setup(42, 1001, 1001, "fast", 1ULL << 30, script, info_);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->ok()) << r->message;
  EXPECT_TRUE(Exists(job_dir));

  r = lua_->JobStage("slurm_bb_data_in", 42, script, 1001, 1001, info_);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->ok()) << r->message;
  EXPECT_EQ(ReadFile(in_dest), ReadFile(in_src));
  EXPECT_NE(logs_.find("JobId=42 stage_in " + in_src + " -> " + in_dest), std::string::npos)
      << logs_;

  r = lua_->JobStage("slurm_bb_test_data_in", 42, script, 1001, 1001, info_);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->ok());
  EXPECT_FALSE(r->busy());

  const std::string path_file = TmpDir() + "/paths";
  r = lua_->Paths(42, script, path_file, 1001, 1001, info_);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(ReadFile(path_file), "BB_JOB_DIR=" + job_dir + "\n");

  // The "job" writes its output; stage-out copies it back.
  WriteFile(out_src, "my job 42 output this\n");
  r = lua_->JobStage("slurm_bb_data_out", 42, script, 1001, 1001, info_);
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->ok()) << r->message;
  EXPECT_EQ(ReadFile(out_dest), "my job 42 output this\n");

  r = lua_->Teardown(42, script, false, 1001, 1001, &info_);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->ok()) << r->message;
  EXPECT_FALSE(Exists(job_dir));
}

TEST_F(ExampleScript, FailedCopyIsAnErrorWithTheReason) {
  const std::string script =
      JobScript("missing.sh", "#!/bin/bash\n#BB_LUA stage_out source=" + TmpDir() +
                                  "/never_written destination=" + TmpDir() + "/x\n");
  absl::StatusOr<BbLuaResult> r = lua_->JobStage("slurm_bb_data_out", 7, script, 1, 1, info_);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->rc, kBbLuaError);
  EXPECT_EQ(r->message.rfind("stage_out cannot open " + TmpDir() + "/never_written", 0), 0u)
      << r->message;
}

TEST_F(ExampleScript, BadJobIdNeverReachesAPath) {
  absl::StatusOr<BbLuaResult> r =
      lua_->Call("slurm_bb_job_teardown", {"1; rm -rf /", "/x", "true"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->rc, kBbLuaError);
}

TEST_F(ExampleScript, GetStatusMatchesReferenceLayout) {
  // scontrol_show_bbstat.txt / scontrol_show_bbstat_args.txt
  EXPECT_EQ(lua_->GetStatus(0, 0, {})->message, "lab burst_buffer.lua status: root=" + bb_root_);
  EXPECT_EQ(lua_->GetStatus(0, 0, {"foo", "bar"})->message,
            "lab burst_buffer.lua status: root=" + bb_root_ + " args=foo,bar");
}

}  // namespace
}  // namespace skiff
