#include "cli/common/defined_options.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>

namespace skiff::cli {
namespace {

class DefinedOptionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "UTC", 1);
    tzset();
  }
};

std::vector<std::string> Block(const std::vector<GivenOption>& given) {
  return DefinedOptionsBlock(given, {/*now=*/1796274000, /*cwd=*/"/home/alice"});
}

// Each expected block below is what Slurm 22.05.8's sbatch or srun printed for
// the same options (../shared/slurm-anchor), without its "sbatch: " prefix.
TEST_F(DefinedOptionsTest, SlurmsOrderWhateverTheOrderGiven) {
  EXPECT_EQ(Block({{"verbose", "1"}, {"ntasks", "3"}, {"label", std::nullopt}}),
            (std::vector<std::string>{
                "defined options",
                "-------------------- --------------------",
                "label               : set",
                "ntasks              : 3",
                "verbose             : 1",
                "-------------------- --------------------",
                "end of defined options",
            }));
}

// Slurm's str_to_mbytes rounds a size in K up to whole MB: `sbatch -v
// --tmp=1500K` and `--mem=1500K` on the anchor show "2".
TEST_F(DefinedOptionsTest, SizesInKRoundUpToWholeMegabytes) {
  EXPECT_EQ(Block({{"tmp", "1500K"}, {"mem", "1024K"}})[2], "mem                 : 1");
  EXPECT_EQ(Block({{"tmp", "1500K"}})[2], "tmp                 : 2");
  EXPECT_EQ(Block({{"tmp", "2048"}})[2], "tmp                 : 2G");
}

TEST_F(DefinedOptionsTest, ValuesAsSlurmShowsThemBack) {
  const std::vector<std::string> block = Block({
      {"mem", "1024"},
      {"signal", "B:USR1@60"},
      {"mail-type", "END,FAIL"},
      {"gres", "gpu:0"},
      {"nice", "100"},
      {"exclusive", "user"},
      {"time", "1-2"},
      {"time-min", "30"},
      {"requeue", std::nullopt},
      {"open-mode", "append"},
      {"deadline", "2030-01-01"},
      {"hold", std::nullopt},
      {"nodes", "1-2"},
      {"cpus-per-task", "1"},
      {"export", "ALL,FOO=1"},
      {"tmp", "0"},
      {"verbose", "1"},
      {"wrap", "true"},
  });
  EXPECT_EQ(block, (std::vector<std::string>{
                       "defined options",
                       "-------------------- --------------------",
                       "cpus-per-task       : 1",
                       "deadline            : 2030-01-01T00:00:00",
                       "exclusive           : user",
                       "export              : ALL,FOO=1",
                       "gres                : gres:gpu:0",
                       "hold                : set",
                       "mail-type           : END,FAIL",
                       "mem                 : 1G",
                       "nice                : 100",
                       "nodes               : 1-2",
                       "open-mode           : a",
                       "requeue             : requeue",
                       "signal              : B:USR1",
                       "time                : 1-02:00:00",
                       "time-min            : 00:30:00",
                       "tmp                 : 0?",
                       "verbose             : 1",
                       "wrap                : true",
                       "-------------------- --------------------",
                       "end of defined options",
                   }));
}

TEST_F(DefinedOptionsTest, MoreOfSlurmsForms) {
  const std::vector<std::string> block = Block({
      {"mail-type", "ALL"},
      {"signal", "R:SIGUSR2@90"},
      {"oversubscribe", std::nullopt},
      {"no-requeue", std::nullopt},
      {"mem-per-gpu", "1000"},
      {"chdir", "/tmp"},
      {"begin", "2030-01-02T03:04"},
      {"exclusive", std::nullopt},
  });
  EXPECT_EQ(block, (std::vector<std::string>{
                       "defined options",
                       "-------------------- --------------------",
                       "begin               : 2030-01-02T03:04:00",
                       "chdir               : /tmp",
                       "exclusive           : exclusive",
                       "mail-type           : INVALID_DEPEND,BEGIN,END,FAIL,REQUEUE,STAGE_OUT",
                       "mem-per-gpu         : 1000",
                       "no-requeue          : no-requeue",
                       "oversubscribe       : oversubscribe",
                       "signal              : R:USR2@90",
                       "-------------------- --------------------",
                       "end of defined options",
                   }));
}

// srun -v inside `salloc -n2` on Slurm: the allocation's variables are options
// too, the node list under an entry without a name.
TEST_F(DefinedOptionsTest, SrunInAnAllocationShowsWhatItReadFromTheEnvironment) {
  const std::vector<std::string> block = Block({
      {"verbose", "1"},
      {"ntasks", "2"},
      {"nodes", "1"},
      {"job-name", "interactive"},
      {"jobid", "256"},
      {"(null)", "n1"},
  });
  EXPECT_EQ(block, (std::vector<std::string>{
                       "defined options",
                       "-------------------- --------------------",
                       "(null)              : n1",
                       "jobid               : 256",
                       "job-name            : interactive",
                       "nodes               : 1",
                       "ntasks              : 2",
                       "verbose             : 1",
                       "-------------------- --------------------",
                       "end of defined options",
                   }));
}

TEST_F(DefinedOptionsTest, FlagsThatMeanOneAndRelativeDirectories) {
  const std::vector<std::string> block = Block({
      {"kill-on-bad-exit", std::nullopt},
      {"immediate", std::nullopt},
      {"chdir", "work"},
      {"container-image", "alpine"},  // pyxis's: not in Slurm's table
      {"ntasks", "2"},
      {"ntasks", "4"},  // the last one wins
  });
  EXPECT_EQ(block, (std::vector<std::string>{
                       "defined options",
                       "-------------------- --------------------",
                       "chdir               : /home/alice/work",
                       "immediate           : 1",
                       "kill-on-bad-exit    : 1",
                       "ntasks              : 4",
                       "-------------------- --------------------",
                       "end of defined options",
                   }));
}

TEST(SlurmMegabytesText, LargestWholeUnitAndSlurmsZero) {
  EXPECT_EQ(SlurmMegabytesText(100), "100");
  EXPECT_EQ(SlurmMegabytesText(1024), "1G");
  EXPECT_EQ(SlurmMegabytesText(1536), "1536");
  EXPECT_EQ(SlurmMegabytesText(2048 * 1024), "2T");
  EXPECT_EQ(SlurmMegabytesText(0), "0?");
}

}  // namespace
}  // namespace skiff::cli
