#include "tests/reference/reference_file.h"

#include <cctype>
#include <map>
#include <regex>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace skiff::reference {
namespace {

std::string Escape(const std::string& literal) {
  static const std::regex kSpecial(R"([.^$|()\[\]{}*+?\\])");
  return std::regex_replace(literal, kSpecial, R"(\$&)");
}

std::string ReplaceAll(std::string text, const std::string& pattern, const std::string& with) {
  return std::regex_replace(text, std::regex(pattern), with);
}

// Rule 3 (and 3b): each distinct number in [low, high) becomes PREFIX1, PREFIX2, ...
std::string NumberInOrder(const std::string& text, unsigned long low, unsigned long high,
                          const char* prefix) {
  static const std::regex kNumber(R"(\d+)");
  // An id stands alone or before "_" (15400_1); a digit run inside a word, a
  // decimal or a longer number (4294899367, 127.0.0.1) is something else.
  auto part_of_word = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.';
  };
  std::map<unsigned long, int> seen;
  std::string out;
  size_t last = 0;
  for (std::sregex_iterator it(text.begin(), text.end(), kNumber), end; it != end; ++it) {
    const size_t begin = it->position(), stop = begin + it->length();
    if ((begin > 0 && part_of_word(text[begin - 1])) ||
        // "15380.batch" and "15380.0" are steps of job 15380.
        (stop < text.size() && std::isalnum(static_cast<unsigned char>(text[stop]))) ||
        it->length() > 10) {
      continue;
    }
    const unsigned long value = std::stoul(it->str());
    if (value < low || value >= high) continue;
    auto entry = seen.emplace(value, static_cast<int>(seen.size()) + 1).first;
    out.append(text, last, begin - last);
    absl::StrAppend(&out, prefix, entry->second);
    last = stop;
  }
  out.append(text, last, std::string::npos);
  return out;
}

}  // namespace

ReferenceFile ParseReference(const std::string& text) {
  ReferenceFile file;
  bool in_output = false;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (!in_output) {
      if (absl::StartsWith(line, "# as ")) {
        file.user = line.substr(5);
        while (!file.user.empty() && file.user.back() == ' ') file.user.pop_back();
      } else if (absl::StartsWith(line, "$ ")) {
        file.command = line.substr(2);
        while (!file.command.empty() && file.command.back() == ' ') file.command.pop_back();
        in_output = true;
      }
      continue;
    }
    if (absl::StartsWith(line, "[exit ") && absl::EndsWith(line, "]")) {
      file.exit_code = std::stoi(line.substr(6, line.size() - 7));
      break;
    }
    absl::StrAppend(&file.output, line, "\n");
  }
  return file;
}

std::string Normalize(const std::string& input, const Side& side) {
  std::string text = input;
  // 1. Install root and host name.
  if (!side.root.empty()) text = ReplaceAll(text, Escape(side.root), "ROOT");
  if (!side.host.empty()) text = ReplaceAll(text, R"(\b)" + Escape(side.host) + R"(\b)", "HOST");
  text = ReplaceAll(text, R"(NodeHostName=\S+)", "NodeHostName=HOST");
  text = ReplaceAll(text, R"(AllocNode:Sid=[^:\s]+:)", "AllocNode:Sid=HOST:");
  // 2. Product and version.
  for (const std::string& version : side.versions) {
    if (!side.product.empty()) {
      text = ReplaceAll(text, Escape(side.product) + " " + Escape(version), "PRODUCT VERSION");
    }
    text = ReplaceAll(text, R"((^|[= ]))" + Escape(version) + R"((?=[ \n]|$))", "$1VERSION");
  }
  // 4 before 3: a date's digits must not be taken for job ids.
  text = ReplaceAll(text, R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)", "TIME");
  text = ReplaceAll(text, R"((^|\n)[A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9]\d \d\d:\d\d:\d\d \d{4}\n)",
                    "$1DATE\n");
  // 6. Pids, ports, machine measurements and the user's uid (before 3, whose range
  // a port or a pid may fall in).
  text = ReplaceAll(text, R"(SLURM_TASK_PID=\d+)", "SLURM_TASK_PID=PID");
  text = ReplaceAll(text, R"((AllocNode:Sid=[^:\s]+):\d+)", "$1:SID");
  text = ReplaceAll(text, R"(\bPort=\d+)", "Port=PORT");
  text = ReplaceAll(text, R"((Port\s+= )\d+)", "$1PORT");
  text = ReplaceAll(text, R"((SLURM_WORKING_CLUSTER=[^:\n]+:[^:\n]+:)\d+)", "$1PORT");
  text = ReplaceAll(text, R"(CPULoad=[0-9.]+)", "CPULoad=LOAD");
  text = ReplaceAll(text, R"(FreeMem=(\d+|N/A))", "FreeMem=MEM");
  text = ReplaceAll(text, R"(OS=[^\n]*)", "OS=OS");
  for (const std::string& id : {side.user_uid, side.user_gid}) {
    if (id.empty()) continue;
    text = ReplaceAll(text, R"((\b[a-z][a-z0-9_-]*)\()" + Escape(id) + R"(\))", "$1(UID)");
    text = ReplaceAll(text, R"(SLURM_JOB_([UG]ID)=)" + Escape(id) + R"(\b)", "SLURM_JOB_$1=UID");
  }
  // 3. Job ids.
  if (side.first_job_id > 0) {
    text = NumberInOrder(text, side.first_job_id, side.first_job_id + 1000, "J");
  }
  // 3b. priority/basic's priorities: 0xffff0000 less the jobs the controller has
  // seen since it started, so only their order carries over between runs.
  text = NumberInOrder(text, 4294000000UL, 4294901761UL, "P");
  // 5. Elapsed times.
  text = ReplaceAll(text, R"(RunTime=[0-9:-]+)", "RunTime=ELAPSED");
  text = ReplaceAll(text, R"((^|[ |])\d{1,2}:\d\d(?=$|[ |\n]))", "$1ELAPSED");
  return text;
}

std::vector<std::string> StateSequence(const std::string& transitions) {
  static const std::regex kLine(R"(^\s*[0-9.]+s\s+(.*?)\s*$)");
  std::vector<std::string> states;
  std::istringstream lines(transitions);
  for (std::string text; std::getline(lines, text);) {
    std::smatch match;
    if (!std::regex_match(text, match, kLine)) continue;
    const std::string state = match[1];
    if (state == "(job record purged)") continue;
    if (states.empty() || states.back() != state) states.push_back(state);
  }
  return states;
}

std::string LineDiff(const std::string& expected, const std::string& actual) {
  if (expected == actual) return "";
  const std::vector<std::string> a = absl::StrSplit(expected, '\n');
  const std::vector<std::string> b = absl::StrSplit(actual, '\n');
  // Longest common subsequence of lines; the files are at most a few hundred lines.
  std::vector<std::vector<int>> lcs(a.size() + 1, std::vector<int>(b.size() + 1, 0));
  for (size_t i = a.size(); i-- > 0;) {
    for (size_t j = b.size(); j-- > 0;) {
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  std::string out;
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (i < a.size() && j < b.size() && a[i] == b[j]) {
      ++i, ++j;
    } else if (i < a.size() && (j == b.size() || lcs[i + 1][j] >= lcs[i][j + 1])) {
      absl::StrAppend(&out, "- ", a[i++], "\n");
    } else {
      absl::StrAppend(&out, "+ ", b[j++], "\n");
    }
  }
  return out;
}

}  // namespace skiff::reference
