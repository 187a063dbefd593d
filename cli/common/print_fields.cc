#include "cli/common/print_fields.h"

#include <cstdlib>

namespace skiff::cli {

std::vector<FieldRequest> SplitFieldList(const std::string& format) {
  std::vector<FieldRequest> out;
  size_t start = 0;
  while (start <= format.size()) {
    size_t comma = format.find(',', start);
    if (comma == std::string::npos) comma = format.size();
    std::string item = format.substr(start, comma - start);
    start = comma + 1;
    const size_t first = item.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    item = item.substr(first, item.find_last_not_of(" \t") + 1 - first);
    FieldRequest request;
    if (size_t percent = item.find('%'); percent != std::string::npos) {
      request.width = std::atoi(item.c_str() + percent + 1);
      item = item.substr(0, percent);
    }
    request.name = item;
    out.push_back(request);
  }
  return out;
}

std::string PrintFieldsLine(const std::vector<std::string>& cells, const std::vector<int>& widths,
                            const PrintFieldsLayout& layout, bool cut) {
  const bool parsable = layout.parsable || layout.parsable2;
  const std::string delimiter = layout.delimiter.empty() ? "|" : layout.delimiter;
  std::string out;
  for (size_t i = 0; i < cells.size(); ++i) {
    if (parsable) {
      out += cells[i];
      if (i + 1 < cells.size() || layout.parsable) out += delimiter;
      continue;
    }
    const int width = i < widths.size() ? widths[i] : 10;
    const size_t len = static_cast<size_t>(std::abs(width));
    std::string text = cells[i];
    if (text.size() > len) {
      text = text.substr(0, len);
      if (cut && len > 0) text[len - 1] = '+';
    }
    const std::string pad(len - text.size(), ' ');
    out += width < 0 ? text + pad : pad + text;
    out += ' ';
  }
  out += '\n';
  return out;
}

std::string PrintFieldsHeader(const std::vector<std::string>& names, const std::vector<int>& widths,
                              const PrintFieldsLayout& layout) {
  if (layout.no_header) return "";
  std::string out = PrintFieldsLine(names, widths, layout, false);
  if (!layout.parsable && !layout.parsable2) {
    std::vector<std::string> dashes;
    for (int width : widths)
      dashes.push_back(std::string(static_cast<size_t>(std::abs(width)), '-'));
    out += PrintFieldsLine(dashes, widths, layout, false);
  }
  return out;
}

}  // namespace skiff::cli
