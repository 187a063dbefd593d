// sinfo's output: each record's fields as Slurm's print.c prints them, the date
// line above them, and -T's reservation table.
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli/sinfo/sinfo_format.h"
#include "cli/sinfo/sinfo_values.h"
#include "client/node_gpus.h"
#include "common/hostlist.h"
#include "common/time_format.h"

namespace skiff::cli {

using sinfo_internal::GroupsOf;
using sinfo_internal::JoinOrNull;
using sinfo_internal::kInfinite;
using sinfo_internal::ReasonUid;
using sinfo_internal::Text;

namespace {

// ---------------------------------------------------------------- printing

// Slurm's _print_str: a width truncates (left: always, "%.Ns"; right: when
// `cut`) and pads. NULL prints "(null)", except through a precision below 6,
// where glibc prints nothing.
std::string PrintStr(const Text& value, int width, bool right, bool cut) {
  std::string text;
  if (!value.has_value()) {
    text = (width != 0 && !right && width < 6) ? "" : "(null)";
  } else {
    text = *value;
  }
  if (width <= 0) return text;
  const size_t w = static_cast<size_t>(width);
  if (right) {
    if (text.size() < w) text.insert(0, w - text.size(), ' ');
    if (cut && text.size() > w) text.resize(w);
    return text;
  }
  if (text.size() > w) text.resize(w);
  text.append(w - text.size(), ' ');
  return text;
}

// Slurm's _print_secs.
std::string Secs(int64_t time) {
  const int64_t seconds = time % 60, minutes = (time / 60) % 60, hours = (time / 3600) % 24,
                days = time / 86400;
  char buf[64];
  if (days) {
    snprintf(buf, sizeof(buf), "%ld-%2.2ld:%2.2ld:%2.2ld", static_cast<long>(days),
             static_cast<long>(hours), static_cast<long>(minutes), static_cast<long>(seconds));
  } else if (hours) {
    snprintf(buf, sizeof(buf), "%ld:%2.2ld:%2.2ld", static_cast<long>(hours),
             static_cast<long>(minutes), static_cast<long>(seconds));
  } else {
    snprintf(buf, sizeof(buf), "%ld:%2.2ld", static_cast<long>(minutes),
             static_cast<long>(seconds));
  }
  return buf;
}

// Slurm's convert_num_unit with CONVERT_NUM_UNIT_EXACT (or _NO).
std::string ConvertNum(double num, bool noconvert) {
  if (static_cast<int64_t>(num) == 0) return "0";
  const char* units = "\0KMGTP?";
  int unit = 0;
  if (!noconvert) {
    while (num >= 1024 && static_cast<uint64_t>(num) % 512 == 0) {
      num /= 1024;
      ++unit;
    }
  }
  if (unit > 5) unit = 6;
  const uint64_t whole = static_cast<uint64_t>(num);
  std::string out;
  if (static_cast<double>(whole) == num) {
    out = std::to_string(whole);
  } else {
    char buf[64];
    snprintf(buf, sizeof(buf), "%.2f", num);
    out = buf;
  }
  if (unit != 0) out.push_back(units[unit]);
  return out;
}

std::string MinMax16(uint32_t min, uint32_t max, bool range, bool noconvert) {
  const std::string lo = ConvertNum(min, noconvert), hi = ConvertNum(max, noconvert);
  if (min == max) return hi;
  if (range) return max == 0xffff ? lo + "-infinite" : lo + "-" + hi;
  return lo + "+";
}

std::string MinMax32(uint64_t min, uint64_t max, bool range, bool use_suffix, bool noconvert) {
  const std::string lo = use_suffix ? ConvertNum(min, noconvert) : std::to_string(min);
  const std::string hi = use_suffix ? ConvertNum(max, noconvert) : std::to_string(max);
  if (min == max) return hi;
  if (range) return max == kInfinite ? lo + "-infinite" : lo + "-" + hi;
  return lo + "+";
}

std::string CpuLoad(uint32_t min, uint32_t max) {
  auto one = [](uint32_t v) {
    if (v == client::kNoVal) return std::string("N/A");
    char buf[32];
    snprintf(buf, sizeof(buf), "%.2f", v / 100.0);
    return std::string(buf);
  };
  if (min == max) return one(max);
  return one(min) + "-" + one(max);
}

std::string Mem64(uint64_t min, uint64_t max, bool range) {
  auto one = [](uint64_t v) {
    return v == client::kNoVal64 ? std::string("N/A") : std::to_string(v);
  };
  if (min == max) return one(max);
  if (range) return one(min) + "-" + one(max);
  return one(min) + "+";
}

std::string Lower(std::string s) { return absl::AsciiStrToLower(s); }

// ---------------------------------------------------------------- output

std::string Header(SinfoField field) {
  switch (field) {
    case SinfoField::kAllocMem:
      return "ALLOCMEM";
    case SinfoField::kAllocNodes:
      return "ALLOCNODES";
    case SinfoField::kAvail:
      return "AVAIL";
    case SinfoField::kCluster:
      return "CLUSTER";
    case SinfoField::kComment:
      return "COMMENT";
    case SinfoField::kCores:
      return "CORES";
    case SinfoField::kCpuLoad:
      return "CPU_LOAD";
    case SinfoField::kCpus:
      return "CPUS";
    case SinfoField::kCpusState:
      return "CPUS(A/I/O/T)";
    case SinfoField::kDefaultTime:
      return "DEFAULTTIME";
    case SinfoField::kDisk:
      return "TMP_DISK";
    case SinfoField::kExtra:
      return "EXTRA";
    case SinfoField::kFeatures:
      return "AVAIL_FEATURES";
    case SinfoField::kFeaturesAct:
      return "ACTIVE_FEATURES";
    case SinfoField::kFreeMem:
      return "FREE_MEM";
    case SinfoField::kGres:
      return "GRES";
    case SinfoField::kGresUsed:
      return "GRES_USED";
    case SinfoField::kGroups:
      return "GROUPS";
    case SinfoField::kHostnames:
      return "HOSTNAMES";
    case SinfoField::kMaxCpusPerNode:
      return "MAX_CPUS_PER_NODE";
    case SinfoField::kMemory:
      return "MEMORY";
    case SinfoField::kNodeAddr:
      return "NODE_ADDR";
    case SinfoField::kNodeList:
      return "NODELIST";
    case SinfoField::kNodes:
      return "NODES";
    case SinfoField::kNodesAI:
      return "NODES(A/I)";
    case SinfoField::kNodesAIOT:
      return "NODES(A/I/O/T)";
    case SinfoField::kOversubscribe:
      return "OVERSUBSCRIBE";
    case SinfoField::kPartition:
    case SinfoField::kPartitionName:
      return "PARTITION";
    case SinfoField::kPort:
      return "PORT";
    case SinfoField::kPreemptMode:
      return "PREEMPT_MODE";
    case SinfoField::kPriorityJobFactor:
      return "PRIO_JOB_FACTOR";
    case SinfoField::kPriorityTier:
      return "PRIO_TIER";
    case SinfoField::kReason:
      return "REASON";
    case SinfoField::kRoot:
      return "ROOT";
    case SinfoField::kSize:
      return "JOB_SIZE";
    case SinfoField::kSockets:
      return "SOCKETS";
    case SinfoField::kSocketCoreThread:
      return "S:C:T";
    case SinfoField::kStateCompact:
    case SinfoField::kStateLong:
      return "STATE";
    case SinfoField::kStateComplete:
      return "STATECOMPLETE";
    case SinfoField::kThreads:
      return "THREADS";
    case SinfoField::kTime:
      return "TIMELIMIT";
    case SinfoField::kTimestamp:
      return "TIMESTAMP";
    case SinfoField::kUser:
    case SinfoField::kUserLong:
      return "USER";
    case SinfoField::kVersion:
      return "VERSION";
    case SinfoField::kWeight:
      return "WEIGHT";
    case SinfoField::kPrefix:
    case SinfoField::kInvalid:
      return "";
  }
  return "";
}

std::string OversubscribeText(const std::string& value) {
  if (value.empty()) return "NO";
  return absl::AsciiStrToUpper(value);
}

std::string PreemptModeText(const std::string& value) {
  if (value.empty()) return "OFF";
  return absl::AsciiStrToUpper(value);
}

std::string UserText(const SinfoRecord& rec, const SinfoView& view, bool long_form) {
  const std::optional<uint32_t> uid = rec.first ? ReasonUid(*rec.first) : std::nullopt;
  if (!uid.has_value()) return "Unknown";
  std::optional<std::string> name;
  if (view.user_name) name = view.user_name(*uid);
  if (!name.has_value()) return absl::StrCat("Unk(", *uid, ")");
  return long_form ? absl::StrCat(*name, "(", *uid, ")") : *name;
}

std::string PartitionText(const v1::PartitionInfo& p, int width) {
  std::string name = p.name();
  if (p.is_default()) {
    if (static_cast<int>(name.size()) < width || width == 0) {
      name += "*";
    } else if (width > 0) {
      name[width - 1] = '*';
    }
  }
  return name;
}

// One field of one record (rec == nullptr: the header).
std::string Field(const SinfoFormatItem& item, const SinfoRecord* rec, const SinfoView& view,
                  int node_width, int part_width) {
  int width = item.width;
  const bool right = item.right;
  if (item.field == SinfoField::kPrefix || item.field == SinfoField::kInvalid) return "";
  if ((item.field == SinfoField::kNodeList || item.field == SinfoField::kHostnames) &&
      view.node_field_flag) {
    width = node_width;
  }
  if ((item.field == SinfoField::kPartition || item.field == SinfoField::kPartitionName) &&
      view.part_field_flag) {
    width = part_width;
  }
  if (rec == nullptr) {
    const bool cut = item.field != SinfoField::kNodeList && item.field != SinfoField::kHostnames &&
                     item.field != SinfoField::kNodeAddr;
    return PrintStr(Header(item.field), width, right, cut);
  }
  const v1::PartitionInfo* part = rec->partition;
  const v1::NodeInfo* first = rec->first;
  const bool nc = view.noconvert;
  auto out = [&](const Text& value) { return PrintStr(value, width, right, true); };
  switch (item.field) {
    case SinfoField::kAvail: {
      if (part == nullptr) return out("n/a");
      const std::string& s = part->state();
      if (s == "UP") return out("up");
      if (s == "DOWN") return out("down");
      if (s == "DRAIN") return out("drain");
      if (s == "INACTIVE") return out("inactive");
      return out("unknown");
    }
    case SinfoField::kComment:
    case SinfoField::kExtra:
      return out(std::nullopt);
    case SinfoField::kCpus:
      return out(MinMax32(rec->min_cpus, rec->max_cpus, false, true, nc));
    case SinfoField::kCpusState:
      return out(absl::StrCat(rec->cpus_alloc, "/", rec->cpus_idle, "/", rec->cpus_other, "/",
                              rec->cpus_total));
    case SinfoField::kSocketCoreThread:
      return out(absl::StrCat(MinMax16(rec->min_sockets, rec->max_sockets, false, nc), ":",
                              MinMax16(rec->min_cores, rec->max_cores, false, nc), ":",
                              MinMax16(rec->min_threads, rec->max_threads, false, nc)));
    case SinfoField::kSockets:
      return out(MinMax16(rec->min_sockets, rec->max_sockets, false, nc));
    case SinfoField::kCores:
      return out(MinMax16(rec->min_cores, rec->max_cores, false, nc));
    case SinfoField::kThreads:
      return out(MinMax16(rec->min_threads, rec->max_threads, false, nc));
    case SinfoField::kDisk:
      return out(MinMax32(rec->min_disk, rec->max_disk, false, false, nc));
    case SinfoField::kFeatures:
    case SinfoField::kFeaturesAct:
      return out(first ? JoinOrNull(first->features()) : std::nullopt);
    case SinfoField::kGres:
      return out(first ? client::NodeGresString(*first) : std::nullopt);
    case SinfoField::kGresUsed:
      return out(first ? client::NodeGresUsedString(*first) : std::nullopt);
    case SinfoField::kGroups: {
      if (part == nullptr) return out("n/a");
      return out(part->allow_groups().empty() ? "all" : GroupsOf(*part));
    }
    case SinfoField::kAllocNodes:
      return out(part == nullptr ? "n/a" : "all");
    case SinfoField::kMemory:
      return out(Mem64(rec->min_mem, rec->max_mem, false));
    case SinfoField::kNodeAddr:
      return out(CompressHostlist(rec->addrs));
    case SinfoField::kNodeList:
      return out(CompressHostlist(rec->nodes));
    case SinfoField::kHostnames:
      return out(CompressHostlist(rec->hostnames));
    case SinfoField::kNodes:
      return out(absl::StrCat(rec->nodes_total));
    case SinfoField::kNodesAI:
      return out(absl::StrCat(rec->nodes_alloc, "/", rec->nodes_idle));
    case SinfoField::kNodesAIOT:
      return out(absl::StrCat(rec->nodes_alloc, "/", rec->nodes_idle, "/", rec->nodes_other, "/",
                              rec->nodes_total));
    case SinfoField::kPartition:
      return out(part == nullptr ? std::string("n/a") : PartitionText(*part, width));
    case SinfoField::kPartitionName:
      return out(part == nullptr ? "n/a" : part->name());
    case SinfoField::kPort:
      return out(first ? MinMax16(first->port(), first->port(), false, nc) : "0");
    case SinfoField::kPreemptMode:
      return out(PreemptModeText(part ? part->preempt_mode() : ""));
    case SinfoField::kPriorityJobFactor:
      return out(part ? MinMax16(part->priority_job_factor(), part->priority_job_factor(), true, nc)
                      : "0");
    case SinfoField::kPriorityTier:
      return out(part ? MinMax16(part->priority_tier(), part->priority_tier(), true, nc) : "0");
    case SinfoField::kReason: {
      const std::string reason = first ? first->reason() : "";
      return out(reason.empty() || absl::StartsWith(reason, "(null)") ? "none" : reason);
    }
    case SinfoField::kRoot: {
      if (part == nullptr) return out("n/a");
      return out(part->root_only() ? "yes" : "no");
    }
    case SinfoField::kOversubscribe:
      return out(OversubscribeText(part ? part->oversubscribe() : ""));
    case SinfoField::kSize: {
      if (part == nullptr) return out("n/a");
      uint64_t min = static_cast<uint64_t>(std::max<int64_t>(part->min_nodes(), 0));
      const uint64_t max =
          part->max_nodes() < 0 ? kInfinite : static_cast<uint64_t>(part->max_nodes());
      if (min < 1 && max > 0) min = 1;
      return out(MinMax32(min, max, true, true, nc));
    }
    case SinfoField::kStateCompact:
      if (rec->nodes_total == 0) return out("n/a");
      return out(Lower(client::NodeStateStringCompact(rec->node_state)));
    case SinfoField::kStateLong:
      if (rec->nodes_total == 0) return out("n/a");
      return out(Lower(client::NodeStateString(rec->node_state)));
    case SinfoField::kStateComplete:
      if (rec->nodes_total == 0) return out("n/a");
      return out(Lower(client::NodeStateStringComplete(rec->node_state)));
    case SinfoField::kTime: {
      if (part == nullptr) return out("n/a");
      if (part->max_time() < 0) return out("infinite");
      return out(Secs(part->max_time() / 60 * 60));
    }
    case SinfoField::kDefaultTime: {
      if (part == nullptr || part->default_time() < 0) return out("n/a");
      return out(Secs(part->default_time() / 60 * 60));
    }
    case SinfoField::kTimestamp: {
      const int64_t t = first ? first->reason_time() : 0;
      return out(t != 0 ? FormatTimestamp(t) : "Unknown");
    }
    case SinfoField::kUser:
      return out(UserText(*rec, view, false));
    case SinfoField::kUserLong:
      return out(UserText(*rec, view, true));
    case SinfoField::kWeight:
      return out(MinMax32(rec->min_weight, rec->max_weight, false, false, nc));
    case SinfoField::kCpuLoad:
      return out(CpuLoad(rec->min_cpu_load, rec->max_cpu_load));
    case SinfoField::kFreeMem:
      return out(Mem64(rec->min_free_mem, rec->max_free_mem, true));
    case SinfoField::kMaxCpusPerNode:
      return out("UNLIMITED");
    case SinfoField::kVersion:
      return out(first == nullptr || first->version().empty() ? "N/A" : first->version());
    case SinfoField::kAllocMem:
      return out(absl::StrCat(rec->alloc_memory));
    case SinfoField::kCluster:
      return out("N/A");
    case SinfoField::kPrefix:
    case SinfoField::kInvalid:
      return "";
  }
  return "";
}

std::string Line(const SinfoRecord* rec, const SinfoView& view, int node_width, int part_width) {
  std::string line;
  for (const SinfoFormatItem& item : view.items) {
    line += Field(item, rec, view, node_width, part_width);
    line += item.suffix;
  }
  line += "\n";
  return line;
}

}  // namespace

std::string PrintSinfoRecords(const std::vector<SinfoRecord>& records, const SinfoView& view) {
  int node_width = 9, part_width = 9;
  for (const SinfoRecord& rec : records) {
    node_width = std::max(node_width, static_cast<int>(CompressHostlist(rec.nodes).size()));
    if (rec.partition != nullptr) {
      part_width = std::max(part_width, static_cast<int>(rec.partition->name().size()) +
                                            (rec.partition->is_default() ? 1 : 0));
    }
  }
  std::string out;
  if (!view.no_header) out += Line(nullptr, view, node_width, part_width);
  for (const SinfoRecord& rec : records) out += Line(&rec, view, node_width, part_width);
  return out;
}

std::string SinfoDateLine(int64_t now) {
  const time_t t = static_cast<time_t>(now);
  struct tm tm;
  localtime_r(&t, &tm);
  char buf[64];
  strftime(buf, sizeof(buf), "%a %b %d %T %Y", &tm);
  return absl::StrCat(buf, "\n");
}

std::string FormatSinfoReservations(const v1::GetReservationsReply& reply, bool no_header) {
  if (reply.reservations_size() == 0) return "No reservations in the system\n";
  size_t width = 9;
  for (const v1::ReservationInfo& resv : reply.reservations()) {
    width = std::max(width, resv.name().size());
  }
  auto line = [width](const std::string& name, const std::string& state, const std::string& start,
                      const std::string& end, const std::string& duration,
                      const std::string& nodes) {
    return absl::StrFormat("%-*s  %8s  %19s  %19s  %11s  %s\n", static_cast<int>(width), name,
                           state, start, end, duration, nodes);
  };
  std::string out;
  if (!no_header) {
    out += line("RESV_NAME", "STATE", "START_TIME", "END_TIME", "DURATION", "NODELIST");
  }
  for (const v1::ReservationInfo& resv : reply.reservations()) {
    const std::vector<std::string> nodes(resv.nodes().begin(), resv.nodes().end());
    out +=
        line(resv.name(), resv.active() ? "ACTIVE" : "INACTIVE", FormatTimestamp(resv.start_time()),
             FormatTimestamp(resv.end_time()), FormatTimeLimit(resv.end_time() - resv.start_time()),
             nodes.empty() ? "(null)" : CompressHostlist(nodes));
  }
  return out;
}

}  // namespace skiff::cli
