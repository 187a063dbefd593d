#include "restd/data_parser/json_out.h"

#include "absl/strings/str_cat.h"

namespace skiff::restd {
namespace {

// The length of the UTF-8 sequence at text[i], or 0 when it is not one
// (overlong forms, surrogates and values past U+10FFFF included).
size_t Utf8Length(absl::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char c = byte(i);
  size_t length = 0;
  uint32_t code = 0;
  if (c >= 0xC2 && c <= 0xDF) {
    length = 2;
    code = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    length = 3;
    code = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    length = 4;
    code = c & 0x07;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    code = (code << 6) | (byte(i + k) & 0x3F);
  }
  if ((length == 3 && (code < 0x800 || (code >= 0xD800 && code <= 0xDFFF))) ||
      (length == 4 && (code < 0x10000 || code > 0x10FFFF))) {
    return 0;
  }
  return length;
}

}  // namespace

void AppendJsonEscaped(absl::string_view text, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  size_t plain = 0;  // start of the bytes not yet copied
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
      ++i;
      continue;
    }
    size_t length = 1;
    std::string replacement;
    if (c >= 0x80) {
      length = Utf8Length(text, i);
      if (length > 0) {
        i += length;
        continue;
      }
      length = 1;
      replacement = "\xEF\xBF\xBD";
    } else if (c == '"') {
      replacement = "\\\"";
    } else if (c == '\\') {
      replacement = "\\\\";
    } else if (c == '\n') {
      replacement = "\\n";
    } else if (c == '\t') {
      replacement = "\\t";
    } else if (c == '\r') {
      replacement = "\\r";
    } else if (c == '\b') {
      replacement = "\\b";
    } else if (c == '\f') {
      replacement = "\\f";
    } else {
      replacement = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
    }
    out->append(text.data() + plain, i - plain);
    out->append(replacement);
    i += length;
    plain = i;
  }
  out->append(text.data() + plain, text.size() - plain);
}

void JsonOut::Separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) text_.push_back(',');
    first_.back() = false;
  }
}

JsonOut& JsonOut::BeginObject() {
  Separate();
  text_.push_back('{');
  first_.push_back(true);
  return *this;
}

JsonOut& JsonOut::EndObject() {
  text_.push_back('}');
  first_.pop_back();
  return *this;
}

JsonOut& JsonOut::BeginArray() {
  Separate();
  text_.push_back('[');
  first_.push_back(true);
  return *this;
}

JsonOut& JsonOut::EndArray() {
  text_.push_back(']');
  first_.pop_back();
  return *this;
}

JsonOut& JsonOut::Key(absl::string_view name) {
  Separate();
  text_.push_back('"');
  text_.append(name.data(), name.size());
  text_.append("\":");
  after_key_ = true;
  return *this;
}

JsonOut& JsonOut::String(absl::string_view value) {
  Separate();
  text_.push_back('"');
  AppendJsonEscaped(value, &text_);
  text_.push_back('"');
  return *this;
}

JsonOut& JsonOut::Int(int64_t value) {
  Separate();
  absl::StrAppend(&text_, value);
  return *this;
}

JsonOut& JsonOut::Bool(bool value) {
  Separate();
  text_.append(value ? "true" : "false");
  return *this;
}

JsonOut& JsonOut::Value(const nlohmann::json& value) {
  Separate();
  text_.append(value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  return *this;
}

JsonOut& JsonOut::Number(int64_t value) {
  Separate();
  absl::StrAppend(&text_, "{\"set\":true,\"infinite\":false,\"number\":", value, "}");
  return *this;
}

JsonOut& JsonOut::NoNumber() {
  Separate();
  text_.append("{\"set\":false,\"infinite\":false,\"number\":0}");
  return *this;
}

JsonOut& JsonOut::Infinite() {
  Separate();
  text_.append("{\"set\":false,\"infinite\":true,\"number\":0}");
  return *this;
}

}  // namespace skiff::restd
