#include "cli/sbcast/sbcast_options.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/job.pb.h"

namespace skiff::cli {
namespace {

using ::testing::ElementsAre;

const std::map<std::string, std::string> kInJob = {{"SLURM_JOB_ID", "42"}};

SbcastParse Parse(std::vector<std::string> args,
                  const std::map<std::string, std::string>& env = kInJob) {
  return ParseSbcastArgs(args, env, "/home/u/work");
}

TEST(ParseSbcastArgsTest, TakesTheJobFromTheEnvironmentAndMakesTheDestinationAbsolute) {
  const SbcastParse p = Parse({"prog", "bin/prog"});
  ASSERT_TRUE(p.args) << testing::PrintToString(p.errors);
  EXPECT_EQ(p.args->job.job_id, 42u);
  EXPECT_FALSE(p.args->job.has_step);
  EXPECT_EQ(p.args->source, "prog");
  EXPECT_EQ(p.args->destination, "/home/u/work/bin/prog");
  EXPECT_FALSE(p.args->force);
  EXPECT_EQ(p.args->block_size, 8u << 20);
  EXPECT_EQ(p.args->exclude, "/lib,/usr/lib,/lib64,/usr/lib64");
  EXPECT_TRUE(p.warnings.empty());
}

TEST(ParseSbcastArgsTest, AbsoluteDestinationsStayAndOptionsMayFollowTheFiles) {
  const SbcastParse p = Parse({"a", "/tmp/b", "-f", "-p", "-j", "7.3", "-t", "30", "-v", "-v"});
  ASSERT_TRUE(p.args);
  EXPECT_EQ(p.args->destination, "/tmp/b");
  EXPECT_TRUE(p.args->force);
  EXPECT_TRUE(p.args->preserve);
  EXPECT_EQ(p.args->job.job_id, 7u);
  EXPECT_TRUE(p.args->job.has_step);
  EXPECT_EQ(p.args->job.step_id, 3u);
  EXPECT_EQ(p.args->job.text, "7.3");
  EXPECT_EQ(p.args->timeout_seconds, 30);
  EXPECT_EQ(p.args->verbose, 2);
}

TEST(ParseSbcastArgsTest, WithoutAJobSaysSlurmsSentence) {
  const SbcastParse p = Parse({"a", "/tmp/b"}, {});
  EXPECT_FALSE(p.args);
  EXPECT_THAT(p.errors, ElementsAre("sbcast: error: Need a job id to run this command.  Run from "
                                    "within a Slurm job or use the --jobid option."));
  EXPECT_EQ(p.exit_code, 1);
  // -j is enough outside a job.
  EXPECT_TRUE(Parse({"-j", "5", "a", "/tmp/b"}, {}).args);
}

TEST(ParseSbcastArgsTest, NeedsTwoFileNames) {
  const SbcastParse p = Parse({"a"});
  EXPECT_FALSE(p.args);
  EXPECT_THAT(p.errors, ElementsAre("Need two file names, have 1 names",
                                    "Try \"sbcast --help\" for more information"));
  EXPECT_THAT(Parse({"a", "b", "c"}).errors.front(), "Need two file names, have 3 names");
}

TEST(ParseSbcastArgsTest, RefusesADirectoryAsTheTarget) {
  const SbcastParse p = Parse({"a", "/tmp/"});
  EXPECT_FALSE(p.args);
  EXPECT_THAT(p.errors, ElementsAre("sbcast: error: Target filename cannot be a directory."));
}

TEST(ParseSbcastArgsTest, UnknownOptionsInGetoptsWords) {
  const SbcastParse p = Parse({"--bogus", "a", "b"});
  EXPECT_FALSE(p.args);
  EXPECT_THAT(p.errors, ElementsAre("sbcast: unrecognized option '--bogus'",
                                    "Try \"sbcast --help\" for more information"));
  EXPECT_THAT(Parse({"-j"}).errors.front(), "sbcast: option requires an argument -- 'j'");
}

TEST(ParseSbcastArgsTest, CompressTakesAnOptionalLibrary) {
  EXPECT_TRUE(Parse({"-C", "a", "b"}).args->compress);
  EXPECT_TRUE(Parse({"--compress=lz4", "a", "b"}).args->compress);
  EXPECT_FALSE(Parse({"-Cnone", "a", "b"}).args->compress);
  const SbcastParse p = Parse({"--compress=zstd", "a", "b"});
  ASSERT_TRUE(p.args);
  EXPECT_FALSE(p.args->compress);
  EXPECT_THAT(p.warnings, ElementsAre("sbcast: error: Compression type 'zstd' unknown, disabling "
                                      "compression support."));
}

TEST(ParseSbcastArgsTest, EnvironmentGivesDefaultsThatTheCommandLineOverrides) {
  std::map<std::string, std::string> env = kInJob;
  env["SBCAST_COMPRESS"] = "lz4";
  env["SBCAST_FORCE"] = "";  // set at all: on, as Slurm's getenv test
  env["SBCAST_PRESERVE"] = "0";
  env["SBCAST_FANOUT"] = "4";
  env["SBCAST_SIZE"] = "64k";
  env["SBCAST_TIMEOUT"] = "20";
  env["SBCAST_SEND_LIBS"] = "yes";
  env["SBCAST_EXCLUDE"] = "NONE";
  SbcastParse p = Parse({"a", "/b"}, env);
  ASSERT_TRUE(p.args);
  EXPECT_TRUE(p.args->compress);
  EXPECT_TRUE(p.args->force);
  EXPECT_TRUE(p.args->preserve);
  EXPECT_EQ(p.args->fanout, 4);
  EXPECT_EQ(p.args->block_size, 64u << 10);
  EXPECT_EQ(p.args->timeout_seconds, 20);
  EXPECT_TRUE(p.args->send_libs);
  EXPECT_EQ(p.args->exclude, "NONE");

  p = Parse({"-s", "2m", "--send-libs=no", "-t", "5", "--exclude=/opt", "-Cnone", "a", "/b"}, env);
  ASSERT_TRUE(p.args);
  EXPECT_EQ(p.args->block_size, 2u << 20);
  EXPECT_FALSE(p.args->send_libs);
  EXPECT_EQ(p.args->timeout_seconds, 5);
  EXPECT_EQ(p.args->exclude, "/opt");
  EXPECT_FALSE(p.args->compress);
}

TEST(ParseSbcastArgsTest, BadSizesAndSendLibsValuesAreIgnoredWithSlurmsLines) {
  std::map<std::string, std::string> env = kInJob;
  env["SBCAST_SEND_LIBS"] = "maybe";
  const SbcastParse p = Parse({"-s", "12x", "--send-libs=perhaps", "a", "/b"}, env);
  ASSERT_TRUE(p.args);
  EXPECT_EQ(p.args->block_size, 0u);
  EXPECT_FALSE(p.args->send_libs);
  EXPECT_THAT(p.warnings,
              ElementsAre("sbcast: error: Ignoring unrecognized SBCAST_SEND_LIBS value 'maybe'",
                          "size specification is invalid, ignored",
                          "sbcast: error: Ignoring unrecognized --send-libs value 'perhaps'"));
  // --send-libs alone is yes.
  EXPECT_TRUE(Parse({"--send-libs", "a", "/b"}).args->send_libs);
}

TEST(ParseSbcastArgsTest, HelpUsageAndVersionWinOverMissingFiles) {
  EXPECT_TRUE(Parse({"--help"}, {}).args->help);
  EXPECT_TRUE(Parse({"--usage"}, {}).args->usage);
  EXPECT_TRUE(Parse({"-V"}, {}).args->version);
}

TEST(ParseJobStepTest, ReadsJobStepArrayTaskAndBatch) {
  absl::StatusOr<JobStepId> id = ParseJobStep("12");
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(id->job_id, 12u);
  EXPECT_FALSE(id->has_step);
  EXPECT_EQ(id->text, "12");

  id = ParseJobStep("12.batch");
  ASSERT_TRUE(id.ok());
  EXPECT_TRUE(id->has_step);
  EXPECT_TRUE(id->batch_step);
  EXPECT_EQ(id->text, "12.batch");

  id = ParseJobStep("12_4.0");
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(id->job_id, 12u);
  EXPECT_EQ(id->array_task, 4);
  EXPECT_EQ(id->step_id, 0u);
  EXPECT_EQ(id->text, "12_4.0");

  id = ParseJobStep("12+1");
  ASSERT_TRUE(id.ok());
  EXPECT_TRUE(id->het_offset);
  EXPECT_EQ(id->text, "12+1");

  // atoi's reading, as Slurm's: not a number is job 0 (refused as an invalid id).
  id = ParseJobStep("abc");
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(id->job_id, 0u);
}

TEST(ParseJobStepTest, RefusesBadStepsAsSlurmsFatal) {
  EXPECT_EQ(ParseJobStep("12.x").status().message(), "Bad step specified: 12");
  EXPECT_EQ(ParseJobStep("12_x").status().message(), "Bad job array element specified: 12");
  const SbcastParse p = Parse({"-j", "9.y", "a", "/b"});
  EXPECT_FALSE(p.args);
  EXPECT_THAT(p.errors, ElementsAre("sbcast: fatal: Bad step specified: 9"));
}

TEST(SbcastOptionLinesTest, AreSlurmsVerboseBlock) {
  SbcastArgs args;
  args.source = "a";
  args.destination = "/b";
  args.force = true;
  args.timeout_seconds = 3;
  const std::vector<std::string> lines = SbcastOptionLines(args);
  EXPECT_THAT(
      lines, ElementsAre("-----------------------------", "block_size = 8388608", "compress   = 0",
                         "exclude    = /lib,/usr/lib,/lib64,/usr/lib64", "force      = true",
                         "fanout     = 0", "preserve   = false", "send_libs  = false",
                         "timeout    = 3000", "verbose    = 0", "source     = a", "dest       = /b",
                         "-----------------------------"));
}

TEST(ChunkSizeTest, IsTheBlockSizeWithinLimitsAndNoMoreThanTheFile) {
  EXPECT_EQ(ChunkSize(8 << 20, 100), 100u);
  EXPECT_EQ(ChunkSize(8 << 20, 100 << 20), 8u << 20);
  EXPECT_EQ(ChunkSize(64 << 20, 100 << 20), 8u << 20);
  EXPECT_EQ(ChunkSize(1, 1 << 20), 4u << 10);
  EXPECT_EQ(ChunkSize(0, 10 << 20), 512u << 10);  // an invalid -s
  EXPECT_EQ(ChunkSize(8 << 20, 0), 1u);
}

TEST(LibrariesFromLddTest, TakesEachLinesPath) {
  const std::string ldd =
      "\tlinux-vdso.so.1 (0x00007ffd)\n"
      "\tlibfoo.so.1 => /opt/foo/lib/libfoo.so.1 (0x00007f01)\n"
      "\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f02)\n"
      "\t/lib64/ld-linux-x86-64.so.2 (0x00007f03)\n"
      "\tlibgone.so => not found\n";
  EXPECT_THAT(LibrariesFromLdd(ldd),
              ElementsAre("/opt/foo/lib/libfoo.so.1", "/lib/x86_64-linux-gnu/libc.so.6",
                          "/lib64/ld-linux-x86-64.so.2"));
}

TEST(ExclusionTest, DropsLibrariesUnderExcludedDirectories) {
  std::vector<std::string> warnings;
  const std::vector<std::string> dirs = ExcludedDirectories(kDefaultBcastExclude, &warnings);
  EXPECT_THAT(dirs, ElementsAre("/lib", "/usr/lib", "/lib64", "/usr/lib64"));
  EXPECT_TRUE(IsExcluded("/lib/x86_64-linux-gnu/libc.so.6", dirs));
  EXPECT_TRUE(IsExcluded("/lib64/ld-linux-x86-64.so.2", dirs));
  EXPECT_FALSE(IsExcluded("/library/libx.so", dirs));
  EXPECT_FALSE(IsExcluded("/opt/foo/lib/libfoo.so.1", dirs));
  EXPECT_TRUE(ExcludedDirectories("none", &warnings).empty());
  EXPECT_THAT(ExcludedDirectories("/opt/,lib", &warnings), ElementsAre("/opt/"));
  EXPECT_THAT(warnings, ElementsAre("sbcast: error: Ignoring non-absolute excluded path: 'lib'"));
  EXPECT_TRUE(IsExcluded("/opt/x.so", {"/opt/"}));
}

TEST(LibraryDestinationTest, IsInTheDestinationsLibsDirectory) {
  EXPECT_EQ(LibraryDestination("/tmp/prog", "/opt/foo/libfoo.so.1"), "/tmp/prog_libs/libfoo.so.1");
}

TEST(OutcomeOfTest, ReportsEachFailedNodeAndExitsWithTheLastErrno) {
  v1::BroadcastFileReply reply;
  auto add = [&](const std::string& node, int error_number, const std::string& text) {
    v1::BroadcastNodeResult* r = reply.add_results();
    r->set_node(node);
    r->set_error_number(error_number);
    r->set_error(text);
  };
  add("n1", 0, "");
  EXPECT_EQ(OutcomeOf(reply).exit_code, 0);
  EXPECT_TRUE(OutcomeOf(reply).errors.empty());
  add("n2", 17, "File exists");
  add("n3", 13, "Permission denied");
  BroadcastOutcome outcome = OutcomeOf(reply);
  EXPECT_THAT(outcome.errors,
              ElementsAre("sbcast: error: REQUEST_FILE_BCAST(n2): File exists",
                          "sbcast: error: REQUEST_FILE_BCAST(n3): Permission denied"));
  EXPECT_EQ(outcome.exit_code, 13);
  add("n4", -1, "Communication connection failure (connect)");
  EXPECT_EQ(OutcomeOf(reply).exit_code, 255);
}

TEST(JobStateRefusalTest, UsesSlurmsTexts) {
  EXPECT_EQ(JobStateRefusal(v1::RUNNING), "");
  EXPECT_EQ(JobStateRefusal(v1::CONFIGURING), "") << "its script may already run";
  EXPECT_EQ(JobStateRefusal(v1::PENDING), "Job is pending execution");
  EXPECT_EQ(JobStateRefusal(v1::COMPLETED), "Job/step already completing or completed");
  EXPECT_EQ(JobStateRefusal(v1::COMPLETING), "Job/step already completing or completed");
  JobStepId id;
  id.text = "12.3";
  EXPECT_EQ(LookupError(id, "Invalid user id"),
            "sbcast: error: Slurm job 12.3 lookup error: Invalid user id");
}

}  // namespace
}  // namespace skiff::cli
