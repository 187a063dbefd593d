// ParseGresConfig and CheckGresAgainstSkiff: gres.conf on its own, then weighed
// against skiff.conf's nodes.
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/config/config.h"
#include "common/config/kv_parser.h"

namespace skiff {
namespace {

using config_internal::ApplyPairs;
using config_internal::EqualsIgnoreCase;
using config_internal::Invalid;
using config_internal::KeyTable;
using config_internal::kMaxInt64;
using config_internal::LineError;
using config_internal::LogicalLine;
using config_internal::PairContext;
using config_internal::Quoted;
using config_internal::SetChoice;
using config_internal::SetHostlist;
using config_internal::SetInt;
using config_internal::SetNonEmpty;
using config_internal::SetString;
using config_internal::SplitList;
using config_internal::WrittenKey;

struct GresLine {
  GresDevice device;
  bool is_device = false;  // any key besides NodeName/AutoDetect
  bool has_name = false;
  bool has_count = false;
  std::string auto_detect;
};

// Cores=0-15,32-47: each item a core index or an ascending range.
absl::Status SetCores(std::string_view value, std::string& out) {
  absl::StatusOr<int64_t> highest = config_internal::HighestCoreIndex(value);
  if (!highest.ok()) return highest.status();
  return SetString(value, out);
}

// The flags Slurm's gres_flags_parse knows, and Skiff's own "fence". Slurm looks
// for them as substrings and ignores anything else, so a misspelt flag would
// silently do nothing (and a Slurm reading Skiff's gres.conf ignores "fence").
absl::Status SetGresFlags(std::string_view value, std::vector<std::string>& out) {
  std::vector<std::string> flags;
  for (const std::string& item : SplitList(value, ",")) {
    std::string flag;
    absl::Status status =
        SetChoice(item,
                  {"CountOnly", "nvidia_gpu_env", "amd_gpu_env", "intel_gpu_env", "opencl_env",
                   "no_gpu_env", "one_sharing", "all_sharing", "explicit", "env_uuid", "fence"},
                  flag);
    if (!status.ok()) return Invalid(absl::StrCat("unknown flag: ", status.message()));
    flags.push_back(std::move(flag));
  }
  const bool no_env = std::find(flags.begin(), flags.end(), "no_gpu_env") != flags.end();
  for (const std::string& flag : flags) {
    if (no_env && flag != "no_gpu_env" && flag.size() > 4 &&
        flag.compare(flag.size() - 4, 4, "_env") == 0) {
      return Invalid(absl::StrCat("no_gpu_env cannot be combined with ", flag,
                                  " (it turns every GPU environment variable off)"));
    }
  }
  out = std::move(flags);
  return absl::OkStatus();
}

const KeyTable<GresLine>& GresKeys() {
  using L = GresLine;
  static const auto* const kTable = new KeyTable<GresLine>{
      {
          {"Name",
           [](std::string_view v, L& l) {
             l.is_device = l.has_name = true;
             return SetNonEmpty(v, l.device.name);
           }},
          {"Type",
           [](std::string_view v, L& l) {
             l.is_device = true;
             if (v.empty()) return Invalid("must not be empty (leave Type= out for no type)");
             return SetString(v, l.device.type);
           }},
          {"File",
           [](std::string_view v, L& l) {
             l.is_device = true;
             return SetHostlist(v, l.device.files);
           }},
          {"MultipleFiles",
           [](std::string_view v, L& l) {
             l.is_device = l.device.multiple_files = true;
             return SetHostlist(v, l.device.files);
           }},
          {"NodeName",
           [](std::string_view v, L& l) { return SetHostlist(v, l.device.node_names); }},
          {"Count",
           [](std::string_view v, L& l) {
             l.is_device = l.has_count = true;
             return SetInt(v, 0, kMaxInt64, l.device.count);
           }},
          {"Cores",
           [](std::string_view v, L& l) {
             l.is_device = true;
             return SetCores(v, l.device.cores);
           }},
          {"CPUs",  // Slurm's deprecated name for Cores.
           [](std::string_view v, L& l) {
             l.is_device = true;
             return SetCores(v, l.device.cores);
           }},
          {"Flags",
           [](std::string_view v, L& l) {
             l.is_device = true;
             return SetGresFlags(v, l.device.flags);
           }},
          {"AutoDetect",
           [](std::string_view v, L& l) {
             if (EqualsIgnoreCase(v, "off")) return SetString("off", l.auto_detect);
             if (EqualsIgnoreCase(v, "nvml")) return SetString("nvml", l.auto_detect);
             return Invalid(absl::StrCat(
                 Quoted(v),
                 " is not supported: Skiff detects NVIDIA GPUs only (AutoDetect=nvml), or ",
                 "write AutoDetect=off and list the devices with File="));
           }},
      },
      /*ignored=*/{"Link", "Links"},
      /*unsupported=*/{},
      /*strict=*/true,
  };
  return *kTable;
}

// The value of `canonical` on `line` as written, or "" when absent.
std::string WrittenValue(const LogicalLine& line, std::string_view canonical) {
  for (const config_internal::KeyValue& pair : line.pairs) {
    if (EqualsIgnoreCase(pair.key, canonical)) return pair.value;
  }
  return "";
}

// Shared GPUs (MPS, shards) legitimately have a Count that is not a device count.
bool CountIsPerFile(std::string_view name) {
  return !EqualsIgnoreCase(name, "mps") && !EqualsIgnoreCase(name, "shard");
}

// A node both devices apply to ("n3", or "" when both apply to every node), or
// nullopt when they share none.
std::optional<std::string> SharedNode(const GresDevice& a, const GresDevice& b) {
  if (a.node_names.empty() && b.node_names.empty()) return std::string();
  if (a.node_names.empty()) return b.node_names.front();
  if (b.node_names.empty()) return a.node_names.front();
  std::set<std::string> names(a.node_names.begin(), a.node_names.end());
  for (const std::string& name : b.node_names) {
    if (names.count(name) != 0) return name;
  }
  return std::nullopt;
}

// Slurm refuses gres.conf lines for one name and node that disagree on having
// File= or Type=, or that repeat an untyped, fileless record ("gres.conf for gpu,
// some records have "File" specification while others do not"); a device file
// given twice would count one GPU twice.
absl::Status CheckAgainstEarlierDevices(const LogicalLine& line, const GresDevice& device,
                                        const GresConfig& config) {
  for (const GresDevice& earlier : config.devices) {
    if (!EqualsIgnoreCase(earlier.name, device.name)) continue;
    std::optional<std::string> node = SharedNode(earlier, device);
    if (!node.has_value()) continue;
    const std::string on = node->empty() ? "every node" : absl::StrCat("NodeName=", *node);
    const std::string first = absl::StrCat(earlier.source_file, ":", earlier.source_line);
    if (earlier.files.empty() != device.files.empty()) {
      return LineError(line, WrittenKey(line, device.files.empty() ? "Name" : "File"),
                       absl::StrCat("some Name=", device.name, " lines for ", on,
                                    " have File= and others do not (", first,
                                    "); give every such line File=, or none"));
    }
    if (earlier.type.empty() != device.type.empty()) {
      return LineError(line, WrittenKey(line, device.type.empty() ? "Name" : "Type"),
                       absl::StrCat("some Name=", device.name, " lines for ", on,
                                    " have Type= and others do not (", first,
                                    "); give every such line Type=, or none"));
    }
    if (device.files.empty() && device.type.empty()) {
      return LineError(line, WrittenKey(line, "Name"),
                       absl::StrCat("Name=", device.name, " for ", on, " is already defined at ",
                                    first, " (give one line with the total Count=)"));
    }
    // MIG devices of one GPU (MultipleFiles=) share its device file.
    for (const std::string& file :
         device.multiple_files ? std::vector<std::string>{} : device.files) {
      if (std::find(earlier.files.begin(), earlier.files.end(), file) == earlier.files.end()) {
        continue;
      }
      return LineError(line, WrittenKey(line, "File"),
                       absl::StrCat(Quoted(file), " is already a Name=", device.name,
                                    " device for ", on, " (", first, ")"));
    }
  }
  return absl::OkStatus();
}

absl::Status FinishGresLine(const LogicalLine& line, GresLine& parsed, GresConfig& config) {
  if (!parsed.auto_detect.empty()) config.auto_detect = parsed.auto_detect;
  if (!parsed.is_device) return absl::OkStatus();
  GresDevice& device = parsed.device;
  if (!parsed.has_name) {
    return LineError(line, "Name", "missing (each device line needs Name=, e.g. Name=gpu)");
  }
  if (device.multiple_files) {
    // One device whatever its files; File= would make each file one.
    const bool has_file = std::any_of(line.pairs.begin(), line.pairs.end(), [](const auto& pair) {
      return EqualsIgnoreCase(pair.key, "File");
    });
    if (has_file) {
      return LineError(line, "MultipleFiles",
                       "File= and MultipleFiles= are mutually exclusive (MultipleFiles= lists "
                       "the files of one MIG device; File= one device per file)");
    }
    if (parsed.has_count && device.count != 1) {
      return LineError(
          line, WrittenKey(line, "Count"),
          absl::StrCat(device.count, ": a MultipleFiles= line is one device (leave Count= out)"));
    }
    device.count = 1;
  } else if (!parsed.has_count) {
    device.count = device.files.empty() ? 1 : static_cast<int64_t>(device.files.size());
  } else if (!device.files.empty() && CountIsPerFile(device.name) &&
             device.count != static_cast<int64_t>(device.files.size())) {
    return LineError(line, WrittenKey(line, "Count"),
                     absl::StrCat(device.count, " does not match the ", device.files.size(),
                                  " files in File=", WrittenValue(line, "File")));
  }
  if (CountIsPerFile(device.name) &&
      std::find(device.flags.begin(), device.flags.end(), "fence") != device.flags.end()) {
    return LineError(line, WrittenKey(line, "Flags"),
                     absl::StrCat("fence is for Name=shard and Name=mps lines (it limits each "
                                  "job's share of a GPU), not Name=",
                                  device.name));
  }
  device.source_file = line.file;
  device.source_line = line.line;
  if (absl::Status status = CheckAgainstEarlierDevices(line, device, config); !status.ok()) {
    return status;
  }
  config.devices.push_back(std::move(device));
  return absl::OkStatus();
}

absl::Status DeviceError(const GresDevice& device, std::string_view key, std::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(device.source_file, ":", device.source_line, ": ",
                                                 config_internal::AsAbsl(key), ": ",
                                                 config_internal::AsAbsl(what)));
}

bool AppliesTo(const GresDevice& device, const std::string& node_name) {
  if (device.node_names.empty()) return true;
  for (const std::string& name : device.node_names) {
    if (name == node_name) return true;
  }
  return false;
}

// gpu is always a known GRES in Skiff (as CheckGresTypes in skiff_conf_checks.cc has it).
bool InGresTypes(const SkiffConfig& skiff, const std::string& name) {
  if (EqualsIgnoreCase(name, "gpu")) return true;
  for (const std::string& type : skiff.gres_types) {
    if (EqualsIgnoreCase(type, name)) return true;
  }
  return false;
}

std::string GresText(const GresCount& gres) {
  return gres.type.empty() ? gres.name : absl::StrCat(gres.name, ":", gres.type);
}

// Each node's Gres= count must match what gres.conf gives it for that name (and
// type, when Gres= names one); otherwise ctld hands out devices noded cannot back.
absl::Status CheckCounts(const SkiffConfig& skiff, const GresConfig& gres) {
  for (const NodeConfig& node : skiff.nodes) {
    for (const GresCount& configured : node.gres) {
      const GresDevice* first = nullptr;
      int64_t total = 0;
      for (const GresDevice& device : gres.devices) {
        if (!EqualsIgnoreCase(device.name, configured.name) || !AppliesTo(device, node.name)) {
          continue;
        }
        if (!configured.type.empty() && device.type != configured.type) continue;
        if (first == nullptr) first = &device;
        total += device.count;
      }
      if (first == nullptr || total == configured.count) continue;  // none: Gres= alone
      return DeviceError(
          *first, first->files.empty() ? "Count" : "File",
          absl::StrCat("NodeName=", node.name, " gets ", total, " ", GresText(configured),
                       " from gres.conf, but its Gres= in skiff.conf says ", GresText(configured),
                       ":", configured.count, "; make them agree"));
    }
  }
  return absl::OkStatus();
}

// A line naming a node whose Gres= has nothing of that name: ctld would never
// hand those devices out (it schedules by Gres=), so the line is a mistake in one
// file or the other. Lines without NodeName= apply to every node and are left to
// CheckCounts, as Slurm ignores what a node has beyond its Gres=.
absl::Status CheckNamedNodesHaveGres(const std::map<std::string, const NodeConfig*>& nodes,
                                     const GresDevice& device) {
  for (const std::string& name : device.node_names) {
    const NodeConfig& node = *nodes.at(name);
    std::vector<std::string> configured;
    bool has = false;
    for (const GresCount& gres : node.gres) {
      has = has || EqualsIgnoreCase(gres.name, device.name);
      configured.push_back(absl::StrCat(GresText(gres), ":", gres.count));
    }
    if (has) continue;
    return DeviceError(
        device, "NodeName",
        absl::StrCat("NodeName=", name, " has no ", device.name, " in its Gres= in skiff.conf (",
                     configured.empty() ? "it has no Gres="
                                        : absl::StrCat("Gres=", absl::StrJoin(configured, ",")),
                     "); add ", device.name, " to its Gres=, or take ", name, " off this line"));
  }
  return absl::OkStatus();
}

// Slurm refuses Cores= beyond the node's cores ("Invalid GRES data ... only N CPUs
// are available"); CPUs bounds it from above whatever the topology.
absl::Status CheckCores(const std::map<std::string, const NodeConfig*>& nodes,
                        const SkiffConfig& skiff, const GresDevice& device) {
  if (device.cores.empty()) return absl::OkStatus();
  absl::StatusOr<int64_t> highest = config_internal::HighestCoreIndex(device.cores);
  if (!highest.ok()) return DeviceError(device, "Cores", std::string(highest.status().message()));
  auto check = [&](const NodeConfig& node) {
    if (*highest < node.cpus) return absl::OkStatus();
    return DeviceError(device, "Cores",
                       absl::StrCat(device.cores, " names core ", *highest, ", but NodeName=",
                                    node.name, " has ", node.cpus, " CPUs (cores count from 0)"));
  };
  if (device.node_names.empty()) {
    for (const NodeConfig& node : skiff.nodes) {
      if (absl::Status status = check(node); !status.ok()) return status;
    }
    return absl::OkStatus();
  }
  for (const std::string& name : device.node_names) {
    if (absl::Status status = check(*nodes.at(name)); !status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<GresDevice> GresConfig::ForNode(std::string_view node_name) const {
  std::vector<GresDevice> matching;
  for (const GresDevice& device : devices) {
    bool applies = device.node_names.empty();
    for (const std::string& name : device.node_names) applies = applies || name == node_name;
    if (applies) matching.push_back(device);
  }
  return matching;
}

absl::StatusOr<GresConfig> ParseGresConfig(std::string_view text, std::string_view file_name,
                                           const IncludeReader& include_reader) {
  absl::StatusOr<std::vector<LogicalLine>> lines =
      config_internal::ReadLogicalLines(text, file_name, include_reader);
  if (!lines.ok()) return lines.status();
  GresConfig config;
  for (const LogicalLine& line : *lines) {
    GresLine parsed;
    PairContext context{"", &config.warnings, nullptr};
    absl::Status status = ApplyPairs(line, GresKeys(), context, parsed);
    if (status.ok()) status = FinishGresLine(line, parsed, config);
    if (!status.ok()) return status;
  }
  return config;
}

absl::Status CheckGresAgainstSkiff(const SkiffConfig& skiff, GresConfig& gres) {
  std::map<std::string, const NodeConfig*> nodes;
  for (const NodeConfig& node : skiff.nodes) nodes.emplace(node.name, &node);

  // Each noded reads only its own lines, so a name that matches no node would go
  // unnoticed, and the node that was meant would lose its devices.
  for (const GresDevice& device : gres.devices) {
    for (const std::string& name : device.node_names) {
      if (nodes.count(name) != 0) continue;
      return DeviceError(device, "NodeName",
                         absl::StrCat(Quoted(name),
                                      " is not a node in skiff.conf (add a NodeName line for it "
                                      "there, or fix this list)"));
    }
  }

  // Slurm: "Ignoring gres.conf record, invalid name".
  std::vector<GresDevice> kept;
  for (GresDevice& device : gres.devices) {
    if (InGresTypes(skiff, device.name)) {
      kept.push_back(std::move(device));
      continue;
    }
    gres.warnings.push_back(
        absl::StrCat(device.source_file, ":", device.source_line, ": Name: ", Quoted(device.name),
                     " is not in GresTypes in skiff.conf; line ignored, as Slurm does (add ",
                     device.name, " to GresTypes)"));
  }
  gres.devices = std::move(kept);

  for (const GresDevice& device : gres.devices) {
    if (absl::Status status = CheckNamedNodesHaveGres(nodes, device); !status.ok()) return status;
  }
  if (absl::Status status = CheckCounts(skiff, gres); !status.ok()) return status;
  for (const GresDevice& device : gres.devices) {
    if (absl::Status status = CheckCores(nodes, skiff, device); !status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::Status ApplyGresSharing(GresConfig& gres, SkiffConfig& skiff) {
  for (NodeConfig& node : skiff.nodes) {
    // The node's GPUs by index, as noded numbers them: each Name=gpu line's
    // devices in file order ("" for a GPU gres.conf gives no file).
    std::vector<std::string> gpu_files;
    std::vector<const GresDevice*> shared;
    for (const GresDevice& device : gres.devices) {
      if (!AppliesTo(device, node.name)) continue;
      if (EqualsIgnoreCase(device.name, "gpu")) {
        if (device.multiple_files || device.files.empty()) {
          const std::string file = device.files.empty() ? "" : device.files.front();
          gpu_files.insert(gpu_files.end(), static_cast<size_t>(device.count), file);
        } else {
          gpu_files.insert(gpu_files.end(), device.files.begin(), device.files.end());
        }
      } else if (!CountIsPerFile(device.name)) {
        shared.push_back(&device);
        if (std::find(device.flags.begin(), device.flags.end(), "fence") != device.flags.end()) {
          node.gpu_shares_fenced = true;
        }
      }
    }
    std::vector<int32_t> counts(gpu_files.size(), 0);
    bool per_file = false;
    for (const GresDevice* device : shared) {
      if (device->files.empty()) continue;
      per_file = true;
      if (std::all_of(gpu_files.begin(), gpu_files.end(),
                      [](const std::string& file) { return file.empty(); })) {
        gres.warnings.push_back(absl::StrCat(
            device->source_file, ":", device->source_line, ": File: NodeName=", node.name,
            "'s GPUs have no File= lines here (AutoDetect), so its ", device->name,
            " count is spread evenly over them"));
        per_file = false;
        break;
      }
      // The line's count over its files: evenly, the remainder on the last.
      int64_t left = device->count;
      for (size_t f = 0; f < device->files.size(); ++f) {
        const int64_t share = left / static_cast<int64_t>(device->files.size() - f);
        left -= share;
        auto gpu = std::find(gpu_files.begin(), gpu_files.end(), device->files[f]);
        if (gpu == gpu_files.end()) {
          return DeviceError(*device, "File",
                             absl::StrCat(Quoted(device->files[f]), " is not a GPU of NodeName=",
                                          node.name, " (its Name=gpu File= lines): a ",
                                          device->name, " count belongs to one of its GPUs"));
        }
        counts[static_cast<size_t>(gpu - gpu_files.begin())] += static_cast<int32_t>(share);
      }
    }
    if (per_file) node.gpu_share_counts = std::move(counts);
  }
  return absl::OkStatus();
}

}  // namespace skiff
