// What the fault tests share: a requeueable job that leaves marks in a file as
// it runs, and the check that two runs of it never overlapped in time (a node
// cut off or stopped must kill its copy before ctld's requeued copy starts).
//
// Not thread-safe; for one test thread, like LocalCluster.
#ifndef SKIFF_TESTS_HARNESS_FENCING_H_
#define SKIFF_TESTS_HARNESS_FENCING_H_

#include <cstdint>
#include <string>
#include <vector>

#include "tests/harness/local_cluster.h"

namespace skiff::testing {

// scontrol show job ID's text.
std::string ShowJob(const LocalCluster& cluster, uint64_t id);

// Lines "WHAT COPY NODE SECONDS" a ticking job appended to a file; COPY is its
// SLURM_RESTART_COUNT (0 for the first run).
struct Mark {
  std::string what, node;
  int copy = 0;
  double at = 0;
};
std::vector<Mark> ReadMarks(const std::string& path);

// A requeueable job (sbatch --requeue plus `sbatch_options`) that marks its
// start in `marks` and then ticks every 0.2 s forever. Returns its id (0 when
// sbatch failed, with a test failure).
uint64_t SubmitTickingJob(LocalCluster& cluster, const std::string& marks,
                          const std::string& sbatch_options = "");

// Waits (up to 60 s) for the job's second copy to start, then expects the first
// copy's last mark to come before it, and the job to show Restarts=1.
void ExpectTheCopiesNeverOverlapped(LocalCluster& cluster, uint64_t id, const std::string& marks);

// Whether no mark of the first copy came after the second copy's start.
bool TheFirstCopyStayedDead(const std::string& marks);

// Waits (up to 60 s) until copy `copy` has written `ticks` more marks than it
// had at the call: a window in the job's own pace (a loaded machine slows every
// copy alike) in which a copy that should be dead would have ticked too.
bool CopyTicked(const std::string& marks, int copy, int ticks);

}  // namespace skiff::testing

#endif  // SKIFF_TESTS_HARNESS_FENCING_H_
