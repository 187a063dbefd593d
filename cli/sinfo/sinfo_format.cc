#include "cli/sinfo/sinfo_format.h"

#include <time.h>

#include <algorithm>
#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/hostlist.h"
#include "common/time_format.h"

namespace skiff {
namespace {

enum class Align { kLeft, kRight };

std::string Pad(const std::string& text, size_t width, Align align) {
  if (text.size() >= width) return text;
  std::string fill(width - text.size(), ' ');
  return align == Align::kLeft ? text + fill : fill + text;
}

std::string Responding(const v1::NodeInfo& node, std::string state) {
  return node.not_responding() ? state + "*" : state;
}

// (short, long) names of the node's state, before the '*'.
std::pair<std::string, std::string> StateNames(const v1::NodeInfo& node) {
  const std::string& base = node.state();
  if (base == "DOWN") return {"down", "down"};
  if (node.drain()) {
    if (base == "ALLOCATED" || base == "MIXED") return {"drng", "draining"};
    return {"drain", "drained"};
  }
  if (base == "IDLE") return {"idle", "idle"};
  if (base == "ALLOCATED") return {"alloc", "allocated"};
  if (base == "MIXED") return {"mix", "mixed"};
  if (base == "FUTURE") return {"futr", "future"};
  return {"unk", "unknown"};
}

std::string TimeLimit(int64_t seconds) {
  return seconds == kInfiniteDuration ? "infinite" : FormatTimeLimit(seconds);
}

std::string PartitionLabel(const v1::PartitionInfo& partition) {
  return partition.is_default() ? partition.name() + "*" : partition.name();
}

std::string Avail(const v1::PartitionInfo& partition) {
  std::string state = absl::AsciiStrToLower(partition.state());
  return state == "inactive" ? "inact" : state;
}

std::string Header(const SinfoOptions& options) {
  if (!options.long_format) return "";
  time_t now = static_cast<time_t>(options.now);
  char buf[64];
  struct tm tm;
  localtime_r(&now, &tm);
  strftime(buf, sizeof(buf), "%a %b %d %H:%M:%S %Y", &tm);
  return absl::StrCat(buf, "\n");
}

std::string FormatPartitionView(const v1::GetPartitionsReply& reply, const SinfoOptions& options) {
  std::map<std::string, const v1::NodeInfo*> nodes;
  for (const v1::NodeInfo& node : reply.nodes()) nodes[node.name()] = &node;

  size_t width = 9;
  for (const v1::PartitionInfo& p : reply.partitions())
    width = std::max(width, PartitionLabel(p).size());

  std::string out = Header(options);
  if (!options.no_header) {
    absl::StrAppend(&out, Pad("PARTITION", width, Align::kLeft),
                    " AVAIL  TIMELIMIT  NODES  STATE NODELIST\n");
  }
  for (const v1::PartitionInfo& partition : reply.partitions()) {
    // One row per distinct state, in the order states first appear (Slurm's grouping).
    std::vector<std::pair<std::string, std::vector<std::string>>> groups;
    for (const std::string& name : partition.nodes()) {
      auto it = nodes.find(name);
      if (it == nodes.end()) continue;
      std::string state = Responding(*it->second, StateNames(*it->second).first);
      auto group = std::find_if(groups.begin(), groups.end(),
                                [&](const auto& g) { return g.first == state; });
      if (group == groups.end()) {
        groups.push_back({state, {name}});
      } else {
        group->second.push_back(name);
      }
    }
    if (groups.empty()) groups.push_back({"n/a", {}});
    for (const auto& [state, names] : groups) {
      absl::StrAppend(&out, Pad(PartitionLabel(partition), width, Align::kLeft), " ",
                      Pad(Avail(partition), 5, Align::kRight), " ",
                      Pad(TimeLimit(partition.max_time()), 10, Align::kRight), " ",
                      Pad(absl::StrCat(names.size()), 6, Align::kRight), " ",
                      Pad(state, 6, Align::kRight), " ", CompressHostlist(names), "\n");
    }
  }
  return out;
}

std::string ShortNodeStateOf(const v1::NodeInfo& node);

std::string FormatNodeView(const v1::GetPartitionsReply& reply, const SinfoOptions& options) {
  // Slurm lists each (node, partition) pair, sorted by node name; within a node the
  // later-configured partition comes first (as Slurm 22.05 prints it).
  std::vector<std::pair<const v1::NodeInfo*, const v1::PartitionInfo*>> rows;
  for (const v1::NodeInfo& node : reply.nodes()) {
    for (auto it = reply.partitions().rbegin(); it != reply.partitions().rend(); ++it) {
      const v1::PartitionInfo& partition = *it;
      if (std::find(partition.nodes().begin(), partition.nodes().end(), node.name()) !=
          partition.nodes().end()) {
        rows.push_back({&node, &partition});
      }
    }
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.first->name() < b.first->name(); });
  size_t name_width = 9;
  for (const auto& row : rows) name_width = std::max(name_width, row.first->name().size());

  std::string out = Header(options);
  if (!options.long_format) {
    if (!options.no_header) {
      absl::StrAppend(&out, Pad("NODELIST", name_width, Align::kLeft),
                      "  NODES PARTITION STATE \n");
    }
    for (const auto& [node, partition] : rows) {
      absl::StrAppend(&out, Pad(node->name(), name_width, Align::kLeft), " ",
                      Pad("1", 6, Align::kRight), " ",
                      Pad(PartitionLabel(*partition), 9, Align::kRight), " ",
                      Pad(ShortNodeStateOf(*node), 6, Align::kLeft), "\n");
    }
    return out;
  }
  if (!options.no_header) {
    absl::StrAppend(&out, Pad("NODELIST", name_width, Align::kLeft),
                    "  NODES PARTITION       STATE CPUS    S:C:T MEMORY TMP_DISK WEIGHT AVAIL_FE "
                    "REASON              \n");
  }
  for (const auto& [node, partition] : rows) {
    const std::string features =
        node->features().empty() ? "(null)" : absl::StrJoin(node->features(), ",");
    absl::StrAppend(
        &out, Pad(node->name(), name_width, Align::kLeft), " ", Pad("1", 6, Align::kRight), " ",
        Pad(PartitionLabel(*partition), 9, Align::kRight), " ",
        Pad(LongNodeState(*node), 11, Align::kRight), " ",
        Pad(absl::StrCat(node->cpus()), 4, Align::kLeft), " ",
        Pad(absl::StrCat(node->sockets(), ":", node->cores_per_socket(), ":",
                         node->threads_per_core()),
            8, Align::kRight),
        " ", Pad(absl::StrCat(node->real_memory_mb()), 6, Align::kRight), " ",
        Pad(absl::StrCat(node->tmp_disk_mb()), 8, Align::kRight), " ",
        Pad(absl::StrCat(node->weight()), 6, Align::kRight), " ", Pad(features, 8, Align::kRight),
        " ", Pad(node->reason().empty() ? "none" : node->reason(), 20, Align::kLeft), "\n");
  }
  return out;
}

std::string ShortNodeStateOf(const v1::NodeInfo& node) {
  return Responding(node, StateNames(node).first);
}

}  // namespace

std::string ShortNodeState(const v1::NodeInfo& node) {
  return Responding(node, StateNames(node).first);
}

std::string LongNodeState(const v1::NodeInfo& node) {
  return Responding(node, StateNames(node).second);
}

std::string FormatSinfo(const v1::GetPartitionsReply& reply, const SinfoOptions& options) {
  if (options.node_oriented) return FormatNodeView(reply, options);
  return FormatPartitionView(reply, options);
}

}  // namespace skiff
