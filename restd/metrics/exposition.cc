#include "restd/metrics/exposition.h"

#include <charconv>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace skiff::restd {
namespace {

const char* TypeName(MetricType type) { return type == MetricType::kCounter ? "counter" : "gauge"; }

// The length of the well-formed UTF-8 sequence at text[i] (RFC 3629: no
// overlong forms, no surrogates, nothing above U+10FFFF), or 0.
size_t Utf8SequenceAt(absl::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) return 1;
  size_t length;
  unsigned char low = 0x80, high = 0xBF;  // the second byte's range
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  if (byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (size_t k = 2; k < length; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return length;
}

}  // namespace

std::string FormatSampleValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  if (value == 0) return "0";  // also -0
  char buffer[64];
  // Integers up to 2^53 are exact in a double; write them without exponent.
  if (std::trunc(value) == value && std::fabs(value) < 9007199254740992.0) {
    const std::to_chars_result r =
        std::to_chars(buffer, buffer + sizeof(buffer), static_cast<int64_t>(value));
    return std::string(buffer, r.ptr);
  }
  // Shortest exact digits, in plain notation ("0.0005", not "5e-04") where
  // that stays short.
  const double magnitude = std::fabs(value);
  const std::to_chars_result r =
      magnitude >= 1e-9 && magnitude < 1e15
          ? std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::fixed)
          : std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, r.ptr);
}

std::string EscapeLabelValue(absl::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (size_t i = 0; i < value.size();) {
    const char c = value[i];
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      const size_t length = Utf8SequenceAt(value, i);
      if (length == 0) {
        out += "\xEF\xBF\xBD";  // U+FFFD for the stray byte
        ++i;
        continue;
      }
      out.append(value.data() + i, length);
      i += length;
      continue;
    }
    ++i;
  }
  return out;
}

std::string EscapeHelp(absl::string_view help) {
  std::string out;
  out.reserve(help.size());
  for (char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

Exposition::Family& Exposition::FamilyOf(absl::string_view name, absl::string_view help,
                                         MetricType type) {
  auto [it, added] = index_.try_emplace(name, families_.size());
  if (added) {
    families_.push_back(Family{absl::StrCat("# HELP ", name, " ", EscapeHelp(help), "\n# TYPE ",
                                            name, " ", TypeName(type), "\n"),
                               ""});
  }
  return families_[it->second];
}

void Exposition::Declare(absl::string_view name, absl::string_view help, MetricType type) {
  FamilyOf(name, help, type);
}

void Exposition::Add(absl::string_view name, absl::string_view help, MetricType type, double value,
                     std::initializer_list<MetricLabel> labels) {
  std::string& out = FamilyOf(name, help, type).samples;
  out.append(name.data(), name.size());
  if (labels.size() > 0) {
    out += '{';
    bool first = true;
    for (const MetricLabel& label : labels) {
      absl::StrAppend(&out, first ? "" : ",", label.name, "=\"", EscapeLabelValue(label.value),
                      "\"");
      first = false;
    }
    out += '}';
  }
  absl::StrAppend(&out, " ", FormatSampleValue(value), "\n");
}

std::string Exposition::Text() const {
  size_t size = 0;
  for (const Family& family : families_) size += family.head.size() + family.samples.size();
  std::string out;
  out.reserve(size);
  for (const Family& family : families_) absl::StrAppend(&out, family.head, family.samples);
  return out;
}

}  // namespace skiff::restd
