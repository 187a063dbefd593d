// sinfo's output, as pure functions of what ctld returned: the default
// partition view and the node-oriented long view (-N -l), column for column as
// Slurm 22.05 prints them (see shared/reference/sinfo_*.txt).
#ifndef SKIFF_CLI_SINFO_SINFO_FORMAT_H_
#define SKIFF_CLI_SINFO_SINFO_FORMAT_H_

#include <string>
#include <vector>

#include "proto/ctld.pb.h"

namespace skiff {

struct SinfoOptions {
  bool node_oriented = false;  // -N
  bool long_format = false;    // -l
  bool no_header = false;      // -h
  int64_t now = 0;             // for the -l timestamp line
};

// Slurm's short node state (%t): "idle", "alloc", "mix", "down*", "drain", "drng", "unk*".
std::string ShortNodeState(const v1::NodeInfo& node);
// Slurm's long node state (%T): "idle", "allocated", "mixed", "drained", "draining", "unknown*".
std::string LongNodeState(const v1::NodeInfo& node);

// The whole output, newline-terminated lines.
std::string FormatSinfo(const v1::GetPartitionsReply& reply, const SinfoOptions& options);

}  // namespace skiff

#endif  // SKIFF_CLI_SINFO_SINFO_FORMAT_H_
