#include "cli/sinfo/sinfo_format.h"

#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "client/node_gpus.h"
#include "common/hostlist.h"
#include "common/time_format.h"

namespace skiff::cli {
namespace {

// A value that may be C's NULL, which glibc prints as "(null)".
using Text = std::optional<std::string>;

constexpr uint32_t kInfinite = 0xffffffff;

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

Text JoinOrNull(const google::protobuf::RepeatedPtrField<std::string>& values) {
  if (values.empty()) return std::nullopt;
  return absl::StrJoin(values, ",");
}

std::string Lower(std::string s) { return absl::AsciiStrToLower(s); }

// The node's reason uid, when ctld knows it.
std::optional<uint32_t> ReasonUid(const v1::NodeInfo& node) {
  if (node.reason().empty() || !node.has_reason_uid()) return std::nullopt;
  return node.reason_uid();
}

uint32_t CpuLoadOf(const v1::NodeInfo& node) {
  return node.has_cpu_load() ? node.cpu_load() : client::kNoVal;
}

uint64_t FreeMemOf(const v1::NodeInfo& node) {
  return node.has_free_memory_mb() ? node.free_memory_mb() : client::kNoVal64;
}

// ------------------------------------------------------------ match flags

struct MatchFlags {
  bool alloc_mem = false, avail = false, comment = false, cpus = false, cpu_load = false,
       default_time = false, disk = false, extra = false, features = false, features_act = false,
       free_mem = false, groups = false, gres = false, gres_used = false, hostnames = false,
       job_size = false, max_cpus_per_node = false, max_time = false, memory = false,
       node_addr = false, partition = false, port = false, preempt_mode = false,
       priority_job_factor = false, priority_tier = false, reason = false, reason_time = false,
       reason_user = false, root = false, oversubscribe = false, sockets = false, cores = false,
       threads = false, sct = false, state = false, statecomplete = false, version = false,
       weight = false;
};

MatchFlags FlagsOf(const std::vector<SinfoFormatItem>& items) {
  MatchFlags m;
  for (const SinfoFormatItem& item : items) {
    switch (item.field) {
      case SinfoField::kAllocMem:
        m.alloc_mem = true;
        break;
      case SinfoField::kAvail:
        m.avail = true;
        break;
      case SinfoField::kComment:
        m.comment = true;
        break;
      case SinfoField::kCpus:
      case SinfoField::kCpusState:
        m.cpus = true;
        break;
      case SinfoField::kCpuLoad:
        m.cpu_load = true;
        break;
      case SinfoField::kDefaultTime:
        m.default_time = true;
        break;
      case SinfoField::kDisk:
        m.disk = true;
        break;
      case SinfoField::kExtra:
        m.extra = true;
        break;
      case SinfoField::kFeatures:
        m.features = true;
        break;
      case SinfoField::kFeaturesAct:
        m.features_act = true;
        break;
      case SinfoField::kFreeMem:
        m.free_mem = true;
        break;
      case SinfoField::kGroups:
        m.groups = true;
        break;
      case SinfoField::kGres:
        m.gres = true;
        break;
      case SinfoField::kGresUsed:
        m.gres_used = true;
        break;
      case SinfoField::kHostnames:
        m.hostnames = true;
        break;
      case SinfoField::kSize:
        m.job_size = true;
        break;
      case SinfoField::kMaxCpusPerNode:
        m.max_cpus_per_node = true;
        break;
      case SinfoField::kTime:
        m.max_time = true;
        break;
      case SinfoField::kMemory:
        m.memory = true;
        break;
      case SinfoField::kNodeAddr:
        m.node_addr = true;
        break;
      case SinfoField::kPartition:
      case SinfoField::kPartitionName:
        m.partition = true;
        break;
      case SinfoField::kPort:
        m.port = true;
        break;
      case SinfoField::kPreemptMode:
        m.preempt_mode = true;
        break;
      case SinfoField::kPriorityJobFactor:
        m.priority_job_factor = true;
        break;
      case SinfoField::kPriorityTier:
        m.priority_tier = true;
        break;
      case SinfoField::kReason:
        m.reason = true;
        break;
      case SinfoField::kTimestamp:
        m.reason_time = true;
        break;
      case SinfoField::kUser:
      case SinfoField::kUserLong:
        m.reason_user = true;
        break;
      case SinfoField::kRoot:
        m.root = true;
        break;
      case SinfoField::kOversubscribe:
        m.oversubscribe = true;
        break;
      case SinfoField::kSockets:
        m.sockets = true;
        break;
      case SinfoField::kCores:
        m.cores = true;
        break;
      case SinfoField::kThreads:
        m.threads = true;
        break;
      case SinfoField::kSocketCoreThread:
        m.sct = true;
        break;
      case SinfoField::kStateCompact:
      case SinfoField::kStateLong:
        m.state = true;
        break;
      case SinfoField::kStateComplete:
        m.statecomplete = true;
        break;
      case SinfoField::kVersion:
        m.version = true;
        break;
      case SinfoField::kWeight:
        m.weight = true;
        break;
      default:
        break;
    }
  }
  return m;
}

// --------------------------------------------------------------- grouping

bool Contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

std::string GroupsOf(const v1::PartitionInfo& p) { return absl::StrJoin(p.allow_groups(), ","); }

bool MatchPart(const SinfoRecord& rec, const v1::PartitionInfo* part, const MatchFlags& m,
               const SinfoView& view) {
  if (view.list_reasons) return true;
  if (part == rec.partition) return true;
  if (part == nullptr || rec.partition == nullptr) return false;
  const v1::PartitionInfo& a = *part;
  const v1::PartitionInfo& b = *rec.partition;
  if (m.partition && a.name() != b.name()) return false;
  if (m.avail && a.state() != b.state()) return false;
  if (m.groups && GroupsOf(a) != GroupsOf(b)) return false;
  if (m.job_size && (a.min_nodes() != b.min_nodes() || a.max_nodes() != b.max_nodes())) {
    return false;
  }
  if (m.default_time && a.default_time() != b.default_time()) return false;
  if (m.max_time && a.max_time() != b.max_time()) return false;
  if (m.root && a.root_only() != b.root_only()) return false;
  if (m.oversubscribe && a.oversubscribe() != b.oversubscribe()) return false;
  if (m.preempt_mode && a.preempt_mode() != b.preempt_mode()) return false;
  if (m.priority_tier && a.priority_tier() != b.priority_tier()) return false;
  if (m.priority_job_factor && a.priority_job_factor() != b.priority_job_factor()) return false;
  return true;
}

bool MatchNode(const SinfoRecord& rec, const v1::NodeInfo& node, uint32_t state,
               const MatchFlags& m, const SinfoView& view) {
  if (view.node_flag) return false;
  const v1::NodeInfo& first = *rec.first;
  if (m.hostnames && !Contains(rec.hostnames, node.hostname())) return false;
  if (m.node_addr && !Contains(rec.addrs, node.addr())) return false;
  if ((m.features || m.features_act) &&
      JoinOrNull(node.features()) != JoinOrNull(first.features())) {
    return false;
  }
  if (m.gres && client::NodeGresString(node) != client::NodeGresString(first)) return false;
  if (m.gres_used && client::NodeGresUsedString(node) != client::NodeGresUsedString(first))
    return false;
  if (m.reason && node.reason() != first.reason()) return false;
  if (m.reason_time && node.reason_time() != first.reason_time()) return false;
  if (m.reason_user && ReasonUid(node) != ReasonUid(first)) return false;
  if (m.state && client::NodeStateString(state) != client::NodeStateString(rec.node_state)) {
    return false;
  }
  if (m.statecomplete &&
      client::NodeStateStringComplete(state) != client::NodeStateStringComplete(rec.node_state)) {
    return false;
  }
  if (m.alloc_mem && node.alloc_memory_mb() != rec.alloc_memory) return false;
  if (!view.exact) return true;
  if (m.cpus && static_cast<uint32_t>(node.cpus()) != rec.min_cpus) return false;
  if (m.sockets && static_cast<uint32_t>(node.sockets()) != rec.min_sockets) return false;
  if (m.cores && static_cast<uint32_t>(node.cores_per_socket()) != rec.min_cores) return false;
  if (m.threads && static_cast<uint32_t>(node.threads_per_core()) != rec.min_threads) return false;
  if (m.sct && (static_cast<uint32_t>(node.sockets()) != rec.min_sockets ||
                static_cast<uint32_t>(node.cores_per_socket()) != rec.min_cores ||
                static_cast<uint32_t>(node.threads_per_core()) != rec.min_threads)) {
    return false;
  }
  if (m.disk && static_cast<uint64_t>(node.tmp_disk_mb()) != rec.min_disk) return false;
  if (m.memory && node.real_memory_mb() != rec.min_mem) return false;
  if (m.weight && static_cast<uint32_t>(node.weight()) != rec.min_weight) return false;
  if (m.cpu_load && CpuLoadOf(node) != rec.min_cpu_load) return false;
  if (m.free_mem && FreeMemOf(node) != rec.min_free_mem) return false;
  if (m.port && static_cast<uint64_t>(node.port()) != static_cast<uint64_t>(first.port())) {
    return false;
  }
  // Slurm compares the version strings' addresses: two nodes never match.
  if (m.version) return false;
  return true;
}

template <typename T>
void Widen(T value, T* min, T* max) {
  if (*min > value) *min = value;
  if (*max < value) *max = value;
}

void Update(SinfoRecord* rec, const v1::NodeInfo& node, uint32_t state, const MatchFlags& m) {
  const uint32_t base = state & client::kStateBase;
  if (rec->nodes_total == 0) {
    rec->node_state = state;
    rec->first = &node;
    rec->min_cpus = rec->max_cpus = node.cpus();
    rec->min_sockets = rec->max_sockets = node.sockets();
    rec->min_cores = rec->max_cores = node.cores_per_socket();
    rec->min_threads = rec->max_threads = node.threads_per_core();
    rec->min_disk = rec->max_disk = node.tmp_disk_mb();
    rec->min_mem = rec->max_mem = node.real_memory_mb();
    rec->min_weight = rec->max_weight = node.weight();
    rec->min_cpu_load = rec->max_cpu_load = CpuLoadOf(node);
    rec->min_free_mem = rec->max_free_mem = FreeMemOf(node);
  } else if (Contains(rec->nodes, node.name())) {
    return;
  } else {
    Widen<uint32_t>(node.cpus(), &rec->min_cpus, &rec->max_cpus);
    Widen<uint32_t>(node.sockets(), &rec->min_sockets, &rec->max_sockets);
    Widen<uint32_t>(node.cores_per_socket(), &rec->min_cores, &rec->max_cores);
    Widen<uint32_t>(node.threads_per_core(), &rec->min_threads, &rec->max_threads);
    Widen<uint64_t>(node.tmp_disk_mb(), &rec->min_disk, &rec->max_disk);
    Widen<uint64_t>(node.real_memory_mb(), &rec->min_mem, &rec->max_mem);
    Widen<uint32_t>(node.weight(), &rec->min_weight, &rec->max_weight);
    Widen<uint32_t>(CpuLoadOf(node), &rec->min_cpu_load, &rec->max_cpu_load);
    Widen<uint64_t>(FreeMemOf(node), &rec->min_free_mem, &rec->max_free_mem);
  }
  rec->nodes.push_back(node.name());
  if (m.node_addr && !Contains(rec->addrs, node.addr())) rec->addrs.push_back(node.addr());
  if (m.hostnames && !Contains(rec->hostnames, node.hostname())) {
    rec->hostnames.push_back(node.hostname());
  }
  const bool drain = state & client::kFlagDrain;
  if (base == client::kStateAllocated || base == client::kStateMixed ||
      (state & client::kFlagCompleting)) {
    ++rec->nodes_alloc;
  } else if (drain || base == client::kStateDown) {
    ++rec->nodes_other;
  } else {
    ++rec->nodes_idle;
  }
  ++rec->nodes_total;
  rec->cpus_alloc += node.alloc_cpus();
  rec->cpus_total += node.cpus();
  rec->alloc_memory = node.alloc_memory_mb();
  const int64_t left = node.cpus() - node.alloc_cpus();
  if (drain || base == client::kStateDown) {
    rec->cpus_other += left;
  } else {
    rec->cpus_idle += left;
  }
}

bool FilteredOut(const v1::NodeInfo& node, uint32_t state, const SinfoView& view) {
  if (view.nodes.has_value() && !Contains(*view.nodes, node.name())) return true;
  if (view.dead && !node.not_responding()) return true;
  if (view.responding && node.not_responding()) return true;
  if (view.states.has_value() &&
      !client::MatchesStateFilter(*view.states, state, node.alloc_cpus())) {
    return true;
  }
  return false;
}

// ---------------------------------------------------------------- sorting

// Slurm's hostlist order of names: prefix, then the numeric suffix.
int CompareHost(const std::string& a, const std::string& b) {
  auto split = [](const std::string& s) {
    size_t i = s.size();
    while (i > 0 && absl::ascii_isdigit(static_cast<unsigned char>(s[i - 1]))) --i;
    return std::make_pair(s.substr(0, i), s.substr(i));
  };
  auto [pa, na] = split(a);
  auto [pb, nb] = split(b);
  if (int c = pa.compare(pb); c != 0) return c < 0 ? -1 : 1;
  if (na.empty() || nb.empty()) return na.empty() == nb.empty() ? 0 : (na.empty() ? -1 : 1);
  const unsigned long long x = strtoull(na.c_str(), nullptr, 10),
                           y = strtoull(nb.c_str(), nullptr, 10);
  if (x != y) return x < y ? -1 : 1;
  return 0;
}

std::string FirstHost(const std::vector<std::string>& list) {
  if (list.empty()) return "";
  return *std::min_element(list.begin(), list.end(),
                           [](const auto& a, const auto& b) { return CompareHost(a, b) < 0; });
}

template <typename T>
int Diff(T a, T b) {
  return a > b ? 1 : (a < b ? -1 : 0);
}

int StrDiff(const std::string& a, const std::string& b) {
  const int c = a.compare(b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

int SortKey(char key, bool part_order, const SinfoRecord& a, const SinfoRecord& b) {
  const v1::PartitionInfo* pa = a.partition;
  const v1::PartitionInfo* pb = b.partition;
  auto part_state = [](const v1::PartitionInfo* p) {
    if (p == nullptr) return 0;
    const std::string& s = p->state();
    return s == "UP" ? 3 : s == "DOWN" ? 1 : s == "DRAIN" ? 2 : s == "INACTIVE" ? 0 : 0;
  };
  switch (key) {
    case 'a':
      return part_state(pa) - part_state(pb);
    case 'A':
    case 'F':
      return Diff(a.nodes_alloc, b.nodes_alloc);
    case 'b':
    case 'f': {
      const std::string fa = a.first ? JoinOrNull(a.first->features()).value_or("") : "";
      const std::string fb = b.first ? JoinOrNull(b.first->features()).value_or("") : "";
      return StrDiff(fa, fb);
    }
    case 'c':
      return Diff(a.min_cpus, b.min_cpus);
    case 'd':
      return Diff(a.min_disk, b.min_disk);
    case 'D':
      return Diff(a.nodes_total, b.nodes_total);
    case 'E': {
      return StrDiff(a.first ? a.first->reason() : "", b.first ? b.first->reason() : "");
    }
    case 'g':
      return StrDiff(pa ? GroupsOf(*pa) : "", pb ? GroupsOf(*pb) : "");
    case 'h':
      return StrDiff(pa ? pa->oversubscribe() : "", pb ? pb->oversubscribe() : "");
    case 'H': {
      return Diff(a.first ? a.first->reason_time() : 0, b.first ? b.first->reason_time() : 0);
    }
    case 'l': {
      auto t = [](const v1::PartitionInfo* p) -> uint64_t {
        if (p == nullptr) return 0;
        return p->max_time() < 0 ? kInfinite : static_cast<uint64_t>(p->max_time() / 60);
      };
      return Diff(t(pa), t(pb));
    }
    case 'm':
      return Diff(a.min_mem, b.min_mem);
    case 'M':
      return StrDiff(pa ? pa->preempt_mode() : "", pb ? pb->preempt_mode() : "");
    case 'n':
      return CompareHost(FirstHost(a.hostnames), FirstHost(b.hostnames));
    case 'N':
      return CompareHost(FirstHost(a.nodes), FirstHost(b.nodes));
    case 'o':
      return CompareHost(FirstHost(a.addrs), FirstHost(b.addrs));
    case 'O':
      return Diff(a.min_cpu_load, b.min_cpu_load);
    case 'e':
      return Diff(a.min_free_mem, b.min_free_mem);
    case 'p':
      return Diff(pa ? pa->priority_tier() : 0, pb ? pb->priority_tier() : 0);
    case 'P':
    case 'R':
      if (part_order) return Diff(a.part_index, b.part_index);
      return StrDiff(pa ? pa->name() : "", pb ? pb->name() : "");
    case 'r':
      return Diff(pa ? pa->root_only() : false, pb ? pb->root_only() : false);
    case 's': {
      auto size = [](const v1::PartitionInfo* p) -> uint64_t {
        if (p == nullptr) return 0;
        if (p->max_nodes() < 0) return kInfinite;
        return static_cast<uint64_t>(p->max_nodes() + p->min_nodes());
      };
      return Diff(size(pa), size(pb));
    }
    case 'S':
      return Diff(pa ? pa->priority_job_factor() : 0, pb ? pb->priority_job_factor() : 0);
    case 't':
    case 'T':
      return Diff(a.node_state, b.node_state);
    case 'u':
    case 'U': {
      auto uid = [](const SinfoRecord& r) -> uint32_t {
        return r.first ? ReasonUid(*r.first).value_or(client::kNoVal) : client::kNoVal;
      };
      return Diff(uid(a), uid(b));
    }
    case 'w':
      return Diff(a.min_weight, b.min_weight);
    case 'X':
      return Diff(a.min_sockets, b.min_sockets);
    case 'Y':
      return Diff(a.min_cores, b.min_cores);
    case 'Z':
      return Diff(a.min_threads, b.min_threads);
    case 'z':
      if (int d = Diff(a.min_sockets, b.min_sockets); d != 0) return d;
      if (int d = Diff(a.min_cores, b.min_cores); d != 0) return d;
      return Diff(a.min_threads, b.min_threads);
    default:
      return 0;
  }
}

bool KnownSortKey(char c) {
  return std::string_view("aAbcdDEfFghHlmMnNoOepPrRsStTuUVwXYZz").find(c) != std::string_view::npos;
}

void SortRecords(std::vector<SinfoRecord>* records, const std::string& sort) {
  for (int i = static_cast<int>(sort.size()) - 1; i >= 0; --i) {
    const char c = sort[i];
    if (c == ',' || c == '#' || c == '+' || c == '-') continue;
    if (!KnownSortKey(c)) continue;
    const bool reverse = i > 0 && sort[i - 1] == '-';
    const bool part_order = i > 0 && sort[i - 1] == '#';
    std::stable_sort(records->begin(), records->end(),
                     [&](const SinfoRecord& a, const SinfoRecord& b) {
                       int d = SortKey(c, part_order, a, b);
                       if (reverse) d = -d;
                       return d < 0;
                     });
  }
}

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

// ------------------------------------------------------------------ public

std::vector<SinfoRecord> BuildSinfoRecords(const v1::GetPartitionsReply& reply,
                                           const SinfoView& view) {
  const MatchFlags m = FlagsOf(view.items);
  std::vector<SinfoRecord> records;
  // Partitions as ctld would send them to this client: hidden ones only with -a.
  std::vector<std::pair<int, const v1::PartitionInfo*>> parts;
  for (const v1::PartitionInfo& p : reply.partitions()) {
    if (p.hidden() && !view.show_all) continue;
    parts.emplace_back(static_cast<int>(parts.size()), &p);
  }
  auto listed = [&](const v1::PartitionInfo& p) {
    return view.partitions.empty() || Contains(view.partitions, p.name());
  };
  // Every partition is shown, even without nodes.
  if (!view.node_flag && m.partition) {
    for (const auto& [index, p] : parts) {
      if (!listed(*p)) continue;
      SinfoRecord rec;
      rec.partition = p;
      rec.part_index = index;
      records.push_back(std::move(rec));
    }
  }
  std::vector<std::pair<const v1::NodeInfo*, uint32_t>> nodes;
  for (const v1::NodeInfo& node : reply.nodes()) {
    const uint32_t state = client::NodeStateWord(node);
    if (FilteredOut(node, state, view)) continue;
    nodes.emplace_back(&node, state);
  }
  // Slurm fills a partition's records in its own thread when partitions are
  // shown; the later partition's records come out first among equals (as in
  // Slurm 22.05's "sinfo -N -l", where n3's gpu line precedes its debug line).
  std::vector<std::pair<int, const v1::PartitionInfo*>> order = parts;
  if (m.partition && !view.list_reasons) std::reverse(order.begin(), order.end());
  for (const auto& [index, p] : order) {
    if (!listed(*p)) continue;
    for (const auto& [node, state] : nodes) {
      if (!Contains({p->nodes().begin(), p->nodes().end()}, node->name())) continue;
      bool placed = false;
      for (SinfoRecord& rec : records) {
        if (!MatchPart(rec, p, m, view)) continue;
        if (rec.nodes_total != 0 && !MatchNode(rec, *node, state, m, view)) continue;
        Update(&rec, *node, state, m);
        placed = true;
        break;
      }
      if (!placed) {
        SinfoRecord rec;
        rec.partition = p;
        rec.part_index = index;
        Update(&rec, *node, state, m);
        records.push_back(std::move(rec));
      }
    }
  }
  std::string sort = view.sort;
  if (sort.empty()) sort = view.node_flag ? "N" : "#P,-t";
  SortRecords(&records, sort);
  return records;
}

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
