#include "ctld/core/burst_buffer/directives.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/size.h"

namespace skiff::ctld {
namespace {

absl::string_view AsAbsl(std::string_view s) { return {s.data(), s.size()}; }

std::string_view StripLeading(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return s.substr(i);
}

std::string_view StripTrailing(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

// True when `line` (already left-stripped) is "#DIRECTIVE" alone or followed by
// whitespace.
bool IsDirectiveLine(std::string_view line, std::string_view directive) {
  if (line.size() < directive.size() + 1 || line[0] != '#') return false;
  if (line.substr(1, directive.size()) != directive) return false;
  if (line.size() == directive.size() + 1) return true;
  const char next = line[directive.size() + 1];
  return next == ' ' || next == '\t';
}

// A single trailing backslash continues the line; "\\" is the stop-expansion
// mark and does not.
bool EndsWithContinuation(std::string_view line) {
  size_t n = 0;
  while (n < line.size() && line[line.size() - 1 - n] == '\\') ++n;
  return n % 2 == 1;
}

std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      if (start < text.size()) lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::string_view Unquote(std::string_view v) {
  if (v.size() >= 2 && v.front() == '"' && v.back() == '"') return v.substr(1, v.size() - 2);
  return v;
}

absl::Status Invalid(std::string_view message) {
  return absl::InvalidArgumentError(std::string(message));
}

}  // namespace

const char* BbSubmitErrorText(const absl::Status& status) {
  return status.code() == absl::StatusCode::kPermissionDenied ? kBbPermissionText : kBbInvalidText;
}

std::vector<std::string> ExtractBbDirectives(std::string_view script, std::string_view directive) {
  std::vector<std::string> out;
  const std::vector<std::string_view> lines = SplitLines(script);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = StripTrailing(StripLeading(lines[i]));
    if (line.empty()) continue;
    if (line[0] != '#') break;  // end of the leading comment block
    if (!IsDirectiveLine(line, directive)) continue;
    std::string joined(line);
    while (EndsWithContinuation(joined) && i + 1 < lines.size()) {
      std::string_view next = StripTrailing(StripLeading(lines[i + 1]));
      if (next.empty() || next[0] != '#') break;  // the block ends; drop the '\'
      ++i;
      if (IsDirectiveLine(next, directive)) {
        next.remove_prefix(directive.size() + 1);
      } else {
        next.remove_prefix(1);
      }
      joined.pop_back();
      joined = std::string(StripTrailing(joined));
      absl::StrAppend(&joined, " ", AsAbsl(StripLeading(next)));
    }
    if (EndsWithContinuation(joined)) joined.pop_back();
    out.push_back(std::string(StripTrailing(joined)));
  }
  return out;
}

std::string RemoveBbDirectives(std::string_view script, std::string_view directive) {
  std::string out;
  const std::vector<std::string_view> lines = SplitLines(script);
  bool in_block = true;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = StripTrailing(StripLeading(lines[i]));
    if (in_block && !line.empty() && line[0] != '#') in_block = false;
    if (in_block && !line.empty() && IsDirectiveLine(line, directive)) {
      // Skip it and the comment lines that continue it, as ExtractBbDirectives reads them.
      std::string_view last = line;
      while (EndsWithContinuation(last) && i + 1 < lines.size()) {
        std::string_view next = StripTrailing(StripLeading(lines[i + 1]));
        if (next.empty() || next[0] != '#') break;
        ++i;
        last = next;
      }
      continue;
    }
    absl::StrAppend(&out, AsAbsl(lines[i]), "\n");
  }
  if (!script.empty() && script.back() != '\n' && !out.empty()) out.pop_back();
  return out;
}

std::vector<std::string> BbOptionToDirectives(std::string_view text, std::string_view directive) {
  std::vector<std::string> out;
  // ExtractBbDirectives handles continuations; first give bare lines the prefix.
  std::string as_script;
  for (std::string_view line : SplitLines(text)) {
    line = StripTrailing(StripLeading(line));
    if (line.empty()) continue;
    if (line[0] == '#') {
      absl::StrAppend(&as_script, AsAbsl(line), "\n");
    } else {
      absl::StrAppend(&as_script, "#", AsAbsl(directive), " ", AsAbsl(line), "\n");
    }
  }
  return ExtractBbDirectives(as_script, directive);
}

std::string MergeBbDirectivesIntoScript(std::string_view script,
                                        const std::vector<std::string>& lines) {
  std::string insert;
  for (const std::string& line : lines) {
    // A directive already in the script (same text) is not repeated.
    bool present = false;
    for (std::string_view existing : SplitLines(script)) {
      if (StripTrailing(StripLeading(existing)) == line) {
        present = true;
        break;
      }
    }
    if (!present) absl::StrAppend(&insert, line, "\n");
  }
  if (insert.empty()) return std::string(script);
  if (script.substr(0, 2) == "#!") {
    const size_t eol = script.find('\n');
    if (eol == std::string_view::npos) return absl::StrCat(AsAbsl(script), "\n", insert);
    return absl::StrCat(AsAbsl(script.substr(0, eol + 1)), insert, AsAbsl(script.substr(eol + 1)));
  }
  return absl::StrCat(insert, AsAbsl(script));
}

std::string ExpandBbSymbols(std::string_view line, const BbSymbols& symbols) {
  std::string out;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '\\' && i + 1 < line.size() && line[i + 1] == '\\') {
      out.append(line.substr(i + 2));
      return out;
    }
    if (c != '%' || i + 1 >= line.size()) {
      out += c;
      continue;
    }
    const char s = line[i + 1];
    switch (s) {
      case '%':
        out += '%';
        break;
      case 'A':
        out += std::to_string(symbols.array_job_id.value_or(symbols.job_id));
        break;
      case 'a':
        out += std::to_string(symbols.array_task_id.value_or(4294967294u));
        break;
      case 'd':
        out += symbols.work_dir;
        break;
      case 'j':
        out += std::to_string(symbols.job_id);
        break;
      case 'u':
        out += symbols.user_name;
        break;
      case 'x':
        out += symbols.job_name;
        break;
      default:
        out += '%';
        out += s;
    }
    ++i;
  }
  return out;
}

absl::StatusOr<BbRequest> ParseBbRequest(const std::vector<std::string>& lines,
                                         std::string_view directive, const BbPoolTable& pools) {
  std::optional<std::string> pool;
  std::optional<std::string> capacity_text;
  for (const std::string& full : lines) {
    std::string_view line = StripLeading(full);
    if (IsDirectiveLine(line, directive)) line.remove_prefix(directive.size() + 1);
    for (absl::string_view token :
         absl::StrSplit(AsAbsl(line), absl::ByAnyChar(" \t"), absl::SkipEmpty())) {
      const std::string_view tok(token.data(), token.size());
      if (tok.substr(0, 5) == "pool=") {
        const std::string value(Unquote(tok.substr(5)));
        if (value.empty()) return Invalid("burst_buffer/lua: pool= needs a pool name");
        if (pool.has_value() && *pool != value) {
          return Invalid(
              absl::StrCat("burst_buffer/lua: two pools requested (", *pool, " and ", value, ")"));
        }
        pool = value;
      } else if (tok.substr(0, 9) == "capacity=") {
        if (capacity_text.has_value()) {
          return Invalid("burst_buffer/lua: capacity= given more than once");
        }
        capacity_text = std::string(Unquote(tok.substr(9)));
      }
    }
  }

  BbRequest request;
  if (!capacity_text.has_value()) {
    if (pool.has_value()) {
      if (pools.Find(*pool) == nullptr) {
        return Invalid(absl::StrCat("burst_buffer/lua: unknown pool \"", *pool, "\""));
      }
      request.pool = *pool;
    }
    return request;
  }
  if (!pool.has_value()) {
    return Invalid(
        absl::StrCat("burst_buffer/lua: capacity=", *capacity_text, " requires pool=NAME"));
  }
  absl::StatusOr<uint64_t> bytes = ParseSize(*capacity_text, 1);
  if (!bytes.ok()) {
    return Invalid(absl::StrCat("burst_buffer/lua: capacity: ", bytes.status().message()));
  }
  if (*bytes == 0) {
    return Invalid(
        absl::StrCat("burst_buffer/lua: capacity=", *capacity_text, " must be greater than 0"));
  }
  const BbPool* found = pools.Find(*pool);
  if (found == nullptr) {
    return Invalid(absl::StrCat("burst_buffer/lua: unknown pool \"", *pool, "\""));
  }
  absl::StatusOr<uint64_t> rounded = pools.RoundUp(*pool, *bytes);
  if (!rounded.ok()) return Invalid(absl::StrCat("burst_buffer/lua: ", rounded.status().message()));
  if (*rounded > found->total) {
    return Invalid(absl::StrCat("burst_buffer/lua: capacity=", *capacity_text,
                                " is larger than pool \"", *pool, "\" (", FormatSize(found->total),
                                " in all)"));
  }
  request.pool = *pool;
  request.size = *rounded;
  return request;
}

absl::Status CheckBbUser(uint32_t uid, std::string_view user_name, const BurstBufferConfig& config,
                         bool allow_root) {
  if (uid == 0 && !allow_root) {
    return absl::PermissionDeniedError("User root can not allocate burst buffers");
  }
  const std::string uid_text = std::to_string(uid);
  auto listed = [&](const std::vector<std::string>& users) {
    return std::any_of(users.begin(), users.end(),
                       [&](const std::string& u) { return u == user_name || u == uid_text; });
  };
  if (!config.allow_users.empty() && !listed(config.allow_users)) {
    return absl::PermissionDeniedError(
        absl::StrCat("User ", AsAbsl(user_name), " is not in burst_buffer.conf AllowUsers"));
  }
  if (listed(config.deny_users)) {
    return absl::PermissionDeniedError(
        absl::StrCat("User ", AsAbsl(user_name), " is in burst_buffer.conf DenyUsers"));
  }
  return absl::OkStatus();
}

}  // namespace skiff::ctld
