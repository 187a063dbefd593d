// skiff.conf's NodeName lines: the key table and the Gres= value parser
// (NodeName=DEFAULT and the expansion into nodes are the parser's, config.cc).
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/config/config.h"
#include "common/config/kv_parser.h"
#include "common/config/skiff_conf_keys.h"

namespace skiff {
namespace config_internal {
namespace {

// Generous upper bounds that still keep Sockets * CoresPerSocket * ThreadsPerCore
// inside an int.
constexpr int64_t kMaxSockets = 1024;
constexpr int64_t kMaxCoresPerSocket = 4096;
constexpr int64_t kMaxThreadsPerCore = 64;

// "gpu", "gpu:2", "gpu:a100", "gpu:a100:4", with Slurm's optional "no_consume"
// part and "(S:0-1)" socket binding, which Skiff does not use.
absl::StatusOr<GresCount> ParseOneGres(std::string_view text) {
  std::string_view spec = text.substr(0, text.find('('));
  std::vector<std::string> parts;
  for (std::string& part : SplitList(spec, ":")) {
    if (!EqualsIgnoreCase(part, "no_consume")) parts.push_back(std::move(part));
  }
  if (parts.empty() || parts.size() > 3 || spec.empty() || spec.front() == ':') {
    return Invalid(absl::StrCat(Quoted(text), " is not NAME[:TYPE][:COUNT]"));
  }
  GresCount gres;
  gres.name = parts[0];
  if (parts.size() >= 2) {
    absl::StatusOr<int64_t> count = ParseInteger(parts.back(), 0, kMaxInt64);
    bool numeric_tail =
        count.ok() || parts.back().find_first_not_of("0123456789-") == std::string::npos;
    if (parts.size() == 3 || numeric_tail) {
      if (!count.ok()) {
        return Invalid(absl::StrCat(count.status().message(), " in ", Quoted(text)));
      }
      gres.count = *count;
      parts.pop_back();
    }
    if (parts.size() == 2) gres.type = parts[1];
  }
  return gres;
}

// Splits on commas outside parentheses: "gpu:2(S:0,1),mps:100".
std::vector<std::string_view> SplitGresList(std::string_view value) {
  std::vector<std::string_view> items;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= value.size(); ++i) {
    if (i == value.size() || (value[i] == ',' && depth == 0)) {
      std::string_view item = config_internal::Trim(value.substr(start, i - start));
      if (!item.empty()) items.push_back(item);
      start = i + 1;
    } else if (value[i] == '(') {
      ++depth;
    } else if (value[i] == ')' && depth > 0) {
      --depth;
    }
  }
  return items;
}

absl::Status SetGres(std::string_view value, std::vector<GresCount>& out) {
  out.clear();
  for (std::string_view item : SplitGresList(value)) {
    absl::StatusOr<GresCount> gres = ParseOneGres(item);
    if (!gres.ok()) return gres.status();
    out.push_back(*std::move(gres));
  }
  return absl::OkStatus();
}

}  // namespace

const KeyTable<NodeLine>& NodeKeys() {
  using N = NodeLine;
  static const auto* const kTable = new KeyTable<NodeLine>{
      {
          {"NodeName", [](std::string_view v, N& n) { return SetNonEmpty(v, n.names); }},
          {"NodeAddr", [](std::string_view v, N& n) { return SetNonEmpty(v, n.addrs); }},
          {"NodeHostname", [](std::string_view v, N& n) { return SetNonEmpty(v, n.hostnames); }},
          {"Port", [](std::string_view v, N& n) { return SetInt(v, 1, 65535, n.node.port); }},
          {"CPUs",
           [](std::string_view v, N& n) {
             n.cpus_set = true;
             return SetInt(v, 1, kMaxInt, n.node.cpus);
           }},
          {"Procs",  // Slurm's old name for CPUs.
           [](std::string_view v, N& n) {
             n.cpus_set = true;
             return SetInt(v, 1, kMaxInt, n.node.cpus);
           }},
          {"Sockets",
           [](std::string_view v, N& n) { return SetInt(v, 1, kMaxSockets, n.node.sockets); }},
          {"CoresPerSocket",
           [](std::string_view v, N& n) {
             return SetInt(v, 1, kMaxCoresPerSocket, n.node.cores_per_socket);
           }},
          {"ThreadsPerCore",
           [](std::string_view v, N& n) {
             return SetInt(v, 1, kMaxThreadsPerCore, n.node.threads_per_core);
           }},
          {"RealMemory",
           [](std::string_view v, N& n) { return SetMiB(v, 1, n.node.real_memory_mb); }},
          {"TmpDisk", [](std::string_view v, N& n) { return SetMiB(v, 0, n.node.tmp_disk_mb); }},
          {"Weight", [](std::string_view v, N& n) { return SetInt(v, 0, kMaxInt, n.node.weight); }},
          {"Gres", [](std::string_view v, N& n) { return SetGres(v, n.node.gres); }},
          {"Features", [](std::string_view v, N& n) { return SetList(v, n.node.features); }},
          {"Feature", [](std::string_view v, N& n) { return SetList(v, n.node.features); }},
          {"State",
           [](std::string_view v, N& n) {
             return SetChoice(v, {"UNKNOWN", "IDLE", "DOWN", "DRAIN", "FUTURE", "CLOUD"},
                              n.node.state);
           }},
          {"Reason", [](std::string_view v, N& n) { return SetString(v, n.node.reason); }},
      },
      {"Boards", "SocketsPerBoard", "CoreSpecCount", "CpuSpecList", "MemSpecLimit", "CpuBind",
       "BcastAddr", "TRESWeights", "Extra", "Parameters"},
      /*unsupported=*/{},
      /*strict=*/false,
  };
  return *kTable;
}

}  // namespace config_internal
}  // namespace skiff
