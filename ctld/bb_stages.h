// Runs the burst_buffer.lua hooks of one stage for a job in scriptd, in the
// order Slurm's guide gives (setup, data_in and its test_data_in polls,
// real_size; pre_run; post_run when due, data_out and its polls; teardown),
// and says how it went. Blocking: called on the Controller's burst-buffer work
// queue, never under its lock. `abandoned` is asked between polls (the job was
// cancelled or is gone: stop polling).
#ifndef SKIFF_CTLD_BB_STAGES_H_
#define SKIFF_CTLD_BB_STAGES_H_

#include <functional>

#include "ctld/bb_runtime.h"
#include "ctld/clients/scriptd_port.h"
#include "ctld/core/job.h"
#include "ctld/core/lifecycle/lifecycle.h"

namespace skiff::ctld {

BbStageResult RunBbStage(ScriptdPort& scripts, const BbRuntime& bb, const Job& job, BbStage stage,
                         bool hurry, const std::function<bool()>& abandoned);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_BB_STAGES_H_
