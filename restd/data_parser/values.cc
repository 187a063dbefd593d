#include "restd/data_parser/values.h"

#include <algorithm>
#include <csignal>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace skiff::restd {
namespace {

// Slurm's fixed ids (src/common/slurmdb_defs.h TRES_*), in its list order.
constexpr std::pair<const char*, int> kFixedTres[] = {{"cpu", 1},  {"mem", 2},     {"energy", 3},
                                                      {"node", 4}, {"billing", 5}, {"fs/disk", 6},
                                                      {"vmem", 7}, {"pages", 8}};

int FixedRank(const std::string& name) {
  for (size_t i = 0; i < std::size(kFixedTres); ++i) {
    if (name == kFixedTres[i].first) return static_cast<int>(i);
  }
  return static_cast<int>(std::size(kFixedTres));
}

// Slurm writes TRES in id order: the fixed ones, then gres by name.
std::vector<std::pair<std::string, int64_t>> InSlurmOrder(
    const std::map<std::string, int64_t>& counts) {
  std::vector<std::pair<std::string, int64_t>> ordered(counts.begin(), counts.end());
  std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) {
    return FixedRank(a.first) < FixedRank(b.first);
  });
  return ordered;
}

// "8G", "512M" as Slurm writes memory in TRES strings (MiB in).
std::string MemoryText(int64_t mib) {
  if (mib > 0 && mib % (1024 * 1024) == 0) return absl::StrCat(mib / (1024 * 1024), "T");
  if (mib > 0 && mib % 1024 == 0) return absl::StrCat(mib / 1024, "G");
  return absl::StrCat(mib, "M");
}

// data_parser's *_no_val_struct, built member by member (a job has ~30).
Json NoValStruct(bool set, bool infinite, Json number) {
  Json out = Json::Object();
  out.Reserve(3);
  out.Add("set", set);
  out.Add("infinite", infinite);
  out.Add("number", std::move(number));
  return out;
}

}  // namespace

std::string SignalName(int signal) {
  if (signal == 0) return "";
  const char* abbrev = sigabbrev_np(signal);
  return abbrev ? absl::StrCat("SIG", abbrev) : absl::StrCat(signal);
}

Json Number(int64_t n) { return NoValStruct(true, false, n); }

Json NoNumber() { return NoValStruct(false, false, 0); }

Json Infinite() { return NoValStruct(false, true, 0); }

Json Time(int64_t unix_seconds) { return unix_seconds > 0 ? Number(unix_seconds) : Number(0); }

Json Minutes(int64_t seconds) {
  if (seconds < 0) return Infinite();
  if (seconds == 0) return NoNumber();
  return Number((seconds + 59) / 60);
}

Json Float(double x) { return NoValStruct(true, false, x); }

Json ExitCode(bool ended, int return_code, int signal) {
  std::string status = "PENDING";
  if (ended) status = signal != 0 ? "SIGNALED" : (return_code == 0 ? "SUCCESS" : "ERROR");
  Json signal_json = Json::Object();
  signal_json.Add("id", signal != 0 ? Number(signal) : NoNumber());
  signal_json.Add("name", SignalName(signal));
  Json out = Json::Object();
  out.Reserve(3);
  out.Add("status", Json::Array({status}));
  out.Add("return_code", ended ? Number(return_code) : NoNumber());
  out.Add("signal", std::move(signal_json));
  return out;
}

int TresId(const std::string& type_and_name) {
  for (const auto& [name, id] : kFixedTres) {
    if (type_and_name == name) return id;
  }
  if (type_and_name == "gres/gpu") return 1001;
  // Typed GPUs and other gres: stable ids after gres/gpu, from the name.
  unsigned hash = 0;
  for (char c : type_and_name) hash = hash * 31 + static_cast<unsigned char>(c);
  return 1002 + static_cast<int>(hash % 8998);
}

Json TresList(const std::map<std::string, int64_t>& counts) {
  Json list = Json::Array();
  for (const auto& [full, count] : InSlurmOrder(counts)) {
    const size_t slash = full.find('/');
    Json tres = Json::Object();
    tres.Reserve(4);
    tres.Add("type", slash == std::string::npos ? full : full.substr(0, slash));
    tres.Add("name", slash == std::string::npos ? "" : full.substr(slash + 1));
    tres.Add("id", TresId(full));
    tres.Add("count", count);
    list.Push(std::move(tres));
  }
  return list;
}

std::string TresString(const std::map<std::string, int64_t>& counts) {
  std::vector<std::string> parts;
  for (const auto& [name, count] : InSlurmOrder(counts)) {
    parts.push_back(
        absl::StrCat(name, "=", name == "mem" ? MemoryText(count) : absl::StrCat(count)));
  }
  return absl::StrJoin(parts, ",");
}

}  // namespace skiff::restd
