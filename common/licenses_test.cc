#include "common/licenses.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace skiff {
namespace {

using ::testing::ElementsAre;

TEST(ParseLicensesTest, NamesWithCountsDefaultingToOneAndDuplicatesAddedUp) {
  absl::StatusOr<std::vector<LicenseCount>> parsed = ParseLicenses("matlab:4,fluent;matlab:2,,");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_THAT(*parsed, ElementsAre(LicenseCount{"matlab", 6}, LicenseCount{"fluent", 1}));
  EXPECT_EQ(FormatLicenses(*parsed), "matlab:6,fluent:1");
}

TEST(ParseLicensesTest, EmptyTextAsksForNothingAndABareColonForNone) {
  EXPECT_TRUE(ParseLicenses("")->empty());
  EXPECT_THAT(*ParseLicenses("foo:"), ElementsAre(LicenseCount{"foo", 0}));
  EXPECT_THAT(*ParseLicenses("nastran@slurmdb:12"),
              ElementsAre(LicenseCount{"nastran@slurmdb", 12}));
}

TEST(ParseLicensesTest, RefusesWhatSlurmRefusesNamingTheItem) {
  for (const char* text : {"foo:x", "foo:-1", "foo:1x", "a b", "foo: 2", ":3", "foo:99999999999"}) {
    absl::StatusOr<std::vector<LicenseCount>> parsed = ParseLicenses(text);
    EXPECT_FALSE(parsed.ok()) << text;
  }
  EXPECT_EQ(ParseLicenses("ok,foo:x").status().message(),
            "'foo:x' is not NAME[:COUNT] with COUNT a number of licenses");
}

TEST(CheckLicenseRequestTest, EveryNameConfiguredWithEnoughOfIt) {
  const std::vector<LicenseCount> configured = {{"matlab", 4}, {"fluent", 1}};
  EXPECT_TRUE(CheckLicenseRequest({{"matlab", 4}, {"fluent", 1}}, configured).ok());
  EXPECT_TRUE(CheckLicenseRequest({}, configured).ok());
  EXPECT_EQ(CheckLicenseRequest({{"matlab", 5}}, configured).message(),
            "Invalid license specification");
  EXPECT_FALSE(CheckLicenseRequest({{"ansys", 1}}, configured).ok());
  EXPECT_FALSE(CheckLicenseRequest({{"matlab", 1}}, {}).ok());
}

}  // namespace
}  // namespace skiff
