#include "cli/common/help_text.h"

#include <string>
#include <string_view>

#include "gtest/gtest.h"

namespace skiff::cli {
namespace {

constexpr char kText[] =
    "Usage: x [OPTIONS]\n"
    "  -b, --begin=time            defer job\n"
    "      --bb=<spec>             burst buffer specifications\n"
    "      --bbf=<file_name>       burst buffer specification file\n"
    "                              continued\n";

TEST(MarkUnsupportedTest, StarsTheBlankFirstColumnAndEndsWithTheNote) {
  constexpr std::string_view kUnsupported[] = {"--bb=", "-b, --begin="};
  EXPECT_EQ(MarkUnsupported(kText, kUnsupported),
            "Usage: x [OPTIONS]\n"
            "* -b, --begin=time            defer job\n"
            "*     --bb=<spec>             burst buffer specifications\n"
            "      --bbf=<file_name>       burst buffer specification file\n"
            "                              continued\n"
            "\n" +
                std::string(kUnsupportedNote));
}

TEST(MarkUnsupportedTest, UnmarkedTextIsSlurmsUnchanged) {
  EXPECT_EQ(MarkUnsupported(kText, {}), kText);
}

TEST(MarkUnsupportedTest, NoSecondBlankLineBeforeTheNote) {
  constexpr std::string_view kUnsupported[] = {"--usage"};
  EXPECT_EQ(MarkUnsupported("Help:\n  --usage  brief\n\n", kUnsupported),
            "Help:\n* --usage  brief\n\n" + std::string(kUnsupportedNote));
}

TEST(MarkUnsupportedTest, AnEntryListedTwiceMarksTwoLines) {
  constexpr std::string_view kUnsupported[] = {"clear stats", "clear stats"};
  EXPECT_EQ(MarkUnsupported("  clear stats  a\n  clear stats\n", kUnsupported),
            "* clear stats  a\n* clear stats\n\n" + std::string(kUnsupportedNote));
}

TEST(MarkUnsupportedDeathTest, AnEntryThatStartsNoLineOrTooManyCrashes) {
  constexpr std::string_view kMissing[] = {"--nosuch"};
  EXPECT_DEATH(MarkUnsupported(kText, kMissing), "--nosuch");
  constexpr std::string_view kAmbiguous[] = {"--bb"};  // --bb= and --bbf=
  EXPECT_DEATH(MarkUnsupported(kText, kAmbiguous), "--bb");
  constexpr std::string_view kUnmarkable[] = {"Usage"};
  EXPECT_DEATH(MarkUnsupported(kText, kUnmarkable), "Usage");
}

TEST(WithPluginOptionsTest, PyxisOptionsGoWhereSlurmPrintsPluginOptions) {
  const std::string text = WithPluginOptions(
      "Usage: x\n"
      "      --mem-bind=             Bind memory\n"
      "\n"
      "GPU scheduling options:\n"
      "  -G, --gpus=n                count of GPUs\n",
      "GPU scheduling options:");
  EXPECT_EQ(text, std::string("Usage: x\n"
                              "      --mem-bind=             Bind memory\n") +
                      kPyxisOptionsHelp +
                      "\n"
                      "GPU scheduling options:\n"
                      "  -G, --gpus=n                count of GPUs\n");
  EXPECT_NE(text.find("Bind memory\n\nOptions provided by plugins:\n\n      --container-image="),
            std::string::npos);
  EXPECT_NE(text.find("over the image's\n\nGPU scheduling options:\n"), std::string::npos);
}

}  // namespace
}  // namespace skiff::cli
