#include "common/hostlist.h"

#include <gtest/gtest.h>

#include <iterator>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "common/garbage_fuzz.h"

namespace skiff {
namespace {

using Names = std::vector<std::string>;

struct ExpandCase {
  std::string expression;
  Names names;
};

TEST(ExpandHostlistTest, ExpandsGoodExpressions) {
  const ExpandCase cases[] = {
      {"", {}},
      {"   ", {}},
      {"n1", {"n1"}},
      {"login", {"login"}},
      {"gpu[01-04,07]", {"gpu01", "gpu02", "gpu03", "gpu04", "gpu07"}},
      {"n[1-3],login1", {"n1", "n2", "n3", "login1"}},
      {"r[1-2]n[1-2]", {"r1n1", "r1n2", "r2n1", "r2n2"}},
      {"rack[1-2]-n[1-2]", {"rack1-n1", "rack1-n2", "rack2-n1", "rack2-n2"}},
      {"n[8-11]", {"n8", "n9", "n10", "n11"}},
      {"n[098-101]", {"n098", "n099", "n100", "n101"}},
      {"n[5]", {"n5"}},
      {"n[5-5]", {"n5"}},
      {"[1-2]", {"1", "2"}},
      {"n[1-2]x", {"n1x", "n2x"}},
      {" n1 , n2 ", {"n1", "n2"}},
      {"n1,,n2,", {"n1", "n2"}},
      {"n2,n1,n2", {"n2", "n1", "n2"}},  // Order and duplicates kept.
      {"n[3,1,1]", {"n3", "n1", "n1"}},
  };
  for (const ExpandCase& c : cases) {
    absl::StatusOr<Names> got = ExpandHostlist(c.expression);
    ASSERT_TRUE(got.ok()) << c.expression << ": " << got.status();
    EXPECT_EQ(*got, c.names) << c.expression;
  }
}

TEST(ExpandHostlistTest, ExpandsZeroPaddedRanges) {
  absl::StatusOr<Names> got = ExpandHostlist("gpu[001-003]");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, (Names{"gpu001", "gpu002", "gpu003"}));
}

TEST(ExpandHostlistTest, ExpandsUpToTheLimit) {
  absl::StatusOr<Names> got = ExpandHostlist("n[1-1048576]");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->size(), kMaxHostlistSize);
  EXPECT_EQ(got->back(), "n1048576");
}

struct ErrorCase {
  std::string expression;
  std::string message_part;
};

TEST(ExpandHostlistTest, RejectsMalformedExpressions) {
  const ErrorCase cases[] = {
      {"gpu[01-04", "unclosed '['"},
      {"gpu01-04]", "']' without '['"},
      {"n[1-[2]]", "nested '['"},
      {"n[]", "empty range"},
      {"n[1,,2]", "empty range"},
      {"n[1,]", "empty range"},
      {"n[4-1]", "ends below its start"},
      {"n[a-3]", "non-numeric bound"},
      {"n[1-]", "non-numeric bound"},
      {"n[-1]", "non-numeric bound"},
      {"n[1-2-3]", "non-numeric bound"},
      {"n[ 1]", "non-numeric bound"},
      {"n[99999999999999999999]", "too large"},
      {"n[0-1048576]", "more than 1048576 names"},
      {"n[0-999999999]", "more than 1048576 names"},
      {"n[0-18446744073709551615]", "more than 1048576 names"},
      {"a[1-1024]b[1-1025]", "more than 1048576 names"},
      {"a[1-1048576],b", "more than 1048576 names"},
  };
  for (const ErrorCase& c : cases) {
    absl::StatusOr<Names> got = ExpandHostlist(c.expression);
    ASSERT_FALSE(got.ok()) << c.expression;
    EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument) << c.expression;
    EXPECT_NE(got.status().message().find(c.message_part), std::string::npos)
        << c.expression << ": " << got.status();
    EXPECT_NE(got.status().message().find("\"" + c.expression + "\""), std::string::npos)
        << c.expression << ": " << got.status();
  }
}

TEST(ExpandHostlistTest, RejectsUnclosedBracketWithQuotedMessage) {
  absl::StatusOr<Names> got = ExpandHostlist("gpu[01-04");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().message(), "invalid hostlist \"gpu[01-04\": unclosed '['");
}

struct CompressCase {
  Names names;
  std::string expression;
};

TEST(CompressHostlistTest, CompressesToConventionalForm) {
  const CompressCase cases[] = {
      {{}, ""},
      {{"n1"}, "n1"},
      {{"login"}, "login"},
      {{"n1", "n2", "n3", "n5"}, "n[1-3,5]"},
      {{"n5", "n3", "n1", "n2"}, "n[1-3,5]"},
      {{"n1", "n1", "n2"}, "n[1-2]"},
      {{"n1", "m2"}, "m2,n1"},
      {{"n01", "n02"}, "n[01-02]"},
      {{"gpu01", "gpu02", "login"}, "gpu[01-02],login"},
      {{"n10", "n9", "n2"}, "n[2,9-10]"},       // Numeric, not text, order.
      {{"n8", "n9", "n10", "n11"}, "n[8-11]"},  // Unpadded runs cross widths.
      {{"n09", "n10"}, "n[09-10]"},
      {{"n099", "n100"}, "n[099-100]"},
      {{"n1", "n02"}, "n[1,02]"},  // Different padding never folds.
      {{"n1", "n01"}, "n[01,1]"},
      {{"n", "n1", "n2"}, "n,n[1-2]"},
      {{"r1n1", "r1n2", "r2n1"}, "r1n[1-2],r2n1"},
      {{"1", "2", "3"}, "[1-3]"},
      {{"n99999999999999999999", "n1"}, "n1,n99999999999999999999"},
  };
  for (const CompressCase& c : cases) {
    EXPECT_EQ(CompressHostlist(c.names), c.expression);
  }
}

TEST(CompressHostlistTest, RoundTripsThroughExpand) {
  const std::string expressions[] = {
      "gpu[01-04,07]", "n[1-3],login1", "r[1-2]n[1-2]", "n[8-12]", "n[098-101]",
  };
  for (const std::string& expression : expressions) {
    absl::StatusOr<Names> names = ExpandHostlist(expression);
    ASSERT_TRUE(names.ok()) << names.status();
    absl::StatusOr<Names> again = ExpandHostlist(CompressHostlist(*names));
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ(std::set<std::string>(again->begin(), again->end()),
              std::set<std::string>(names->begin(), names->end()))
        << expression;
  }
}

// Garbage in must give a result or a described error, never a crash or hang; any
// valid result must survive compression.
TEST(HostlistFuzzTest, NeverCrashesAndRoundTripsValidInput) {
  int round_tripped = 0;
  int bracketed = 0;
  const int valid = skiff::testing::ParseGarbage(
      "[]-,:0123456789abcGMK[]-,0123456789 n", 24,
      [](const std::string& text) { return ExpandHostlist(text); },
      [&](const std::string& text, const Names& names) {
        if (text.find('[') != std::string::npos) ++bracketed;
        if (names.size() > 10000) return;
        absl::StatusOr<Names> again = ExpandHostlist(CompressHostlist(names));
        ASSERT_TRUE(again.ok()) << text << " -> " << CompressHostlist(names) << ": "
                                << again.status();
        EXPECT_EQ(std::set<std::string>(again->begin(), again->end()),
                  std::set<std::string>(names.begin(), names.end()))
            << text;
        ++round_tripped;
      });
  // Guard against a generator that only ever produces errors, which would make the
  // round-trip half of this test vacuous.
  EXPECT_GT(valid, 1000);
  EXPECT_GT(bracketed, 100);
  EXPECT_GT(round_tripped, 1000);
}

// Random well-formed expressions reach the range-folding paths of Compress far more
// often than garbage does: mixed padding, overlapping ranges, several groups.
TEST(HostlistFuzzTest, RoundTripsRandomWellFormedExpressions) {
  std::mt19937 rng(7);
  const std::string prefixes[] = {"", "n", "gpu", "r1n", "a-", "x9y"};
  std::uniform_int_distribution<size_t> prefix(0, std::size(prefixes) - 1);
  std::uniform_int_distribution<int> small(0, 3);
  std::uniform_int_distribution<int> number(0, 120);
  for (int i = 0; i < 2000; ++i) {
    std::string text;
    int entries = small(rng) + 1;
    for (int e = 0; e < entries; ++e) {
      if (e > 0) text += ",";
      text += prefixes[prefix(rng)];
      int groups = small(rng) % 3;
      for (int g = 0; g < groups; ++g) {
        text += "[";
        int items = small(rng) + 1;
        for (int r = 0; r < items; ++r) {
          if (r > 0) text += ",";
          int lo = number(rng);
          int hi = lo + small(rng) * small(rng);
          std::string lo_text = std::to_string(lo);
          // Pad some lower bounds so widths vary within one prefix.
          if (small(rng) == 0) lo_text.insert(0, small(rng), '0');
          text += lo_text;
          if (hi != lo || small(rng) == 0) text += "-" + std::to_string(hi);
        }
        text += "]";
        if (small(rng) == 0) text += prefixes[prefix(rng)];
      }
    }
    absl::StatusOr<Names> names = ExpandHostlist(text);
    ASSERT_TRUE(names.ok()) << text << ": " << names.status();
    std::string compressed = CompressHostlist(*names);
    absl::StatusOr<Names> again = ExpandHostlist(compressed);
    ASSERT_TRUE(again.ok()) << text << " -> " << compressed << ": " << again.status();
    std::set<std::string> want(names->begin(), names->end());
    EXPECT_EQ(std::set<std::string>(again->begin(), again->end()), want)
        << text << " -> " << compressed;
    // Compressed output is canonical: no duplicates, and compressing again is stable.
    EXPECT_EQ(again->size(), want.size()) << text << " -> " << compressed;
    EXPECT_EQ(CompressHostlist(*again), compressed) << text;
  }
}

TEST(SlurmCountList, FoldsRunsAsSlurmDoes) {
  EXPECT_EQ(SlurmCountList({2, 2, 2, 1}), "2(x3),1");
  EXPECT_EQ(SlurmCountList({4}), "4");
  EXPECT_EQ(SlurmCountList({}), "");
}

}  // namespace
}  // namespace skiff
