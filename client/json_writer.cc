#include "client/json_writer.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>

namespace skiff::client {
namespace {

// Printable ASCII other than '"' and '\\' goes out as it is.
bool Plain(unsigned char c) { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\'; }

void AppendEscaped(std::string* out, const std::string& text) {
  out->push_back('"');
  for (size_t i = 0; i < text.size();) {
    // Runs of plain characters (nearly all of a job's text) in one append.
    size_t run = i;
    while (run < text.size() && Plain(static_cast<unsigned char>(text[run]))) ++run;
    if (run > i) {
      out->append(text, i, run - i);
      i = run;
      continue;
    }
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(static_cast<char>(c));
      ++i;
    } else if (c == '\n') {
      out->append("\\n");
      ++i;
    } else if (c == '\t') {
      out->append("\\t");
      ++i;
    } else if (c == '\r') {
      out->append("\\r");
      ++i;
    } else if (c < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof(buffer), "\\u%04x", c);
      out->append(buffer);
      ++i;
    } else {
      // A well-formed UTF-8 sequence goes through; anything else is U+FFFD.
      size_t length = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
      bool valid = length != 0 && i + length <= text.size() && c >= 0xC2 && c <= 0xF4;
      for (size_t k = 1; valid && k < length; ++k) {
        valid = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
      }
      if (valid) {
        out->append(text, i, length);
        i += length;
      } else {
        out->append("\xEF\xBF\xBD");
        ++i;
      }
    }
  }
  out->push_back('"');
}

void Indent(std::string* out, int indent) { out->append(static_cast<size_t>(indent) * 2, ' '); }

}  // namespace

Json Json::Strings(const std::vector<std::string>& values) {
  Json array = Array();
  for (const std::string& value : values) array.Push(value);
  return array;
}

Json& Json::Set(const std::string& key, Json value) { return (*this)[key] = std::move(value); }

Json& Json::Add(std::string key, Json value) {
  assert(std::none_of(members_.begin(), members_.end(),
                      [&](const auto& member) { return member.first == key; }));
  members_.emplace_back(std::move(key), std::move(value));
  return members_.back().second;
}

Json& Json::operator[](const std::string& key) {
  for (auto& member : members_) {
    if (member.first == key) return member.second;
  }
  members_.emplace_back(key, Json());
  return members_.back().second;
}

Json& Json::Push(Json value) {
  array_.push_back(std::move(value));
  return array_.back();
}

std::string Json::Dump() const {
  std::string out;
  DumpTo(&out, 0);
  out.push_back('\n');
  return out;
}

void Json::DumpWithElements(const Json& document, size_t count,
                            const std::function<Json(size_t)>& element,
                            const std::function<void(std::string_view)>& write) {
  std::string text = document.Dump();
  constexpr std::string_view kEmptyLast = "[]\n}\n";
  if (count == 0 || text.size() < kEmptyLast.size() ||
      text.compare(text.size() - kEmptyLast.size(), kEmptyLast.size(), kEmptyLast) != 0) {
    write(text);
    return;
  }
  text.resize(text.size() - kEmptyLast.size());
  text.append("[\n");
  // The array is the top-level object's member (indent 1): its elements are
  // at indent 2, as DumpTo would place them.
  constexpr size_t kFlushBytes = 1 << 20;
  for (size_t i = 0; i < count; ++i) {
    Indent(&text, 2);
    element(i).DumpTo(&text, 2);
    text.append(i + 1 < count ? ",\n" : "\n");
    if (text.size() >= kFlushBytes) {
      write(text);
      text.clear();
    }
  }
  Indent(&text, 1);
  text.append("]\n}\n");
  write(text);
}

void Json::DumpTo(std::string* out, int indent) const {
  switch (kind_) {
    case Kind::kNull:
      out->append("null");
      return;
    case Kind::kBool:
      out->append(int_ != 0 ? "true" : "false");
      return;
    case Kind::kInt:
      out->append(std::to_string(int_));
      return;
    case Kind::kDouble: {
      if (!std::isfinite(double_)) {
        out->append("null");
        return;
      }
      char buffer[32];
      std::snprintf(buffer, sizeof(buffer), "%.17g", double_);
      out->append(buffer);
      return;
    }
    case Kind::kString:
      AppendEscaped(out, string_);
      return;
    case Kind::kArray:
      if (array_.empty()) {
        out->append("[]");
        return;
      }
      out->append("[\n");
      for (size_t i = 0; i < array_.size(); ++i) {
        Indent(out, indent + 1);
        array_[i].DumpTo(out, indent + 1);
        out->append(i + 1 < array_.size() ? ",\n" : "\n");
      }
      Indent(out, indent);
      out->push_back(']');
      return;
    case Kind::kObject:
      if (members_.empty()) {
        out->append("{}");
        return;
      }
      out->append("{\n");
      for (size_t i = 0; i < members_.size(); ++i) {
        Indent(out, indent + 1);
        AppendEscaped(out, members_[i].first);
        out->append(": ");
        members_[i].second.DumpTo(out, indent + 1);
        out->append(i + 1 < members_.size() ? ",\n" : "\n");
      }
      Indent(out, indent);
      out->push_back('}');
      return;
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
