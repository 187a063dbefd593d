#include "common/hostlist.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace skiff {
namespace {

// Debian builds Abseil with its own absl::string_view (ABSL_OPTION_USE_STD_STRING_VIEW
// is 0), which does not convert from std::string_view implicitly.
absl::string_view AsAbsl(std::string_view s) { return {s.data(), s.size()}; }

// One comma-separated item inside brackets: "07" or "01-04". `width` is the length
// of the lower bound as written, so "01-10" pads to two digits and "1-10" does not.
struct Range {
  uint64_t lo = 0;
  uint64_t hi = 0;
  size_t width = 0;
};

// A piece of an entry: literal text, or a bracket group whose ranges multiply out.
struct Segment {
  std::string literal;
  std::vector<Range> ranges;  // Empty for a literal segment.
};

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

// Parses an all-digit string; false on anything else, including overflow, so the
// caller never sees a partial or wrapped value.
bool ParseDigits(std::string_view s, uint64_t* value) {
  if (s.empty() || !std::all_of(s.begin(), s.end(), IsDigit)) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *value);
  return ec == std::errc() && ptr == s.data() + s.size();
}

// Decimal `value`, left-padded with zeros to `width` characters.
std::string Pad(uint64_t value, size_t width) {
  std::string digits = std::to_string(value);
  if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
  return digits;
}

// Saturating at kMaxHostlistSize + 1 keeps the arithmetic overflow-free while still
// telling "too many" apart from any legal count.
constexpr uint64_t kTooMany = static_cast<uint64_t>(kMaxHostlistSize) + 1;

uint64_t SaturatingMul(uint64_t a, uint64_t b) {
  if (a == 0 || b == 0) return 0;
  if (a >= kTooMany || b >= kTooMany || a > kTooMany / b) return kTooMany;
  return std::min(a * b, kTooMany);
}

class Expander {
 public:
  explicit Expander(std::string_view expression) : expression_(expression) {}

  absl::StatusOr<std::vector<std::string>> Run() {
    // Split at commas outside brackets only ("n[1,3],m" is two entries), checking
    // bracket structure for the whole expression on the way.
    std::vector<std::string_view> entries;
    size_t start = 0;
    bool in_bracket = false;
    for (size_t i = 0; i < expression_.size(); ++i) {
      char c = expression_[i];
      if (c == '[') {
        if (in_bracket) return Error("nested '['");
        in_bracket = true;
      } else if (c == ']') {
        if (!in_bracket) return Error("']' without '['");
        in_bracket = false;
      } else if (c == ',' && !in_bracket) {
        entries.push_back(expression_.substr(start, i - start));
        start = i + 1;
      }
    }
    if (in_bracket) return Error("unclosed '['");
    entries.push_back(expression_.substr(start));

    // Parse every entry and count its names before generating any, so that a typo
    // like "n[0-999999999]" fails fast instead of exhausting memory.
    std::vector<std::vector<Segment>> parsed;
    uint64_t total = 0;
    for (std::string_view raw : entries) {
      std::string_view entry = Trim(raw);
      // Slurm skips empty entries ("a,,b", a trailing comma) rather than failing.
      if (entry.empty()) continue;
      absl::StatusOr<std::vector<Segment>> segments = ParseEntry(entry);
      if (!segments.ok()) return segments.status();
      uint64_t count = 1;
      for (const Segment& segment : *segments) {
        if (segment.ranges.empty()) continue;
        uint64_t group = 0;
        for (const Range& range : segment.ranges) {
          group = std::min(group + std::min(range.hi - range.lo, kTooMany - 1) + 1, kTooMany);
        }
        count = SaturatingMul(count, group);
      }
      total = std::min(total + count, kTooMany);
      if (total > kMaxHostlistSize) {
        return Error(absl::StrCat("expands to more than ", kMaxHostlistSize, " names"));
      }
      parsed.push_back(*std::move(segments));
    }

    std::vector<std::string> names;
    names.reserve(total);
    for (const std::vector<Segment>& segments : parsed) {
      std::string name;
      Generate(segments, 0, &name, &names);
    }
    return names;
  }

 private:
  absl::Status Error(std::string_view problem) const {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid hostlist \"", AsAbsl(expression_), "\": ", AsAbsl(problem)));
  }

  // Brackets are known to be balanced and unnested here (Run checked).
  absl::StatusOr<std::vector<Segment>> ParseEntry(std::string_view entry) const {
    std::vector<Segment> segments;
    size_t i = 0;
    while (i < entry.size()) {
      size_t open = entry.find('[', i);
      if (open == std::string_view::npos) {
        segments.push_back({std::string(entry.substr(i)), {}});
        break;
      }
      if (open > i) segments.push_back({std::string(entry.substr(i, open - i)), {}});
      size_t close = entry.find(']', open);
      absl::StatusOr<std::vector<Range>> ranges =
          ParseRanges(entry.substr(open + 1, close - open - 1));
      if (!ranges.ok()) return ranges.status();
      segments.push_back({"", *std::move(ranges)});
      i = close + 1;
    }
    return segments;
  }

  absl::StatusOr<std::vector<Range>> ParseRanges(std::string_view body) const {
    std::vector<Range> ranges;
    size_t start = 0;
    while (true) {
      size_t comma = body.find(',', start);
      std::string_view item = body.substr(
          start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
      if (item.empty()) {
        return Error(absl::StrCat("empty range in \"[", AsAbsl(body), "]\""));
      }
      size_t dash = item.find('-');
      std::string_view lo_text = item.substr(0, dash);
      std::string_view hi_text = dash == std::string_view::npos ? lo_text : item.substr(dash + 1);
      Range range;
      for (auto [text, value] : {std::pair{lo_text, &range.lo}, std::pair{hi_text, &range.hi}}) {
        if (text.empty() || !std::all_of(text.begin(), text.end(), IsDigit)) {
          return Error(
              absl::StrCat("non-numeric bound \"", AsAbsl(text), "\" in \"[", AsAbsl(body), "]\""));
        }
        if (!ParseDigits(text, value)) {
          return Error(absl::StrCat("bound \"", AsAbsl(text), "\" is too large"));
        }
      }
      if (range.hi < range.lo) {
        return Error(absl::StrCat("range \"", AsAbsl(item), "\" ends below its start"));
      }
      range.width = lo_text.size();
      ranges.push_back(range);
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
    return ranges;
  }

  // Depth-first over segments gives the cartesian product with the leftmost group
  // varying slowest, the order Slurm writes it in.
  static void Generate(const std::vector<Segment>& segments, size_t index, std::string* name,
                       std::vector<std::string>* names) {
    if (index == segments.size()) {
      names->push_back(*name);
      return;
    }
    const Segment& segment = segments[index];
    size_t mark = name->size();
    if (segment.ranges.empty()) {
      name->append(segment.literal);
      Generate(segments, index + 1, name, names);
    } else {
      for (const Range& range : segment.ranges) {
        // Loop on the offset so that hi == UINT64_MAX cannot wrap around forever.
        for (uint64_t n = 0; n <= range.hi - range.lo; ++n) {
          name->append(Pad(range.lo + n, range.width));
          Generate(segments, index + 1, name, names);
          name->resize(mark);
          if (n == range.hi - range.lo) break;
        }
      }
    }
    name->resize(mark);
  }

  std::string_view expression_;
};

// A name split as Slurm splits it: the longest run of trailing digits is the
// number; everything before it is the prefix.
struct SplitName {
  std::string_view prefix;
  std::string_view digits;  // Empty when the name has no usable numeric suffix.
  uint64_t value = 0;
};

SplitName Split(std::string_view name) {
  size_t start = name.size();
  while (start > 0 && IsDigit(name[start - 1])) --start;
  SplitName split{name, {}, 0};
  uint64_t value = 0;
  // A suffix too long for uint64_t stays part of the literal name; it still
  // round-trips, it just is never folded into a range.
  if (start < name.size() && ParseDigits(name.substr(start), &value)) {
    split = {name.substr(0, start), name.substr(start), value};
  }
  return split;
}

}  // namespace

absl::StatusOr<std::vector<std::string>> ExpandHostlist(std::string_view expression) {
  return Expander(expression).Run();
}

std::string CompressHostlist(const std::vector<std::string>& names) {
  std::vector<SplitName> splits;
  splits.reserve(names.size());
  for (const std::string& name : names) splits.push_back(Split(name));
  // Names without a number sort before numbered ones with the same prefix; equal
  // values with different padding ("n1", "n01") are distinct names, ordered by text.
  auto key = [](const SplitName& s) {
    return std::make_tuple(s.prefix, !s.digits.empty(), s.value, s.digits);
  };
  std::sort(splits.begin(), splits.end(),
            [&](const SplitName& a, const SplitName& b) { return key(a) < key(b); });
  splits.erase(
      std::unique(splits.begin(), splits.end(),
                  [&](const SplitName& a, const SplitName& b) { return key(a) == key(b); }),
      splits.end());

  std::string out;
  size_t i = 0;
  while (i < splits.size()) {
    if (!out.empty()) out.push_back(',');
    const SplitName& first = splits[i];
    if (first.digits.empty()) {
      absl::StrAppend(&out, AsAbsl(first.prefix));
      ++i;
      continue;
    }
    // Fold this prefix's numbered names into ranges. A name joins the open range
    // when it is the next number and reads exactly as the range's padding would
    // print it, so that expansion reproduces it: "n8".."n12" fold to "n[8-12]" and
    // "n09","n10" to "n[09-10]", but "n1","n02" do not fold.
    std::vector<std::string> ranges;
    size_t count = 0;
    size_t j = i;
    while (j < splits.size() && splits[j].prefix == first.prefix && !splits[j].digits.empty()) {
      const SplitName& lo = splits[j];
      uint64_t hi = lo.value;
      size_t width = lo.digits.size();
      ++j;
      while (j < splits.size() && splits[j].prefix == first.prefix && !splits[j].digits.empty() &&
             hi != std::numeric_limits<uint64_t>::max() && splits[j].value == hi + 1 &&
             Pad(splits[j].value, width) == splits[j].digits) {
        hi = splits[j].value;
        ++j;
      }
      ranges.push_back(hi == lo.value ? std::string(lo.digits)
                                      : absl::StrCat(AsAbsl(lo.digits), "-", Pad(hi, width)));
      count += static_cast<size_t>(hi - lo.value) + 1;
    }
    if (count == 1) {
      absl::StrAppend(&out, AsAbsl(first.prefix), AsAbsl(first.digits));
    } else {
      absl::StrAppend(&out, AsAbsl(first.prefix), "[");
      for (size_t r = 0; r < ranges.size(); ++r) {
        absl::StrAppend(&out, r == 0 ? "" : ",", ranges[r]);
      }
      out.push_back(']');
    }
    i = j;
  }
  return out;
}

std::string SlurmCountList(const std::vector<int>& counts) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < counts.size();) {
    size_t run = 1;
    while (i + run < counts.size() && counts[i + run] == counts[i]) ++run;
    parts.push_back(run > 1 ? absl::StrCat(counts[i], "(x", run, ")") : absl::StrCat(counts[i]));
    i += run;
  }
  return absl::StrJoin(parts, ",");
}

}  // namespace skiff
