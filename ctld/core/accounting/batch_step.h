// The batch step of a launched batch job, as sacct and squeue -s show it: the
// script's own record, made from the job (noded does not report it as a step).
//
// Threads: none; pure.
#ifndef SKIFF_CTLD_CORE_ACCOUNTING_BATCH_STEP_H_
#define SKIFF_CTLD_CORE_ACCOUNTING_BATCH_STEP_H_

#include <cstdint>

#include "ctld/core/accounting/step_book.h"
#include "ctld/core/job.h"

namespace skiff::ctld {

// `suspended`: seconds so far. State and exit status as Slurm records them:
// the script's own end, or CANCELLED by SIGTERM when the job was ended from
// outside; RUNNING while the job runs.
StepRecord BatchStep(const Job& job, int64_t suspended);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_ACCOUNTING_BATCH_STEP_H_
