#include "restd/metrics/exposition.h"

#include <gtest/gtest.h>

#include <limits>

namespace skiff::restd {
namespace {

TEST(ExpositionTest, EachFamilyOnceWithItsHelpAndTypeThenItsSamplesInOrder) {
  Exposition out;
  out.Gauge("slurm_nodes", "Total number of nodes", 4);
  out.Add("skiff_cycles_total", "Cycles run", MetricType::kCounter, 7, {{"scheduler", "main"}});
  // A later sample of the first family goes with it, under its first HELP.
  out.Gauge("slurm_nodes", "another help, ignored", 5, {{"node", "n1"}});
  out.Declare("skiff_empty", "No samples yet", MetricType::kGauge);
  EXPECT_EQ(out.Text(),
            "# HELP slurm_nodes Total number of nodes\n"
            "# TYPE slurm_nodes gauge\n"
            "slurm_nodes 4\n"
            "slurm_nodes{node=\"n1\"} 5\n"
            "# HELP skiff_cycles_total Cycles run\n"
            "# TYPE skiff_cycles_total counter\n"
            "skiff_cycles_total{scheduler=\"main\"} 7\n"
            "# HELP skiff_empty No samples yet\n"
            "# TYPE skiff_empty gauge\n");
}

TEST(ExpositionTest, LabelValuesAreEscapedAndMadeUtf8) {
  EXPECT_EQ(EscapeLabelValue("plain"), "plain");
  EXPECT_EQ(EscapeLabelValue("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
  EXPECT_EQ(EscapeLabelValue("caf\xC3\xA9"), "caf\xC3\xA9");            // é stays
  EXPECT_EQ(EscapeLabelValue("caf\xE9"), "caf\xEF\xBF\xBD");            // Latin-1 é: U+FFFD
  EXPECT_EQ(EscapeLabelValue("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong '/'
  EXPECT_EQ(EscapeLabelValue("\xED\xA0\x80"),                           // a surrogate
            "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(EscapeLabelValue("\xF0\x9F\x9A\x80 x"), "\xF0\x9F\x9A\x80 x");  // U+1F680
  EXPECT_EQ(EscapeLabelValue("\xE2\x82"), "\xEF\xBF\xBD\xEF\xBF\xBD");      // cut short

  Exposition out;
  out.Gauge("m", "h", 1, {{"user", "o\"brien"}, {"reason", "a\\b"}});
  EXPECT_EQ(out.Text(), "# HELP m h\n# TYPE m gauge\nm{user=\"o\\\"brien\",reason=\"a\\\\b\"} 1\n");
}

TEST(ExpositionTest, HelpEscapesBackslashAndNewlineOnly) {
  EXPECT_EQ(EscapeHelp("a \"quoted\" \\ text\nmore"), "a \"quoted\" \\\\ text\\nmore");
}

TEST(ExpositionTest, ValuesAreIntegersWhenWholeElseShortestExact) {
  EXPECT_EQ(FormatSampleValue(0), "0");
  EXPECT_EQ(FormatSampleValue(-0.0), "0");
  EXPECT_EQ(FormatSampleValue(42), "42");
  EXPECT_EQ(FormatSampleValue(-3), "-3");
  EXPECT_EQ(FormatSampleValue(1754000000), "1754000000");
  EXPECT_EQ(FormatSampleValue(17179869184.0), "17179869184");  // 16 GiB in bytes
  EXPECT_EQ(FormatSampleValue(0.25), "0.25");
  EXPECT_EQ(FormatSampleValue(0.1), "0.1");
  EXPECT_EQ(FormatSampleValue(1.5e-6), "0.0000015");
  EXPECT_EQ(FormatSampleValue(1e-12), "1e-12");
  EXPECT_EQ(FormatSampleValue(123456.789), "123456.789");
  EXPECT_EQ(FormatSampleValue(1e300), "1e+300");
  EXPECT_EQ(FormatSampleValue(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(FormatSampleValue(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(FormatSampleValue(std::numeric_limits<double>::quiet_NaN()), "NaN");
}

}  // namespace
}  // namespace skiff::restd
