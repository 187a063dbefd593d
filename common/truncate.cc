#include "common/truncate.h"

#include "absl/strings/str_cat.h"

namespace skiff {

std::string TruncateMessage(absl::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  size_t keep = max_bytes;
  // Back off over UTF-8 continuation bytes (10xxxxxx) so no character is split.
  while (keep > 0 && (static_cast<unsigned char>(text[keep]) & 0xC0) == 0x80) --keep;
  return absl::StrCat(text.substr(0, keep), " ... (truncated, ", text.size(), " bytes in all)");
}

}  // namespace skiff
