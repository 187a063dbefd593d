// A JSON text written front to back, for answers too large to build as a
// tree first (10,000 jobs are 150 tree nodes each: a million allocations
// made and freed per request). Compact: no spaces or newlines. Strings are
// escaped as JSON needs; bytes that are not UTF-8 become U+FFFD, as
// nlohmann::json's dump(error_handler_t::replace) does for the small answers.
//
// Pure; one writer per thread.
#ifndef SKIFF_RESTD_DATA_PARSER_JSON_OUT_H_
#define SKIFF_RESTD_DATA_PARSER_JSON_OUT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace skiff::restd {

class JsonOut {
 public:
  explicit JsonOut(std::string* text) : text_(*text) {}

  JsonOut& BeginObject();
  JsonOut& EndObject();
  JsonOut& BeginArray();
  JsonOut& EndArray();
  // The next value's name, inside an object. REQUIRES: `name` needs no
  // escaping (restd's field names, written in its code); it is copied as is.
  JsonOut& Key(absl::string_view name);

  JsonOut& String(absl::string_view value);
  JsonOut& Int(int64_t value);
  JsonOut& Bool(bool value);
  // A value already made as a tree (small parts: exit codes, TRES lists).
  JsonOut& Value(const nlohmann::json& value);

  // data_parser's *_no_val_struct: set, unset (NO_VAL), infinite.
  JsonOut& Number(int64_t value);
  JsonOut& NoNumber();
  JsonOut& Infinite();

  // Key(name) then the value.
  template <typename T>
  JsonOut& Field(absl::string_view name, const T& value);

 private:
  void Separate();  // a comma before every value but an object's or array's first

  std::string& text_;
  std::vector<char> first_;  // per open object/array: nothing written in it yet
  bool after_key_ = false;
};

template <typename T>
JsonOut& JsonOut::Field(absl::string_view name, const T& value) {
  Key(name);
  if constexpr (std::is_same_v<T, bool>) {
    return Bool(value);
  } else if constexpr (std::is_integral_v<T>) {
    return Int(static_cast<int64_t>(value));
  } else if constexpr (std::is_same_v<T, nlohmann::json>) {
    return Value(value);
  } else {
    return String(value);
  }
}

// `text` as a JSON string body (no quotes), escaped, invalid UTF-8 replaced.
void AppendJsonEscaped(absl::string_view text, std::string* out);

}  // namespace skiff::restd

#endif  // SKIFF_RESTD_DATA_PARSER_JSON_OUT_H_
