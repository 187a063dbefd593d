// A small JSON reader and writer with no third-party library.
//
// Its first users are the burst-buffer API: burst_buffer.lua answers
// slurm_bb_pools() with JSON (parsed by ctld's pure core), and the Lua library's
// slurm.to_json/slurm.from_json (run in ctld and scriptd) need a value tree.
// It lives in common/ because every daemon and CLI may use it.
//
// Numbers keep integers exact (pool sizes reach 2^63): a number with no fraction
// or exponent that fits int64_t is an integer, anything else a double.
// Pure functions and plain values; thread-compatible.
#ifndef SKIFF_COMMON_JSON_H_
#define SKIFF_COMMON_JSON_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace skiff {

class JsonValue {
 public:
  enum class Type { kNull, kBool, kInteger, kDouble, kString, kArray, kObject };
  using Array = std::vector<JsonValue>;
  // Sorted keys: output is deterministic, which keeps golden tests stable.
  using Object = std::map<std::string, JsonValue>;

  JsonValue() = default;  // null
  static JsonValue Bool(bool b);
  static JsonValue Integer(int64_t i);
  static JsonValue Double(double d);
  static JsonValue String(std::string s);
  static JsonValue MakeArray(Array a = {});
  static JsonValue MakeObject(Object o = {});

  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::kNull; }
  bool is_number() const { return type_ == Type::kInteger || type_ == Type::kDouble; }

  // REQUIRES: the matching type (checked by assert in debug builds).
  bool as_bool() const;
  int64_t as_integer() const;
  double as_double() const;  // also for kInteger
  const std::string& as_string() const;
  const Array& as_array() const;
  const Object& as_object() const;

  // nullptr when this is not an object or the key is absent.
  const JsonValue* Find(std::string_view key) const;

 private:
  Type type_ = Type::kNull;
  bool bool_ = false;
  int64_t integer_ = 0;
  double double_ = 0;
  std::string string_;
  Array array_;
  Object object_;
};

// Parses one JSON document (RFC 8259; surrounding whitespace allowed). Nesting is
// limited to 200 levels so hostile input cannot exhaust the stack.
// Errors: InvalidArgument naming the byte offset and what was expected.
absl::StatusOr<JsonValue> ParseJson(std::string_view text);

// Compact JSON. Doubles that are not finite become null (JSON has no NaN).
std::string WriteJson(const JsonValue& value);

}  // namespace skiff

#endif  // SKIFF_COMMON_JSON_H_
