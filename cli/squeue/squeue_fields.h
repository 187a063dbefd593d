// The -O names without an -o letter (kExtraFields, in squeue_fields.cc) and the
// text helpers their values share with SqueueFieldValue (squeue_format.cc).
// Internal to //cli/squeue:squeue_format.
#ifndef SKIFF_CLI_SQUEUE_SQUEUE_FIELDS_H_
#define SKIFF_CLI_SQUEUE_SQUEUE_FIELDS_H_

#include <cstdint>
#include <string>

#include "common/time_format.h"
#include "proto/ctld.pb.h"

namespace skiff::cli::squeue_internal {

inline std::string OrNull(const std::string& text) { return text.empty() ? "(null)" : text; }

inline std::string Timestamp(int64_t t) { return t == 0 ? "N/A" : FormatTimestamp(t); }

// The -O names Slurm 22.05's squeue knows that have no -o letter: their
// headers (src/squeue/print.c) and values.
struct ExtraField {
  const char* name;
  const char* header;
  std::string (*value)(const v1::JobInfo& job, int64_t now);
};

// The kExtraFields entry of a field code, or nullptr.
const ExtraField* ExtraFieldOf(char field);

}  // namespace skiff::cli::squeue_internal

#endif  // SKIFF_CLI_SQUEUE_SQUEUE_FIELDS_H_
