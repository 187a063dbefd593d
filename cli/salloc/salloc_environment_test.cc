#include "cli/salloc/salloc_environment.h"

#include <gtest/gtest.h>

namespace skiff::cli {
namespace {

TEST(SallocEnvironmentOptions, EachSetVariableIsItsOptionInSlurmsOrder) {
  EXPECT_EQ(SallocEnvironmentOptions({{"SALLOC_TIMELIMIT", "10"},
                                      {"SALLOC_PARTITION", "gpu"},
                                      {"SALLOC_ACCOUNT", "physics"},
                                      {"SALLOC_OVERCOMMIT", "0"},
                                      {"SALLOC_DEBUG", "1"},
                                      {"PATH", "/bin"},
                                      {"SLURM_PARTITION", "other"}}),
            (std::vector<std::string>{"--account=physics", "-v", "--overcommit", "--partition=gpu",
                                      "--time=10"}));
}

TEST(SallocEnvironmentOptions, EmptyValuesAreUnsetButBareOptionsStay) {
  EXPECT_EQ(SallocEnvironmentOptions({{"SALLOC_PARTITION", ""},
                                      {"SALLOC_EXCLUSIVE", ""},
                                      {"SALLOC_NO_KILL", "off"},
                                      {"SALLOC_IMMEDIATE", "5"}}),
            (std::vector<std::string>{"--exclusive", "--immediate=5", "--no-kill=off"}));
  EXPECT_TRUE(SallocEnvironmentOptions({}).empty());
}

}  // namespace
}  // namespace skiff::cli
