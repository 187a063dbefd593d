#include "ctld/core/job_mail.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"

namespace skiff::ctld {

uint16_t ParseMailType(const std::string& text) {
  uint16_t bits = 0;
  for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    const std::string word = absl::AsciiStrToUpper(absl::StripAsciiWhitespace(item));
    if (word == "NONE") return 0;
    if (word == "ARRAY_TASKS") bits |= kMailArrayTasks;
    if (word == "BEGIN") bits |= kMailBegin;
    if (word == "END") bits |= kMailEnd;
    if (word == "FAIL") bits |= kMailFail;
    if (word == "INVALID_DEPEND") bits |= kMailInvalidDepend;
    if (word == "REQUEUE") bits |= kMailRequeue;
    if (word == "ALL") {
      bits |= kMailInvalidDepend | kMailBegin | kMailEnd | kMailFail | kMailRequeue | kMailStageOut;
    }
    if (word == "STAGE_OUT") bits |= kMailStageOut;
    if (word == "TIME_LIMIT") bits |= kMailTime100;
    if (word == "TIME_LIMIT_90") bits |= kMailTime90;
    if (word == "TIME_LIMIT_80") bits |= kMailTime80;
    if (word == "TIME_LIMIT_50") bits |= kMailTime50;
  }
  return bits;
}

}  // namespace skiff::ctld
