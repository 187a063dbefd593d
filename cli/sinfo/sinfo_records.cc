// sinfo's records: nodes grouped into one record per partition and set of
// nodes whose shown fields are equal, then sorted (-S).
#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "cli/sinfo/sinfo_format.h"
#include "cli/sinfo/sinfo_values.h"
#include "client/node_gpus.h"

namespace skiff::cli {

using sinfo_internal::GroupsOf;
using sinfo_internal::JoinOrNull;
using sinfo_internal::kInfinite;
using sinfo_internal::ReasonUid;

namespace {

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

}  // namespace

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

}  // namespace skiff::cli
