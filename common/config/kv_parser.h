// The Key=Value line syntax shared by skiff.conf, gres.conf and burst_buffer.conf,
// and the table-driven key dispatch the three parsers build on. Internal to
// //common/config: other code goes through config.h.
//
// Syntax, as Slurm reads its .conf files:
//   - '#' starts a comment to the end of the line, except inside double quotes;
//   - a line ending in '\' continues on the next one (the logical line is reported
//     at the physical line where it starts);
//   - a logical line is whitespace-separated Key=Value tokens; a value may be
//     double-quoted to hold spaces or '#';
//   - "Include PATH" (no '=') splices in another file read through the
//     IncludeReader; a relative PATH is relative to the including file's directory.
#ifndef SKIFF_COMMON_CONFIG_KV_PARSER_H_
#define SKIFF_COMMON_CONFIG_KV_PARSER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/config/config.h"

namespace skiff {
namespace config_internal {

// Debian builds Abseil with its own absl::string_view, which does not convert from
// std::string_view implicitly.
inline absl::string_view AsAbsl(std::string_view s) { return {s.data(), s.size()}; }

// Include nesting deeper than this is taken for a cycle.
inline constexpr int kMaxIncludeDepth = 10;

// One whitespace-separated token.
struct KeyValue {
  std::string key;          // before the first unquoted '=', as written
  std::string value;        // after it, quotes removed
  std::string text;         // the whole token, quotes removed
  bool has_equals = false;  // false for "CPUs" in "CPUs 4"
};

// One logical line (continuations joined, comments dropped); never empty.
struct LogicalLine {
  std::string file;  // the file it came from (an included file's resolved path)
  int line = 0;      // where it starts, 1-based
  std::vector<KeyValue> pairs;
};

// Splits `text` into logical lines, splicing Include files in place. Errors name
// the file and line: an unterminated quote, a malformed Include, an unreadable or
// too deeply nested (cyclic) include.
absl::StatusOr<std::vector<LogicalLine>> ReadLogicalLines(std::string_view text,
                                                          std::string_view file_name,
                                                          const IncludeReader& include_reader);

// "<file>:<line>: <key>: <what>" as InvalidArgument.
absl::Status LineError(const LogicalLine& line, std::string_view key, std::string_view what);

// The key as the user spelled it on `line` (first match, case-insensitive), or
// `canonical` when the line does not have it.
std::string WrittenKey(const LogicalLine& line, std::string_view canonical);

// ---- Small string helpers (ASCII, no locale).

bool EqualsIgnoreCase(std::string_view a, std::string_view b);
std::string ToUpper(std::string_view s);
std::string ToLower(std::string_view s);
std::string_view Trim(std::string_view s);
// Splits on any of `separators`, trims the pieces and drops empty ones.
std::vector<std::string> SplitList(std::string_view value, std::string_view separators);

// ---- Value parsers. Their messages name the value ("'abc' is not a number");
// callers prefix "<file>:<line>: <Key>: ".

absl::StatusOr<int64_t> ParseInteger(std::string_view value, int64_t min, int64_t max);
// YES/NO, TRUE/FALSE, 1/0, any case.
absl::StatusOr<bool> ParseBool(std::string_view value);
// A size in MiB as Slurm writes memory ("4096", "4G"), via ParseSize.
absl::StatusOr<uint64_t> ParseMiB(std::string_view value);
// A Slurm time limit in seconds ("1-00:00:00", "30"); UNLIMITED gives kInfiniteDuration.
absl::StatusOr<int64_t> ParseTimeLimit(std::string_view value);
// UNLIMITED or INFINITE, any case.
bool IsUnlimited(std::string_view value);

// ---- Typo detection.

// Optimal-string-alignment (Damerau-Levenshtein with adjacent transpositions)
// distance, ignoring ASCII case.
int KeyDistance(std::string_view a, std::string_view b);

// The known key `key` is most likely a misspelling of, or "" when none is close.
// Close means distance <= 2, or <= 1 for known keys of five letters or fewer: two
// edits turn almost any short word into another ("Foo" -> "QOS"), and an unrelated
// Slurm option must not be rejected as a typo.
std::string_view SuggestKey(std::string_view key, const std::vector<std::string_view>& known);

// ---- Table-driven dispatch.

// Sets one key on `target`. A non-OK status carries only <what>, e.g.
// "'abc' is not a number"; the dispatcher adds the location and key.
template <typename T>
struct KeySpec {
  std::string_view name;  // canonical spelling, also used in "did you mean"
  absl::Status (*set)(std::string_view value, T& target);
};

template <typename T>
struct KeyTable {
  std::vector<KeySpec<T>> keys;
  // Slurm options that Skiff accepts and ignores without a warning.
  std::vector<std::string_view> ignored;

  const KeySpec<T>* Find(std::string_view key) const {
    for (const KeySpec<T>& spec : keys) {
      if (EqualsIgnoreCase(spec.name, key)) return &spec;
    }
    return nullptr;
  }
  std::vector<std::string_view> Names() const {
    std::vector<std::string_view> names;
    names.reserve(keys.size());
    for (const KeySpec<T>& spec : keys) names.push_back(spec.name);
    return names;
  }
};

// What the dispatcher needs besides the table.
struct PairContext {
  // Appended to value errors, e.g. " (NodeName=n1)"; may be empty.
  std::string suffix;
  std::vector<std::string>* warnings = nullptr;
  // Optional: for a key that is valid only on another kind of line, the reason
  // ("only valid on a NodeName line"); "" otherwise.
  std::function<std::string(std::string_view key)> misplaced;
};

// Rejects a token without '=' or with an empty key.
absl::Status CheckShape(const LogicalLine& line, const KeyValue& pair);

// A key not in the table: silently accepted when ignored, an error when
// misplaced or a likely typo of a known key, otherwise a warning.
absl::Status HandleUnknownKey(const LogicalLine& line, const KeyValue& pair,
                              const std::vector<std::string_view>& known,
                              const std::vector<std::string_view>& ignored,
                              const PairContext& context);

// Applies every pair of `line` to `target` through `table`, in order (a repeated
// key: the last one wins, as in Slurm).
template <typename T>
absl::Status ApplyPairs(const LogicalLine& line, const KeyTable<T>& table,
                        const PairContext& context, T& target) {
  for (const KeyValue& pair : line.pairs) {
    if (absl::Status shape = CheckShape(line, pair); !shape.ok()) return shape;
    if (const KeySpec<T>* spec = table.Find(pair.key)) {
      absl::Status set = spec->set(pair.value, target);
      if (!set.ok()) {
        return LineError(line, pair.key, std::string(set.message()) + context.suffix);
      }
      continue;
    }
    absl::Status unknown = HandleUnknownKey(line, pair, table.Names(), table.ignored, context);
    if (!unknown.ok()) return unknown;
  }
  return absl::OkStatus();
}

}  // namespace config_internal
}  // namespace skiff

#endif  // SKIFF_COMMON_CONFIG_KV_PARSER_H_
