// seff's report of one job, as Slurm's contrib seff (2.1) prints it: CPU and
// memory efficiency from the job's accounting record and its steps, and,
// beyond Slurm's, a GPU job's sampled GPUs (noded/gpu/): each GPU's
// utilisation average and peak, its memory peak against its size, and the
// GPU-hours used against the GPU-hours held. Pure.
#ifndef SKIFF_CLI_SEFF_SEFF_REPORT_H_
#define SKIFF_CLI_SEFF_SEFF_REPORT_H_

#include <cstdint>
#include <string>

#include "proto/accounting.pb.h"

namespace skiff::cli {

// `now` times a running job; `debug` (-d) adds seff's "Slurm data:" lines.
std::string SeffReport(const v1::AcctJob& job, int64_t now, bool debug);

// seff's kbytes2str ("0.00 MB", "1.50 GB") and time2str ("1-02:03:04").
std::string SeffKbytes(double kbytes);
std::string SeffTime(int64_t seconds);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_SEFF_SEFF_REPORT_H_
