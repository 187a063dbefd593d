#include "common/assoc_key.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace skiff {
namespace {

constexpr char kSeparator = '|';

}  // namespace

std::string AssocKey::RecordKey() const {
  return absl::StrCat(account, std::string(1, kSeparator), user, std::string(1, kSeparator),
                      partition);
}

std::string AssocKey::UsageRecordKey() const {
  return absl::StrCat(account, std::string(1, kSeparator), user);
}

std::optional<AssocKey> AssocKey::FromRecordKey(std::string_view text) {
  std::vector<std::string> parts =
      absl::StrSplit(absl::string_view(text.data(), text.size()), kSeparator);
  if (parts.size() > 3) return std::nullopt;
  parts.resize(3);
  return AssocKey{std::move(parts[0]), std::move(parts[1]), std::move(parts[2])};
}

std::string AssocKey::Describe() const {
  if (user.empty()) return absl::StrCat("account ", account);
  return absl::StrCat("user ", user, " in account ", account);
}

}  // namespace skiff
