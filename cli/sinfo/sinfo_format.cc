// sinfo's -o and -O formats parsed into fields; grouping and sorting are in
// sinfo_records.cc, the output in sinfo_print.cc.
#include "cli/sinfo/sinfo_format.h"

#include <algorithm>
#include <cstdlib>
#include <iterator>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace skiff::cli {
namespace {

struct LetterField {
  char letter;
  SinfoField field;
};

constexpr LetterField kLetters[] = {
    {'a', SinfoField::kAvail},
    {'A', SinfoField::kNodesAI},
    {'b', SinfoField::kFeaturesAct},
    {'B', SinfoField::kMaxCpusPerNode},
    {'c', SinfoField::kCpus},
    {'C', SinfoField::kCpusState},
    {'d', SinfoField::kDisk},
    {'D', SinfoField::kNodes},
    {'e', SinfoField::kFreeMem},
    {'E', SinfoField::kReason},
    {'f', SinfoField::kFeatures},
    {'F', SinfoField::kNodesAIOT},
    {'g', SinfoField::kGroups},
    {'G', SinfoField::kGres},
    {'h', SinfoField::kOversubscribe},
    {'H', SinfoField::kTimestamp},
    {'I', SinfoField::kPriorityJobFactor},
    {'l', SinfoField::kTime},
    {'L', SinfoField::kDefaultTime},
    {'m', SinfoField::kMemory},
    {'M', SinfoField::kPreemptMode},
    {'n', SinfoField::kHostnames},
    {'N', SinfoField::kNodeList},
    {'o', SinfoField::kNodeAddr},
    {'O', SinfoField::kCpuLoad},
    {'p', SinfoField::kPriorityTier},
    {'P', SinfoField::kPartition},
    {'r', SinfoField::kRoot},
    {'R', SinfoField::kPartitionName},
    {'s', SinfoField::kSize},
    {'S', SinfoField::kAllocNodes},
    {'t', SinfoField::kStateCompact},
    {'T', SinfoField::kStateLong},
    {'u', SinfoField::kUser},
    {'U', SinfoField::kUserLong},
    {'v', SinfoField::kVersion},
    {'V', SinfoField::kCluster},
    {'w', SinfoField::kWeight},
    {'X', SinfoField::kSockets},
    {'Y', SinfoField::kCores},
    {'Z', SinfoField::kThreads},
    {'z', SinfoField::kSocketCoreThread},
};

struct NamedField {
  const char* name;
  SinfoField field;
};

constexpr NamedField kNames[] = {
    {"allocmem", SinfoField::kAllocMem},
    {"allocnodes", SinfoField::kAllocNodes},
    {"available", SinfoField::kAvail},
    {"cluster", SinfoField::kCluster},
    {"comment", SinfoField::kComment},
    {"cpus", SinfoField::kCpus},
    {"cpusload", SinfoField::kCpuLoad},
    {"freemem", SinfoField::kFreeMem},
    {"cpusstate", SinfoField::kCpusState},
    {"cores", SinfoField::kCores},
    {"defaulttime", SinfoField::kDefaultTime},
    {"disk", SinfoField::kDisk},
    {"extra", SinfoField::kExtra},
    {"features", SinfoField::kFeatures},
    {"features_act", SinfoField::kFeaturesAct},
    {"groups", SinfoField::kGroups},
    {"gres", SinfoField::kGres},
    {"gresused", SinfoField::kGresUsed},
    {"maxcpuspernode", SinfoField::kMaxCpusPerNode},
    {"memory", SinfoField::kMemory},
    {"nodes", SinfoField::kNodes},
    {"nodeaddr", SinfoField::kNodeAddr},
    {"nodeai", SinfoField::kNodesAI},
    {"nodeaiot", SinfoField::kNodesAIOT},
    {"nodehost", SinfoField::kHostnames},
    {"nodelist", SinfoField::kNodeList},
    {"partition", SinfoField::kPartition},
    {"partitionname", SinfoField::kPartitionName},
    {"port", SinfoField::kPort},
    {"preemptmode", SinfoField::kPreemptMode},
    {"priorityjobfactor", SinfoField::kPriorityJobFactor},
    {"prioritytier", SinfoField::kPriorityTier},
    {"reason", SinfoField::kReason},
    {"root", SinfoField::kRoot},
    {"oversubscribe", SinfoField::kOversubscribe},
    {"share", SinfoField::kOversubscribe},
    {"size", SinfoField::kSize},
    {"statecompact", SinfoField::kStateCompact},
    {"statecomplete", SinfoField::kStateComplete},
    {"statelong", SinfoField::kStateLong},
    {"sockets", SinfoField::kSockets},
    {"socketcorethread", SinfoField::kSocketCoreThread},
    {"time", SinfoField::kTime},
    {"timestamp", SinfoField::kTimestamp},
    {"threads", SinfoField::kThreads},
    {"user", SinfoField::kUser},
    {"userlong", SinfoField::kUserLong},
    {"version", SinfoField::kVersion},
    {"weight", SinfoField::kWeight},
};

}  // namespace

// ---------------------------------------------------------------- parsing

ParsedFormat ParseShortFormat(std::string_view format_in) {
  ParsedFormat out;
  std::string format(format_in);
  const size_t pct = format.find('%');
  if (pct == std::string::npos) {
    out.items.push_back({SinfoField::kPrefix, 0, false, format});
    return out;
  }
  if (pct > 0) {
    out.items.push_back({SinfoField::kPrefix, 0, false, format.substr(0, pct)});
    format = format.substr(pct);
  }
  bool format_all = false;
  if (absl::EqualsIgnoreCase(format, "%all")) {
    format = "%a";
    for (char c = 'b'; c <= 'z'; ++c) absl::StrAppend(&format, "|%", std::string(1, c));
    for (char c = 'A'; c <= 'Z'; ++c) absl::StrAppend(&format, "|%", std::string(1, c), " ");
    format_all = true;
  }
  for (absl::string_view token : absl::StrSplit(format, '%', absl::SkipEmpty())) {
    size_t i = 0;
    SinfoFormatItem item;
    if (token[i] == '.') {
      item.right = true;
      ++i;
    }
    while (i < token.size() && absl::ascii_isdigit(static_cast<unsigned char>(token[i]))) {
      item.width = item.width * 10 + (token[i++] - '0');
    }
    const char letter = i < token.size() ? token[i] : '\0';
    item.suffix = i + 1 <= token.size() ? std::string(token.substr(std::min(i + 1, token.size())))
                                        : std::string();
    auto known = std::find_if(std::begin(kLetters), std::end(kLetters),
                              [&](const LetterField& l) { return l.letter == letter; });
    if (known != std::end(kLetters)) {
      item.field = known->field;
      out.items.push_back(std::move(item));
    } else if (!format_all) {
      item.field = SinfoField::kInvalid;
      item.suffix = absl::StrCat("%", token);
      out.items.push_back(std::move(item));
      out.warnings.push_back(absl::StrCat("Invalid node format specification: ",
                                          letter == '\0' ? std::string() : std::string(1, letter)));
    }
  }
  return out;
}

ParsedFormat ParseLongFormat(std::string_view format) {
  ParsedFormat out;
  for (absl::string_view token_view :
       absl::StrSplit(absl::string_view(format.data(), format.size()), ',', absl::SkipEmpty())) {
    std::string token(token_view);
    SinfoFormatItem item;
    const size_t colon = token.find(':');
    if (colon != std::string::npos) {
      std::string rest = token.substr(colon + 1);
      token.resize(colon);
      size_t i = 0;
      if (!rest.empty() && rest[0] == '.') {
        item.right = true;
        i = 1;
      }
      const char* start = rest.c_str() + i;
      char* end = nullptr;
      item.width = static_cast<int>(strtol(start, &end, 10));
      if (*end != '\0') item.suffix = end;
    } else {
      item.width = 20;
    }
    const std::string name = absl::AsciiStrToLower(token);
    if (name == "all") {
      ParsedFormat all = ParseShortFormat("%all");
      for (SinfoFormatItem& i : all.items) out.items.push_back(std::move(i));
      continue;
    }
    auto known = std::find_if(std::begin(kNames), std::end(kNames),
                              [&](const NamedField& n) { return name == n.name; });
    if (known != std::end(kNames)) {
      item.field = known->field;
    } else {
      item.field = SinfoField::kInvalid;
      out.warnings.push_back("sinfo: error: Invalid job format specification: " + token);
    }
    out.items.push_back(std::move(item));
  }
  return out;
}

}  // namespace skiff::cli
