#include "restd/router.h"

#include <gtest/gtest.h>

namespace skiff::restd {
namespace {

HttpResponse Named(const std::string& name) {
  HttpResponse response;
  response.body = name;
  return response;
}

Router MakeRouter() {
  Router router;
  router.Add("GET", "/slurm/{version}/jobs/", [](RestCall&) { return Named("jobs"); });
  router.Add("GET", "/slurm/{version}/job/{job_id}", [](RestCall&) { return Named("job"); });
  router.Add("DELETE", "/slurm/{version}/job/{job_id}", [](RestCall&) { return Named("kill"); });
  router.Add("POST", "/slurm/{version}/job/submit", [](RestCall&) { return Named("submit"); });
  router.Add("GET", "/metrics", [](RestCall&) { return Named("metrics"); });
  return router;
}

TEST(RouterTest, MatchesAVersionAndHandsOnTheArguments) {
  const Router router = MakeRouter();
  auto match = router.Find("GET", "/slurm/v0.0.42/job/17_3");
  ASSERT_TRUE(match.has_value());
  ASSERT_NE(match->handler, nullptr);
  EXPECT_EQ(match->version, "v0.0.42");
  EXPECT_EQ(match->args, std::vector<std::string>{"17_3"});
}

TEST(RouterTest, TheTrailingSlashIsOptional) {
  const Router router = MakeRouter();
  EXPECT_NE(router.Find("GET", "/slurm/v0.0.42/jobs")->handler, nullptr);
  EXPECT_NE(router.Find("GET", "/slurm/v0.0.42/jobs/")->handler, nullptr);
  EXPECT_NE(router.Find("GET", "/metrics")->handler, nullptr);
}

TEST(RouterTest, AnUnservedVersionOrPathIsNotFound) {
  const Router router = MakeRouter();
  EXPECT_FALSE(router.Find("GET", "/slurm/v0.0.38/jobs").has_value());
  EXPECT_FALSE(router.Find("GET", "/slurm/v0.0.42/nope").has_value());
  EXPECT_FALSE(router.Find("GET", "/slurm/v0.0.42//jobs").has_value());
  EXPECT_FALSE(router.Find("GET", "/slurm/v0.0.42/job/1/2").has_value());
}

TEST(RouterTest, AFixedSegmentIsPreferredOnlyForItsMethod) {
  const Router router = MakeRouter();
  auto submit = router.Find("POST", "/slurm/v0.0.42/job/submit");
  ASSERT_NE(submit->handler, nullptr);
  EXPECT_TRUE(submit->args.empty());
  // GET of job/submit is the job named "submit", which ctld will not find.
  auto job = router.Find("GET", "/slurm/v0.0.42/job/submit");
  ASSERT_NE(job->handler, nullptr);
  EXPECT_EQ(job->args, std::vector<std::string>{"submit"});
}

TEST(RouterTest, AKnownPathWithAnotherMethodSaysWhichAreAllowed) {
  const Router router = MakeRouter();
  auto match = router.Find("PUT", "/slurm/v0.0.42/job/5");
  ASSERT_TRUE(match.has_value());
  EXPECT_EQ(match->handler, nullptr);
  EXPECT_EQ(match->allowed, (std::vector<std::string>{"GET", "DELETE"}));
  EXPECT_NE(router.Find("HEAD", "/slurm/v0.0.42/job/5")->handler, nullptr);
}

}  // namespace
}  // namespace skiff::restd
