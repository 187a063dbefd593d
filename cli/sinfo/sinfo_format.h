// sinfo's output as pure functions of what ctld returned, the way Slurm 22.05's
// sinfo builds it (src/sinfo/{opts,sinfo,sort,print}.c):
//
//   1. a format (-o "%P %.5a", -O "Partition:10,Gres", or the default one of the
//      options) is parsed into fields, each with a width, a justification and
//      the text that follows it;
//   2. nodes are grouped into records: one per partition and set of nodes whose
//      printed fields are equal (only the fields shown count; numbers such as
//      CPUS show a minimum with "+" unless -e asks for exact matches);
//   3. records are sorted (-S, default "#P,-t": partitions in configured order,
//      then states) and printed one line each, node lists compressed.
//
// Pure: no I/O, no clock (the caller passes what it read); thread-safe.
#ifndef SKIFF_CLI_SINFO_SINFO_FORMAT_H_
#define SKIFF_CLI_SINFO_SINFO_FORMAT_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "client/node_state.h"
#include "proto/ctld.pb.h"

namespace skiff::cli {

// What sinfo can print, one per -o letter / -O name.
enum class SinfoField {
  kPrefix,  // text only (before the first '%', or an unknown field's suffix)
  kInvalid,
  kAllocMem,
  kAllocNodes,
  kAvail,
  kCluster,
  kComment,
  kCores,
  kCpuLoad,
  kCpus,
  kCpusState,
  kDefaultTime,
  kDisk,
  kExtra,
  kFeatures,
  kFeaturesAct,
  kFreeMem,
  kGres,
  kGresUsed,
  kGroups,
  kHostnames,
  kMaxCpusPerNode,
  kMemory,
  kNodeAddr,
  kNodeList,
  kNodes,
  kNodesAI,
  kNodesAIOT,
  kOversubscribe,
  kPartition,
  kPartitionName,
  kPort,
  kPreemptMode,
  kPriorityJobFactor,
  kPriorityTier,
  kReason,
  kRoot,
  kSize,
  kSockets,
  kSocketCoreThread,
  kStateCompact,
  kStateComplete,
  kStateLong,
  kThreads,
  kTime,
  kTimestamp,
  kUser,
  kUserLong,
  kVersion,
  kWeight,
};

struct SinfoFormatItem {
  SinfoField field = SinfoField::kPrefix;
  int width = 0;       // 0: as wide as the value
  bool right = false;  // right-justified
  std::string suffix;  // printed after the field
};

struct ParsedFormat {
  std::vector<SinfoFormatItem> items;
  // What Slurm writes to stderr (and goes on) for each field it does not know:
  // "Invalid node format specification: q" (-o) or
  // "sinfo: error: Invalid job format specification: foo" (-O).
  std::vector<std::string> warnings;
};

// -o: "%[.][width]letter" fields, text before the first '%' kept, "%all" for
// every letter. Slurm's quirks kept: text between fields belongs to the field
// before it; an unknown letter prints nothing but its "%x..." text.
ParsedFormat ParseShortFormat(std::string_view format);
// -O: "name[:[.]width][suffix]" separated by ',', names case-insensitive, width
// 20 when no ':' is given; "all" is -o "%all".
ParsedFormat ParseLongFormat(std::string_view format);

// Everything besides the format that shapes the output.
struct SinfoView {
  std::vector<SinfoFormatItem> items;
  bool node_flag = false;        // -N: one record per node and partition
  bool list_reasons = false;     // -R: partitions do not matter
  bool exact = false;            // -e
  bool no_header = false;        // -h
  bool node_field_flag = false;  // NODELIST as wide as the widest list (default -N formats)
  bool part_field_flag = false;  // PARTITION as wide as the widest name (default formats)
  bool noconvert = false;        // --noconvert: no K/M suffixes on counts
  std::string sort;              // -S; empty: "N" with -N, else "#P,-t"
  // Filters (applied to nodes; partitions only filter by name).
  bool show_all = false;                          // -a: hidden partitions too
  std::vector<std::string> partitions;            // -p, empty = all
  std::optional<std::vector<std::string>> nodes;  // -n, expanded
  bool dead = false;                              // -d
  bool responding = false;                        // -r
  std::optional<client::StateFilter> states;      // -t (and -R's default)
  // The login name of a uid, for USER; nullptr or nullopt: "Unk(<uid>)".
  std::function<std::optional<std::string>(uint32_t)> user_name;
};

// Slurm's NO_VAL64: free memory not reported.
// One output line's data: Slurm's sinfo_data_t.
struct SinfoRecord {
  const v1::PartitionInfo* partition = nullptr;
  int part_index = 0;
  uint32_t node_state = 0;
  const v1::NodeInfo* first = nullptr;  // the node whose strings the line shows
  std::vector<std::string> nodes, hostnames, addrs;
  int64_t nodes_alloc = 0, nodes_idle = 0, nodes_other = 0, nodes_total = 0;
  int64_t cpus_alloc = 0, cpus_idle = 0, cpus_other = 0, cpus_total = 0;
  uint32_t min_cpus = 0, max_cpus = 0, min_sockets = 0, max_sockets = 0;
  uint32_t min_cores = 0, max_cores = 0, min_threads = 0, max_threads = 0;
  uint64_t min_disk = 0, max_disk = 0, min_mem = 0, max_mem = 0;
  uint32_t min_weight = 0, max_weight = 0;
  uint32_t min_cpu_load = client::kNoVal, max_cpu_load = client::kNoVal;  // x 100
  uint64_t min_free_mem = client::kNoVal64, max_free_mem = client::kNoVal64;
  uint64_t alloc_memory = 0;  // of the last node added, as Slurm keeps it
};

// The records Slurm would print, sorted, for `reply` (partitions in
// configured order, their nodes).
std::vector<SinfoRecord> BuildSinfoRecords(const v1::GetPartitionsReply& reply,
                                           const SinfoView& view);

// The lines (header unless no_header, then one per record), each ending in '\n'.
std::string PrintSinfoRecords(const std::vector<SinfoRecord>& records, const SinfoView& view);

// Slurm's "Sun Nov 22 05:14:50 2026" line (print_date), in local time.
std::string SinfoDateLine(int64_t now);

// sinfo -T: the advance reservations as Slurm's print_sinfo_reservation
// prints them (the name column as wide as the longest name, at least 9), or
// "No reservations in the system".
std::string FormatSinfoReservations(const v1::GetReservationsReply& reply, bool no_header);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_SINFO_SINFO_FORMAT_H_
