#include "client/json_writer.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <cmath>
#include <cstring>
#include <tuple>

namespace skiff::client {
namespace {

// Bytes that go out as they are: printable ASCII other than '"' and '\\'.
struct PlainBytes {
  bool plain[256] = {};
  constexpr PlainBytes() {
    for (int c = 0x20; c < 0x80; ++c) plain[c] = c != '"' && c != '\\';
  }
};
constexpr PlainBytes kPlain;

bool Plain(unsigned char c) { return kPlain.plain[c]; }

// The length of the run of plain bytes at text[i]: eight bytes at a time
// while a word has none to escape or check (a word-wide test for bytes below
// 0x20, from 0x80, '"' and '\\'; a byte above a hit may test as one too,
// which only ends the fast part early), then byte by byte.
size_t PlainRun(const std::string& text, size_t i) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL;
  constexpr uint64_t kHigh = 0x8080808080808080ULL;
  size_t run = i;
  while (run + 8 <= text.size()) {
    uint64_t word;
    std::memcpy(&word, text.data() + run, 8);
    const uint64_t special = (word - 0x20 * kOnes) | ((word ^ ('"' * kOnes)) - kOnes) |
                             ((word ^ ('\\' * kOnes)) - kOnes) | word;
    if ((special & kHigh) != 0) break;
    run += 8;
  }
  while (run < text.size() && Plain(static_cast<unsigned char>(text[run]))) ++run;
  return run - i;
}

// The length of the UTF-8 sequence at text[i], or 0 when it is not one
// (overlong forms, UTF-16 surrogates and values past U+10FFFF included).
size_t Utf8Length(const std::string& text, size_t i) {
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

// Text written front to back into a string used as a raw buffer (its size is
// what it holds room for, length_ what is written): a job list is ~200
// appends a job, each a bounds check and a copy here.
class JsonSink {
 public:
  JsonSink() { text_.resize(1024); }

  void Put(char c) {
    Room(1);
    text_[length_++] = c;
  }
  void Put(const char* data, size_t size) {
    Room(size);
    std::memcpy(text_.data() + length_, data, size);
    length_ += size;
  }
  void Put(std::string_view text) { Put(text.data(), text.size()); }
  // Room for `size` bytes at the end, to be written through the pointer and
  // then kept with Wrote(n), n <= size.
  char* Space(size_t size) {
    Room(size);
    return text_.data() + length_;
  }
  void Wrote(size_t size) { length_ += size; }
  void Fill(char c, size_t count) {
    Room(count);
    std::memset(text_.data() + length_, c, count);
    length_ += count;
  }

  size_t size() const { return length_; }
  std::string_view view() const { return std::string_view(text_.data(), length_); }
  void Clear() { length_ = 0; }
  std::string Take() {
    text_.resize(length_);
    length_ = 0;
    return std::move(text_);
  }

 private:
  void Room(size_t size) {
    if (length_ + size > text_.size()) text_.resize(std::max(text_.size() * 2, length_ + size));
  }

  std::string text_;
  size_t length_ = 0;
};

namespace {

void AppendEscaped(JsonSink& out, const std::string& text) {
  // A short plain string (most keys and values) is checked as it is copied.
  if (text.size() <= 24) {
    char* to = out.Space(text.size() + 2);
    to[0] = '"';
    size_t i = 0;
    while (i < text.size() && Plain(static_cast<unsigned char>(text[i]))) {
      to[i + 1] = text[i];
      ++i;
    }
    if (i == text.size()) {
      to[i + 1] = '"';
      out.Wrote(i + 2);
      return;
    }
  }
  out.Put('"');
  for (size_t i = 0; i < text.size();) {
    // Runs of plain characters (nearly all of a job's text) in one copy.
    if (const size_t run = PlainRun(text, i); run > 0) {
      out.Put(text.data() + i, run);
      i += run;
      continue;
    }
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '"' || c == '\\') {
      out.Put('\\');
      out.Put(static_cast<char>(c));
      ++i;
    } else if (c == '\n') {
      out.Put("\\n");
      ++i;
    } else if (c == '\t') {
      out.Put("\\t");
      ++i;
    } else if (c == '\r') {
      out.Put("\\r");
      ++i;
    } else if (c < 0x20) {
      static constexpr char kHex[] = "0123456789abcdef";
      const char escape[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
      out.Put(escape, sizeof(escape));
      ++i;
    } else if (const size_t length = Utf8Length(text, i); length > 0) {
      out.Put(text.data() + i, length);
      i += length;
    } else {
      out.Put("\xEF\xBF\xBD");  // U+FFFD for this byte
      ++i;
    }
  }
  out.Put('"');
}

void Indent(JsonSink& out, int indent) { out.Fill(' ', static_cast<size_t>(indent) * 2); }

// The shortest text that reads back as `value`; "null" for NaN and the
// infinities, which JSON cannot spell.
void AppendDouble(JsonSink& out, double value, bool point_in_whole) {
  if (!std::isfinite(value)) {
    out.Put("null");
    return;
  }
  char buffer[32];
  const std::to_chars_result end = std::to_chars(buffer, buffer + sizeof(buffer), value);
  const std::string_view text(buffer, static_cast<size_t>(end.ptr - buffer));
  out.Put(text);
  if (point_in_whole && text.find_first_of(".e") == std::string_view::npos) out.Put(".0");
}

}  // namespace

Json::Json(Kind kind) : kind_(kind) {
  if (kind == Kind::kArray) value_.emplace<Elements>();
  if (kind == Kind::kObject) value_.emplace<Members>();
}

Json::Json(std::initializer_list<std::pair<std::string, Json>> members)
    : kind_(Kind::kObject), value_(std::in_place_type<Members>, members) {}

void Json::BecomeArray() {
  assert(kind_ == Kind::kNull);
  *this = Array();
}

void Json::BecomeObject() {
  assert(kind_ == Kind::kNull);
  *this = Object();
}

Json Json::Array(std::initializer_list<Json> values) {
  Json array = Array();
  array.elements() = values;
  return array;
}

Json Json::Strings(const std::vector<std::string>& values) {
  Json array = Array();
  Elements& elements = array.elements();
  elements.reserve(values.size());
  for (const std::string& value : values) elements.emplace_back(value);
  return array;
}

Json& Json::Set(const std::string& key, Json value) { return (*this)[key] = std::move(value); }

Json& Json::Add(std::string key, Json value) {
  Members& members = this->members();
  assert(std::none_of(members.begin(), members.end(),
                      [&](const auto& member) { return member.first == key; }));
  members.emplace_back(std::move(key), std::move(value));
  return members.back().second;
}

Json& Json::Add(const char* key, Json value) {
  Members& members = this->members();
  assert(std::none_of(members.begin(), members.end(),
                      [&](const auto& member) { return member.first == key; }));
  members.emplace_back(std::piecewise_construct, std::forward_as_tuple(key),
                       std::forward_as_tuple(std::move(value)));
  return members.back().second;
}

Json& Json::operator[](const std::string& key) {
  Members& members = this->members();
  for (auto& member : members) {
    if (member.first == key) return member.second;
  }
  members.emplace_back(key, Json());
  return members.back().second;
}

const Json* Json::Find(std::string_view key) const {
  if (const Members* members = members_if()) {
    for (const auto& member : *members) {
      if (member.first == key) return &member.second;
    }
  }
  return nullptr;
}

Json& Json::Push(Json value) {
  Elements& elements = this->elements();
  elements.push_back(std::move(value));
  return elements.back();
}

Json& Json::Reserve(size_t count) {
  if (kind_ == Kind::kArray) {
    elements().reserve(count);
  } else {
    members().reserve(count);
  }
  return *this;
}

size_t Json::size() const {
  if (const Elements* elements = std::get_if<Elements>(&value_)) return elements->size();
  if (const Members* members = members_if()) return members->size();
  return 0;
}

std::string Json::Text(JsonStyle style) const {
  JsonSink out;
  WriteTo(out, style, 0);
  return out.Take();
}

std::string Json::Dump() const {
  std::string out = Text();
  out.push_back('\n');
  return out;
}

void Json::WriteWithElements(const Json& document, std::string_view key, size_t count,
                             const std::function<Json(size_t)>& element,
                             const std::function<void(std::string_view)>& write, JsonStyle style) {
  const Json* list = document.Find(key);
  if (list == nullptr || list->kind_ != Kind::kArray || list->size() != 0) {
    write(document.Text(style));
    return;
  }
  const Members& members = *document.members_if();
  // The top-level object as WriteTo writes it, the list's elements made one
  // at a time where its "[]" would be. Its members are at indent 1, the
  // list's elements at indent 2.
  constexpr size_t kFlushBytes = 1 << 20;
  JsonSink text;
  text.Put(style.indented ? "{\n" : "{");
  for (size_t m = 0; m < members.size(); ++m) {
    const auto& [name, value] = members[m];
    if (style.indented) Indent(text, 1);
    AppendEscaped(text, name);
    text.Put(style.indented ? ": " : ":");
    if (&value != list || count == 0) {
      value.WriteTo(text, style, 1);
    } else {
      text.Put(style.indented ? "[\n" : "[");
      for (size_t i = 0; i < count; ++i) {
        if (style.indented) Indent(text, 2);
        element(i).WriteTo(text, style, 2);
        if (i + 1 < count) text.Put(',');
        if (style.indented) text.Put('\n');
        if (text.size() >= kFlushBytes) {
          write(text.view());
          text.Clear();
        }
      }
      if (style.indented) Indent(text, 1);
      text.Put(']');
    }
    if (m + 1 < members.size()) text.Put(',');
    if (style.indented) text.Put('\n');
  }
  text.Put('}');
  write(text.view());
}

void Json::DumpWithElements(const Json& document, size_t count,
                            const std::function<Json(size_t)>& element,
                            const std::function<void(std::string_view)>& write) {
  const Members* members = document.members_if();
  if (members != nullptr && !members->empty()) {
    WriteWithElements(document, members->back().first, count, element, write);
  } else {
    write(document.Text());
  }
  write("\n");
}

void Json::WriteTo(JsonSink& out, const JsonStyle& style, int indent) const {
  switch (kind_) {
    case Kind::kNull:
      out.Put("null");
      return;
    case Kind::kBool:
      out.Put(std::get<int64_t>(value_) != 0 ? "true" : "false");
      return;
    case Kind::kInt: {
      char buffer[24];
      const std::to_chars_result end =
          std::to_chars(buffer, buffer + sizeof(buffer), std::get<int64_t>(value_));
      out.Put(buffer, static_cast<size_t>(end.ptr - buffer));
      return;
    }
    case Kind::kDouble:
      AppendDouble(out, std::get<double>(value_), style.point_in_whole_doubles);
      return;
    case Kind::kString:
      AppendEscaped(out, std::get<std::string>(value_));
      return;
    case Kind::kArray: {
      const Elements& elements = std::get<Elements>(value_);
      if (elements.empty()) {
        out.Put("[]");
        return;
      }
      out.Put('[');
      if (style.indented) out.Put('\n');
      for (size_t i = 0; i < elements.size(); ++i) {
        if (style.indented) Indent(out, indent + 1);
        elements[i].WriteTo(out, style, indent + 1);
        if (i + 1 < elements.size()) out.Put(',');
        if (style.indented) out.Put('\n');
      }
      if (style.indented) Indent(out, indent);
      out.Put(']');
      return;
    }
    case Kind::kObject: {
      const Members& members = std::get<Members>(value_);
      if (members.empty()) {
        out.Put("{}");
        return;
      }
      out.Put('{');
      if (style.indented) out.Put('\n');
      for (size_t i = 0; i < members.size(); ++i) {
        if (style.indented) Indent(out, indent + 1);
        AppendEscaped(out, members[i].first);
        out.Put(':');
        if (style.indented) out.Put(' ');
        members[i].second.WriteTo(out, style, indent + 1);
        if (i + 1 < members.size()) out.Put(',');
        if (style.indented) out.Put('\n');
      }
      if (style.indented) Indent(out, indent);
      out.Put('}');
      return;
    }
  }
}

Json SlurmJsonEnvelope() {
  Json envelope = Json::Object();
  Json& meta = envelope["meta"] = Json::Object();
  Json& plugin = meta["plugin"] = Json::Object();
  plugin.Set("type", "openapi/v0.0.38");
  plugin.Set("name", "Slurm OpenAPI v0.0.38");
  Json& slurm = meta["Slurm"] = Json::Object();
  Json& version = slurm["version"] = Json::Object();
  version.Set("major", 22);
  version.Set("micro", 8);
  version.Set("minor", 5);
  slurm.Set("release", "22.05.8");
  envelope.Set("errors", Json::Array());
  return envelope;
}

}  // namespace skiff::client
