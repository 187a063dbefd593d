#include "ctld/core/burst_buffer/directives.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace skiff::ctld {
namespace {

using Lines = std::vector<std::string>;

constexpr uint64_t kMiB = 1024 * 1024;
constexpr uint64_t kGiB = 1024 * kMiB;

BbPoolTable ReferencePools() {
  BbPoolTable table;
  table.Update({BbPoolDef{"fast", kMiB, 8 * kGiB, 0}, BbPoolDef{"bulk", kGiB, 64 * kGiB, 0}});
  return table;
}

TEST(ExtractBbDirectives, ReadsLeadingCommentBlockOnly) {
  const std::string script =
      "#!/bin/bash\n"
      "#SBATCH -t 1\n"
      "#BB_LUA pool=fast capacity=1G\n"
      "\n"
      "  #BB_LUA stage_in source=/a destination=/b\n"
      "#SBATCH -q speedy\n"
      "#BB_LUAX not=this\n"
      "#BB_LUA\n"
      "srun hostname\n"
      "#BB_LUA after=body\n";
  EXPECT_EQ(ExtractBbDirectives(script, "BB_LUA"),
            (Lines{"#BB_LUA pool=fast capacity=1G", "#BB_LUA stage_in source=/a destination=/b",
                   "#BB_LUA"}));
}

TEST(ExtractBbDirectives, UsesConfiguredDirective) {
  const std::string script = "#!/bin/sh\n#BB_EXAMPLE pool=p\n#BB_LUA pool=q\n";
  EXPECT_EQ(ExtractBbDirectives(script, "BB_EXAMPLE"), (Lines{"#BB_EXAMPLE pool=p"}));
}

TEST(ExtractBbDirectives, JoinsBackslashContinuations) {
  const std::string script =
      "#!/bin/bash\n"
      "#BB_LUA stage_in source=/in \\\n"
      "#BB_LUA   destination=/tmp/in \\\n"
      "#        pool=fast\n"
      "#BB_LUA capacity=1G \\\n"
      "echo body\n";
  EXPECT_EQ(
      ExtractBbDirectives(script, "BB_LUA"),
      (Lines{"#BB_LUA stage_in source=/in destination=/tmp/in pool=fast", "#BB_LUA capacity=1G"}));
}

TEST(ExtractBbDirectives, DoubleBackslashIsNotAContinuation) {
  const std::string script = "#BB_LUA a=b \\\\\n#BB_LUA c=d\r\n";
  EXPECT_EQ(ExtractBbDirectives(script, "BB_LUA"), (Lines{"#BB_LUA a=b \\\\", "#BB_LUA c=d"}));
}

TEST(ExtractBbDirectives, NoDirectives) {
  EXPECT_TRUE(ExtractBbDirectives("#!/bin/bash\n#SBATCH -n1\nsrun true\n", "BB_LUA").empty());
  EXPECT_TRUE(ExtractBbDirectives("", "BB_LUA").empty());
}

TEST(BbOptionToDirectives, AcceptsBareAndPrefixedForms) {
  EXPECT_EQ(BbOptionToDirectives("pool=fast capacity=1G", "BB_LUA"),
            (Lines{"#BB_LUA pool=fast capacity=1G"}));
  EXPECT_EQ(BbOptionToDirectives("#BB_LUA pool=pool1 capacity=1K", "BB_LUA"),
            (Lines{"#BB_LUA pool=pool1 capacity=1K"}));
  EXPECT_EQ(BbOptionToDirectives("#BB_LUA", "BB_LUA"), (Lines{"#BB_LUA"}));
  // A --bbf file: several lines, comments and blanks.
  EXPECT_EQ(BbOptionToDirectives("# my buffers\n\n#BB_LUA pool=bulk\nstage_in source=/x "
                                 "destination=/y\n",
                                 "BB_LUA"),
            (Lines{"#BB_LUA pool=bulk", "#BB_LUA stage_in source=/x destination=/y"}));
  EXPECT_TRUE(BbOptionToDirectives("  \n", "BB_LUA").empty());
}

TEST(MergeBbDirectivesIntoScript, InsertsAfterShebangWithoutRepeats) {
  EXPECT_EQ(MergeBbDirectivesIntoScript("#!/bin/bash\n#BB_LUA a=1\ntrue\n",
                                        {"#BB_LUA a=1", "#BB_LUA pool=fast capacity=1G"}),
            "#!/bin/bash\n#BB_LUA pool=fast capacity=1G\n#BB_LUA a=1\ntrue\n");
  EXPECT_EQ(MergeBbDirectivesIntoScript("true\n", {"#BB_LUA"}), "#BB_LUA\ntrue\n");
  EXPECT_EQ(MergeBbDirectivesIntoScript("#!/bin/sh", {"#BB_LUA"}), "#!/bin/sh\n#BB_LUA\n");
  EXPECT_EQ(MergeBbDirectivesIntoScript("#!/bin/sh\n", {}), "#!/bin/sh\n");
  // The merged script's directives are what ExtractBbDirectives sees.
  const std::string merged = MergeBbDirectivesIntoScript("#!/bin/bash\nsrun a\n", {"#BB_LUA x=1"});
  EXPECT_EQ(ExtractBbDirectives(merged, "BB_LUA"), (Lines{"#BB_LUA x=1"}));
}

TEST(ExpandBbSymbols, ExpandsEverySymbol) {
  BbSymbols s;
  s.job_id = 42;
  s.work_dir = "/home/alice/run";
  s.user_name = "alice";
  s.job_name = "train";
  EXPECT_EQ(
      ExpandBbSymbols("#BB_LUA stage_in source=%d/in_%j destination=/bb/%u/%x_%A_%a 100%%", s),
      "#BB_LUA stage_in source=/home/alice/run/in_42 destination=/bb/alice/train_42_4294967294 "
      "100%");
  s.job_id = 57;
  s.array_job_id = 50;
  s.array_task_id = 7;
  EXPECT_EQ(ExpandBbSymbols("%A_%a_%j", s), "50_7_57");
}

TEST(ExpandBbSymbols, UnknownSymbolsAndStopMark) {
  BbSymbols s;
  s.job_id = 9;
  EXPECT_EQ(ExpandBbSymbols("%q %j %", s), "%q 9 %");
  EXPECT_EQ(ExpandBbSymbols("a=%j \\\\b=%j %%", s), "a=9 b=%j %%");
}

TEST(ParseBbRequest, PoolAndCapacityRoundUp) {
  const BbPoolTable pools = ReferencePools();
  absl::StatusOr<BbRequest> r =
      ParseBbRequest({"#BB_LUA pool=bulk capacity=1500MB"}, "BB_LUA", pools);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->pool, "bulk");
  EXPECT_EQ(r->size, 2 * kGiB);  // 1.5e9 bytes rounded up to whole GiB

  r = ParseBbRequest({"#BB_LUA pool=\"fast\"", "#BB_LUA capacity=1K stage_in source=/a"}, "BB_LUA",
                     pools);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->pool, "fast");
  EXPECT_EQ(r->size, kMiB);
}

TEST(ParseBbRequest, SuffixesArePowersOf1024Or1000) {
  const BbPoolTable pools = []() {
    BbPoolTable t;
    t.Update({BbPoolDef{"byte", 1, 64 * kGiB * 1024, 0}});
    return t;
  }();
  struct Case {
    const char* capacity;
    uint64_t bytes;
  };
  for (const Case& c : std::vector<Case>{{"5", 5},
                                         {"1K", 1024},
                                         {"1KiB", 1024},
                                         {"1KB", 1000},
                                         {"2M", 2 * kMiB},
                                         {"2MiB", 2 * kMiB},
                                         {"2MB", 2000000},
                                         {"3G", 3 * kGiB},
                                         {"3GiB", 3 * kGiB},
                                         {"3GB", 3000000000ULL},
                                         {"1T", 1024 * kGiB},
                                         {"1TB", 1000000000000ULL}}) {
    absl::StatusOr<BbRequest> r =
        ParseBbRequest({std::string("#BB_LUA pool=byte capacity=") + c.capacity}, "BB_LUA", pools);
    ASSERT_TRUE(r.ok()) << c.capacity << ": " << r.status();
    EXPECT_EQ(r->size, c.bytes) << c.capacity;
  }
}

TEST(ParseBbRequest, NoPoolNoCapacityIsAPlainBbJob) {
  absl::StatusOr<BbRequest> r = ParseBbRequest(
      {"#BB_LUA", "#BB_LUA stage_in source=/a destination=/b"}, "BB_LUA", ReferencePools());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->pool, "");
  EXPECT_EQ(r->size, 0u);
  r = ParseBbRequest({"#BB_LUA pool=fast"}, "BB_LUA", ReferencePools());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->pool, "fast");
  EXPECT_EQ(r->size, 0u);
}

TEST(ParseBbRequest, RejectsWithSlurmsSubmitError) {
  struct Case {
    Lines lines;
    const char* detail;
  };
  const std::vector<Case> cases = {
      // sbatch_err_bb_capacity_without_pool.txt
      {{"#BB_LUA capacity=1G"}, "burst_buffer/lua: capacity=1G requires pool=NAME"},
      // sbatch_err_bb_bad_pool.txt
      {{"#BB_LUA pool=nosuch capacity=1G"}, "burst_buffer/lua: unknown pool \"nosuch\""},
      {{"#BB_LUA pool=nosuch"}, "burst_buffer/lua: unknown pool \"nosuch\""},
      {{"#BB_LUA pool=fast capacity=0"}, "burst_buffer/lua: capacity=0 must be greater than 0"},
      {{"#BB_LUA pool=fast capacity=0G"}, "burst_buffer/lua: capacity=0G must be greater than 0"},
      {{"#BB_LUA pool=fast capacity=1X"},
       "burst_buffer/lua: capacity: invalid size \"1X\": unknown suffix \"X\""},
      {{"#BB_LUA pool=fast capacity=-1G"},
       "burst_buffer/lua: capacity: invalid size \"-1G\": negative sizes are not allowed"},
      {{"#BB_LUA pool=fast capacity=1.5G"},
       "burst_buffer/lua: capacity: invalid size \"1.5G\": fractional sizes are not allowed"},
      {{"#BB_LUA pool=fast capacity="}, "burst_buffer/lua: capacity: invalid size \"\": empty"},
      {{"#BB_LUA pool=fast", "#BB_LUA pool=bulk"},
       "burst_buffer/lua: two pools requested (fast and bulk)"},
      {{"#BB_LUA pool=fast capacity=1G capacity=2G"},
       "burst_buffer/lua: capacity= given more than once"},
      {{"#BB_LUA pool= capacity=1G"}, "burst_buffer/lua: pool= needs a pool name"},
      // scontrol_show_job_bb_too_big.txt: Slurm pends forever; Skiff rejects.
      {{"#BB_LUA pool=fast capacity=100G"},
       "burst_buffer/lua: capacity=100G is larger than pool \"fast\" (8G in all)"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<BbRequest> r = ParseBbRequest(c.lines, "BB_LUA", ReferencePools());
    ASSERT_FALSE(r.ok()) << c.lines[0];
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(r.status().message(), c.detail);
    EXPECT_STREQ(BbSubmitErrorText(r.status()), "Burst Buffer request invalid");
  }
}

TEST(ParseBbRequest, ExactlyThePoolsTotalFits) {
  absl::StatusOr<BbRequest> r =
      ParseBbRequest({"#BB_LUA pool=fast capacity=8G"}, "BB_LUA", ReferencePools());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->size, 8 * kGiB);
  // Rounding can push a request past the total.
  r = ParseBbRequest({"#BB_LUA pool=fast capacity=8589934593"}, "BB_LUA", ReferencePools());
  EXPECT_FALSE(r.ok());
}

TEST(CheckBbUser, RootIsRefusedWithSlurmsWords) {
  BurstBufferConfig config;
  absl::Status s = CheckBbUser(0, "root", config);
  EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied);
  // sbatch_err_root_bb.txt
  EXPECT_EQ(s.message(), "User root can not allocate burst buffers");
  EXPECT_STREQ(BbSubmitErrorText(s), "Burst Buffer permission denied");
  EXPECT_TRUE(CheckBbUser(0, "root", config, /*allow_root=*/true).ok());
  EXPECT_TRUE(CheckBbUser(1001, "alice", config).ok());
}

TEST(CheckBbUser, AllowAndDenyLists) {
  BurstBufferConfig allow;
  allow.allow_users = {"alice", "1002"};
  EXPECT_TRUE(CheckBbUser(1001, "alice", allow).ok());
  EXPECT_TRUE(CheckBbUser(1002, "bob", allow).ok());
  EXPECT_EQ(CheckBbUser(1003, "carol", allow).code(), absl::StatusCode::kPermissionDenied);

  BurstBufferConfig deny;
  deny.deny_users = {"carol"};
  EXPECT_TRUE(CheckBbUser(1001, "alice", deny).ok());
  absl::Status s = CheckBbUser(1003, "carol", deny);
  EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(s.message(), "User carol is in burst_buffer.conf DenyUsers");
}

TEST(RemoveBbDirectives, DropsDirectivesAndTheirContinuationsOnly) {
  const std::string script =
      "#!/bin/bash\n"
      "#SBATCH -t 5\n"
      "#BB_LUA stage_in source=/a/%j \\\n"
      "#   destination=/b\n"
      "# a comment\n"
      "#BB_LUA pool=fast capacity=1G\n"
      "echo hi\n"
      "#BB_LUA not a directive after the block\n";
  EXPECT_EQ(RemoveBbDirectives(script, "BB_LUA"),
            "#!/bin/bash\n#SBATCH -t 5\n# a comment\necho hi\n"
            "#BB_LUA not a directive after the block\n");
  // Expanded lines merged back replace the originals instead of joining them.
  const std::string merged = MergeBbDirectivesIntoScript(
      RemoveBbDirectives(script, "BB_LUA"), {"#BB_LUA stage_in source=/a/42 destination=/b"});
  EXPECT_EQ(ExtractBbDirectives(merged, "BB_LUA"),
            std::vector<std::string>{"#BB_LUA stage_in source=/a/42 destination=/b"});
  EXPECT_EQ(RemoveBbDirectives("#!/bin/sh\ntrue", "BB_LUA"), "#!/bin/sh\ntrue");
}

}  // namespace
}  // namespace skiff::ctld
