#include "cli/common/help_text.h"

#include <cstdio>
#include <cstdlib>
#include <map>

namespace skiff::cli {

std::string MarkUnsupported(std::string_view slurm_text,
                            absl::Span<const std::string_view> unsupported) {
  if (unsupported.empty()) return std::string(slurm_text);
  // How many lines each entry should start (an entry listed twice, twice) and
  // how many it does.
  std::map<std::string_view, std::pair<int, int>> lines;
  for (std::string_view entry : unsupported) ++lines[entry].first;
  std::string text(slurm_text);
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string_view line = std::string_view(text).substr(start, end - start);
    const size_t first = line.find_first_not_of(" \t");
    if (first != std::string_view::npos) {
      for (auto& [entry, counts] : lines) {
        if (line.substr(first, entry.size()) != entry) continue;
        ++counts.second;
        if (line[0] != ' ') {
          fprintf(stderr, "help text: no blank to mark before \"%.*s\"\n",
                  static_cast<int>(entry.size()), entry.data());
          abort();
        }
        text[start] = '*';
      }
    }
    start = end + 1;
  }
  for (const auto& [entry, counts] : lines) {
    if (counts.first != counts.second) {
      fprintf(stderr, "help text: \"%.*s\" starts %d lines, not %d\n",
              static_cast<int>(entry.size()), entry.data(), counts.second, counts.first);
      abort();
    }
  }
  if (text.size() < 2 || text.compare(text.size() - 2, 2, "\n\n") != 0)
    text += "\n";  // a blank line before the note
  return text + kUnsupportedNote;
}

std::string WithPluginOptions(std::string_view slurm_text, std::string_view next_heading) {
  const std::string marker = "\n\n" + std::string(next_heading) + "\n";
  const size_t at = slurm_text.find(marker);
  if (at == std::string_view::npos || slurm_text.find(marker, at + 1) != std::string_view::npos) {
    fprintf(stderr, "help text: the heading \"%.*s\" is not there once\n",
            static_cast<int>(next_heading.size()), next_heading.data());
    abort();
  }
  std::string text(slurm_text);
  text.insert(at + 1, kPyxisOptionsHelp);
  return text;
}

}  // namespace skiff::cli
