#include "restd/data_parser/values.h"

#include <gtest/gtest.h>
#include <signal.h>

#include "nlohmann/json.hpp"

namespace skiff::restd {
namespace {

// The values as a reader sees them.
nlohmann::json Read(const Json& value) { return nlohmann::json::parse(value.Text()); }

TEST(ValuesTest, NumbersMayBeUnsetOrInfinite) {
  EXPECT_EQ(Read(Number(5)), nlohmann::json::parse(R"({"set":true,"infinite":false,"number":5})"));
  EXPECT_EQ(Read(NoNumber())["set"], false);
  EXPECT_EQ(Read(Infinite())["infinite"], true);
  EXPECT_EQ(Read(Minutes(-1)), Read(Infinite()));
  EXPECT_EQ(Read(Minutes(0)), Read(NoNumber()));
  EXPECT_EQ(Read(Minutes(61))["number"], 2);  // Slurm rounds a limit up to whole minutes
}

TEST(ValuesTest, ExitCodesSaySuccessErrorOrSignaled) {
  EXPECT_EQ(Read(ExitCode(true, 0, 0))["status"][0], "SUCCESS");
  EXPECT_EQ(Read(ExitCode(true, 3, 0))["return_code"]["number"], 3);
  const nlohmann::json killed = Read(ExitCode(true, 0, SIGKILL));
  EXPECT_EQ(killed["status"][0], "SIGNALED");
  EXPECT_EQ(killed["signal"]["name"], "SIGKILL");
  EXPECT_EQ(killed["signal"]["id"]["number"], SIGKILL);
  EXPECT_EQ(Read(ExitCode(false, 0, 0))["status"][0], "PENDING");
}

TEST(ValuesTest, TresAreWrittenInSlurmsOrderWithItsIds) {
  const std::map<std::string, int64_t> tres = {
      {"gres/gpu", 2}, {"mem", 8192}, {"node", 1}, {"cpu", 4}, {"billing", 4}};
  EXPECT_EQ(TresString(tres), "cpu=4,mem=8G,node=1,billing=4,gres/gpu=2");
  const nlohmann::json list = Read(TresList(tres));
  ASSERT_EQ(list.size(), 5u);
  EXPECT_EQ(list[0], nlohmann::json::parse(R"({"type":"cpu","name":"","id":1,"count":4})"));
  EXPECT_EQ(list[4], nlohmann::json::parse(R"({"type":"gres","name":"gpu","id":1001,"count":2})"));
  EXPECT_EQ(TresId("gres/gpu:a100"), TresId("gres/gpu:a100"));
  EXPECT_GT(TresId("gres/gpu:a100"), 1001);
}

}  // namespace
}  // namespace skiff::restd
