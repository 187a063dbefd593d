#include "cli/common/percent_format.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace skiff::cli {

absl::StatusOr<std::vector<PercentFormatItem>> ParsePercentFormat(
    std::string_view format, const std::function<bool(char)>& known) {
  std::vector<PercentFormatItem> items;
  std::string literal;
  auto flush = [&] {
    if (literal.empty()) return;
    PercentFormatItem item;
    item.literal = literal;
    items.push_back(item);
    literal.clear();
  };
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%') {
      literal += format[i];
      continue;
    }
    if (i + 1 < format.size() && format[i + 1] == '%') {
      literal += '%';
      ++i;
      continue;
    }
    PercentFormatItem item;
    size_t j = i + 1;
    if (j < format.size() && format[j] == '.') {
      item.right = true;
      ++j;
    } else if (j < format.size() && format[j] == '-') {
      ++j;
    }
    while (j < format.size() && format[j] >= '0' && format[j] <= '9') {
      item.width = std::min(item.width * 10 + (format[j] - '0'), 10000);
      ++j;
    }
    if (j >= format.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Invalid job format specification: '%' without a field letter in \"",
                       std::string(format), "\""));
    }
    item.field = format[j];
    if (!known(item.field)) {
      return absl::InvalidArgumentError(
          absl::StrCat("Invalid job format specification: ", std::string(1, item.field)));
    }
    flush();
    items.push_back(item);
    i = j;
  }
  flush();
  return items;
}

}  // namespace skiff::cli
