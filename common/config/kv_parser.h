// The Key=Value line syntax shared by skiff.conf, gres.conf, burst_buffer.conf and
// cgroup.conf, the value setters and the table-driven key dispatch the parsers build
// on. Internal to //common/config: other code goes through config.h.
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
#include <initializer_list>
#include <limits>
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
// callers prefix "<file>:<line>: <Key>: ". An empty value is "missing value (expected
// ...)", naming what would have been accepted.

absl::StatusOr<int64_t> ParseInteger(std::string_view value, int64_t min, int64_t max);
// A finite decimal number such as "100" or "101.5" (cgroup.conf percentages); the
// caller checks the range.
absl::StatusOr<double> ParseNumber(std::string_view value);
// YES/NO, TRUE/FALSE, 1/0, any case.
absl::StatusOr<bool> ParseBool(std::string_view value);
// A size in whole MiB as Slurm writes memory ("4096", "4G"), via ParseSize. A size
// that is not a whole number of MiB ("1500K") is an error: the structs hold MiB, and
// rounding would silently change the limit.
absl::StatusOr<uint64_t> ParseMiB(std::string_view value);
// A Slurm time limit in seconds ("1-00:00:00", "30"); UNLIMITED gives kInfiniteDuration.
// Unlike ParseDuration (which job scripts go through), a field after the first that
// is out of its clock range ("1:99:00") is an error: a config file is written once
// by an admin, and such a value is a typo more often than a deliberate 2:39:00.
absl::StatusOr<int64_t> ParseTimeLimit(std::string_view value);
// UNLIMITED or INFINITE, any case.
bool IsUnlimited(std::string_view value);
// A core list as gres.conf's Cores= takes it ("0-15,32-47", "3"): the highest core
// index it names. Errors: an empty item, a non-number, a descending range.
absl::StatusOr<int64_t> HighestCoreIndex(std::string_view value);

// ---- Value setters for the key tables. Each returns only <what>, as KeySpec wants.

inline constexpr int64_t kMaxInt = std::numeric_limits<int>::max();
inline constexpr int64_t kMaxInt64 = std::numeric_limits<int64_t>::max();
// Slurm keeps these in 16- and 32-bit fields; its man page gives 65533 as the
// limit of most 16-bit ones.
inline constexpr int64_t kMaxUint16 = 65535;
inline constexpr int64_t kMaxSlurm16 = 65533;
inline constexpr int64_t kMaxUint32 = 4294967295;

absl::Status Invalid(std::string_view what);
std::string Quoted(std::string_view value);

template <typename Int>
absl::Status SetInt(std::string_view value, int64_t min, int64_t max, Int& out) {
  absl::StatusOr<int64_t> number = ParseInteger(value, min, max);
  if (!number.ok()) return number.status();
  out = static_cast<Int>(*number);
  return absl::OkStatus();
}

// An integer that may also be UNLIMITED/INFINITE, stored as -1.
absl::Status SetIntOrUnlimited(std::string_view value, int64_t min, int64_t max, int64_t& out);
absl::Status SetBool(std::string_view value, bool& out);

template <typename Int>
absl::Status SetMiB(std::string_view value, uint64_t min, Int& out) {
  absl::StatusOr<uint64_t> mib = ParseMiB(value);
  if (!mib.ok()) return mib.status();
  if (*mib < min) return Invalid(Quoted(value) + " is less than " + std::to_string(min) + " MiB");
  if (*mib > static_cast<uint64_t>(std::numeric_limits<Int>::max())) {
    return Invalid(Quoted(value) + " is too large");
  }
  out = static_cast<Int>(*mib);
  return absl::OkStatus();
}

// A Slurm time limit; `allow_unlimited` says whether UNLIMITED makes sense here.
absl::Status SetTimeLimit(std::string_view value, bool allow_unlimited, int64_t& out);
// One of `choices`, any case; stores the choice's own spelling.
absl::Status SetChoice(std::string_view value, std::initializer_list<std::string_view> choices,
                       std::string& out);
absl::Status SetString(std::string_view value, std::string& out);
absl::Status SetNonEmpty(std::string_view value, std::string& out);
// An absolute path: daemons resolve relative ones against a working directory the
// admin does not choose.
absl::Status SetAbsolutePath(std::string_view value, std::string& out);
absl::Status SetList(std::string_view value, std::vector<std::string>& out);
// A Slurm hostlist ("n[1-4],gpu01") expanded; one that names nothing is an error.
absl::StatusOr<std::vector<std::string>> Expand(std::string_view expression);
absl::Status SetHostlist(std::string_view value, std::vector<std::string>& out);

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

// What to do with a key that is not in KeyTable::keys.
struct UnknownKeyPolicy {
  std::vector<std::string_view> known;  // the table's keys, for "did you mean"
  // Slurm options that Skiff accepts and ignores without a warning.
  std::vector<std::string_view> ignored;
  // Slurm options that Skiff does not implement: a warning each.
  std::vector<std::string_view> unsupported;
  // True where the file's keys are a closed set (gres.conf, cgroup.conf): any other
  // key is an error listing the valid ones, as Slurm's parser makes it. Otherwise
  // (skiff.conf, burst_buffer.conf) it is a warning: it may be a Slurm option that
  // Skiff does not know.
  bool strict = false;
};

template <typename T>
struct KeyTable {
  std::vector<KeySpec<T>> keys;
  std::vector<std::string_view> ignored;      // see UnknownKeyPolicy
  std::vector<std::string_view> unsupported;  // see UnknownKeyPolicy
  bool strict = false;                        // see UnknownKeyPolicy

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
  UnknownKeyPolicy Policy() const { return {Names(), ignored, unsupported, strict}; }
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

// "<file>:<line>: <key>: <what>", the form of every warning.
std::string LineWarning(const LogicalLine& line, std::string_view key, std::string_view what);

// Rejects a token without '=' or with an empty key.
absl::Status CheckShape(const LogicalLine& line, const KeyValue& pair);

// A key not in the table: silently accepted when ignored, an error when misplaced
// or a likely typo of a known key, then a warning or an error as `policy` says.
absl::Status HandleUnknownKey(const LogicalLine& line, const KeyValue& pair,
                              const UnknownKeyPolicy& policy, const PairContext& context);

// Slurm warns when a key is given twice on one line ("specified more than once,
// latest value used"); so does Skiff, for a known key at `index` seen earlier.
void WarnIfRepeated(const LogicalLine& line, size_t index, const PairContext& context);

// Applies every pair of `line` to `target` through `table`, in order (a repeated
// key: the last one wins, as in Slurm, with a warning).
template <typename T>
absl::Status ApplyPairs(const LogicalLine& line, const KeyTable<T>& table,
                        const PairContext& context, T& target) {
  for (size_t i = 0; i < line.pairs.size(); ++i) {
    const KeyValue& pair = line.pairs[i];
    if (absl::Status shape = CheckShape(line, pair); !shape.ok()) return shape;
    if (const KeySpec<T>* spec = table.Find(pair.key)) {
      absl::Status set = spec->set(pair.value, target);
      if (!set.ok()) {
        return LineError(line, pair.key, std::string(set.message()) + context.suffix);
      }
      WarnIfRepeated(line, i, context);
      continue;
    }
    absl::Status unknown = HandleUnknownKey(line, pair, table.Policy(), context);
    if (!unknown.ok()) return unknown;
  }
  return absl::OkStatus();
}

}  // namespace config_internal
}  // namespace skiff

#endif  // SKIFF_COMMON_CONFIG_KV_PARSER_H_
