#include "ctld/core/dynamic_nodes.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace skiff::ctld {
namespace {

std::string GresText(const std::vector<GresCount>& gres) {
  std::vector<std::string> parts;
  for (const GresCount& g : gres) {
    parts.push_back(g.type.empty() ? absl::StrCat(g.name, ":", g.count)
                                   : absl::StrCat(g.name, ":", g.type, ":", g.count));
  }
  return absl::StrJoin(parts, ",");
}

bool ParseGres(absl::string_view text, std::vector<GresCount>* out) {
  for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    std::vector<std::string> fields = absl::StrSplit(item, ':');
    GresCount g;
    if (fields.size() == 2) {
      g.name = fields[0];
    } else if (fields.size() == 3) {
      g.name = fields[0];
      g.type = fields[1];
    } else {
      return false;
    }
    if (g.name.empty() || !absl::SimpleAtoi(fields.back(), &g.count) || g.count < 0) return false;
    out->push_back(std::move(g));
  }
  return true;
}

}  // namespace

std::string EncodeDynamicNode(const NodeConfig& node) {
  std::string out = absl::StrCat("CPUs=", node.cpus, " RealMemory=", node.real_memory_mb);
  if (!node.gres.empty()) absl::StrAppend(&out, " Gres=", GresText(node.gres));
  if (!node.addr.empty()) absl::StrAppend(&out, " NodeAddr=", node.addr);
  if (node.port != 0) absl::StrAppend(&out, " Port=", node.port);
  return out;
}

absl::StatusOr<NodeConfig> DecodeDynamicNode(const std::string& name, const std::string& blob) {
  auto bad = [&](const std::string& why) {
    return absl::DataLossError(absl::StrCat(
        "joined node '", name, "': stored record does not parse (", why, "): '", blob, "'"));
  };
  NodeConfig node;
  node.name = name;
  node.hostname = name;
  bool have_cpus = false, have_memory = false;
  for (absl::string_view word : absl::StrSplit(blob, ' ', absl::SkipEmpty())) {
    const size_t eq = word.find('=');
    if (eq == absl::string_view::npos) return bad(absl::StrCat("'", word, "' has no '='"));
    const absl::string_view key = word.substr(0, eq);
    const absl::string_view value = word.substr(eq + 1);
    bool ok = true;
    if (key == "CPUs") {
      ok = absl::SimpleAtoi(value, &node.cpus) && node.cpus > 0;
      have_cpus = true;
    } else if (key == "RealMemory") {
      ok = absl::SimpleAtoi(value, &node.real_memory_mb);
      have_memory = true;
    } else if (key == "Gres") {
      ok = ParseGres(value, &node.gres);
    } else if (key == "NodeAddr") {
      node.addr = std::string(value);
    } else if (key == "Port") {
      ok = absl::SimpleAtoi(value, &node.port) && node.port > 0 && node.port < 65536;
    } else {
      ok = false;
    }
    if (!ok) return bad(absl::StrCat("bad ", key));
  }
  if (!have_cpus || !have_memory) return bad("no CPUs or RealMemory");
  node.sockets = 1;
  node.cores_per_socket = node.cpus;
  node.threads_per_core = 1;
  return node;
}

SkiffConfig WithDynamicNodes(SkiffConfig config, const std::vector<NodeConfig>& joined,
                             std::vector<std::string>* notes) {
  for (const NodeConfig& node : joined) {
    if (config.FindNode(node.name) != nullptr) {
      if (notes != nullptr) {
        notes->push_back(absl::StrCat("NodeName=", node.name,
                                      " joined with skiff join and is now defined in skiff.conf: "
                                      "skiff.conf's definition is used"));
      }
      continue;
    }
    config.nodes.push_back(node);
    for (PartitionConfig& partition : config.partitions) {
      if (!partition.all_nodes) continue;
      if (std::find(partition.nodes.begin(), partition.nodes.end(), node.name) ==
          partition.nodes.end()) {
        partition.nodes.push_back(node.name);
      }
    }
  }
  return config;
}

SkiffConfig WithoutNodes(SkiffConfig config, const std::vector<std::string>& names) {
  auto named = [&](const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  config.nodes.erase(std::remove_if(config.nodes.begin(), config.nodes.end(),
                                    [&](const NodeConfig& node) { return named(node.name); }),
                     config.nodes.end());
  for (PartitionConfig& partition : config.partitions) {
    partition.nodes.erase(std::remove_if(partition.nodes.begin(), partition.nodes.end(), named),
                          partition.nodes.end());
  }
  return config;
}

}  // namespace skiff::ctld
