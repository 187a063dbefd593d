// sdiag's output: Slurm 22.05's text (src/sdiag/sdiag.c's layout, line for
// line) and, for --json, the "statistics" object of slurmrestd's
// /slurm/v0.0.38/diag in 22.05's envelope, the shape the other commands'
// --json use (sdiag itself has --json only from 23.02).
//
// RPC lists are sorted as Slurm's sdiag sorts them (by count unless told
// otherwise), with its exact swap order, so equal keys come out as they do in
// Slurm. Pure but for local time (dates are printed in the TZ in force).
#ifndef SKIFF_CLI_SDIAG_SDIAG_FORMAT_H_
#define SKIFF_CLI_SDIAG_SDIAG_FORMAT_H_

#include <string>

#include "proto/ctld.pb.h"

namespace skiff::cli {

enum class SdiagSort {
  kCount,  // default: most calls first
  kId,     // -i: by message type number / uid, ascending
  kTime,   // -t: most total time first
  kTime2,  // -T: longest average first
};

// Sorts `stats`'s RPC lists in place.
void SortSdiagRpcs(v1::GetStatsReply* stats, SdiagSort sort);

// The text sdiag prints. REQUIRES: the RPC lists already sorted.
std::string FormatSdiag(const v1::GetStatsReply& stats);

// sdiag --json. REQUIRES: the RPC lists already sorted.
std::string FormatSdiagJson(const v1::GetStatsReply& stats);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_SDIAG_SDIAG_FORMAT_H_
