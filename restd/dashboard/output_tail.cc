#include "restd/dashboard/output_tail.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace skiff::restd {

absl::StatusOr<int> ParseTailLines(absl::string_view text) {
  if (text.empty()) return kDefaultTailLines;
  int64_t lines = 0;
  if (!absl::SimpleAtoi(text, &lines) || lines < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("lines must be a number from 1 to ", kMaxTailLines, ", not \"", text, "\""));
  }
  return static_cast<int>(std::min<int64_t>(lines, kMaxTailLines));
}

int64_t TailReadOffset(int64_t file_size) {
  return std::max<int64_t>(0, file_size - static_cast<int64_t>(kMaxTailBytes));
}

OutputTail TailOf(absl::string_view window, int64_t window_offset, int lines) {
  OutputTail tail;
  if (lines <= 0 || window.empty()) {
    tail.truncated = window_offset > 0 || !window.empty();
    return tail;
  }
  // Walk back from the end over `lines` line starts. The final '\n' ends the
  // last line, so the search starts before it.
  size_t start = window.size();
  size_t search_end = window.size();
  if (window.back() == '\n') --search_end;
  int found = 0;
  while (found < lines) {
    const size_t newline =
        search_end == 0 ? absl::string_view::npos : window.rfind('\n', search_end - 1);
    if (newline == absl::string_view::npos) {
      start = 0;
      break;
    }
    start = newline + 1;
    search_end = newline;
    ++found;
  }
  if (found == lines && start > 0) {
    tail.truncated = true;
  } else {
    start = 0;
    tail.truncated = window_offset > 0;  // the window's first line began before it
  }
  tail.text = std::string(window.substr(start));
  return tail;
}

}  // namespace skiff::restd
