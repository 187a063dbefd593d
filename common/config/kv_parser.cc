#include "common/config/kv_parser.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/hostlist.h"
#include "common/size.h"
#include "common/time_format.h"

namespace skiff {
namespace config_internal {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

char LowerChar(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

// Cuts the comment off one physical line. `in_quote` carries the quote state
// across continuation lines so that a '#' inside a quoted value survives.
std::string_view StripComment(std::string_view line, bool& in_quote) {
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '"') {
      in_quote = !in_quote;
    } else if (line[i] == '#' && !in_quote) {
      return line.substr(0, i);
    }
  }
  return line;
}

std::string_view TrimRight(std::string_view s) {
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

// Reads one token starting at `pos` (not whitespace). Quotes group characters and
// are removed; only the first unquoted '=' separates key from value. Sets
// `unterminated` when a quote is still open at the end of the line.
KeyValue ReadToken(std::string_view text, size_t& pos, bool& unterminated) {
  KeyValue token;
  bool in_quote = false;
  size_t equals_at = std::string::npos;
  for (; pos < text.size(); ++pos) {
    char c = text[pos];
    if (c == '"') {
      in_quote = !in_quote;
      continue;
    }
    if (!in_quote && IsSpace(c)) break;
    if (!in_quote && c == '=' && equals_at == std::string::npos) equals_at = token.text.size();
    token.text.push_back(c);
  }
  token.has_equals = equals_at != std::string::npos;
  token.key = token.has_equals ? token.text.substr(0, equals_at) : token.text;
  if (token.has_equals) token.value = token.text.substr(equals_at + 1);
  unterminated = in_quote;
  return token;
}

absl::StatusOr<std::vector<KeyValue>> Tokenize(std::string_view text, std::string_view file,
                                               int line) {
  std::vector<KeyValue> tokens;
  size_t pos = 0;
  while (true) {
    while (pos < text.size() && IsSpace(text[pos])) ++pos;
    if (pos >= text.size()) break;
    bool unterminated = false;
    KeyValue token = ReadToken(text, pos, unterminated);
    if (unterminated) {
      // The open quote swallowed the rest of the line; name the key it started in.
      std::string_view key = token.text;
      key = key.substr(0, key.find_first_of("= \t"));
      if (key.empty()) key = "\"";
      return absl::InvalidArgumentError(
          absl::StrCat(AsAbsl(file), ":", line, ": ", AsAbsl(key), ": unterminated quote (\")"));
    }
    tokens.push_back(std::move(token));
  }
  return tokens;
}

std::string DirName(std::string_view path) {
  size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return "";
  return std::string(path.substr(0, slash + 1));
}

std::string ResolveInclude(std::string_view including_file, std::string_view path) {
  if (!path.empty() && path.front() == '/') return std::string(path);
  return DirName(including_file) + std::string(path);
}

class LineReader {
 public:
  explicit LineReader(const IncludeReader& include_reader) : include_reader_(include_reader) {}

  absl::Status Read(std::string_view text, std::string_view file_name) {
    chain_.emplace_back(file_name);
    bool in_quote = false;
    std::string joined;
    int start_line = 0;
    int line_number = 0;
    size_t pos = 0;
    while (pos < text.size()) {
      size_t end = text.find('\n', pos);
      if (end == std::string_view::npos) end = text.size();
      std::string_view physical = text.substr(pos, end - pos);
      pos = end + 1;
      ++line_number;
      if (joined.empty()) start_line = line_number;
      std::string_view content = TrimRight(StripComment(physical, in_quote));
      if (!content.empty() && content.back() == '\\') {
        content.remove_suffix(1);
        absl::StrAppend(&joined, AsAbsl(content), " ");
        continue;
      }
      absl::StrAppend(&joined, AsAbsl(content));
      in_quote = false;
      absl::Status status = Finish(joined, file_name, start_line);
      if (!status.ok()) return status;
      joined.clear();
    }
    // A continuation on the last line simply ends the logical line.
    absl::Status status = Finish(joined, file_name, start_line);
    chain_.pop_back();
    return status;
  }

  std::vector<LogicalLine> TakeLines() { return std::move(lines_); }

 private:
  absl::Status Finish(std::string_view joined, std::string_view file_name, int start_line) {
    absl::StatusOr<std::vector<KeyValue>> tokens = Tokenize(joined, file_name, start_line);
    if (!tokens.ok()) return tokens.status();
    if (tokens->empty()) return absl::OkStatus();
    LogicalLine line{std::string(file_name), start_line, *std::move(tokens)};
    const KeyValue& first = line.pairs.front();
    if (!first.has_equals && EqualsIgnoreCase(first.key, "Include")) return Include(line);
    lines_.push_back(std::move(line));
    return absl::OkStatus();
  }

  absl::Status Include(const LogicalLine& line) {
    const std::string& key = line.pairs.front().key;
    if (line.pairs.size() != 2) {
      return LineError(line, key,
                       line.pairs.size() < 2 ? "missing file name (Include PATH)"
                                             : "expected one file name (Include PATH)");
    }
    if (!include_reader_) return LineError(line, key, "includes are not available here");
    std::string path = ResolveInclude(line.file, line.pairs[1].text);
    if (static_cast<int>(chain_.size()) > kMaxIncludeDepth) {
      return LineError(line, key,
                       absl::StrCat("'", path, "' nested more than ", kMaxIncludeDepth,
                                    " levels deep (is there an include cycle?)"));
    }
    if (std::find(chain_.begin(), chain_.end(), path) != chain_.end()) {
      std::string cycle;
      for (const std::string& file : chain_) absl::StrAppend(&cycle, file, " -> ");
      return LineError(line, key, absl::StrCat("include cycle: ", cycle, path));
    }
    absl::StatusOr<std::string> text = include_reader_(path);
    if (!text.ok()) {
      return absl::Status(text.status().code(),
                          absl::StrCat(line.file, ":", line.line, ": ", key, ": cannot read '",
                                       path, "': ", text.status().message()));
    }
    return Read(*text, path);
  }

  const IncludeReader& include_reader_;
  std::vector<std::string> chain_;  // files being read, outermost first
  std::vector<LogicalLine> lines_;
};

}  // namespace

absl::StatusOr<std::vector<LogicalLine>> ReadLogicalLines(std::string_view text,
                                                          std::string_view file_name,
                                                          const IncludeReader& include_reader) {
  LineReader reader(include_reader);
  absl::Status status = reader.Read(text, file_name);
  if (!status.ok()) return status;
  return reader.TakeLines();
}

absl::Status LineError(const LogicalLine& line, std::string_view key, std::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat(line.file, ":", line.line, ": ", AsAbsl(key), ": ", AsAbsl(what)));
}

std::string WrittenKey(const LogicalLine& line, std::string_view canonical) {
  for (const KeyValue& pair : line.pairs) {
    if (EqualsIgnoreCase(pair.key, canonical)) return pair.key;
  }
  return std::string(canonical);
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (LowerChar(a[i]) != LowerChar(b[i])) return false;
  }
  return true;
}

std::string ToUpper(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return out;
}

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = LowerChar(c);
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  return TrimRight(s);
}

std::vector<std::string> SplitList(std::string_view value, std::string_view separators) {
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= value.size()) {
    size_t end = value.find_first_of(separators, start);
    if (end == std::string_view::npos) end = value.size();
    std::string_view item = Trim(value.substr(start, end - start));
    if (!item.empty()) items.emplace_back(item);
    start = end + 1;
  }
  return items;
}

namespace {

// "a whole number from 1 to 65535", for messages about an empty or overflowing value.
std::string IntegerRange(int64_t min, int64_t max) {
  if (max == kMaxInt64) return absl::StrCat("a whole number of at least ", min);
  return absl::StrCat("a whole number from ", min, " to ", max);
}

// Splits a value ParseDuration has accepted into its fields and checks that every
// field after the first is within its clock range.
absl::Status CheckTimeFields(std::string_view value, int64_t seconds) {
  std::string_view rest = value;
  size_t dash = value.find('-');
  bool has_days = dash != std::string_view::npos;
  if (has_days) rest = value.substr(dash + 1);
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    size_t colon = rest.find(':', start);
    parts.push_back(rest.substr(start, colon == std::string_view::npos ? colon : colon - start));
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  // Units of each field after the day count, by form: D-HH[:MM[:SS]], HH:MM:SS,
  // MM:SS, MM. Without a day count the leading field is unbounded.
  static constexpr const char* kUnits[] = {"hours", "minutes", "seconds"};
  static constexpr int64_t kLimits[] = {23, 59, 59};
  size_t first_unit = has_days ? 0 : (parts.size() == 3 ? 0 : 1);
  for (size_t i = 0; i < parts.size(); ++i) {
    if (!has_days && i == 0) continue;
    size_t unit = first_unit + i;
    int64_t number = 0;
    std::from_chars(parts[i].data(), parts[i].data() + parts[i].size(), number);
    if (number > kLimits[unit]) {
      return absl::InvalidArgumentError(absl::StrCat(
          Quoted(value), " has ", number, " ", kUnits[unit], " (at most ", kLimits[unit],
          "); write ", FormatTimeLimit(seconds), " if that is what you mean"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<int64_t> ParseInteger(std::string_view value, int64_t min, int64_t max) {
  if (value.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("missing value (expected ", IntegerRange(min, max), ")"));
  }
  int64_t number = 0;
  const char* end = value.data() + value.size();
  auto [ptr, ec] = std::from_chars(value.data(), end, number);
  if (ec == std::errc::result_out_of_range) {
    // from_chars read a whole number that does not fit 64 bits.
    if (value.front() != '-') {
      return absl::InvalidArgumentError(
          absl::StrCat(Quoted(value), " is too large (at most ", max, ")"));
    }
    number = std::numeric_limits<int64_t>::min();
  } else if (ec != std::errc() || ptr != end) {
    return absl::InvalidArgumentError(absl::StrCat(Quoted(value), " is not a number"));
  }
  if (number < min) {
    return absl::InvalidArgumentError(min == 0
                                          ? absl::StrCat(Quoted(value), " must not be negative")
                                          : absl::StrCat(Quoted(value), " must be at least ", min));
  }
  if (number > max) {
    return absl::InvalidArgumentError(absl::StrCat(Quoted(value), " must be at most ", max));
  }
  return number;
}

absl::StatusOr<double> ParseNumber(std::string_view value) {
  if (value.empty()) {
    return absl::InvalidArgumentError("missing value (expected a number such as 100 or 101.5)");
  }
  double number = 0;
  const char* end = value.data() + value.size();
  auto [ptr, ec] = std::from_chars(value.data(), end, number, std::chars_format::fixed);
  if (ec != std::errc() || ptr != end || !std::isfinite(number)) {
    return absl::InvalidArgumentError(absl::StrCat(Quoted(value), " is not a number"));
  }
  return number;
}

absl::StatusOr<bool> ParseBool(std::string_view value) {
  if (value.empty()) return absl::InvalidArgumentError("missing value (expected YES or NO)");
  for (std::string_view yes : {"YES", "TRUE", "1"}) {
    if (EqualsIgnoreCase(value, yes)) return true;
  }
  for (std::string_view no : {"NO", "FALSE", "0"}) {
    if (EqualsIgnoreCase(value, no)) return false;
  }
  return absl::InvalidArgumentError(absl::StrCat(Quoted(value), " is not YES or NO"));
}

absl::StatusOr<uint64_t> ParseMiB(std::string_view value) {
  if (value.empty()) {
    return absl::InvalidArgumentError("missing value (expected a size in MiB, e.g. 4096 or 4G)");
  }
  absl::StatusOr<uint64_t> bytes = ParseSize(value, kMiB);
  if (!bytes.ok()) return bytes.status();
  if (*bytes % kMiB != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(Quoted(value), " is not a whole number of MiB (memory is counted in MiB)"));
  }
  return BytesToMiB(*bytes);
}

absl::StatusOr<int64_t> ParseTimeLimit(std::string_view value) {
  if (value.empty()) {
    return absl::InvalidArgumentError(
        "missing value (expected a time such as 30, 1:00:00, 1-00:00:00 or UNLIMITED)");
  }
  absl::StatusOr<int64_t> seconds = ParseDuration(value);
  if (!seconds.ok() || *seconds == kInfiniteDuration) return seconds;
  if (absl::Status fields = CheckTimeFields(value, *seconds); !fields.ok()) return fields;
  return seconds;
}

bool IsUnlimited(std::string_view value) {
  return EqualsIgnoreCase(value, "UNLIMITED") || EqualsIgnoreCase(value, "INFINITE");
}

absl::StatusOr<int64_t> HighestCoreIndex(std::string_view value) {
  const std::string bad = absl::StrCat(Quoted(value), " is not a core list (e.g. 0-15,32-47)");
  if (value.empty()) {
    return absl::InvalidArgumentError("missing value (expected a core list such as 0-15)");
  }
  int64_t highest = -1;
  size_t start = 0;
  while (start <= value.size()) {
    size_t comma = value.find(',', start);
    if (comma == std::string_view::npos) comma = value.size();
    std::string_view item = value.substr(start, comma - start);
    size_t dash = item.find('-');
    std::string_view first_text = item.substr(0, dash);
    std::string_view last_text = dash == std::string_view::npos ? item : item.substr(dash + 1);
    absl::StatusOr<int64_t> first = ParseInteger(first_text, 0, kMaxInt);
    absl::StatusOr<int64_t> last = ParseInteger(last_text, 0, kMaxInt);
    if (!first.ok() || !last.ok()) return absl::InvalidArgumentError(bad);
    if (*last < *first) {
      return absl::InvalidArgumentError(absl::StrCat(Quoted(value), " has a descending range ",
                                                     Quoted(item), " (write ", *last, "-", *first,
                                                     ")"));
    }
    highest = std::max(highest, *last);
    start = comma + 1;
  }
  return highest;
}

absl::Status Invalid(std::string_view what) { return absl::InvalidArgumentError(AsAbsl(what)); }

std::string Quoted(std::string_view value) { return absl::StrCat("'", AsAbsl(value), "'"); }

absl::Status SetIntOrUnlimited(std::string_view value, int64_t min, int64_t max, int64_t& out) {
  if (IsUnlimited(value)) {
    out = -1;
    return absl::OkStatus();
  }
  return SetInt(value, min, max, out);
}

absl::Status SetBool(std::string_view value, bool& out) {
  absl::StatusOr<bool> parsed = ParseBool(value);
  if (!parsed.ok()) return parsed.status();
  out = *parsed;
  return absl::OkStatus();
}

absl::Status SetTimeLimit(std::string_view value, bool allow_unlimited, int64_t& out) {
  absl::StatusOr<int64_t> seconds = ParseTimeLimit(value);
  if (!seconds.ok()) return seconds.status();
  if (*seconds == kInfiniteDuration && !allow_unlimited) {
    return Invalid(absl::StrCat(Quoted(value), " is not allowed here (give a duration)"));
  }
  out = *seconds;
  return absl::OkStatus();
}

absl::Status SetChoice(std::string_view value, std::initializer_list<std::string_view> choices,
                       std::string& out) {
  for (std::string_view choice : choices) {
    if (EqualsIgnoreCase(value, choice)) {
      out = std::string(choice);
      return absl::OkStatus();
    }
  }
  std::vector<std::string> names(choices.begin(), choices.end());
  if (value.empty()) {
    return Invalid(
        absl::StrCat("missing value (expected one of ", absl::StrJoin(names, ", "), ")"));
  }
  return Invalid(absl::StrCat(Quoted(value), " is not one of ", absl::StrJoin(names, ", ")));
}

absl::Status SetString(std::string_view value, std::string& out) {
  out = std::string(value);
  return absl::OkStatus();
}

absl::Status SetNonEmpty(std::string_view value, std::string& out) {
  if (value.empty()) return Invalid("must not be empty");
  return SetString(value, out);
}

absl::Status SetAbsolutePath(std::string_view value, std::string& out) {
  if (value.empty()) return Invalid("must not be empty");
  if (value.front() != '/') {
    return Invalid(absl::StrCat(Quoted(value), " is not an absolute path (start it with /)"));
  }
  return SetString(value, out);
}

absl::Status SetList(std::string_view value, std::vector<std::string>& out) {
  out = SplitList(value, ",");
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> Expand(std::string_view expression) {
  absl::StatusOr<std::vector<std::string>> names = ExpandHostlist(expression);
  if (!names.ok()) return names.status();
  if (names->empty()) return Invalid(absl::StrCat(Quoted(expression), " names nothing"));
  return names;
}

absl::Status SetHostlist(std::string_view value, std::vector<std::string>& out) {
  absl::StatusOr<std::vector<std::string>> names = Expand(value);
  if (!names.ok()) return names.status();
  out = *std::move(names);
  return absl::OkStatus();
}

int KeyDistance(std::string_view a, std::string_view b) {
  // Three rolling rows of the classic dynamic programme: the transposition step
  // looks two rows back.
  std::vector<int> two_back(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) previous[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      int cost = LowerChar(a[i - 1]) == LowerChar(b[j - 1]) ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && LowerChar(a[i - 1]) == LowerChar(b[j - 2]) &&
          LowerChar(a[i - 2]) == LowerChar(b[j - 1])) {
        current[j] = std::min(current[j], two_back[j - 2] + 1);
      }
    }
    std::swap(two_back, previous);
    std::swap(previous, current);
  }
  return previous[b.size()];
}

std::string_view SuggestKey(std::string_view key, const std::vector<std::string_view>& known) {
  std::string_view best;
  int best_distance = 3;
  for (std::string_view candidate : known) {
    int limit = candidate.size() <= 5 ? 1 : 2;
    size_t longer = std::max(key.size(), candidate.size());
    size_t shorter = std::min(key.size(), candidate.size());
    if (longer - shorter > static_cast<size_t>(limit)) continue;  // cheap reject
    int distance = KeyDistance(key, candidate);
    if (distance <= limit && distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

absl::Status CheckShape(const LogicalLine& line, const KeyValue& pair) {
  if (!pair.has_equals) {
    return LineError(line, pair.key,
                     absl::StrCat("missing '=' (write ", pair.key, "=VALUE, no spaces)"));
  }
  if (pair.key.empty()) {
    return LineError(line, pair.text, "empty key before '='");
  }
  return absl::OkStatus();
}

std::string LineWarning(const LogicalLine& line, std::string_view key, std::string_view what) {
  return absl::StrCat(line.file, ":", line.line, ": ", AsAbsl(key), ": ", AsAbsl(what));
}

absl::Status HandleUnknownKey(const LogicalLine& line, const KeyValue& pair,
                              const UnknownKeyPolicy& policy, const PairContext& context) {
  for (std::string_view name : policy.ignored) {
    if (EqualsIgnoreCase(name, pair.key)) return absl::OkStatus();
  }
  if (context.misplaced) {
    std::string reason = context.misplaced(pair.key);
    if (!reason.empty()) return LineError(line, pair.key, reason + context.suffix);
  }
  std::string_view suggestion = SuggestKey(pair.key, policy.known);
  if (!suggestion.empty()) {
    return LineError(line, pair.key,
                     absl::StrCat("unknown key (did you mean ", AsAbsl(suggestion), "?)"));
  }
  bool unsupported = false;
  for (std::string_view name : policy.unsupported) unsupported |= EqualsIgnoreCase(name, pair.key);
  if (policy.strict && !unsupported) {
    std::vector<std::string> valid(policy.known.begin(), policy.known.end());
    valid.insert(valid.end(), policy.unsupported.begin(), policy.unsupported.end());
    valid.insert(valid.end(), policy.ignored.begin(), policy.ignored.end());
    std::sort(valid.begin(), valid.end(),
              [](const std::string& a, const std::string& b) { return ToLower(a) < ToLower(b); });
    return LineError(line, pair.key,
                     absl::StrCat("unknown key (valid keys: ", absl::StrJoin(valid, ", "), ")"));
  }
  if (context.warnings != nullptr) {
    context.warnings->push_back(LineWarning(line, pair.key, "unknown key, ignored"));
  }
  return absl::OkStatus();
}

void WarnIfRepeated(const LogicalLine& line, size_t index, const PairContext& context) {
  if (context.warnings == nullptr) return;
  const KeyValue& pair = line.pairs[index];
  for (size_t i = 0; i < index; ++i) {
    if (!EqualsIgnoreCase(line.pairs[i].key, pair.key)) continue;
    context.warnings->push_back(
        LineWarning(line, pair.key,
                    absl::StrCat("given more than once on this line; the last value, ",
                                 Quoted(pair.value), ", is used")));
    return;
  }
}

}  // namespace config_internal
}  // namespace skiff
