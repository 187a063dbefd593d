#include "common/config/parameters.h"

#include "gtest/gtest.h"

namespace skiff {
namespace {

TEST(SchedulerParametersTest, TheKeysSkiffActsOnBecomeFieldsAndEveryKeyIsKeptAsWritten) {
  absl::StatusOr<SchedulerParameters> p = ParseSchedulerParameters(
      "bf_interval=30,bf_continue,sched_min_interval=2000000,budget_warn_percent=80,"
      "enable_user_top,max_script_size=1024,bf_max_job_test=700,default_queue_depth=90,"
      "sched_interval=0");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->bf_interval, 30);
  EXPECT_TRUE(p->backfill);
  EXPECT_EQ(p->sched_min_interval_us, 2000000);
  EXPECT_EQ(p->budget_warn_percent, 80);
  EXPECT_TRUE(p->enable_user_top);
  EXPECT_EQ(p->max_script_size, 1024);
  EXPECT_EQ(p->bf_max_job_test, 700);
  EXPECT_EQ(p->default_queue_depth, 90);
  EXPECT_EQ(p->sched_interval, 0);
  EXPECT_EQ(p->as_written.at("bf_continue"), "");
  EXPECT_EQ(p->as_written.size(), 9u);
}

TEST(SchedulerParametersTest, UnsetKeysKeepTheirDefaults) {
  absl::StatusOr<SchedulerParameters> p = ParseSchedulerParameters("");
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(p->bf_interval.has_value());
  EXPECT_FALSE(p->sched_interval.has_value());
  EXPECT_TRUE(p->backfill);
  EXPECT_EQ(p->sched_min_interval_us, 20000);
  EXPECT_EQ(p->budget_warn_percent, 50);
  EXPECT_FALSE(p->enable_user_top);
  EXPECT_EQ(p->max_script_size, 4 * 1024 * 1024);
}

TEST(SchedulerParametersTest, BfIntervalMinusOneTurnsBackfillOff) {
  absl::StatusOr<SchedulerParameters> p = ParseSchedulerParameters("bf_interval=-1");
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(p->backfill);
  EXPECT_FALSE(p->bf_interval.has_value());
}

TEST(SchedulerParametersTest, AValueOutOfRangeIsRefusedNamingTheKey) {
  struct Case {
    const char* text;
    const char* message;
  };
  for (const Case& c : {
           Case{"budget_warn_percent=abc",
                "budget_warn_percent=abc is not a whole number from 0 to 100"},
           Case{"budget_warn_percent=101",
                "budget_warn_percent=101 is not a whole number from 0 to 100"},
           Case{"bf_interval=abc,bf_continue",
                "bf_interval=abc is not a whole number from 1 to 10800 or -1"},
           Case{"sched_min_interval=-5",
                "sched_min_interval=-5 is not a whole number from 0 to 2147483647"},
           Case{"max_script_size=0", "max_script_size=0 is not a whole number from 1 to 536870912"},
           Case{"default_queue_depth=",
                "default_queue_depth= is not a whole number from 1 to "
                "1000000"},
           Case{"a=1,=2", "'=2' has no parameter name"},
       }) {
    absl::StatusOr<SchedulerParameters> p = ParseSchedulerParameters(c.text);
    ASSERT_FALSE(p.ok()) << c.text;
    EXPECT_EQ(p.status().message(), c.message) << c.text;
  }
}

TEST(SlurmctldParametersTest, JoinNeedsAPortAndConfigless) {
  absl::StatusOr<SlurmctldParameters> p = ParseSlurmctldParameters(
      "enable_configless,join_port=6820,join_munge_key=/etc/skiff/munge.key,allow_user_triggers,"
      "cloud_dns");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_TRUE(p->enable_configless);
  EXPECT_TRUE(p->allow_user_triggers);
  EXPECT_EQ(p->join_port, 6820);
  EXPECT_EQ(p->join_munge_key, "/etc/skiff/munge.key");
  EXPECT_EQ(p->as_written.count("cloud_dns"), 1u);

  EXPECT_EQ(ParseSlurmctldParameters("enable_configless,join_port=70000").status().message(),
            "join_port=\"70000\" is not a TCP port (1 to 65535)");
  EXPECT_EQ(ParseSlurmctldParameters("join_port=6820").status().message(),
            "join_port needs enable_configless too (a node that joins has no skiff.conf of its "
            "own and fetches ctld's)");
  absl::StatusOr<SlurmctldParameters> none = ParseSlurmctldParameters("");
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->join_port, 0);
  EXPECT_FALSE(none->enable_configless);
}

TEST(SlurmdParametersTest, StreamsPerUserAreRangeChecked) {
  absl::StatusOr<SlurmdParameters> p =
      ParseSlurmdParameters("config_overrides,max_step_streams_per_user=16");
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->config_overrides);
  EXPECT_EQ(p->max_step_streams_per_user, 16);
  EXPECT_EQ(ParseSlurmdParameters("").value().max_step_streams_per_user,
            kDefaultMaxStepStreamsPerUser);
  EXPECT_EQ(ParseSlurmdParameters("max_step_streams_per_user=0").status().message(),
            "max_step_streams_per_user=0 is not a whole number from 1 to 2048");
}

TEST(EnforcementTest, SlurmsImplicationsApply) {
  absl::StatusOr<Enforcement> e = ParseEnforcement("limits");
  ASSERT_TRUE(e.ok());
  EXPECT_TRUE(e->associations && e->limits);
  EXPECT_FALSE(e->qos || e->safe);
  EXPECT_EQ(EnforcementText(*e), "associations,limits");

  e = ParseEnforcement("Safe,QOS");
  ASSERT_TRUE(e.ok());
  EXPECT_TRUE(e->associations && e->limits && e->qos && e->safe);

  e = ParseEnforcement("none");
  ASSERT_TRUE(e.ok());
  EXPECT_FALSE(e->Any());
  EXPECT_EQ(EnforcementText(*e), "none");
}

// The reservation check once read "all" as no association enforcement; the
// one parsed value leaves no room for that.
TEST(EnforcementTest, AllIsEveryWordButNojobsAndNosteps) {
  absl::StatusOr<Enforcement> e = ParseEnforcement("all");
  ASSERT_TRUE(e.ok());
  EXPECT_TRUE(e->associations && e->limits && e->qos && e->safe && e->wckeys);
  EXPECT_FALSE(e->nojobs || e->nosteps);
  EXPECT_EQ(EnforcementText(*e), "associations,limits,qos,safe,wckeys");
}

TEST(EnforcementTest, AnUnknownWordIsRefused) {
  absl::StatusOr<Enforcement> e = ParseEnforcement("associations,bogus");
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().message(),
            "'bogus' is not one of associations, limits, qos, safe, wckeys, nojobs, nosteps, all, "
            "none");
}

TEST(GpuIdlePolicyTest, KeysBecomeFieldsWithSlurmStyleDefaults) {
  absl::StatusOr<GpuIdlePolicy> p =
      ParseGpuIdlePolicy("threshold=10,minutes=0.5,action=cancel,grace=2,exempt_qos=long:debug");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_TRUE(p->enabled);
  EXPECT_EQ(p->threshold_percent, 10);
  EXPECT_EQ(p->window_seconds, 30);
  EXPECT_EQ(p->action, GpuIdlePolicy::Action::kCancel);
  EXPECT_EQ(p->grace_seconds, 120);
  EXPECT_EQ(p->exempt_qos, (std::vector<std::string>{"long", "debug"}));
  p = ParseGpuIdlePolicy("action=requeue");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->threshold_percent, 5);
  EXPECT_EQ(p->window_seconds, 1800);
  EXPECT_EQ(p->grace_seconds, 600);
  EXPECT_STREQ(GpuIdleActionName(p->action), "requeue");
  p = ParseGpuIdlePolicy("None");
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(p->enabled);
}

TEST(GpuIdlePolicyTest, BadWordsAreNamed) {
  EXPECT_EQ(ParseGpuIdlePolicy("threshold=0").status().message(),
            "threshold=0 is not a whole number from 1 to 100");
  EXPECT_EQ(ParseGpuIdlePolicy("minutes=0").status().message(),
            "minutes=0 is not a number of minutes above 0");
  EXPECT_EQ(ParseGpuIdlePolicy("grace=-1").status().message(),
            "grace=-1 is not a number of minutes");
  EXPECT_EQ(ParseGpuIdlePolicy("action=kill").status().message(),
            "action=kill is not one of notify, requeue, cancel");
  EXPECT_EQ(ParseGpuIdlePolicy("window=3").status().message(),
            "'window' is not one of threshold, minutes, action, grace, exempt_qos");
}

}  // namespace
}  // namespace skiff
